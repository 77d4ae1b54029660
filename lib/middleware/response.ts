import type { KafkaBatchItemFailure, KafkaBatchResponse } from '../kafka-event/types.ts';
import { FAILED, PROCESSED, SKIPPED } from './record-state.ts';

/** One partition's records as the response needs them: identifier, offsets and states (see record-state.ts). */
export interface PartitionStates {
  /** `"<topic>-<partition>"`: the `partition` of an item identifier. */
  readonly id: string;
  readonly offsets: readonly number[];
  readonly status: Uint8Array;
}

/** How many records ended which way; records neither processed, failed nor skipped did not finish. */
export interface RecordTally {
  processed: number;
  failed: number;
  skipped: number;
}

/**
 * Lambda's partial batch response from the records' states: every record not processed or skipped is
 * reported by offset (Lambda resumes each partition from the lowest reported offset), each offset
 * once. Counts the outcomes in the same pass.
 *
 * @example
 * ```ts
 * const { response, tally } = partialBatchResponse([{ id: 'orders-0', offsets: [4, 5], status: Uint8Array.of(PROCESSED, FAILED) }]);
 * // response: { batchItemFailures: [{ itemIdentifier: { partition: 'orders-0', offset: 5 } }] }
 * ```
 */
export function partialBatchResponse(partitions: readonly PartitionStates[]): {
  response: KafkaBatchResponse;
  tally: RecordTally;
} {
  const batchItemFailures: KafkaBatchItemFailure[] = [];
  let processed = 0;
  let failed = 0;
  let skipped = 0;
  for (const { id, offsets, status } of partitions) {
    let lastReported = -1;
    for (let i = 0; i < offsets.length; i++) {
      const state = status[i];
      if (state === PROCESSED) processed++;
      else if (state === SKIPPED) skipped++;
      else {
        if (state === FAILED) failed++;
        const offset = offsets[i]!;
        // A hand-written event may repeat an offset; Lambda must see each identifier once.
        if (offset !== lastReported) {
          batchItemFailures.push({ itemIdentifier: { partition: id, offset } });
          lastReported = offset;
        }
      }
    }
  }
  return { response: { batchItemFailures }, tally: { processed, failed, skipped } };
}
