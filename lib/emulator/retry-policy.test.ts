import fc from 'fast-check';
import type { KafkaMessage } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { type BatchPart, type PendingRecord, toPendingRecord } from './batch.ts';
import type { PartitionOffset } from './commits.ts';
import type { BatchOutcome } from './response.ts';
import {
  backoffDelayMs,
  decideAfterFailure,
  keepFailed,
  type Redelivery,
  type RetryPolicy,
  splitAged,
  type Work,
} from './retry-policy.ts';

const TOPIC = 'orders';

function record(partition: number, offset: number, timestamp = 1_764_400_000_000): PendingRecord {
  const message = {
    key: null,
    value: Buffer.from(`{"n":${offset}}`),
    timestamp: String(timestamp),
    attributes: 0,
    offset: String(offset),
    headers: {},
  } as KafkaMessage;
  return toPendingRecord(TOPIC, partition, message);
}

function part(partition: number, offsets: number[], end = offsets.at(-1)! + 1): BatchPart {
  return { partition, records: offsets.map((offset) => record(partition, offset)), end };
}

const offsetsOf = (parts: BatchPart[]) =>
  parts.map((p) => [p.partition, p.records.map((r) => r.offset), p.end]);
const policy = (overrides: Partial<RetryPolicy> = {}): RetryPolicy => ({
  retryLimit: 2,
  bisectBatchOnFunctionError: false,
  redelivery: 'from-lowest',
  ...overrides,
});
const functionError: BatchOutcome = { kind: 'function-error', errorType: 'Error', errorMessage: 'boom' };
const invalid: BatchOutcome = { kind: 'invalid-response', reason: 'the response is a string, not an object' };

describe('backoffDelayMs', () => {
  it('doubles from the initial delay up to the cap', () => {
    expect([0, 1, 2, 3, 4].map((n) => backoffDelayMs(n))).toEqual([100, 100, 200, 400, 800]);
    expect(backoffDelayMs(20)).toBe(5_000);
    expect(backoffDelayMs(3, { initialMs: 10, maxMs: 25 })).toBe(25);
  });
});

describe('keepFailed', () => {
  const parts = [part(0, [10, 11, 12, 13]), part(1, [5, 6])];
  const failed = new Map([[0, [11, 13]]]);

  it('from-lowest: commits up to the lowest reported offset and redelivers everything from it', () => {
    const kept = keepFailed(parts, failed, 'from-lowest');
    expect(kept.commit).toEqual([
      { partition: 0, offset: 11 },
      { partition: 1, offset: 7 },
    ]);
    expect(offsetsOf(kept.parts)).toEqual([[0, [11, 12, 13], 14]]);
  });

  it('listed: commits up to the lowest reported offset and redelivers only the listed records', () => {
    const kept = keepFailed(parts, failed, 'listed');
    expect(kept.commit).toEqual([
      { partition: 0, offset: 11 },
      { partition: 1, offset: 7 },
    ]);
    expect(offsetsOf(kept.parts)).toEqual([[0, [11, 13], 14]]);
  });
});

