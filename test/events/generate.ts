// Writes the sample events of test/events/ from plain values: `node test/events/generate.ts`.
// test/events.test.ts checks the committed files equal this output and decode to what the README says.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { KafkaEvent } from '../../lib/kafka-event/types.ts';
import { kafkaEvent } from '../../lib/testing/index.ts';
import { type SchemaFormat, type SchemaWire, schemaEncoder } from '../../lib/testing/schema-encode.ts';

const order = (orderId: string, customerId: string, sku: string, quantity: number, unitPrice: number) => ({
  orderId,
  customerId,
  items: [{ sku, quantity, unitPrice }],
  currency: 'EUR',
});

/** Every sample, by file name. */
export function sampleEvents(): Record<string, KafkaEvent> {
  return {
    // The README example's input: one invalid order (o-1005, order-events-1@1042) among valid ones.
    'msk-order-events.json': kafkaEvent({
      topic: 'order-events',
      eventSourceArn:
        'arn:aws:kafka:eu-west-1:111122223333:cluster/orders/0f3c2a9e-7d1b-4c55-9e1f-3b2d8c6a5f10-3',
      bootstrapServers:
        'b-1.orders.x1y2z3.c3.kafka.eu-west-1.amazonaws.com:9098,b-2.orders.x1y2z3.c3.kafka.eu-west-1.amazonaws.com:9098',
      timestamp: 1_764_410_400_000,
      records: [
        {
          partition: 0,
          offset: 1200,
          key: 'customer-17',
          value: order('o-1001', 'customer-17', 'BOOK-42', 1, 12.5),
        },
        {
          partition: 1,
          offset: 1041,
          key: 'customer-4',
          value: order('o-1002', 'customer-4', 'MUG-7', 2, 8),
        },
        {
          partition: 2,
          offset: 998,
          key: 'customer-9',
          value: order('o-1003', 'customer-9', 'PEN-1', 10, 1.2),
        },
        { partition: 0, key: 'customer-17', value: order('o-1004', 'customer-17', 'LAMP-3', 1, 39.9) },
        {
          partition: 1,
          key: 'customer-4',
          value: { orderId: 'o-1005', customerId: 'customer-4', items: 'two mugs', currency: 42 },
        },
        { partition: 2, key: 'customer-9', value: order('o-1006', 'customer-9', 'INK-2', 3, 4.75) },
        { partition: 0, key: 'customer-23', value: order('o-1007', 'customer-23', 'BOOK-42', 2, 12.5) },
        { partition: 1, key: 'customer-4', value: order('o-1008', 'customer-4', 'TEA-5', 4, 6.1) },
        { partition: 1, key: 'customer-31', value: order('o-1009', 'customer-31', 'MUG-7', 1, 8) },
      ].map((record) => ({ ...record, headers: [['content-type', 'application/json']] as const })),
    }),

    // Edge cases in one MSK event: a topic name with dots, an underscore and a dash; partitions 0, 7
    // and 12; absent, null and empty keys; a tombstone and an empty value; repeated, empty, UTF-8
    // and non-UTF-8 headers; LOG_APPEND_TIME; offsets beyond 2^32 and just below 2^53.
    'msk-edge-cases.json': kafkaEvent({
      topic: 'payments.v2_eu-west',
      eventSourceArn:
        'arn:aws:kafka:eu-west-1:111122223333:cluster/payments/5a1e7c3d-0b9f-4e2a-8c6d-1f4b7e9a2c30-2',
      bootstrapServers: 'b-1.payments.a1b2c3.c2.kafka.eu-west-1.amazonaws.com:9098',
      timestamp: 1_764_410_500_000,
      records: [
        { partition: 0, offset: 17, value: 'no key field at all' },
        { partition: 0, key: null, value: 'key is null' },
        { partition: 0, key: '', value: '' },
        { partition: 0, key: 'payment-88', value: null },
        {
          partition: 7,
          offset: 4_294_967_296 + 5,
          key: 'payment-1',
          value: { paymentId: 'payment-1', amount: 99.95 },
          headers: [
            ['retry', '1'],
            ['retry', '2'],
            ['trace-bin', Uint8Array.of(0xde, 0xad, 0xbe, 0xef)],
            ['city', 'Zürich'],
            ['empty', ''],
          ],
        },
        {
          partition: 7,
          key: Uint8Array.of(0x00, 0xff, 0x80, 0x7f),
          value: Uint8Array.of(0xc3, 0x28, 0xa0, 0xa1),
          timestampType: 'LOG_APPEND_TIME',
        },
        { partition: 12, offset: 9_007_199_254_740_990, key: 'payment-2', value: 'nearly 2^53' },
      ],
    }),

    // Schema registry (EventRecordFormat SOURCE): JSON keys, Avro values (record {id: long, name: string}).
    'msk-schema-registry.json': kafkaEvent({
      topic: 'customer_profiles',
      eventSourceArn:
        'arn:aws:kafka:us-east-1:111122223333:cluster/profiles/9e8d7c6b-5a4f-4e3d-9c2b-1a0f9e8d7c6b-1',
      bootstrapServers: 'b-1.profiles.q9w8e7.c1.kafka.us-east-1.amazonaws.com:9098',
      timestamp: 1_764_410_600_000,
      records: [
        { partition: 0, offset: 310, key: { id: 7 }, value: Uint8Array.of(0x0e, 0x06, 0x41, 0x64, 0x61) },
        { partition: 0, key: { id: 8 }, value: Uint8Array.of(0x10, 0x0a, 0x47, 0x72, 0x61, 0x63, 0x65) },
        {
          partition: 1,
          offset: 52,
          key: { id: -1 },
          value: Uint8Array.of(0x01, 0x08, 0x5a, 0x6f, 0xc3, 0xab),
        },
      ].map((record) => ({
        ...record,
        keySchemaMetadata: { dataFormat: 'JSON', schemaId: '5' },
        valueSchemaMetadata: { dataFormat: 'AVRO', schemaId: '17' },
      })),
    }),

    'self-managed-events.json': kafkaEvent({
      topic: 'click-stream',
      eventSource: 'SelfManagedKafka',
      bootstrapServers: 'kafka-1.internal.example.com:9092,kafka-2.internal.example.com:9092',
      timestamp: 1_764_410_700_000,
      records: [
        { partition: 0, offset: 5000, key: 'session-a', value: { page: '/home', userId: 'u-1' } },
        { partition: 1, offset: 7300, key: 'session-b', value: { page: '/cart', userId: 'u-2' } },
        { partition: 0, key: 'session-a', value: { page: '/checkout', userId: 'u-1' } },
        { partition: 1, key: 'session-b', value: { page: '/home', userId: 'u-2' } },
        { partition: 2, offset: 12, key: 'session-c', value: 'plain text, not JSON' },
      ].map((record) => ({ ...record, headers: { source: 'web' } })),
    }),

    // The `aws:SelfManagedKafka` spelling some community samples use.
    'self-managed-aws-prefix.json': kafkaEvent({
      topic: 'sensor_readings.raw',
      eventSource: 'aws:SelfManagedKafka',
      bootstrapServers: 'kafka.plant-3.example.com:9093',
      timestamp: 1_764_410_800_000,
      records: [
        { partition: 0, offset: 100, key: 'sensor-1', value: '21.5' },
        { partition: 0, key: 'sensor-1', value: '21.7' },
      ],
    }),

    // Deliberately inconsistent: `records` keys that disagree with the records, as public AWS fixtures
    // show (Java: "mytopic-01" holding partition 0; .NET: "mytopic-0" holding partition 12). Handlers
    // must build identifiers from record.topic and record.partition.
    'msk-map-key-mismatch.json': renameKeys(
      kafkaEvent({
        topic: 'mytopic',
        eventSourceArn:
          'arn:aws:kafka:us-east-1:123456789012:cluster/vpc-2priv-2pub/751d2973-a626-431c-9d4e-d7975eb44dd7-2',
        bootstrapServers: 'b-2.demo-cluster-1.a1bcde.c1.kafka.us-east-1.amazonaws.com:9092',
        timestamp: 1_764_410_900_000,
        records: [
          { partition: 0, offset: 15, key: 'k-1', value: 'Hello, this is a test.' },
          { partition: 0, key: 'k-2', value: 'And another one.' },
          { partition: 12, offset: 3, key: 'k-3', value: 'Partition twelve.' },
        ],
      }),
      { 'mytopic-0': 'mytopic-01', 'mytopic-12': 'mytopic-0' },
    ),

    // The shape of a public sample (Powertools' kafkaEventMsk.json) that Lambda would never send: one
    // partition holding three records at the same offset (key present, absent, null). Users copy such
    // samples into their tests; kafkaBatch runs them in event order and reports the offset once.
    'msk-repeated-offsets.json': sameOffset(
      kafkaEvent({
        topic: 'inventory',
        eventSourceArn:
          'arn:aws:kafka:us-east-1:111122223333:cluster/inventory/2c4e6a8b-1d3f-4a5b-8c7d-9e0f1a2b3c4d-1',
        bootstrapServers:
          'b-1.inventory.k7m9p2.c1.kafka.us-east-1.amazonaws.com:9092,b-2.inventory.k7m9p2.c1.kafka.us-east-1.amazonaws.com:9092',
        timestamp: 1_764_411_000_000,
        records: [
          { partition: 0, offset: 15, key: 'sku-1', value: { sku: 'sku-1', stock: 4 } },
          { partition: 0, value: { sku: 'sku-2', stock: 0 } },
          { partition: 0, key: null, value: { sku: 'sku-3', stock: 9 } },
        ].map((record) => ({
          ...record,
          headers: [['source', 'warehouse']] as const,
          keySchemaMetadata: { dataFormat: 'AVRO', schemaId: '42' },
          valueSchemaMetadata: { dataFormat: 'AVRO', schemaId: '42' },
        })),
      }),
      15,
    ),
    ...schemaRegistrySamples(),
  };
}

