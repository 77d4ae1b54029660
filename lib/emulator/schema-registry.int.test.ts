/**
 * The emulator's schema registry against the real broker and a real registry (Apicurio's
 * Confluent-compatible API, or the user's own via SCHEMA_REGISTRY_URL), with records framed by an
 * independent serializer (@kafkajs/confluent-schema-registry).
 */
import { SchemaType } from '@kafkajs/confluent-schema-registry';
import { describe, expect, it } from 'vitest';
import { eventRecords, partialResponseMapping as mapping, runToIdle } from '../../test/support/emulator.ts';
import { createTopic, testKafka, uniqueName } from '../../test/support/kafka.ts';
import { testProducer } from '../../test/support/producer.ts';
import { ORDER_AVRO, useSchemaRegistry } from '../../test/support/registry.ts';
import type { KafkaBatchResponse, KafkaEvent, KafkaEventRecord } from '../kafka-event/types.ts';
import type { FailureEnvelope } from './destination.ts';
import type { MappingEvent } from './emulator.ts';

const kafka = testKafka('emulator-schema-registry');
const run = `kl-esm-${Date.now().toString(36)}`;
const order = ORDER_AVRO;

const registry = useSchemaRegistry();

/** The mapping's schemaRegistry: the test registry, validating (and decoding) record values as `format`. */
function valueRegistry(format: 'JSON' | 'SOURCE') {
  return {
    SchemaRegistryURI: registry.url,
    EventRecordFormat: format,
    SchemaValidationConfigs: [{ Attribute: 'VALUE' as const }],
  };
}

/** A Confluent frame naming a schema id no registry of this run has. */
function unknownSchemaFrame(): Buffer {
  const frame = Buffer.alloc(5 + 4);
  frame.writeInt32BE(2_000_000_000, 1);
  return frame;
}

async function produce(topic: string, values: Buffer[]): Promise<void> {
  await createTopic(kafka, topic, 1);
  await append(topic, values);
}

async function append(topic: string, values: Buffer[]): Promise<void> {
  const kafkaProducer = testProducer(kafka);
  await kafkaProducer.connect();
  try {
    await kafkaProducer.send({ topic, messages: values.map((value, i) => ({ key: `k${i}`, value })) });
  } finally {
    await kafkaProducer.disconnect();
  }
}

const item = {
  type: 'object',
  properties: { id: { type: 'string' }, kind: { enum: ['ok', 'fail', 'skip'] } },
  required: ['id', 'kind'],
};

