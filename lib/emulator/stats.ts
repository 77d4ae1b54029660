/**
 * The trigger emulator's counters and per-partition progress, as `stats()` reports them.
 */
import type { MappingStats, PartitionStats } from './emulator.ts';
import type { BatchOutcome } from './response.ts';

/** The counters of {@link MappingStats}, without the per-partition progress. */
export type EmulatorCounters = Omit<MappingStats, 'partitions'>;

/**
 * Counters at zero, as at `start()`.
 *
 * @example
 * ```ts
 * const counters = newCounters();
 * ```
 */
export function newCounters(): EmulatorCounters {
  return {
    invocations: 0,
    recordsInvoked: 0,
    recordsCommitted: 0,
    functionErrors: 0,
    invalidResponses: 0,
    partialFailures: 0,
    retries: 0,
    splits: 0,
    destinationRecords: 0,
    droppedRecords: 0,
    recordsFiltered: 0,
  };
}

/**
 * Counts one invocation of `records` records and how it ended.
 *
 * @example
 * ```ts
 * countInvocation(counters, { kind: 'success' }, 100);
 * ```
 */
export function countInvocation(counters: EmulatorCounters, outcome: BatchOutcome, records: number): void {
  counters.invocations++;
  counters.recordsInvoked += records;
  if (outcome.kind === 'function-error') counters.functionErrors++;
  if (outcome.kind === 'invalid-response') counters.invalidResponses++;
  if (outcome.kind === 'partial') counters.partialFailures++;
}

/**
 * Records a commit moved past: from the previous commit, or from where the group stood at the (re)join
 * (`base`) for the first one; none when neither is known.
 *
 * @example
 * ```ts
 * recordsCommittedPast(120, undefined, 100); // 20
 * ```
 */
export function recordsCommittedPast(
  offset: number,
  previous: number | undefined,
  base: number | undefined,
): number {
  const from = previous ?? base;
  return from === undefined ? 0 : Math.max(0, offset - from);
}

/**
 * Where the group stood on a partition when this member was assigned it, and the partition's high
 * watermark then: the progress of a partition nothing has been fetched from yet.
 */
export interface StartPosition {
  /** The offset the group reads from next: its committed offset, or where its consumer starts. */
  position: number;
  highWatermark: number;
}

/**
 * Where the group stands on each partition, from the partitions' log offsets and the group's committed
 * offsets: a committed offset inside the log, else where the consumer starts reading (the log end with
 * `fromEnd`, LATEST; the log start otherwise, as kafkajs resets a partition with no valid offset).
 *
 * @example
 * ```ts
 * startPositions([{ partition: 0, low: '0', high: '12' }], new Map([[0, 10]]), false).get(0); // { position: 10, highWatermark: 12 }
 * ```
 */
export function startPositions(
  logs: ReadonlyArray<{ partition: number; low: string; high: string }>,
  committed: ReadonlyMap<number, number>,
  fromEnd: boolean,
): Map<number, StartPosition> {
  const positions = new Map<number, StartPosition>();
  for (const log of logs) {
    const low = Number(log.low);
    const high = Number(log.high);
    const offset = committed.get(log.partition) ?? -1;
    const valid = offset >= low && offset <= high;
    positions.set(log.partition, {
      position: valid ? offset : fromEnd ? high : low,
      highWatermark: high,
    });
  }
  return positions;
}

/**
 * A partition's progress: lag from the committed offset, or from where the group stood before the first
 * commit (`base`, the first offset fetched; else `start`, where it stood when the partition was
 * assigned); unknown until both that and the high watermark are.
 *
 * @example
 * ```ts
 * partitionStats({ partition: 0, committed: 90, base: 50, start: 50, highWatermark: 100 }).lag; // 10
 * partitionStats({ partition: 1, committed: undefined, base: undefined, start: 7, highWatermark: 7 }).lag; // 0: idle
 * ```
 */
export function partitionStats(state: {
  partition: number;
  committed: number | undefined;
  base: number | undefined;
  start: number | undefined;
  highWatermark: number | undefined;
}): PartitionStats {
  const position = state.committed ?? state.base ?? state.start;
  return {
    partition: state.partition,
    committed: state.committed,
    highWatermark: state.highWatermark,
    lag:
      state.highWatermark === undefined || position === undefined
        ? undefined
        : Math.max(0, state.highWatermark - position),
  };
}
