import fc from 'fast-check';
import type { KafkaMessage } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { type PendingRecord, toPendingRecord } from './batch.ts';
import type { FailureCondition, FailureContext } from './destination.ts';
import { deliveries, FailureOutbox, type HeldFailure } from './failure-outbox.ts';

function record(partition: number, offset: number): PendingRecord {
  const message = {
    key: null,
    value: Buffer.from(`{"n":${offset}}`),
    timestamp: '1764400000000',
    attributes: 0,
    offset: String(offset),
    headers: {},
  } as KafkaMessage;
  return toPendingRecord('orders', partition, message);
}

function failure(condition: FailureCondition): FailureContext {
  return {
    condition,
    requestId: condition,
    functionArn: 'arn:aws:lambda:eu-west-1:1:function:f',
    invokeCount: 0,
  };
}

const described = (due: readonly HeldFailure[]) =>
  due.map(({ record: r, failure: f }) => `${r.partition}@${r.offset} ${f.condition}`);

describe('FailureOutbox', () => {
  it('gives back what a commit passes, each partition in offset order, whatever order the records failed in', () => {
    const outbox = new FailureOutbox();
    const schema = failure('SCHEMA_NOT_FOUND');
    const exhausted = failure('RetryAttemptsExhausted');
    outbox.hold([record(0, 3), record(1, 8), record(0, 1)], schema);
    outbox.hold([record(0, 0), record(0, 5)], exhausted);
    expect(described(outbox.take([{ partition: 0, offset: 4 }]))).toEqual([
      '0@0 RetryAttemptsExhausted',
      '0@1 SCHEMA_NOT_FOUND',
      '0@3 SCHEMA_NOT_FOUND',
    ]);
    expect(outbox.partitions().sort()).toEqual([0, 1]);
    // A commit at a record's offset does not pass it.
    expect(outbox.take([{ partition: 1, offset: 8 }])).toEqual([]);
    expect(
      described(
        outbox.take([
          { partition: 1, offset: 9 },
          { partition: 0, offset: 6 },
        ]),
      ),
    ).toEqual(['1@8 SCHEMA_NOT_FOUND', '0@5 RetryAttemptsExhausted']);
    expect(outbox.partitions()).toEqual([]);
  });

  it('drains what no commit passed, in offset order', () => {
    const outbox = new FailureOutbox();
    outbox.hold([record(0, 9), record(0, 4)], failure('RecordAgeExceeded'));
    outbox.hold([record(0, 6)], failure('DESERIALIZATION_ERROR'));
    expect(outbox.drain(0).map((r) => r.offset)).toEqual([4, 6, 9]);
    expect(outbox.drain(0)).toEqual([]);
  });
});

describe('deliveries', () => {
  const deser = failure('DESERIALIZATION_ERROR');
  const notFound = failure('SCHEMA_NOT_FOUND');
  const exhausted = failure('RetryAttemptsExhausted');
  const due: HeldFailure[] = [
    { record: record(0, 1), failure: deser },
    { record: record(0, 2), failure: notFound },
    { record: record(0, 3), failure: deser },
    { record: record(0, 4), failure: exhausted },
    { record: record(1, 7), failure: exhausted },
  ];

  it('one delivery for a destination that takes a message per record, each with its own reason', () => {
    expect(deliveries(due, true)).toEqual([due]);
    expect(deliveries([], true)).toEqual([]);
  });

  it('one delivery per run of records that failed together, merged across partitions, for SQS, SNS and S3', () => {
    expect(deliveries(due, false).map(described)).toEqual([
      ['0@1 DESERIALIZATION_ERROR'],
      ['0@2 SCHEMA_NOT_FOUND'],
      ['0@3 DESERIALIZATION_ERROR'],
      ['0@4 RetryAttemptsExhausted', '1@7 RetryAttemptsExhausted'],
    ]);
  });

  it('keeps every record once, each partition in offset order, one failure per delivery', () => {
    const contexts = [deser, notFound, exhausted, failure('RecordAgeExceeded')];
    const held = fc.array(fc.record({ partition: fc.nat(3), failure: fc.constantFrom(...contexts) }), {
      maxLength: 40,
    });
    fc.assert(
      fc.property(held, (list) => {
        const outbox = new FailureOutbox();
        list.forEach((item, offset) => void outbox.hold([record(item.partition, offset)], item.failure));
        const taken = outbox.take([0, 1, 2, 3].map((partition) => ({ partition, offset: list.length })));
        const runs = deliveries(taken, false);
        for (const run of runs) expect(new Set(run.map((h) => h.failure)).size).toBe(1);
        const flat = runs.flat();
        expect(flat).toHaveLength(list.length);
        for (const partition of [0, 1, 2, 3]) {
          const offsets = flat.filter((h) => h.record.partition === partition).map((h) => h.record.offset);
          expect(offsets).toEqual(
            list.flatMap((item, offset) => (item.partition === partition ? [offset] : [])),
          );
        }
      }),
    );
  });
});
