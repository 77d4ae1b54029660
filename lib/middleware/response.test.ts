import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FAILED, NOT_STARTED, PROCESSED, RUNNING, SKIPPED } from './record-state.ts';
import { partialBatchResponse } from './response.ts';

const reported = (partition: string, ...offsets: number[]) =>
  offsets.map((offset) => ({ itemIdentifier: { partition, offset } }));

describe('partialBatchResponse', () => {
  it('reports every record neither processed nor skipped, in record order, and counts the outcomes', () => {
    const { response, tally } = partialBatchResponse([
      {
        id: 'orders-0',
        offsets: [10, 11, 12, 13],
        status: Uint8Array.of(PROCESSED, FAILED, NOT_STARTED, NOT_STARTED),
      },
      { id: 'orders-1', offsets: [5, 6, 7], status: Uint8Array.of(SKIPPED, PROCESSED, RUNNING) },
      { id: 'payments-0', offsets: [1], status: Uint8Array.of(PROCESSED) },
    ]);
    expect(response).toEqual({
      batchItemFailures: [...reported('orders-0', 11, 12, 13), ...reported('orders-1', 7)],
    });
    expect(tally).toEqual({ processed: 3, failed: 1, skipped: 1 });
  });

  it('answers an empty batch, or one where every record passed, with no failures', () => {
    expect(partialBatchResponse([])).toEqual({
      response: { batchItemFailures: [] },
      tally: { processed: 0, failed: 0, skipped: 0 },
    });
    const { response } = partialBatchResponse([
      { id: 't-0', offsets: [1, 2], status: Uint8Array.of(PROCESSED, SKIPPED) },
    ]);
    expect(response.batchItemFailures).toEqual([]);
  });

  it('names a repeated offset once (a hand-written event may repeat one)', () => {
    const { response, tally } = partialBatchResponse([
      { id: 't-0', offsets: [3, 3, 3, 4], status: Uint8Array.of(PROCESSED, FAILED, FAILED, NOT_STARTED) },
    ]);
    expect(response.batchItemFailures).toEqual(reported('t-0', 3, 4));
    expect(tally.failed).toBe(2);
  });

  it('loses no record: every record is counted as processed or skipped, or its offset is reported', () => {
    const state = fc.constantFrom(NOT_STARTED, RUNNING, PROCESSED, FAILED, SKIPPED);
    fc.assert(
      fc.property(fc.array(fc.array(state, { maxLength: 20 }), { maxLength: 5 }), (statesByPartition) => {
        const partitions = statesByPartition.map((states, p) => ({
          id: `t-${p}`,
          offsets: states.map((_, i) => 100 + i),
          status: Uint8Array.from(states),
        }));
        const { response, tally } = partialBatchResponse(partitions);
        const expected = partitions.flatMap(({ id, offsets, status }) =>
          offsets.filter((_, i) => status[i] !== PROCESSED && status[i] !== SKIPPED).map((o) => `${id}@${o}`),
        );
        expect(
          response.batchItemFailures.map((f) => `${f.itemIdentifier.partition}@${f.itemIdentifier.offset}`),
        ).toEqual(expected);
        const all = statesByPartition.flat();
        expect(tally).toEqual({
          processed: all.filter((s) => s === PROCESSED).length,
          failed: all.filter((s) => s === FAILED).length,
          skipped: all.filter((s) => s === SKIPPED).length,
        });
      }),
    );
  });
});
