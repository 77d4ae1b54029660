import fc from 'fast-check';
import type { KafkaMessage } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { encodeEventRecord } from '../kafka-event/encode.ts';
import { LAMBDA_LIMITS } from '../kafka-event/limits.ts';
import { packedTransferList, unpackKafkaEvent } from '../kafka-event/packed-event.ts';
import {
  type BatchPart,
  batchEvent,
  bisectBatch,
  type EventHeader,
  eventOverhead,
  jsonEvent,
  type PartitionQueue,
  type PendingRecord,
  serializeEvent,
  takeBatch,
  toPendingRecord,
} from './batch.ts';

const header: EventHeader = {
  eventSource: 'aws:kafka',
  eventSourceArn: 'arn:aws:kafka:us-east-1:000000000000:cluster/local/x',
  bootstrapServers: '127.0.0.1:9092',
};

function message(
  offset: number,
  value: string | null = `{"n":${offset}}`,
  extra: Partial<KafkaMessage> = {},
): KafkaMessage {
  return {
    key: Buffer.from(`k${offset}`),
    value: value === null ? null : Buffer.from(value),
    timestamp: '1764400000000',
    attributes: 0,
    offset: String(offset),
    headers: {},
    ...extra,
  } as KafkaMessage;
}

function queue(partition: number, offsets: number[], value?: (o: number) => string): PartitionQueue {
  return {
    partition,
    records: offsets.map((o) => toPendingRecord('order-events', partition, message(o, value?.(o)))),
  };
}

describe('toPendingRecord', () => {
  it('encodes a record as Lambda does: base64 key and value, signed-byte headers, repeated names kept', () => {
    const record = toPendingRecord(
      'order-events',
      3,
      message(1041, '{"id":7}', {
        headers: { trace: Buffer.from([97, 98, 0xc3, 0xa9]), tag: [Buffer.from('a'), Buffer.from('b')] },
        batchContext: { timestampType: 1 },
      } as Partial<KafkaMessage>),
    );
    expect(record.encoded).toEqual({
      topic: 'order-events',
      partition: 3,
      offset: 1041,
      timestamp: 1764400000000,
      timestampType: 'LOG_APPEND_TIME',
      key: Buffer.from('k1041').toString('base64'),
      value: 'eyJpZCI6N30=',
      headers: [{ trace: [97, 98, -61, -87] }, { tag: [97] }, { tag: [98] }],
    });
    expect(record.json).toBe(JSON.stringify(record.encoded));
    expect(record.bytes).toBe(Buffer.byteLength(record.json));
  });

  it('writes exactly the JSON of encodeEventRecord, and its exact UTF-8 size, for any record', () => {
    const bytes = fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b));
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, unit: 'grapheme' }),
        fc.nat(1_000),
        fc.maxSafeNat(),
        fc.option(bytes),
        fc.option(bytes),
        fc.array(
          fc.tuple(fc.string({ unit: 'binary' }), fc.array(fc.option(bytes), { minLength: 1, maxLength: 3 })),
          {
            maxLength: 4,
          },
        ),
        fc.constantFrom(0, 1),
        (topic, partition, offset, key, value, headerList, timestampType) => {
          const headers: Record<string, Buffer | Buffer[] | undefined> = {};
          const raw: Array<[string, Uint8Array]> = [];
          for (const [name, values] of headerList) {
            if (name in headers || name === '__proto__') continue;
            headers[name] =
              values.length === 1 ? (values[0] ?? undefined) : values.map((v) => v ?? Buffer.alloc(0));
            for (const v of values.length === 1 ? values : values.map((v) => v ?? Buffer.alloc(0))) {
              raw.push([name, v ?? new Uint8Array()]);
            }
          }
          const record = toPendingRecord(
            topic,
            partition,
            message(offset, null, {
              key,
              value,
              headers,
              batchContext: { timestampType },
            } as Partial<KafkaMessage>),
          );
          const expected = encodeEventRecord({
            topic,
            partition,
            offset,
            timestamp: 1764400000000,
            timestampType: timestampType === 1 ? 'LOG_APPEND_TIME' : 'CREATE_TIME',
            key,
            value,
            headers: raw,
          });
          expect(record.json).toBe(JSON.stringify(expected));
          expect(record.bytes).toBe(Buffer.byteLength(record.json));
          expect(record.encoded).toEqual(expected);
          // The object handed to in-process handlers is what parsing the JSON gives, key order included.
          expect(record.encoded).toStrictEqual(JSON.parse(record.json));
          expect(JSON.stringify(record.encoded)).toBe(record.json);
          expect([record.partition, record.offset, record.timestamp]).toEqual([
            partition,
            offset,
            1764400000000,
          ]);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('keeps a null key and a tombstone as null', () => {
    const record = toPendingRecord('t', 0, message(5, null, { key: null }));
    expect(record.encoded).toMatchObject({ key: null, value: null, timestampType: 'CREATE_TIME' });
  });

  it("tombstoneValue 'absent': a tombstone has no value field, in the JSON, the object and the size", () => {
    for (const key of [null, undefined, Buffer.from('k')]) {
      const record = toPendingRecord('t', 0, message(5, null, { key, headers: { h: 'x' } }), 'absent');
      expect(record.encoded).not.toHaveProperty('value');
      expect(JSON.parse(record.json)).toEqual(record.encoded);
      expect(record.json).toBe(JSON.stringify(record.encoded));
      expect(record.bytes).toBe(Buffer.byteLength(record.json));
    }
    const kept = toPendingRecord('t', 0, message(6, 'v'), 'absent');
    expect(kept.encoded.value).toBe(Buffer.from('v').toString('base64'));
    expect(toPendingRecord('t', 0, message(7, null), 'null').encoded).toHaveProperty('value', null);
  });
});

