/**
 * The trigger emulator's retry policy, as decisions without side effects: after an invocation, what is
 * committed, what is retried (and after how long), when a batch is bisected, and what goes to the
 * on-failure destination once retries are exhausted. The emulator carries the decisions out.
 */
import { type BatchPart, bisectBatch, type PendingRecord, recordCount } from './batch.ts';
import type { PartitionOffset } from './commits.ts';
import type { BatchOutcome } from './response.ts';

/**
 * How a partition with several reported offsets is redelivered. `from-lowest` (default, the
 * Kafka-consistent reading): from the lowest reported offset, successes after it included.
 * `listed`: only the listed records; the others of the batch count as done.
 *
 * @example
 * ```ts
 * createLocalEventSourceMapping({ ...options, redelivery: 'listed' });
 * ```
 */
export type Redelivery = 'from-lowest' | 'listed';

/** The settings the retry decisions follow. */
export interface RetryPolicy {
  /** Failed attempts after the first that a batch gets (`Infinity`: until it succeeds or ages out). */
  retryLimit: number;
  bisectBatchOnFunctionError: boolean;
  redelivery: Redelivery;
}

/** A batch, or a piece of one, with the failed attempts it has had (retries count per batch). */
export interface Work {
  parts: BatchPart[];
  attempts: number;
}

/** Why a piece of work is invoked again (a bisect split is no retry: see {@link RetryDecision}). */
export type RetryReason = 'function-error' | 'invalid-response' | 'partial';

/**
 * What follows a failed invocation. Every decision first commits `commit` (what succeeded).
 * - `retry`: invoke `next` again after `backoffDelayMs(next.attempts)`.
 * - `bisect`: run the halves in turn, after `backoffDelayMs(attempts)`; bisecting uses up no attempt.
 * - `exhausted`: send `failed` to the destination, then commit `commitAfterSend`; `leftovers` (records
 *   after a partition's failed one, `from-lowest` only) are left for a fresh batch.
 */
export type RetryDecision =
  | { kind: 'retry'; commit: PartitionOffset[]; next: Work; reason: RetryReason }
  | { kind: 'bisect'; commit: PartitionOffset[]; halves: Work[] }
  | {
      kind: 'exhausted';
      commit: PartitionOffset[];
      /** Failed attempts, the last one included: the destination's `invokeCount`. */
      attempts: number;
      failed: PendingRecord[];
      commitAfterSend: PartitionOffset[];
      leftovers: BatchPart[];
    };

/** The default delays between retries. */
export const DEFAULT_RETRY_BACKOFF = { initialMs: 100, maxMs: 5_000 } as const;

/**
 * The delay before retry `attempt`: `min(initialMs · 2^(attempt−1), maxMs)` (attempt 0 waits `initialMs`).
 *
 * @example
 * ```ts
 * backoffDelayMs(3); // 400
 * backoffDelayMs(10, { initialMs: 100, maxMs: 5_000 }); // 5000
 * ```
 */
export function backoffDelayMs(
  attempt: number,
  { initialMs, maxMs }: { initialMs: number; maxMs: number } = DEFAULT_RETRY_BACKOFF,
): number {
  return Math.min(initialMs * 2 ** Math.max(attempt - 1, 0), maxMs);
}

/**
 * After a partial failure: commit what succeeded (a partition not reported is done; a reported one up to
 * its lowest reported offset) and keep per partition what is redelivered.
 *
 * @example
 * ```ts
 * const { commit, parts: next } = keepFailed(parts, outcome.failed, 'from-lowest');
 * ```
 */
export function keepFailed(
  parts: readonly BatchPart[],
  failed: ReadonlyMap<number, readonly number[]>,
  redelivery: Redelivery,
): { commit: PartitionOffset[]; parts: BatchPart[] } {
  const commit: PartitionOffset[] = [];
  const next: BatchPart[] = [];
  for (const part of parts) {
    const offsets = failed.get(part.partition);
    if (!offsets) {
      commit.push({ partition: part.partition, offset: part.end });
      continue;
    }
    const lowest = offsets[0]!;
    commit.push({ partition: part.partition, offset: lowest });
    const listed = new Set(offsets);
    const records =
      redelivery === 'from-lowest'
        ? part.records.filter((r) => r.offset >= lowest)
        : part.records.filter((r) => listed.has(r.offset));
    next.push({ partition: part.partition, records, end: part.end });
  }
  return { commit, parts: next };
}

/**
 * Retries exhausted after a partial failure, Kafka reading: each partition is held at its lowest
 * reported offset, so that record is the one that failed; it goes to the destination and the
 * partition moves on past it. The later records (reported or not) are left for a fresh batch; a part
 * with none left after it is committed to its `end`, past the records it no longer holds (filtered
 * out, or refused by the schema registry, after its last record).
 */
