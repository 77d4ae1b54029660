/**
 * The emulator's schema registry against the real broker and a real registry (Apicurio's
 * Confluent-compatible API, or the user's own via SCHEMA_REGISTRY_URL), with records framed by an
 * independent serializer (@kafkajs/confluent-schema-registry).
 */
import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import { beforeAll, describe, expect, it } from 'vitest';
import { eventRecords, partialResponseMapping as mapping } from '../../test/support/emulator.ts';
import { createTopic, testKafka, uniqueName } from '../../test/support/kafka.ts';
import { testProducer } from '../../test/support/producer.ts';
import { useSchemaRegistry } from '../../test/support/registry.ts';
import type { KafkaEvent, KafkaEventRecord } from '../kafka-event/types.ts';
import type { FailureEnvelope } from './destination.ts';

const kafka = testKafka('emulator-schema-registry');
let url: string;
let producer: SchemaRegistry;
const run = `kl-esm-${Date.now().toString(36)}`;

const order = {
  type: 'record',
  name: 'Order',
  namespace: 'test.kafkalambda',
  fields: [
    { name: 'id', type: 'string' },
    { name: 'total', type: 'double' },
  ],
};

const registry = useSchemaRegistry();
beforeAll(() => {
  url = registry.url;
  producer = new SchemaRegistry({ host: url });
});

/** A Confluent frame naming a schema id no registry of this run has. */
function unknownSchemaFrame(): Buffer {
  const frame = Buffer.alloc(5 + 4);
  frame.writeInt32BE(2_000_000_000, 1);
  return frame;
}

async function produce(topic: string, values: Buffer[]): Promise<void> {
  await createTopic(kafka, topic, 1);
  const kafkaProducer = testProducer(kafka);
  await kafkaProducer.connect();
  try {
    await kafkaProducer.send({ topic, messages: values.map((value, i) => ({ key: `k${i}`, value })) });
  } finally {
    await kafkaProducer.disconnect();
  }
}

describe('a mapping with schemaRegistry', () => {
  it('sends an unknown schema to the destination with SCHEMA_NOT_FOUND, a corrupt record with DESERIALIZATION_ERROR, and delivers the rest in order as JSON with metadata', async () => {
    const { id } = await producer.register(
      { type: SchemaType.AVRO, schema: JSON.stringify(order) },
      { subject: `${run}-orders-value` },
    );
    const good = async (n: number) => producer.encode(id, { id: `o-${n}`, total: n });
    const corrupt = Buffer.concat([(await good(0)).subarray(0, 5), Buffer.from([0xff, 0xff, 0xff])]);
    const topic = uniqueName('schema-json');
    await produce(topic, [await good(1), unknownSchemaFrame(), await good(2), corrupt, await good(3)]);

    const delivered: KafkaEventRecord[] = [];
    const failures: FailureEnvelope[] = [];
    const esm = mapping({
      topic,
      consumerGroupId: uniqueName('schema-json-group'),
      maximumRetryAttempts: 0,
      schemaRegistry: {
        SchemaRegistryURI: url,
        EventRecordFormat: 'JSON',
        SchemaValidationConfigs: [{ Attribute: 'VALUE' }],
      },
      onFailure: (envelope) => {
        failures.push(envelope);
      },
      function: {
        handler: async (event: KafkaEvent) => {
          delivered.push(...eventRecords(event));
        },
      },
    });
    await esm.start();
    await esm.idle();
    await esm.stop();

    expect(delivered.map((r) => r.offset)).toEqual([0, 2, 4]);
    expect(delivered.map((r) => JSON.parse(Buffer.from(r.value!, 'base64').toString('utf8')))).toEqual([
      { id: 'o-1', total: 1 },
      { id: 'o-2', total: 2 },
      { id: 'o-3', total: 3 },
    ]);
    for (const record of delivered) {
      expect(record.valueSchemaMetadata).toEqual({ dataFormat: 'AVRO', schemaId: String(id) });
      expect(record.keySchemaMetadata).toBeUndefined();
      expect(Buffer.from(record.key!, 'base64').toString()).toBe(`k${record.offset}`);
    }
    // One envelope per record, the record as produced (framing and all), the reason as condition.
    expect(
      failures.map((envelope) => ({
        condition: envelope.requestContext.condition,
        offset: envelope.KafkaBatchInfo.recordInfo.offset,
        responseContext: envelope.responseContext,
      })),
    ).toEqual([
      { condition: 'SCHEMA_NOT_FOUND', offset: '1', responseContext: null },
      { condition: 'DESERIALIZATION_ERROR', offset: '3', responseContext: null },
    ]);
    const parked = failures.map((envelope) => Object.values(envelope.payload.records).flat()[0]!);
    expect(Buffer.from(parked[0]!.value!, 'base64')).toEqual(unknownSchemaFrame());
    expect(Buffer.from(parked[1]!.value!, 'base64')).toEqual(corrupt);
    expect(esm.stats().destinationRecords).toBe(2);
    expect(esm.stats().partitions[0]?.committed).toBe(5);
  }, 120_000);

  it('SOURCE hands over the Avro bytes without the Confluent framing', async () => {
    const { id } = await producer.register(
      { type: SchemaType.AVRO, schema: JSON.stringify(order) },
      { subject: `${run}-orders-value` },
    );
    const framed = await producer.encode(id, { id: 'o-9', total: 9 });
    const topic = uniqueName('schema-source');
    await produce(topic, [framed]);
    const delivered: KafkaEventRecord[] = [];
    const esm = mapping({
      topic,
      consumerGroupId: uniqueName('schema-source-group'),
      schemaRegistry: {
        SchemaRegistryURI: url,
        EventRecordFormat: 'SOURCE',
        SchemaValidationConfigs: [{ Attribute: 'VALUE' }],
      },
      function: {
        handler: async (event: KafkaEvent) => {
          delivered.push(...eventRecords(event));
        },
      },
    });
    await esm.start();
    await esm.idle();
    await esm.stop();
    expect(delivered).toHaveLength(1);
    expect(Buffer.from(delivered[0]!.value!, 'base64')).toEqual(framed.subarray(5));
    expect(delivered[0]!.valueSchemaMetadata).toEqual({ dataFormat: 'AVRO', schemaId: String(id) });
  }, 120_000);
});