describe('serializeEvent', () => {
  it('writes the event keyed <topic>-<partition>, records in offset order', () => {
    const parts: BatchPart[] = [
      { partition: 3, records: queue(3, [7, 8]).records, end: 9 },
      { partition: 0, records: queue(0, [1]).records, end: 2 },
    ];
    const event = JSON.parse(serializeEvent(header, 'order-events', parts));
    expect(Object.keys(event)).toEqual(['eventSource', 'eventSourceArn', 'bootstrapServers', 'records']);
    expect(Object.keys(event.records)).toEqual(['order-events-3', 'order-events-0']);
    expect(event.records['order-events-3'].map((r: { offset: number }) => r.offset)).toEqual([7, 8]);
    expect(event.records['order-events-0'][0]).toEqual(parts[1]!.records[0]!.encoded);
  });
});

describe('batchEvent', () => {
  const parts = (): BatchPart[] => [
    {
      partition: 3,
      records: [
        toPendingRecord(
          'order-events',
          3,
          message(7, '{"a":1}', { headers: { trace: Buffer.from([0xff, 1]) } } as Partial<KafkaMessage>),
        ),
        toPendingRecord('order-events', 3, message(8, null, { key: null })),
      ],
      end: 9,
    },
    { partition: 0, records: queue(0, [1]).records, end: 2 },
  ];

  it('parses to what serializeEvent writes, key order included, without an eventSourceArn it lacks', () => {
    for (const eventHeader of [
      header,
      { eventSource: 'SelfManagedKafka' as const, bootstrapServers: 'b:9092' },
    ]) {
      const event = batchEvent(eventHeader, 'order-events', parts());
      expect(event.json()).toBe(serializeEvent(eventHeader, 'order-events', parts()));
      expect(JSON.stringify(event.parse())).toBe(event.json());
      expect(event.parse()).toStrictEqual(JSON.parse(event.json()));
    }
  });

  it('gives a fresh event on every parse: a handler changing one does not change the retry', () => {
    const event = batchEvent(header, 'order-events', parts());
    const first = event.parse();
    first.records['order-events-3']![0]!.headers![0]!.trace!.push(99);
    first.records['order-events-3']![0]!.value = 'changed';
    expect(event.parse()).toStrictEqual(JSON.parse(event.json()));
  });

  it('parses any batch to exactly its JSON (property)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(fc.nat(20), fc.array(fc.option(fc.string({ unit: 'grapheme' })), { maxLength: 5 })),
          {
            maxLength: 4,
          },
        ),
        (spec) => {
          const batch: BatchPart[] = spec.map(([partition, values], p) => ({
            partition: partition * 4 + p,
            records: values.map((value, i) =>
              toPendingRecord(
                't-é',
                partition * 4 + p,
                message(i, value, { key: i % 2 ? null : Buffer.from('k') }),
              ),
            ),
            end: values.length,
          }));
          const event = batchEvent(header, 't-é', batch);
          expect(JSON.stringify(event.parse())).toBe(serializeEvent(header, 't-é', batch));
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('batchEvent, packed for a sandbox environment', () => {
  const bytes = fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.from(b));
  /** A fetched record as kafkajs hands it over: any key (or none), value, headers, timestamp. */
  const fetched = fc.record({
    key: fc.oneof(fc.constant(undefined), fc.constant(null), bytes),
    value: fc.option(bytes),
    headers: fc.dictionary(
      fc.string({ unit: 'binary', maxLength: 6 }).filter((name) => name !== '__proto__'),
      fc.oneof(fc.constant(undefined), bytes, fc.array(bytes, { minLength: 1, maxLength: 3 })),
      { maxKeys: 3 },
    ),
    timestamp: fc.integer({ min: -1, max: 2 ** 41 }),
    timestampType: fc.constantFrom(0, 1),
  });

  it('unpacks any batch of fetched records to exactly what parsing its JSON gives (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, unit: 'grapheme' }),
        fc.array(fc.array(fetched, { maxLength: 4 }), { maxLength: 4 }),
        fc.constantFrom('null' as const, 'absent' as const),
        (topic, spec, tombstoneValue) => {
          const batch: BatchPart[] = spec.map((records, p) => ({
            partition: p * 3,
            records: records.map((fields, i) =>
              toPendingRecord(
                topic,
                p * 3,
                message(1_000 + i, null, {
                  key: fields.key,
                  value: fields.value,
                  headers: fields.headers,
                  timestamp: String(fields.timestamp),
                  batchContext: { timestampType: fields.timestampType },
                } as Partial<KafkaMessage>),
                tombstoneValue,
              ),
            ),
            end: 1_000 + records.length,
          }));
          const event = batchEvent(header, topic, batch);
          const packed = event.packed()!;
          // As postMessage moves it to the environment's thread.
          const moved = structuredClone(packed, { transfer: packedTransferList(packed) });
          const unpacked = unpackKafkaEvent(moved);
          expect(unpacked).toStrictEqual(JSON.parse(event.json()));
          expect(JSON.stringify(unpacked)).toBe(event.json());
          // Packed anew each time: a retry after a transfer still has its records.
          expect(unpackKafkaEvent(event.packed()!)).toStrictEqual(unpacked);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('is not packed when the event exists as JSON only, or holds a record that is not a fetched one', () => {
    expect(jsonEvent('{"eventSource":"aws:kafka","records":{}}').packed()).toBeUndefined();
    const fetchedRecord = toPendingRecord('order-events', 0, message(1));
    const resolved: PendingRecord = {
      partition: 0,
      offset: 2,
      timestamp: 1764400000000,
      json: fetchedRecord.json,
      encoded: fetchedRecord.encoded,
      bytes: fetchedRecord.bytes,
    };
    const parts: BatchPart[] = [{ partition: 0, records: [fetchedRecord, resolved], end: 3 }];
    expect(batchEvent(header, 'order-events', parts).packed()).toBeUndefined();
  });
});

describe('takeBatch', () => {
  it('takes contiguous runs per partition up to the batch size', () => {
    const queues = [queue(0, [0, 1, 2]), queue(1, [5, 6, 7, 8])];
    const { parts } = takeBatch(queues, 'order-events', 5, eventOverhead(header));
    expect(parts.map((p) => [p.partition, p.records.map((r) => r.offset), p.end])).toEqual([
      [0, [0, 1, 2], 3],
      [1, [5, 6], 7],
    ]);
    expect(queues[1]!.records.map((r) => r.offset)).toEqual([7, 8]);
    expect(queues[0]!.records).toEqual([]);
  });

  it('keeps the serialized event within the payload limit (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.integer({ min: 1, max: 400 }), { minLength: 1, maxLength: 12 }), {
          minLength: 1,
          maxLength: 4,
        }),
        fc.integer({ min: 600, max: 4_000 }),
        (sizes, limit) => {
          const queues = sizes.map((list, partition) =>
            queue(
              partition,
              list.map((_, i) => i),
              (o) => 'x'.repeat(list[o]!),
            ),
          );
          const total = queues.reduce((n, q) => n + q.records.length, 0);
          const { parts, oversized } = takeBatch(
            queues,
            'order-events',
            10_000,
            eventOverhead(header),
            limit,
          );
          const size = Buffer.byteLength(serializeEvent(header, 'order-events', parts));
          expect(size).toBeLessThanOrEqual(parts.length > 0 ? limit : Number.POSITIVE_INFINITY);
          if (oversized) expect(parts).toEqual([]);
          else expect(parts.length).toBeGreaterThan(0);
          const left = queues.reduce((n, q) => n + q.records.length, 0);
          expect(left + parts.reduce((n, p) => n + p.records.length, 0)).toBe(total);
        },
      ),
    );
  });

  it('reports a record that cannot fit in any event without taking it', () => {
    const queues = [queue(0, [0], () => 'x'.repeat(LAMBDA_LIMITS.payloadBytes))];
    const taken = takeBatch(queues, 'order-events', 100, eventOverhead(header));
    expect(taken.parts).toEqual([]);
    expect(taken.oversized?.offset).toBe(0);
    expect(queues[0]!.records).toHaveLength(1);
  });

  it('stops at 6 MB', () => {
    const queues = [queue(0, [...Array(8).keys()], () => 'x'.repeat(1024 * 1024))];
    const { parts } = takeBatch(queues, 'order-events', 100, eventOverhead(header));
    expect(parts[0]!.records).toHaveLength(4); // base64 inflates each 1 MiB value to ~1.33 MiB
    expect(Buffer.byteLength(serializeEvent(header, 'order-events', parts))).toBeLessThanOrEqual(
      LAMBDA_LIMITS.payloadBytes,
    );
  });
});

describe('bisectBatch', () => {
  it('splits by record count, a partition across both halves keeping order and its commit end', () => {
    const parts: BatchPart[] = [
      { partition: 0, records: queue(0, [0, 1]).records, end: 2 },
      { partition: 1, records: queue(1, [4, 5, 6]).records, end: 9 },
    ];
    const [first, second] = bisectBatch(parts);
    expect(first.map((p) => [p.partition, p.records.map((r) => r.offset), p.end])).toEqual([
      [0, [0, 1], 2],
      [1, [4], 5],
    ]);
    expect(second.map((p) => [p.partition, p.records.map((r) => r.offset), p.end])).toEqual([[1, [5, 6], 9]]);
  });
});
