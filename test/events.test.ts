import { readdir, readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { KafkaEvent, KafkaEventRecord } from '../lib/kafka-event/types.ts';
import { validateKafkaEvent } from '../lib/testing/index.ts';
import { sampleEvents } from './events/generate.ts';

const dir = new URL('./events/', import.meta.url);
const files = (await readdir(dir)).filter((name) => name.endsWith('.json')).sort();
const samples: Record<string, KafkaEvent> = Object.fromEntries(
  await Promise.all(
    files.map(async (name) => [name, JSON.parse(await readFile(new URL(name, dir), 'utf8'))] as const),
  ),
);
const sample = (name: string) => samples[name] ?? expect.fail(`test/events/${name} is missing`);
const records = (event: KafkaEvent) => Object.values(event.records).flat();
const bytes = (base64: string | null | undefined) =>
  base64 === undefined ? undefined : base64 === null ? null : Buffer.from(base64, 'base64');
const text = (base64: string | null | undefined) => bytes(base64)?.toString('utf8');
const headerPairs = (record: KafkaEventRecord) =>
  (record.headers ?? []).map((header) => {
    const [[name, value]] = Object.entries(header) as [[string, number[]]];
    return [name, Buffer.from(value)] as const;
  });
const isMismatchSample = (name: string) => name.includes('map-key-mismatch');

describe('sample events (test/events/*.json)', () => {
  it('are exactly what test/events/generate.ts writes', () => {
    expect(files).toEqual(Object.keys(sampleEvents()).sort());
    expect(samples).toStrictEqual(sampleEvents());
  });

  it.each(files.filter((name) => !isMismatchSample(name)))('%s is a valid Lambda Kafka event', (name) => {
    expect(validateKafkaEvent(sample(name))).toBe(sample(name));
  });

  it.each(files.filter(isMismatchSample))(
    '%s is valid except for the keys it deliberately mismatches',
    (name) => {
      expect(() => validateKafkaEvent(sample(name))).toThrow(
        /key does not match its records' topic and partition/,
      );
      expect(validateKafkaEvent(sample(name), { allowKeyMismatch: true })).toBe(sample(name));
    },
  );

  it('cover every shape the middleware must handle', () => {
    const all = Object.values(samples);
    const everyRecord = all.flatMap(records);
    const sources = new Set(all.map((event) => event.eventSource));
    expect([...sources].sort()).toEqual(['SelfManagedKafka', 'aws:SelfManagedKafka', 'aws:kafka']);
    expect(everyRecord.some((r) => r.topic.includes('-'))).toBe(true);
    expect(everyRecord.some((r) => r.topic.includes('.') && r.topic.includes('_'))).toBe(true);
    expect(all.some((event) => Object.keys(event.records).length >= 3)).toBe(true);
    expect(everyRecord.some((r) => !('key' in r))).toBe(true);
    expect(everyRecord.some((r) => r.key === null)).toBe(true);
    expect(everyRecord.some((r) => r.value === null)).toBe(true);
    expect(everyRecord.some((r) => r.offset > 2 ** 32)).toBe(true);
    expect(everyRecord.some((r) => r.headers?.some((h) => Object.values(h)[0]!.some((b) => b < 0)))).toBe(
      true,
    );
    expect(
      everyRecord.some((r) => {
        const names = (r.headers ?? []).map((h) => Object.keys(h)[0]);
        return new Set(names).size < names.length;
      }),
    ).toBe(true);
    expect(everyRecord.some((r) => r.keySchemaMetadata && r.valueSchemaMetadata)).toBe(true);
  });
});

describe('msk-order-events.json (the README example)', () => {
  const event = sample('msk-order-events.json');

  it('holds orders o-1001…o-1009 over three partitions of order-events', () => {
    const layout = Object.fromEntries(
      Object.entries(event.records).map(([key, run]) => [
        key,
        run.map((r) => `${r.offset}:${(JSON.parse(text(r.value)!) as { orderId: string }).orderId}`),
      ]),
    );
    expect(layout).toEqual({
      'order-events-0': ['1200:o-1001', '1201:o-1004', '1202:o-1007'],
      'order-events-1': ['1041:o-1002', '1042:o-1005', '1043:o-1008', '1044:o-1009'],
      'order-events-2': ['998:o-1003', '999:o-1006'],
    });
  });

  it('has exactly one invalid order: o-1005 at order-events-1@1042', () => {
    const [, invalid] = event.records['order-events-1']!;
    expect(text(invalid!.value)).toBe(
      '{"orderId":"o-1005","customerId":"customer-4","items":"two mugs","currency":42}',
    );
    expect(text(event.records['order-events-0']![0]!.value)).toBe(
      '{"orderId":"o-1001","customerId":"customer-17","items":[{"sku":"BOOK-42","quantity":1,"unitPrice":12.5}],"currency":"EUR"}',
    );
    const wellFormed = records(event).filter((r) => {
      const order = JSON.parse(text(r.value)!) as { items: unknown; currency: unknown };
      return Array.isArray(order.items) && order.currency === 'EUR';
    });
    expect(wellFormed).toHaveLength(8);
  });

  it('keys each order by customer and marks it as JSON', () => {
    const first = event.records['order-events-2']![0]!;
    expect(text(first.key)).toBe('customer-9');
    expect(headerPairs(first)).toEqual([['content-type', Buffer.from('application/json')]]);
  });
});

describe('msk-edge-cases.json', () => {
  const event = sample('msk-edge-cases.json');
  const [absentKey, nullKey, emptyKey, tombstone] = event.records['payments.v2_eu-west-0']!;
  const [withHeaders, binary] = event.records['payments.v2_eu-west-7']!;

  it('keeps absent, null and empty keys apart, and a tombstone apart from an empty value', () => {
    expect(absentKey).not.toHaveProperty('key');
    expect(text(absentKey!.value)).toBe('no key field at all');
    expect(nullKey).toHaveProperty('key', null);
    expect(text(nullKey!.value)).toBe('key is null');
    expect(emptyKey).toMatchObject({ key: '', value: '' });
    expect(tombstone).toHaveProperty('value', null);
    expect(text(tombstone!.key)).toBe('payment-88');
  });

  it('carries repeated, non-UTF-8, UTF-8 and empty headers as signed bytes', () => {
    expect(withHeaders!.headers).toEqual([
      { retry: [49] },
      { retry: [50] },
      { 'trace-bin': [-34, -83, -66, -17] },
      { city: [90, -61, -68, 114, 105, 99, 104] },
      { empty: [] },
    ]);
    expect(headerPairs(withHeaders!).map(([name, value]) => [name, value.toString('hex')])).toEqual([
      ['retry', '31'],
      ['retry', '32'],
      ['trace-bin', 'deadbeef'],
      ['city', Buffer.from('Zürich').toString('hex')],
      ['empty', ''],
    ]);
    expect(text(withHeaders!.value)).toBe('{"paymentId":"payment-1","amount":99.95}');
  });

  it('carries binary keys and values that are not UTF-8', () => {
    expect(bytes(binary!.key)!.toString('hex')).toBe('00ff807f');
    expect(bytes(binary!.value)!.toString('hex')).toBe('c328a0a1');
    expect(binary!.timestampType).toBe('LOG_APPEND_TIME');
  });

  it('has offsets beyond 2^32 and just below 2^53 in partitions 7 and 12', () => {
    expect(event.records['payments.v2_eu-west-7']!.map((r) => r.offset)).toEqual([
      4_294_967_301, 4_294_967_302,
    ]);
    expect(event.records['payments.v2_eu-west-12']!.map((r) => r.offset)).toEqual([9_007_199_254_740_990]);
  });
});

describe('msk-schema-registry.json', () => {
  it('has JSON keys and Avro values with schema metadata', () => {
    const event = sample('msk-schema-registry.json');
    expect(
      records(event).map((r) => [
        r.partition,
        r.offset,
        text(r.key),
        bytes(r.value)!.toString('hex'),
        r.keySchemaMetadata,
        r.valueSchemaMetadata,
      ]),
    ).toEqual([
      [
        0,
        310,
        '{"id":7}',
        '0e06416461',
        { dataFormat: 'JSON', schemaId: '5' },
        { dataFormat: 'AVRO', schemaId: '17' },
      ],
      [
        0,
        311,
        '{"id":8}',
        '100a4772616365',
        { dataFormat: 'JSON', schemaId: '5' },
        { dataFormat: 'AVRO', schemaId: '17' },
      ],
      [
        1,
        52,
        '{"id":-1}',
        '01085a6fc3ab',
        { dataFormat: 'JSON', schemaId: '5' },
        { dataFormat: 'AVRO', schemaId: '17' },
      ],
    ]);
  });
});

describe('self-managed samples', () => {
  it('self-managed-events.json: SelfManagedKafka, no ARN, three partitions of click-stream', () => {
    const event = sample('self-managed-events.json');
    expect(event.eventSource).toBe('SelfManagedKafka');
    expect(event).not.toHaveProperty('eventSourceArn');
    expect(
      Object.fromEntries(
        Object.entries(event.records).map(([key, run]) => [key, run.map((r) => text(r.value))]),
      ),
    ).toEqual({
      'click-stream-0': ['{"page":"/home","userId":"u-1"}', '{"page":"/checkout","userId":"u-1"}'],
      'click-stream-1': ['{"page":"/cart","userId":"u-2"}', '{"page":"/home","userId":"u-2"}'],
      'click-stream-2': ['plain text, not JSON'],
    });
    expect(records(event).map(headerPairs)).toEqual(Array(5).fill([['source', Buffer.from('web')]]));
  });

  it('self-managed-aws-prefix.json: the aws:SelfManagedKafka spelling', () => {
    const event = sample('self-managed-aws-prefix.json');
    expect(event.eventSource).toBe('aws:SelfManagedKafka');
    expect(records(event).map((r) => [r.offset, text(r.key), text(r.value)])).toEqual([
      [100, 'sensor-1', '21.5'],
      [101, 'sensor-1', '21.7'],
    ]);
  });
});

describe('msk-map-key-mismatch.json', () => {
  it('files partition 0 under "mytopic-01" and partition 12 under "mytopic-0"', () => {
    const event = sample('msk-map-key-mismatch.json');
    expect(
      Object.fromEntries(
        Object.entries(event.records).map(([key, run]) => [
          key,
          run.map((r) => [r.partition, r.offset, text(r.value)]),
        ]),
      ),
    ).toEqual({
      'mytopic-01': [
        [0, 15, 'Hello, this is a test.'],
        [0, 16, 'And another one.'],
      ],
      'mytopic-0': [[12, 3, 'Partition twelve.']],
    });
  });
});
