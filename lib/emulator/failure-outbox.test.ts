import fc from 'fast-check';
import type { KafkaMessage } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { type PendingRecord, toPendingRecord } from './batch.ts';
import type { FailureCondition, FailureContext } from './destination.ts';
import { deliveries, FailureOutbox, type HeldFailure } from './failure-outbox.ts';

/**
 * A fetched record; `previous` is the offset fetched just before it (default: the offset below; `null`:
 * not known).
 */
function record(partition: number, offset: number, previous: number | null = offset - 1): PendingRecord {
  const message = {
    key: null,
    value: Buffer.from(`{"n":${offset}}`),
    timestamp: '1764400000000',
    attributes: 0,
    offset: String(offset),
    headers: {},
  } as KafkaMessage;
  return toPendingRecord('orders', partition, message, 'null', previous ?? undefined);
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

  it('splits a run at a record of its partition that is not in it: one that succeeded, or matched no filter', () => {
    const aged = failure('RecordAgeExceeded');
    // Offsets 0, 1 and 3 too old, 2 invoked and done; partition 1's 5 and 9 with 6-8 done between them.
    const held: HeldFailure[] = [
      { record: record(0, 0), failure: aged },
      { record: record(0, 1), failure: aged },
      { record: record(0, 3), failure: aged },
      { record: record(1, 5), failure: aged },
      { record: record(1, 9), failure: aged },
    ];
    expect(deliveries(held, false).map(described)).toEqual([
      ['0@0 RecordAgeExceeded', '0@1 RecordAgeExceeded', '1@5 RecordAgeExceeded'],
      ['0@3 RecordAgeExceeded', '1@9 RecordAgeExceeded'],
    ]);
    // Offset gaps with nothing fetched between (control records, compaction) do not split.
    expect(
      deliveries(
        [
          { record: record(0, 4), failure: aged },
          { record: record(0, 7, 4), failure: aged },
        ],
        false,
      ).map(described),
    ).toEqual([['0@4 RecordAgeExceeded', '0@7 RecordAgeExceeded']]);
    // A record whose neighbour below it is not known starts a message of its own.
    expect(
      deliveries(
        [
          { record: record(0, 4), failure: aged },
          { record: record(0, 5, null), failure: aged },
        ],
        false,
      ).map(described),
    ).toEqual([['0@4 RecordAgeExceeded'], ['0@5 RecordAgeExceeded']]);
  });

  it('no message range covers a fetched record it does not hold; together they hold the failed records once', () => {
    const contexts = [deser, notFound, exhausted, failure('RecordAgeExceeded')];
    // Per partition, the fetched records in order: an offset step (gaps are control records or
    // compacted offsets, never fetched), and what became of the record: failed for one of the reasons,
    // or not failed (succeeded, or matched no filter).
    const fate = fc.oneof(fc.constant(undefined), fc.constantFrom(...contexts));
    const partition = fc.array(fc.record({ step: fc.integer({ min: 1, max: 3 }), fate }), { maxLength: 25 });
    fc.assert(
      fc.property(
        fc.array(partition, { minLength: 1, maxLength: 3 }),
        fc.boolean(),
        (partitions, knownStart) => {
          const fetched = new Map<number, Array<{ offset: number; failure: FailureContext | undefined }>>();
          const outbox = new FailureOutbox();
          const failed: string[] = [];
          // Held in the order the reasons come up (a failure holds all its records at once), as the emulator does.
          const byFailure = new Map<FailureContext, PendingRecord[]>();
          partitions.forEach((list, p) => {
            let offset = 0;
            let previous: number | null = knownStart ? 0 : null;
            const records: Array<{ offset: number; failure: FailureContext | undefined }> = [];
            for (const { step, fate: f } of list) {
              offset += step;
              records.push({ offset, failure: f });
              if (f) {
                byFailure.set(f, [...(byFailure.get(f) ?? []), record(p, offset, previous)]);
                failed.push(`${p}@${offset}`);
              }
              previous = offset;
            }
            fetched.set(p, records);
          });
          for (const [f, records] of byFailure) outbox.hold(records, f);
          const taken = outbox.take([...fetched.keys()].map((p) => ({ partition: p, offset: 1_000 })));
          const messages = deliveries(taken, false);
          const delivered = messages.flat().map((h) => `${h.record.partition}@${h.record.offset}`);
          // Every failed record once, no other.
          expect([...delivered].sort()).toEqual([...failed].sort());
          expect(new Set(delivered).size).toBe(delivered.length);
          for (const message of messages) {
            // One reason per message.
            expect(new Set(message.map((h) => h.failure)).size).toBe(1);
            for (const [p, records] of fetched) {
              const own = message.filter((h) => h.record.partition === p).map((h) => h.record.offset);
              if (own.length === 0) continue;
              const first = Math.min(...own);
              const last = Math.max(...own);
              // Inside its range, the message holds every fetched record of the partition.
              const inRange = records
                .filter((r) => r.offset >= first && r.offset <= last)
                .map((r) => r.offset);
              expect(own).toEqual(inRange);
            }
          }
          // Each partition's records reach the destination in offset order.
          for (const p of fetched.keys()) {
            const offsets = messages
              .flat()
              .filter((h) => h.record.partition === p)
              .map((h) => h.record.offset);
            expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
          }
          // Not split needlessly: neighbours that failed together share a message.
          const messageOf = new Map<string, number>();
          messages.forEach((message, i) => {
            for (const h of message) messageOf.set(`${h.record.partition}@${h.record.offset}`, i);
          });
          for (const [p, records] of fetched) {
            for (let i = 1; i < records.length; i++) {
              const [a, b] = [records[i - 1]!, records[i]!];
              if (a.failure && a.failure === b.failure)
                expect(messageOf.get(`${p}@${a.offset}`)).toBe(messageOf.get(`${p}@${b.offset}`));
            }
          }
        },
      ),
    );
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