describe('decideAfterFailure', () => {
  it('retries a whole-batch failure with one more attempt, and commits nothing', () => {
    const decision = decideAfterFailure({ parts: [part(0, [1, 2])], attempts: 0 }, invalid, policy());
    expect(decision).toMatchObject({
      kind: 'retry',
      commit: [],
      reason: 'invalid-response',
      next: { attempts: 1 },
    });
  });

  it('exhausts after the configured retries: the whole batch goes to the destination, then is committed past', () => {
    const parts = [part(0, [1, 2]), part(3, [7])];
    expect(decideAfterFailure({ parts, attempts: 1 }, functionError, policy()).kind).toBe('retry');
    const decision = decideAfterFailure({ parts, attempts: 2 }, functionError, policy());
    expect(decision.kind).toBe('exhausted');
    if (decision.kind !== 'exhausted') return;
    expect(decision.attempts).toBe(3);
    expect(decision.failed.map((r) => [r.partition, r.offset])).toEqual([
      [0, 1],
      [0, 2],
      [3, 7],
    ]);
    expect(decision.commitAfterSend).toEqual([
      { partition: 0, offset: 3 },
      { partition: 3, offset: 8 },
    ]);
    expect(decision.leftovers).toEqual([]);
  });

  it('with no retries allowed, the first failure exhausts', () => {
    expect(
      decideAfterFailure({ parts: [part(0, [1])], attempts: 0 }, invalid, policy({ retryLimit: 0 })).kind,
    ).toBe('exhausted');
  });

  it('from-lowest exhaustion sends the lowest reported record and leaves the later ones for a fresh batch', () => {
    const outcome: BatchOutcome = { kind: 'partial', failed: new Map([[0, [11, 13]]]) };
    const decision = decideAfterFailure(
      { parts: [part(0, [10, 11, 12, 13])], attempts: 0 },
      outcome,
      policy({ retryLimit: 0 }),
    );
    expect(decision.kind).toBe('exhausted');
    if (decision.kind !== 'exhausted') return;
    expect(decision.commit).toEqual([{ partition: 0, offset: 11 }]);
    expect(decision.failed.map((r) => r.offset)).toEqual([11]);
    expect(decision.commitAfterSend).toEqual([{ partition: 0, offset: 12 }]);
    expect(offsetsOf(decision.leftovers)).toEqual([[0, [12, 13], 14]]);
  });

  it('from-lowest exhaustion at the last record a part holds commits to its end, past the records it dropped', () => {
    // Records 12 and 13 were filtered out, or refused by the schema registry: the part ends at 14.
    const decision = decideAfterFailure(
      { parts: [part(0, [10, 11], 14), part(1, [5, 6, 7])], attempts: 0 },
      {
        kind: 'partial',
        failed: new Map([
          [0, [11]],
          [1, [6]],
        ]),
      },
      policy({ retryLimit: 0 }),
    );
    expect(decision).toMatchObject({
      kind: 'exhausted',
      commitAfterSend: [
        { partition: 0, offset: 14 },
        { partition: 1, offset: 7 },
      ],
    });
    if (decision.kind === 'exhausted') expect(offsetsOf(decision.leftovers)).toEqual([[1, [7], 8]]);
  });

  it('listed exhaustion sends every reported record and leaves nothing', () => {
    const outcome: BatchOutcome = { kind: 'partial', failed: new Map([[0, [11, 13]]]) };
    const decision = decideAfterFailure(
      { parts: [part(0, [10, 11, 12, 13])], attempts: 0 },
      outcome,
      policy({ retryLimit: 0, redelivery: 'listed' }),
    );
    expect(decision).toMatchObject({
      kind: 'exhausted',
      leftovers: [],
      commitAfterSend: [{ partition: 0, offset: 14 }],
    });
    if (decision.kind === 'exhausted') expect(decision.failed.map((r) => r.offset)).toEqual([11, 13]);
  });

  it('bisects a function error without using up an attempt; a single record is retried instead', () => {
    const bisecting = policy({ bisectBatchOnFunctionError: true });
    const decision = decideAfterFailure(
      { parts: [part(0, [1, 2, 3])], attempts: 2 },
      functionError,
      bisecting,
    );
    expect(decision.kind).toBe('bisect');
    if (decision.kind !== 'bisect') return;
    expect(decision.halves.map((h) => [h.attempts, offsetsOf(h.parts)])).toEqual([
      [2, [[0, [1, 2], 3]]],
      [2, [[0, [3], 4]]],
    ]);
    // An invalid response is not a function error: no bisect.
    expect(decideAfterFailure({ parts: [part(0, [1, 2])], attempts: 0 }, invalid, bisecting).kind).toBe(
      'retry',
    );
    expect(decideAfterFailure({ parts: [part(0, [1])], attempts: 2 }, functionError, bisecting).kind).toBe(
      'exhausted',
    );
  });
});

