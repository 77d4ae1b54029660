import type { KafkaOrdering } from './options.ts';
import type { RecordTally } from './response.ts';

/**
 * The attributes of the one `Kafka batch processed` line each invocation logs (their order is the
 * line's field order). A type, not an interface, so that it is a logger's attribute record.
 */
export type BatchSummary = {
  records: number;
  processed: number;
  failed: number;
  skipped: number;
  /** Entries of the partial batch response. */
  reported: number;
  partitions: number;
  /** Age of the oldest record when the batch finished; `null` if no record has a timestamp. */
  oldestRecordAgeMs: number | null;
  durationMs: number;
  timedOut: boolean;
  /** The ordering, or `'partition-run'` with `onPartition`. */
  ordering: KafkaOrdering | 'partition-run';
};

/** What the summary is made of, as the invocation knows it when it finishes. */
export interface BatchSummaryInput {
  recordCount: number;
  tally: RecordTally;
  reported: number;
  partitionCount: number;
  /** Epoch ms; `NaN` if no record has a timestamp. */
  oldestTimestamp: number;
  /** Epoch ms the invocation's processing started. */
  startedAt: number;
  /** Epoch ms it finished. */
  finishedAt: number;
  timedOut: boolean;
  ordering: BatchSummary['ordering'];
}

/**
 * The summary line's attributes.
 *
 * @example
 * ```ts
 * logger.info(BATCH_SUMMARY_MESSAGE, batchSummary({ recordCount: 2, tally, reported: 1, partitionCount: 1, oldestTimestamp, startedAt, finishedAt: Date.now(), timedOut: false, ordering: 'key' }));
 * ```
 */
export function batchSummary(input: BatchSummaryInput): BatchSummary {
  const { tally, oldestTimestamp, finishedAt } = input;
  return {
    records: input.recordCount,
    processed: tally.processed,
    failed: tally.failed,
    skipped: tally.skipped,
    reported: input.reported,
    partitions: input.partitionCount,
    oldestRecordAgeMs: Number.isNaN(oldestTimestamp) ? null : finishedAt - oldestTimestamp,
    durationMs: finishedAt - input.startedAt,
    timedOut: input.timedOut,
    ordering: input.ordering,
  };
}

/** The message of the summary line (what log queries and alarms match). */
export const BATCH_SUMMARY_MESSAGE = 'Kafka batch processed';