function exhaustAtLowest(
  parts: readonly BatchPart[],
  failed: ReadonlyMap<number, readonly number[]>,
): Pick<Extract<RetryDecision, { kind: 'exhausted' }>, 'failed' | 'commitAfterSend' | 'leftovers'> {
  const heads: PendingRecord[] = [];
  const commitAfterSend: PartitionOffset[] = [];
  const leftovers: BatchPart[] = [];
  for (const part of parts) {
    const lowest = failed.get(part.partition)![0]!;
    const head = part.records.find((r) => r.offset === lowest)!;
    heads.push(head);
    const records = part.records.filter((r) => r.offset > head.offset);
    if (records.length > 0) leftovers.push({ partition: part.partition, records, end: part.end });
    commitAfterSend.push({
      partition: part.partition,
      offset: records.length > 0 ? head.offset + 1 : part.end,
    });
  }
  return { failed: heads, commitAfterSend, leftovers };
}

/**
 * Decides what follows an invocation of `work` that did not succeed: retry (what is left), bisect
 * (function errors, when enabled, for more than one record), or, past the retry limit, send the
 * failed records to the destination and commit past them.
 *
 * @example
 * ```ts
 * const decision = decideAfterFailure({ parts, attempts: 0 }, { kind: 'invalid-response', reason: 'a string' }, policy);
 * if (decision.kind === 'retry') await sleep(backoffDelayMs(decision.next.attempts));
 * ```
 */
export function decideAfterFailure(
  work: Work,
  outcome: Exclude<BatchOutcome, { kind: 'success' }>,
  policy: RetryPolicy,
): RetryDecision {
  let parts = work.parts;
  let commit: PartitionOffset[] = [];
  if (outcome.kind === 'partial') ({ commit, parts } = keepFailed(parts, outcome.failed, policy.redelivery));
  if (outcome.kind === 'function-error' && policy.bisectBatchOnFunctionError && recordCount(parts) > 1) {
    // Splitting does not use up the retry quota (documented for stream sources:
    // https://docs.aws.amazon.com/lambda/latest/dg/services-kinesis-errors.html): each half keeps
    // the failed attempts its records had, so a poison record is isolated before retries count.
    const halves = bisectBatch(parts);
    return {
      kind: 'bisect',
      commit,
      halves: halves.map((half) => ({ parts: half, attempts: work.attempts })),
    };
  }
  const attempts = work.attempts + 1;
  if (attempts <= policy.retryLimit) {
    return { kind: 'retry', commit, next: { parts, attempts }, reason: outcome.kind };
  }
  if (outcome.kind === 'partial' && policy.redelivery === 'from-lowest') {
    return { kind: 'exhausted', commit, attempts, ...exhaustAtLowest(parts, outcome.failed) };
  }
  // Every record still held failed in the last attempt: all of them after a whole-batch failure,
  // the reported ones after a partial failure (redelivery 'listed' keeps only those).
  return {
    kind: 'exhausted',
    commit,
    attempts,
    failed: parts.flatMap((part) => part.records),
    commitAfterSend: parts.map((part) => ({ partition: part.partition, offset: part.end })),
    leftovers: [],
  };
}

/**
 * Splits the parts' records by `maximumRecordAgeInSeconds`: records older than `oldest` (epoch ms) are
 * not invoked (they go to the destination); a part left with no record is committed past once they are
 * sent.
 *
 * @example
 * ```ts
 * const { aged, kept, commitAfterSend } = splitAged(parts, Date.now() - settings.maximumRecordAgeMs);
 * ```
 */
export function splitAged(
  parts: readonly BatchPart[],
  oldest: number,
): { aged: PendingRecord[]; kept: BatchPart[]; commitAfterSend: PartitionOffset[] } {
  // A record without a timestamp (Kafka's NO_TIMESTAMP, -1) has no age: AWS does not say how the
  // trigger treats it, and reading -1 as a time would send it to the destination (or drop it, without
  // one) on its first failure. Keeping it leaves it to the retries, which lose nothing.
  const isAged = (record: PendingRecord) => record.timestamp >= 0 && record.timestamp < oldest;
  const aged = parts.flatMap((part) => part.records.filter(isAged));
  if (aged.length === 0) return { aged, kept: [...parts], commitAfterSend: [] };
  const kept: BatchPart[] = [];
  const commitAfterSend: PartitionOffset[] = [];
  for (const part of parts) {
    const records = part.records.filter((record) => !isAged(record));
    if (records.length === 0) commitAfterSend.push({ partition: part.partition, offset: part.end });
    else kept.push({ ...part, records });
  }
  return { aged, kept, commitAfterSend };
}