/** The schemas of test/events/schemas/, by format (the same Order in each language). */
const ORDER_SCHEMAS: Record<SchemaFormat, { file: string; type?: string; name: string }> = {
  avro: { file: 'order.avsc', name: 'avro' },
  protobuf: { file: 'order.proto', type: 'shop.Order', name: 'protobuf' },
  'json-schema': { file: 'order.schema.json', name: 'json-schema' },
};

/**
 * `schema-<format>-<wire>.json`: three orders encoded with the Order schema of test/events/schemas/ in
 * Avro, Protobuf and JSON Schema, for each wire situation: the trigger's registry with
 * `EventRecordFormat` JSON (JSON text + `valueSchemaMetadata`) or SOURCE (encoded bytes without framing +
 * metadata), and no registry on the trigger (the producer's Confluent framing; Glue framing for Avro too).
 */
function schemaRegistrySamples(): Record<string, KafkaEvent> {
  const samples: Record<string, KafkaEvent> = {};
  const wires: Array<[SchemaWire, SchemaFormat[]]> = [
    ['json', ['avro', 'protobuf', 'json-schema']],
    ['source', ['avro', 'protobuf', 'json-schema']],
    ['confluent', ['avro', 'protobuf', 'json-schema']],
    ['glue', ['avro']],
  ];
  let timestamp = 1_764_411_100_000;
  for (const [wire, formats] of wires) {
    for (const format of formats) {
      timestamp += 1000;
      const { file, type, name } = ORDER_SCHEMAS[format];
      const encode = schemaEncoder({
        format,
        schema: readFileSync(new URL(`schemas/${file}`, import.meta.url), 'utf8'),
        ...(type ? { type } : {}),
        wire,
        ...(wire === 'glue' ? {} : { schemaId: '17' }),
      });
      const records = [
        { orderId: 'o-2001', customerId: 'customer-7', total: 12.5 },
        { orderId: 'o-2002', customerId: 'customer-8', total: 40 },
        { orderId: 'o-2003', customerId: 'customer-7', total: 3.25 },
      ].map((order, i) => {
        const { bytes, schemaMetadata } = encode(order);
        return {
          partition: 0,
          ...(i === 0 ? { offset: 500 } : {}),
          key: order.customerId,
          value: bytes,
          ...(schemaMetadata ? { valueSchemaMetadata: schemaMetadata } : {}),
        };
      });
      samples[`schema-${name}-${wire}.json`] = kafkaEvent({
        topic: 'orders',
        eventSourceArn:
          'arn:aws:kafka:eu-west-1:111122223333:cluster/orders/0f3c2a9e-7d1b-4c55-9e1f-3b2d8c6a5f10-3',
        bootstrapServers: 'b-1.orders.x1y2z3.c3.kafka.eu-west-1.amazonaws.com:9098',
        timestamp,
        records,
      });
    }
  }
  return samples;
}

/** Puts every record of the event at `offset`, as the public sample this imitates does. */
function sameOffset(event: KafkaEvent, offset: number): KafkaEvent {
  for (const run of Object.values(event.records)) for (const record of run) record.offset = offset;
  return event;
}

function renameKeys(event: KafkaEvent, names: Record<string, string>): KafkaEvent {
  const records = Object.fromEntries(
    Object.entries(event.records).map(([key, run]) => [names[key] ?? key, run]),
  );
  return { ...event, records };
}

if (import.meta.main) {
  const paths: string[] = [];
  for (const [name, event] of Object.entries(sampleEvents())) {
    const path = fileURLToPath(new URL(name, import.meta.url));
    await writeFile(path, JSON.stringify(event, null, 2));
    paths.push(path);
  }
  // The project's formatter owns the layout (`npm run check` includes these files).
  const biome = createRequire(import.meta.url).resolve('@biomejs/biome/bin/biome');
  execFileSync(process.execPath, [biome, 'format', '--write', ...paths], { stdio: 'inherit' });
}