/** Every message of a topic, `<offset> <condition>` of each envelope, once `count` have come. */
async function destinationMessages(topic: string, count: number): Promise<string[]> {
  const consumer = kafka.consumer({ groupId: uniqueName('dlq-reader') });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const messages: string[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${messages.length} of ${count} messages`)), 60_000);
      void consumer.run({
        eachMessage: async ({ message }) => {
          const envelope = JSON.parse(message.value!.toString()) as FailureEnvelope;
          messages.push(`${envelope.KafkaBatchInfo.recordInfo.offset} ${envelope.requestContext.condition}`);
          if (messages.length >= count) {
            clearTimeout(timer);
            resolve();
          }
        },
      });
    });
  } finally {
    await consumer.disconnect();
  }
  return messages;
}

/** A partial batch response failing the records whose value is of kind `fail`. */
function failKindFail(event: KafkaEvent): KafkaBatchResponse {
  return {
    batchItemFailures: eventRecords(event)
      .filter((r) => JSON.parse(Buffer.from(r.value!, 'base64').toString()).kind === 'fail')
      .map((r) => ({ itemIdentifier: { partition: `${r.topic}-${r.partition}`, offset: r.offset } })),
  };
}

describe('a mapping with schemaRegistry', () => {
  it("sends a partition's failed records to a kafka:// destination in offset order, whatever made each fail and when", async () => {
    const id = await registry.register(SchemaType.JSON, item, `${run}-items-value`);
    const value = (n: number, kind: string) => registry.producer.encode(id, { id: `i-${n}`, kind });
    const unframed = Buffer.from(JSON.stringify({ id: 'plain', kind: 'ok' }));
    const topic = uniqueName('t-js');
    const dlq = `${topic}-dlq`;
    await createTopic(kafka, dlq, 1);
    // @0 and @5 fail in the function (no retry), @1 and @3 do not deserialize, @2's schema is not in the
    // registry (the one record whose writer schema is looked up and not found).
    await produce(topic, [
      await value(0, 'fail'),
      unframed,
      unknownSchemaFrame(),
      unframed,
      await value(4, 'ok'),
      await value(5, 'fail'),
    ]);
    const events: string[] = [];
    const { esm, invoked } = await runToIdle(
      {
        topic,
        consumerGroupId: uniqueName('t-js-group'),
        maximumRetryAttempts: 0,
        schemaRegistry: valueRegistry('JSON'),
        onFailure: `kafka://${dlq}`,
        onEvent: (event: MappingEvent) => {
          if (event.type === 'destination') events.push(`${event.offset} ${event.condition}`);
        },
      },
      async (event) => failKindFail(event),
    );

    expect(await destinationMessages(dlq, 5)).toEqual([
      '0 RetriesExhausted',
      '1 DESERIALIZATION_ERROR',
      '2 SCHEMA_NOT_FOUND',
      '3 DESERIALIZATION_ERROR',
      '5 RetriesExhausted',
    ]);
    expect(events).toEqual([
      '0 RetryAttemptsExhausted',
      '1 DESERIALIZATION_ERROR',
      '2 SCHEMA_NOT_FOUND',
      '3 DESERIALIZATION_ERROR',
      '5 RetryAttemptsExhausted',
    ]);
    // From the lowest failed offset: @4 again, in a fresh batch after @0 exhausted its attempts.
    expect(invoked).toEqual([
      [0, 4, 5],
      [4, 5],
    ]);
    expect(esm.stats()).toMatchObject({ destinationRecords: 5, droppedRecords: 0 });
    expect(esm.stats().partitions[0]?.committed).toBe(6);
  }, 180_000);

  it('an exhausted record followed only by records the filter drops commits past them', async () => {
    const id = await registry.register(SchemaType.JSON, item, `${run}-items-value`);
    const topic = uniqueName('t-js-tail');
    await produce(topic, [
      await registry.producer.encode(id, { id: 'i-0', kind: 'ok' }),
      await registry.producer.encode(id, { id: 'i-1', kind: 'fail' }),
      await registry.producer.encode(id, { id: 'i-2', kind: 'skip' }),
    ]);
    const events: string[] = [];
    const esm = mapping({
      topic,
      consumerGroupId: uniqueName('t-js-tail-group'),
      maximumRetryAttempts: 0,
      schemaRegistry: valueRegistry('JSON'),
      filterCriteria: { Filters: [{ Pattern: JSON.stringify({ value: { kind: ['ok', 'fail'] } }) }] },
      onEvent: (event: MappingEvent) => {
        if (event.type === 'destination') events.push(`${event.offset} ${event.dropped}`);
      },
      function: { handler: async (event: KafkaEvent) => failKindFail(event) },
    });
    await esm.start();
    // Before, the commit stopped at @2 (past @1 only), and idle() waited for a record that would never come.
    const idle = esm.idle().then(() => 'idle');
    const waited = await Promise.race([idle, new Promise((resolve) => setTimeout(resolve, 30_000, 'stuck'))]);
    const committed = esm.stats().partitions[0]?.committed;
    await esm.stop();
    await idle.catch(() => {});
    expect({ waited, committed }).toEqual({ waited: 'idle', committed: 3 });
    expect(events).toEqual(['1 no-destination']);
    expect(esm.stats().recordsFiltered).toBe(1);
  }, 180_000);

  it('sends an unknown schema to the destination with SCHEMA_NOT_FOUND, a corrupt record with DESERIALIZATION_ERROR, and delivers the rest in order as JSON with metadata', async () => {
    const id = await registry.register(SchemaType.AVRO, order, `${run}-orders-value`);
    const good = async (n: number) => registry.producer.encode(id, { id: `o-${n}`, total: n });
    const corrupt = Buffer.concat([(await good(0)).subarray(0, 5), Buffer.from([0xff, 0xff, 0xff])]);
    const topic = uniqueName('schema-json');
    await produce(topic, [await good(1), unknownSchemaFrame(), await good(2), corrupt, await good(3)]);

    const delivered: KafkaEventRecord[] = [];
    const { esm, envelopes: failures } = await runToIdle(
      {
        topic,
        consumerGroupId: uniqueName('schema-json-group'),
        maximumRetryAttempts: 0,
        schemaRegistry: valueRegistry('JSON'),
      },
      async (event) => {
        delivered.push(...eventRecords(event));
        return undefined;
      },
    );

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
    const id = await registry.register(SchemaType.AVRO, order, `${run}-orders-value`);
    const framed = await registry.producer.encode(id, { id: 'o-9', total: 9 });
    const topic = uniqueName('schema-source');
    await produce(topic, [framed]);
    const delivered: KafkaEventRecord[] = [];
    const esm = mapping({
      topic,
      consumerGroupId: uniqueName('schema-source-group'),
      schemaRegistry: valueRegistry('SOURCE'),
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
