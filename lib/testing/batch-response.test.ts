import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { failedOffsets, InvalidBatchResponseError } from './batch-response.ts';
import { kafkaEvent } from './event-builder.ts';

const event = kafkaEvent({
  topic: 'order-events',
  partitions: 2,
  records: Array.from({ length: 6 }, (_, i) => ({ value: `v${i}` })),
});
const failure = (partition: unknown, offset: unknown) => ({ itemIdentifier: { partition, offset } });

describe('failedOffsets', () => {
  it.each([undefined, null, {}, { batchItemFailures: null }, { batchItemFailures: [] }])(
    'reads %j as the whole batch succeeding',
    (response) => {
      expect(failedOffsets(response, event)).toEqual({});
    },
  );

  it('groups reported offsets per partition, ascending, keeping duplicates', () => {
    const response = {
      batchItemFailures: [
        failure('order-events-1', 2),
        failure('order-events-0', 1),
        failure('order-events-1', 1),
        failure('order-events-1', 2),
      ],
    };
    expect(failedOffsets(response, event)).toEqual({ 'order-events-0': [1], 'order-events-1': [1, 2, 2] });
  });

  it.each([
    ['a string', 'ok', /must be an object with batchItemFailures, got string/],
    ['an array', [], /got an array/],
    ['a non-array list', { batchItemFailures: {} }, /batchItemFailures must be an array, got object/],
    [
      'a string identifier',
      { batchItemFailures: [{ itemIdentifier: 'order-events-0-1' }] },
      /\[0\]\.itemIdentifier must be an object/,
    ],
    [
      'a missing identifier',
      { batchItemFailures: [{}] },
      /\[0\]\.itemIdentifier must be an object .* got undefined/,
    ],
    [
      'a string offset',
      { batchItemFailures: [failure('order-events-0', '1')] },
      /must be \{ partition: string, offset: number \}/,
    ],
    [
      'an unknown partition',
      { batchItemFailures: [failure('order-events-2', 0)] },
      /order-events-2@0 is not a record of the event/,
    ],
    [
      'an unknown offset',
      { batchItemFailures: [failure('order-events-0', 3)] },
      /order-events-0@3 is not a record of the event/,
    ],
  ])('rejects %s as Lambda would (whole batch retried)', (_, response, message) => {
    expect(() => failedOffsets(response, event)).toThrow(InvalidBatchResponseError);
    expect(() => failedOffsets(response, event)).toThrow(message);
  });
});

describe('failedOffsets (property)', () => {
  const identifier = fc.record({
    partition: fc.oneof(fc.constantFrom('order-events-0', 'order-events-1', 'order-events-2'), fc.string()),
    offset: fc.oneof(fc.integer({ min: -1, max: 4 }), fc.string()),
  });
  const response = fc.oneof(
    fc.jsonValue(),
    fc.record({
      batchItemFailures: fc.array(fc.oneof(fc.record({ itemIdentifier: identifier }), fc.jsonValue())),
    }),
  );

  it('returns only offsets of the event, or throws InvalidBatchResponseError, for any response', () => {
    const known = new Set(
      Object.values(event.records)
        .flat()
        .map((r) => `order-events-${r.partition}@${r.offset}`),
    );
    fc.assert(
      fc.property(response, (value) => {
        let reported: Record<string, number[]>;
        try {
          reported = failedOffsets(value, event);
        } catch (error) {
          expect(error).toBeInstanceOf(InvalidBatchResponseError);
          return;
        }
        for (const [partition, offsets] of Object.entries(reported)) {
          for (const offset of offsets) expect(known).toContain(`${partition}@${offset}`);
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('failedOffsets on a hand-written event with digit-string positions', () => {
  it('matches the numbers kafkaBatch reports against the strings of the event', () => {
    const event = kafkaEvent({ topic: 'orders', records: [{ value: 'a' }, { value: 'b' }] });
    const records = event.records['orders-0']! as unknown as Array<{ partition: unknown; offset: unknown }>;
    for (const record of records) {
      record.partition = String(record.partition);
      record.offset = String(record.offset);
    }
    const response = { batchItemFailures: [{ itemIdentifier: { partition: 'orders-0', offset: 1 } }] };
    expect(failedOffsets(response, event)).toEqual({ 'orders-0': [1] });
  });
});
