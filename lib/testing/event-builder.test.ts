import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { KafkaEventRecord } from '../kafka-event/types.ts';
import {
  type HeadersInput,
  type HeaderValue,
  InvalidEventInputError,
  type KafkaEventOptions,
  type KafkaRecordInput,
  kafkaEvent,
  type RecordPayload,
} from './event-builder.ts';
import { partitionForKey } from './partitioner.ts';
import { validateKafkaEvent } from './validate-event.ts';

const decode = (base64: string | null | undefined) =>
  base64 === undefined ? undefined : base64 === null ? null : Buffer.from(base64, 'base64');
const text = (base64: string | null | undefined) => decode(base64)?.toString('utf8');
const allRecords = (event: { records: Record<string, KafkaEventRecord[]> }) =>
  Object.values(event.records).flat();

describe('kafkaEvent', () => {
  it('builds an MSK event with base64 JSON values, consecutive offsets and ascending timestamps', () => {
    const event = kafkaEvent({
      topic: 'order-events',
      timestamp: 1_764_400_000_000,
      records: [{ value: { orderId: 'o-1' } }, { value: 'plain text' }],
    });
    expect(event).toEqual({
      eventSource: 'aws:kafka',
      eventSourceArn: expect.stringMatching(/^arn:aws:kafka:/),
      bootstrapServers: expect.stringMatching(/:9098$/),
      records: {
        'order-events-0': [
          {
            topic: 'order-events',
            partition: 0,
            offset: 0,
            timestamp: 1_764_400_000_000,
            timestampType: 'CREATE_TIME',
            value: Buffer.from('{"orderId":"o-1"}').toString('base64'),
            headers: [],
          },
          {
            topic: 'order-events',
            partition: 0,
            offset: 1,
            timestamp: 1_764_400_000_001,
            timestampType: 'CREATE_TIME',
            value: Buffer.from('plain text').toString('base64'),
            headers: [],
          },
        ],
      },
    });
  });

  it('refuses an option it does not know, naming the one meant, rather than build an MSK event', () => {
    const misspelled = { topic: 'clicks', records: [{ value: 'x' }], selfManaged: true };
    expect(() => kafkaEvent(misspelled as never)).toThrow(
      new InvalidEventInputError(
        'unknown option "selfManaged" (valid options: topic, records, partitions, startOffset, timestamp, eventSource, eventSourceArn, bootstrapServers)',
      ),
    );
    expect(() => kafkaEvent({ topic: 'clicks', records: [], partitons: 2 } as never)).toThrow(
      /unknown option "partitons" — did you mean "partitions"\?/,
    );
  });

  it('keeps an absent key absent and a null key null, and encodes a null value as a tombstone', () => {
    const event = kafkaEvent({ topic: 't', records: [{ value: 'a' }, { key: null, value: null }] });
    const [absent, tombstone] = event.records['t-0']!;
    expect(absent).not.toHaveProperty('key');
    expect(tombstone).toHaveProperty('key', null);
    expect(tombstone).toHaveProperty('value', null);
  });

  it('builds a tombstone without a value field from an explicit value: undefined, as Lambda sends some, but refuses a record that leaves value out', () => {
    const event = kafkaEvent({
      topic: 't',
      records: [
        { value: undefined },
        { key: null, value: undefined, timestampType: 'LOG_APPEND_TIME' },
        { key: 'k', value: undefined },
      ],
    });
    const [bare, nullKey, keyed] = event.records['t-0']!;
    expect(bare).not.toHaveProperty('value');
    expect(bare).not.toHaveProperty('key');
    expect(nullKey).not.toHaveProperty('value');
    expect(nullKey).toMatchObject({ key: null, timestampType: 'LOG_APPEND_TIME' });
    expect(keyed).not.toHaveProperty('value');
    expect(text(keyed!.key)).toBe('k');
    expect(validateKafkaEvent(event)).toBe(event);
    const forgotten = () => kafkaEvent({ topic: 't', records: [{ key: 'k' } as KafkaRecordInput] });
    expect(forgotten).toThrow(
      new InvalidEventInputError(
        'records[0] has no value: give null for a tombstone, or value: undefined for a tombstone without the field',
      ),
    );
  });

  it('keeps empty keys and values distinct from null', () => {
    const [record] = kafkaEvent({ topic: 't', records: [{ key: '', value: new Uint8Array() }] }).records[
      't-0'
    ]!;
    expect(record).toMatchObject({ key: '', value: '' });
  });

  it('encodes headers as signed bytes, from pairs or a record, keeping repeated names in order', () => {
    const bytes = Uint8Array.of(0xde, 0xad, 0x00, 0x7f, 0x80);
    const fromPairs = kafkaEvent({
      topic: 't',
      records: [
        {
          value: 'v',
          headers: [
            ['retry', '1'],
            ['bin', bytes],
            ['retry', '2'],
          ],
        },
      ],
    });
    const fromRecord = kafkaEvent({
      topic: 't',
      records: [{ value: 'v', headers: { retry: ['1', '2'], bin: bytes } }],
    });
    expect(fromPairs.records['t-0']![0]!.headers).toEqual([
      { retry: [49] },
      { bin: [-34, -83, 0, 127, -128] },
      { retry: [50] },
    ]);
    expect(fromRecord.records['t-0']![0]!.headers).toEqual([
      { retry: [49] },
      { retry: [50] },
      { bin: [-34, -83, 0, 127, -128] },
    ]);
  });

  it('takes an ArrayBuffer and every ArrayBufferView (DataView, typed arrays, a Buffer slice) as their bytes, in values, keys and headers', () => {
    const backing = Uint8Array.of(9, 1, 2, 3, 9);
    const slice = Buffer.from(backing.buffer, 1, 3);
    const inputs: RecordPayload[] = [
      Uint8Array.of(1, 2, 3).buffer,
      new DataView(backing.buffer, 1, 3),
      new Int8Array(backing.buffer, 1, 3),
      slice,
    ];
    const event = kafkaEvent({
      topic: 't',
      records: inputs.map((input) => ({
        key: input,
        value: input,
        headers: { record: input as HeaderValue },
      })),
    });
    for (const record of event.records['t-0']!) {
      expect([...decode(record.value)!]).toEqual([1, 2, 3]);
      expect([...decode(record.key)!]).toEqual([1, 2, 3]);
      expect(record.headers).toEqual([{ record: [1, 2, 3] }]);
    }
    const pairs = kafkaEvent({
      topic: 't',
      records: [{ value: 'v', headers: [['h', new DataView(backing.buffer, 1, 2)]] }],
    });
    expect(pairs.records['t-0']![0]!.headers).toEqual([{ h: [1, 2] }]);
  });

  it.each([
    ['a Blob', new Blob(['hi']), 'a Blob'],
    ['a Promise', Promise.resolve(1), 'a Promise'],
    ['a Map', new Map([['a', 1]]), 'a Map'],
    ['a Set', new Set([1]), 'a Set'],
    ['a Date', new Date(0), 'a Date'],
    ['a class instance', new (class Order {})(), 'an Order'],
    ['a function', () => 1, 'a function'],
    ['a symbol', Symbol('x'), 'a symbol'],
    ['undefined in a key', undefined, null],
    ['NaN', Number.NaN, 'NaN'],
  ])('refuses %s as a value or key, naming the field, rather than encode "{}"', (_, payload, got) => {
    const value = () => kafkaEvent({ topic: 't', records: [{ value: payload as RecordPayload }] });
    const key = () =>
      kafkaEvent({ topic: 't', records: [{ value: 'v' }, { value: 'v', key: payload as RecordPayload }] });
    if (got !== null) {
      expect(value).toThrow(InvalidEventInputError);
      expect(value).toThrow(new RegExp(`^records\\[0\\]\\.value must be a string, bytes .*; got ${got}$`));
      expect(key).toThrow(new RegExp(`^records\\[1\\]\\.key must be a string, bytes .*; got ${got}$`));
    } else {
      // An undefined key is an absent key.
      expect(key().records['t-0']![1]).not.toHaveProperty('key');
    }
  });

  it.each([
    ['a number', { a: 5 }, 'records[0].headers["a"] must be a string or bytes', 'a number'],
    ['null in a pair', [['a', null]], 'records[0].headers[0][1] must be a string or bytes', 'null'],
    ['null in a record', { a: null }, 'records[0].headers["a"] must be a string or bytes', 'null'],
    [
      'a Map in a list',
      { a: ['x', new Map()] },
      'records[0].headers["a"][1] must be a string or bytes',
      'a Map',
    ],
  ])(
    'refuses a header value that is %s, naming it, rather than throw a TypeError',
    (_, headers, field, got) => {
      const build = () =>
        kafkaEvent({ topic: 't', records: [{ value: 'v', headers: headers as HeadersInput }] });
      expect(build).toThrow(InvalidEventInputError);
      expect(build).toThrow(
        `${field} (a Uint8Array, Buffer, ArrayBuffer or other ArrayBufferView); got ${got}`,
      );
    },
  );

  it.each([
    ['records must be an array of records, got an object', { records: { value: 'x' } }],
    ['records[0] must be an object with a value, got null', { records: [null] }],
    [
      'records[0] has no field "partiton" — did you mean "partition"?',
      { records: [{ value: 'x', partiton: 2 }] },
    ],
    [
      'records[1] has no field "hedaers" — did you mean "headers"?',
      { records: [{ value: 'x' }, { value: 'x', hedaers: { a: 'b' } }] },
    ],
    [
      /^records\[0\] has no field "colour" \(fields: value, key, headers, partition/,
      { records: [{ value: 'x', colour: 'red' }] },
    ],
    [
      'records[0].headers must be [name, value] pairs or an object of names to values, got "a=b"',
      { records: [{ value: 'x', headers: 'a=b' }] },
    ],
    [/^records\[0\]\.headers must be .*, got 5$/, { records: [{ value: 'x', headers: 5 }] }],
    [
      /^records\[0\]\.headers must be .*, got a Uint8Array$/,
      { records: [{ value: 'x', headers: Uint8Array.of(1) }] },
    ],
    [
      'records[0].headers[0] must be a [name, value] pair with a string name, got an array',
      { records: [{ value: 'x', headers: [['a']] }] },
    ],
    [
      /^records\[0\]\.headers\[0\] must be a \[name, value\] pair .*, got "a=b"$/,
      { records: [{ value: 'x', headers: ['a=b'] }] },
    ],
    [
      /^records\[0\]\.headers\[0\] must be a \[name, value\] pair/,
      { records: [{ value: 'x', headers: [[1, 'b']] }] },
    ],
    ['records[0].offset must be an integer ≥ 0, got a bigint', { records: [{ value: 'x', offset: 5n }] }],
    ['records[0].partition must be an integer ≥ 0, got "1"', { records: [{ value: 'x', partition: '1' }] }],
    [
      `records[0].timestampType must be 'CREATE_TIME' or 'LOG_APPEND_TIME', not "create"`,
      { records: [{ value: 'x', timestampType: 'create' }] },
    ],
    [
      `eventSource must be 'aws:kafka', 'SelfManagedKafka' or 'aws:SelfManagedKafka', not "kafka"`,
      { records: [], eventSource: 'kafka' },
    ],
  ])('refuses malformed input naming the path and what it expects: %s', (message, options) => {
    const build = () => kafkaEvent({ topic: 't', ...(options as object) } as KafkaEventOptions);
    expect(build).toThrow(InvalidEventInputError);
    expect(build).toThrow(message);
  });

  it('places keyed records as Kafka does and the others round-robin, partitions in ascending order', () => {
    const event = kafkaEvent({
      topic: 'orders',
      partitions: 3,
      records: [
        { value: 'a' },
        { value: 'b' },
        { value: 'c' },
        { value: 'd' },
        { key: 'customer-7', value: 'e' },
        { key: 'customer-7', value: 'f' },
      ],
    });
    const keyed = partitionForKey(Buffer.from('customer-7'), 3);
    expect(Object.keys(event.records)).toEqual(['orders-0', 'orders-1', 'orders-2']);
    const valuesOf = (p: number) => event.records[`orders-${p}`]!.map((r) => text(r.value));
    const expected: string[][] = [['a', 'd'], ['b'], ['c']];
    expected[keyed]!.push('e', 'f');
    expect([0, 1, 2].map(valuesOf)).toEqual(expected);
    expect(event.records[`orders-${keyed}`]!.map((r) => r.offset)).toEqual(
      Array.from({ length: expected[keyed]!.length }, (_, i) => i),
    );
  });

  it('honours explicit partitions, offsets (gaps allowed) and startOffset, beyond 2^32', () => {
    const big = 2 ** 40;
    const event = kafkaEvent({
      topic: 'payments.v2_eu-west',
      startOffset: big,
      records: [
        { partition: 12, value: 'a' },
        { partition: 12, value: 'b', offset: big + 10 },
        { partition: 12, value: 'c' },
        { partition: 3, value: 'd' },
      ],
    });
    expect(Object.keys(event.records)).toEqual(['payments.v2_eu-west-3', 'payments.v2_eu-west-12']);
    expect(event.records['payments.v2_eu-west-12']!.map((r) => r.offset)).toEqual([big, big + 10, big + 11]);
    expect(event.records['payments.v2_eu-west-3']!.map((r) => r.offset)).toEqual([big]);
  });

  it('builds self-managed events in both spellings, without an eventSourceArn', () => {
    const plain = kafkaEvent({ topic: 't', eventSource: 'SelfManagedKafka', records: [{ value: 'x' }] });
    const prefixed = kafkaEvent({
      topic: 't',
      eventSource: 'aws:SelfManagedKafka',
      records: [{ value: 'x' }],
    });
    expect(plain.eventSource).toBe('SelfManagedKafka');
    expect(prefixed.eventSource).toBe('aws:SelfManagedKafka');
    expect(plain).not.toHaveProperty('eventSourceArn');
    expect(plain.bootstrapServers).toMatch(/:9092/);
  });

  it('passes timestamps, timestamp types and schema metadata through', () => {
    const [record] = kafkaEvent({
      topic: 't',
      records: [
        {
          value: 'x',
          timestamp: new Date('2026-11-29T10:00:00Z'),
          timestampType: 'LOG_APPEND_TIME',
          keySchemaMetadata: { dataFormat: 'JSON' },
          valueSchemaMetadata: { dataFormat: 'AVRO', schemaId: '17' },
        },
      ],
    }).records['t-0']!;
    expect(record).toMatchObject({
      timestamp: Date.parse('2026-11-29T10:00:00Z'),
      timestampType: 'LOG_APPEND_TIME',
      keySchemaMetadata: { dataFormat: 'JSON' },
      valueSchemaMetadata: { dataFormat: 'AVRO', schemaId: '17' },
    });
  });

  it.each([
    [{ topic: 'bad topic', records: [] }, /topic "bad topic" is not a valid Kafka topic name/],
    [{ topic: '..', records: [] }, /topic "\.\." is not a valid/],
    [{ topic: 't', partitions: 0, records: [] }, /partitions must be an integer ≥ 1, got 0/],
    [{ topic: 't', startOffset: -1, records: [] }, /startOffset must be an integer ≥ 0/],
    [
      { topic: 't', partitions: 2, records: [{ partition: 2, value: 'x' }] },
      /records\[0\]\.partition is 2 but the topic has 2 partitions/,
    ],
    [{ topic: 't', records: [{ partition: 1.5, value: 'x' }] }, /records\[0\]\.partition must be an integer/],
    [
      {
        topic: 't',
        records: [
          { value: 'x', offset: 5 },
          { value: 'y', offset: 5 },
        ],
      },
      /records\[1\]\.offset 5 must be above the previous offset of t-0 \(5\)/,
    ],
    [{ topic: 't', records: [{ value: 'x', offset: 2 ** 53 }] }, /records\[0\]\.offset must be an integer/],
    [
      { topic: 't', records: [{ value: 10n as unknown as RecordPayload }] },
      /records\[0\]\.value must be a string, bytes .* got a bigint$/,
    ],
    [
      { topic: 't', records: [{ value: 'x', timestamp: new Date('nope') }] },
      /records\[0\]\.timestamp must be epoch/,
    ],
    [
      {
        topic: 't',
        eventSource: 'SelfManagedKafka' as const,
        eventSourceArn: 'arn:aws:kafka:x',
        records: [],
      },
      /eventSourceArn belongs to MSK events/,
    ],
  ])('rejects invalid input with a typed error naming the field (%#)', (options, message) => {
    expect(() => kafkaEvent(options)).toThrow(InvalidEventInputError);
    expect(() => kafkaEvent(options)).toThrow(message);
  });
});

const payload = fc.oneof(
  fc.string(),
  fc.uint8Array({ maxLength: 32 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
  fc.integer(),
  fc.constant(null),
);
const recordInput = fc.record(
  {
    value: fc.oneof(payload, fc.constant(undefined)),
    key: payload,
    headers: fc.array(
      fc.tuple(fc.string({ maxLength: 8 }), fc.oneof(fc.string(), fc.uint8Array({ maxLength: 16 }))),
      {
        maxLength: 4,
      },
    ),
    partition: fc.nat({ max: 7 }),
  },
  { requiredKeys: ['value'] },
);

function expectedBytes(input: RecordPayload | undefined): Buffer | null | undefined {
  if (input === null || input === undefined) return input;
  if (typeof input === 'string') return Buffer.from(input, 'utf8');
  if (input instanceof Uint8Array) return Buffer.from(input);
  return Buffer.from(JSON.stringify(input), 'utf8');
}

describe('kafkaEvent (property)', () => {
  it('always builds a valid event whose records decode back to the inputs', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[a-zA-Z0-9._-]{1,20}$/).filter((t) => t !== '.' && t !== '..'),
        fc.array(recordInput, { maxLength: 30 }),
        fc.boolean(),
        (topic, inputs: KafkaRecordInput[], selfManaged) => {
          const base = 1_764_400_000_000;
          const event = kafkaEvent({
            topic,
            partitions: 8,
            timestamp: base,
            records: inputs,
            eventSource: selfManaged ? 'SelfManagedKafka' : 'aws:kafka',
          });
          validateKafkaEvent(event);
          const records = allRecords(event);
          expect(records).toHaveLength(inputs.length);
          const keyedPartition = new Map<string, number>();
          for (const record of records) {
            const input = inputs[record.timestamp - base]!;
            expect(record.topic).toBe(topic);
            if (input.partition !== undefined) expect(record.partition).toBe(input.partition);
            expect(decode(record.value)).toEqual(expectedBytes(input.value));
            if (input.key === undefined) expect(record).not.toHaveProperty('key');
            else expect(decode(record.key)).toEqual(expectedBytes(input.key));
            if (input.key != null && input.partition === undefined) {
              const hex = expectedBytes(input.key)!.toString('hex');
              expect(record.partition).toBe(keyedPartition.get(hex) ?? record.partition);
              keyedPartition.set(hex, record.partition);
            }
            const headers = (record.headers ?? []).map((h) => {
              const [name, bytes] = Object.entries(h)[0]!;
              return [name, Buffer.from(bytes)] as const;
            });
            expect(headers).toEqual(
              ((input.headers as Array<[string, string | Uint8Array]> | undefined) ?? []).map(
                ([name, value]) => [name, expectedBytes(value)],
              ),
            );
          }
          for (const run of Object.values(event.records)) {
            expect(run.map((r) => r.offset)).toEqual(run.map((_, i) => i));
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