describe('splitAged', () => {
  it('separates records older than the cutoff; a part left empty is committed past after they are sent', () => {
    const parts: BatchPart[] = [
      { partition: 0, records: [record(0, 1, 100), record(0, 2, 300)], end: 3 },
      { partition: 1, records: [record(1, 5, 100)], end: 9 },
    ];
    const { aged, kept, commitAfterSend } = splitAged(parts, 200);
    expect(aged.map((r) => [r.partition, r.offset])).toEqual([
      [0, 1],
      [1, 5],
    ]);
    expect(offsetsOf(kept)).toEqual([[0, [2], 3]]);
    expect(commitAfterSend).toEqual([{ partition: 1, offset: 9 }]);
  });

  it("never ages a record without a timestamp (Kafka's NO_TIMESTAMP, -1)", () => {
    const parts: BatchPart[] = [{ partition: 0, records: [record(0, 1, -1), record(0, 2, 100)], end: 3 }];
    const { aged, kept } = splitAged(parts, 200);
    expect(aged.map((r) => r.offset)).toEqual([2]);
    expect(offsetsOf(kept)).toEqual([[0, [1], 3]]);
  });

  it('leaves the parts as they are when nothing is aged', () => {
    const parts = [part(0, [1, 2])];
    expect(splitAged(parts, 0)).toEqual({ aged: [], kept: parts, commitAfterSend: [] });
  });
});

/**
 * A model of the emulator carrying one batch to its end with these decisions (the I/O left out), the
 * function answering from a script. It checks, at every step, what Lambda's trigger guarantees.
 */
type Answer =
  | { kind: 'success' }
  | { kind: 'function-error' }
  | { kind: 'invalid-response' }
  | { kind: 'partial'; mask: number };

function carryBatch(batch: BatchPart[], retryPolicy: RetryPolicy, answers: Answer[]) {
  const key = (r: { partition: number; offset: number }) => `${r.partition}@${r.offset}`;
  const resolved = new Set<string>();
  /** Invocations per record after which an attempt counted (retry or exhaustion, not bisect). */
  const counted = new Map<string, number>();
  const destination: Array<{ record: PendingRecord; attempts: number; failedLast: boolean }> = [];
  const highest = new Map<number, number>();
  const all = batch.flatMap((p) => p.records);
  const commit = (offsets: PartitionOffset[]) => {
    for (const { partition, offset } of offsets) {
      // Never past a record that neither succeeded nor went to the destination.
      for (const r of all)
        if (r.partition === partition && r.offset < offset) expect(resolved.has(key(r))).toBe(true);
      highest.set(partition, Math.max(highest.get(partition) ?? -1, offset));
    }
  };
  const work: Work[] = [{ parts: batch, attempts: 0 }];
  let invocations = 0;
  for (let piece = work.shift(); piece; piece = work.shift()) {
    let current = piece;
    for (;;) {
      expect(invocations++).toBeLessThan(10_000);
      const records = current.parts.flatMap((p) => p.records);
      const answer = answers[invocations % answers.length] ?? { kind: 'success' };
      let outcome: BatchOutcome;
      const failedNow = new Set<string>();
      if (answer.kind === 'partial') {
        const failed = new Map<number, number[]>();
        records.forEach((r, i) => {
          if (!(answer.mask & (1 << (i % 30)))) return;
          failed.set(r.partition, [...(failed.get(r.partition) ?? []), r.offset]);
        });
        outcome = failed.size === 0 ? { kind: 'success' } : { kind: 'partial', failed };
      } else if (answer.kind === 'function-error') {
        outcome = functionError;
      } else {
        outcome = answer.kind === 'success' ? { kind: 'success' } : invalid;
      }
      for (const r of records) {
        const reported = outcome.kind === 'partial' ? outcome.failed.get(r.partition) : undefined;
        const failed =
          outcome.kind === 'success'
            ? false
            : outcome.kind !== 'partial'
              ? true
              : reported !== undefined &&
                (retryPolicy.redelivery === 'from-lowest'
                  ? r.offset >= reported[0]!
                  : reported.includes(r.offset));
        if (failed) failedNow.add(key(r));
        else resolved.add(key(r));
      }
      if (outcome.kind === 'success') {
        commit(current.parts.map((p) => ({ partition: p.partition, offset: p.end })));
        break;
      }
      const decision = decideAfterFailure(current, outcome, retryPolicy);
      commit(decision.commit);
      if (decision.kind === 'bisect') {
        for (const half of decision.halves) expect(half.attempts).toBe(current.attempts);
        work.unshift(...decision.halves);
        break;
      }
      for (const r of records) counted.set(key(r), (counted.get(key(r)) ?? 0) + 1);
      if (decision.kind === 'exhausted') {
        for (const r of decision.failed) {
          destination.push({ record: r, attempts: decision.attempts, failedLast: failedNow.has(key(r)) });
          resolved.add(key(r));
        }
        commit(decision.commitAfterSend);
        if (decision.leftovers.length > 0) work.unshift({ parts: decision.leftovers, attempts: 0 });
        break;
      }
      expect(decision.next.attempts).toBe(current.attempts + 1);
      current = decision.next;
    }
  }
  return { all, resolved, counted, destination, highest, key };
}

