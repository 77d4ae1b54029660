// The schema-registry sample events (test/events/schema-*.json) decode, through kafkaBatch and the
// decoders of kafka-lambda/avro, /protobuf and /json-schema, to the three orders they were made from,
// in each wire situation; and `kafka-lambda event` writes the same records.
import { readFileSync } from 'node:fs';
import middy from '@middy/core';
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { avroDecoder } from '../lib/avro/index.ts';
import { jsonSchemaDecoder } from '../lib/json-schema/index.ts';
import type { KafkaEvent } from '../lib/kafka-event/types.ts';
import { kafkaBatch } from '../lib/middleware/middleware.ts';
import type { KafkaDecoder } from '../lib/middleware/options.ts';
import { protobufDecoder } from '../lib/protobuf/index.ts';
import { invokeHandler } from '../lib/testing/invoke-handler.ts';
import { runCli } from './support/run-cli.ts';

const schema = (file: string) => readFileSync(new URL(`events/schemas/${file}`, import.meta.url), 'utf8');
const sample = (name: string) =>
  JSON.parse(readFileSync(new URL(`events/${name}`, import.meta.url), 'utf8')) as KafkaEvent;
const ORDERS = [
  { orderId: 'o-2001', customerId: 'customer-7', total: 12.5 },
  { orderId: 'o-2002', customerId: 'customer-8', total: 40 },
  { orderId: 'o-2003', customerId: 'customer-7', total: 3.25 },
];
const OrderProto = protobuf.parse(schema('order.proto'), { keepCase: true }).root.lookupType('shop.Order');

type Wire = 'json' | 'source' | 'confluent' | 'glue';
const decoders: Record<string, (wire: Wire) => KafkaDecoder<unknown>> = {
  avro: (wire) =>
    avroDecoder({
      schema: schema('order.avsc'),
      ...(wire === 'json' || wire === 'source' ? { eventRecordFormat: wire.toUpperCase() as 'JSON' } : {}),
    }),
  protobuf: (wire) =>
    protobufDecoder({
      type: OrderProto,
      ...(wire === 'json' || wire === 'source' ? { eventRecordFormat: wire.toUpperCase() as 'JSON' } : {}),
    }),
  'json-schema': (wire) =>
    jsonSchemaDecoder({
      schema: JSON.parse(schema('order.schema.json')),
      ...(wire === 'json' || wire === 'source' ? { eventRecordFormat: wire.toUpperCase() as 'JSON' } : {}),
    }),
};

async function decodeAll(event: KafkaEvent, value: KafkaDecoder<unknown>): Promise<unknown[]> {
  const data: unknown[] = [];
  const handler = middy().use(
    kafkaBatch({
      value,
      onRecord: (record) => {
        const decoded = record.data as Record<string, unknown>;
        data.push({ ...decoded });
      },
    }),
  );
  const response = await invokeHandler(handler, event, { timeoutMs: 30_000 });
  expect(response).toEqual({ batchItemFailures: [] });
  return data;
}

const cases: Array<[string, Wire]> = [
  ['avro', 'json'],
  ['avro', 'source'],
  ['avro', 'confluent'],
  ['avro', 'glue'],
  ['protobuf', 'json'],
  ['protobuf', 'source'],
  ['protobuf', 'confluent'],
  ['json-schema', 'json'],
  ['json-schema', 'source'],
  ['json-schema', 'confluent'],
];

describe('schema-registry sample events', () => {
  it.each(cases)('schema-%s-%s.json decodes to the three orders', async (format, wire) => {
    const event = sample(`schema-${format}-${wire}.json`);
    const records = Object.values(event.records).flat();
    const dataFormat = { avro: 'AVRO', protobuf: 'PROTOBUF', 'json-schema': 'JSON' }[format];
    for (const record of records) {
      if (wire === 'json' || wire === 'source')
        expect(record.valueSchemaMetadata).toEqual({ dataFormat, schemaId: '17' });
      else expect(record.valueSchemaMetadata).toBeUndefined();
      const first = Buffer.from(record.value!, 'base64')[0];
      if (wire === 'confluent') expect(first).toBe(0);
      if (wire === 'glue') expect(first).toBe(3);
    }
    if (wire === 'json') {
      const texts = records.map((r) => JSON.parse(Buffer.from(r.value!, 'base64').toString('utf8')));
      expect(texts).toEqual(ORDERS);
    }
    expect(await decodeAll(event, decoders[format]!(wire))).toEqual(ORDERS);
  });
});

describe('kafka-lambda event with a schema', () => {
  const first = { orderId: 'o-2001', customerId: 'customer-7', total: 12.5 };

  it.each([
    [['--value-avro', 'test/events/schemas/order.avsc', '--format', 'json'], 'schema-avro-json.json'],
    [['--value-avro', 'test/events/schemas/order.avsc', '--format', 'glue'], 'schema-avro-glue.json'],
    [
      ['--value-proto', 'test/events/schemas/order.proto', '--type', 'shop.Order', '--format', 'source'],
      'schema-protobuf-source.json',
    ],
    [
      ['--value-proto', 'test/events/schemas/order.proto', '--type', 'shop.Order', '--format', 'confluent'],
      'schema-protobuf-confluent.json',
    ],
    [
      ['--value-json-schema', 'test/events/schemas/order.schema.json', '--format', 'confluent'],
      'schema-json-schema-confluent.json',
    ],
  ])(
    '%j encodes the first order as %s holds it',
    async (schemaArgs, name) => {
      const args = ['event', '--topic', 'orders', ...schemaArgs, '--value', JSON.stringify(first)];
      if (!name.includes('glue')) args.push('--schema-id', '17');
      const run = await runCli(args);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      const [record] = Object.values((JSON.parse(run.stdout) as KafkaEvent).records).flat();
      const [expected] = Object.values(sample(name).records).flat();
      expect(record!.value).toBe(expected!.value);
      expect(record!.valueSchemaMetadata).toEqual(expected!.valueSchemaMetadata);
    },
    60_000,
  );

  it('refuses a value that does not fit the schema, naming where, with exit code 2', async () => {
    const run = await runCli([
      'event',
      '--topic',
      'orders',
      '--value-avro',
      'test/events/schemas/order.avsc',
      '--value',
      '{"orderId":1}',
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/does not fit the Avro schema at orderId/);
    expect(run.stdout).toBe('');
  }, 60_000);
});