/** 1 to 3 partitions of 1 to 5 records each, offsets with gaps of 1 or 2 (compaction, transaction markers). */
const batchArb = fc
  .array(fc.array(fc.integer({ min: 1, max: 2 }), { minLength: 1, maxLength: 5 }), {
    minLength: 1,
    maxLength: 3,
  })
  .map((partitions) =>
    partitions.map((gaps, partition) => {
      let offset = 100;
      return part(
        partition,
        gaps.map((gap) => (offset += gap)),
      );
    }),
  );
const answerArb: fc.Arbitrary<Answer> = fc.oneof(
  fc.constant({ kind: 'success' as const }),
  fc.constant({ kind: 'function-error' as const }),
  fc.constant({ kind: 'invalid-response' as const }),
  fc.record({ kind: fc.constant('partial' as const), mask: fc.integer({ min: 0, max: 2 ** 30 - 1 }) }),
);
const policyArb = fc.record({
  retryLimit: fc.integer({ min: 0, max: 3 }),
  bisectBatchOnFunctionError: fc.boolean(),
  redelivery: fc.constantFrom<Redelivery>('from-lowest', 'listed'),
});

describe('retry policy against a model of the trigger (property)', () => {
  it('loses no record, commits past nothing unfinished, exhausts only after the configured retries', () => {
    fc.assert(
      fc.property(
        batchArb,
        policyArb,
        fc.array(answerArb, { minLength: 1, maxLength: 12 }),
        (batch, p, answers) => {
          const { all, resolved, counted, destination, highest, key } = carryBatch(batch, p, answers);
          // No record lost: each one succeeded or went to the destination, and every partition is committed to its end.
          for (const r of all) expect(resolved.has(key(r))).toBe(true);
          for (const b of batch) expect(highest.get(b.partition)).toBe(b.end);
          for (const { record: r, attempts, failedLast } of destination) {
            expect(attempts).toBe(p.retryLimit + 1);
            expect(counted.get(key(r))).toBeGreaterThanOrEqual(p.retryLimit + 1);
            expect(failedLast).toBe(true);
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('a poison record is isolated by bisecting before any retry counts', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 16 }), fc.integer({ min: 0, max: 3 }), (size, retryLimit) => {
        const batch = [
          part(
            0,
            Array.from({ length: size }, (_, i) => i),
          ),
        ];
        const poison = size - 1;
        let work: Work = { parts: batch, attempts: 0 };
        const sent: number[] = [];
        const queue: Work[] = [work];
        for (let guard = 0; queue.length > 0 && guard < 1_000; guard++) {
          work = queue.shift()!;
          const hasPoison = work.parts.some((pt) => pt.records.some((r) => r.offset === poison));
          if (!hasPoison) continue;
          const decision = decideAfterFailure(work, functionError, {
            retryLimit,
            bisectBatchOnFunctionError: true,
            redelivery: 'from-lowest',
          });
          if (decision.kind === 'bisect') queue.unshift(...decision.halves);
          else if (decision.kind === 'retry') queue.unshift(decision.next);
          else sent.push(...decision.failed.map((r) => r.offset));
          if (decision.kind !== 'bisect') expect(recordsOf(work)).toEqual([poison]);
        }
        expect(sent).toEqual([poison]);
      }),
    );
  });
});

function recordsOf(work: Work): number[] {
  return work.parts.flatMap((p) => p.records.map((r) => r.offset));
}
