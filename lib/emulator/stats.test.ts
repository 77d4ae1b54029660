import { describe, expect, it } from 'vitest';
import { countInvocation, newCounters, partitionStats, recordsCommittedPast } from './stats.ts';

describe('emulator stats', () => {
  it('counts invocations, the records they carried, and each kind of failure', () => {
    const counters = newCounters();
    countInvocation(counters, { kind: 'success' }, 100);
    countInvocation(counters, { kind: 'function-error', errorType: 'Error', errorMessage: 'boom' }, 100);
    countInvocation(
      counters,
      { kind: 'invalid-response', reason: 'the response is a string, not an object' },
      50,
    );
    countInvocation(counters, { kind: 'partial', failed: new Map([[0, [7]]]) }, 50);
    expect(counters).toEqual({
      ...newCounters(),
      invocations: 4,
      recordsInvoked: 300,
      functionErrors: 1,
      invalidResponses: 1,
      partialFailures: 1,
    });
  });

  it('counts records committed past from the previous commit, else from where the group stood', () => {
    expect(recordsCommittedPast(120, 110, 100)).toBe(10);
    expect(recordsCommittedPast(120, undefined, 100)).toBe(20);
    expect(recordsCommittedPast(120, undefined, undefined)).toBe(0);
    // A commit below where the group stood (records put back after a rejoin) counts none.
    expect(recordsCommittedPast(90, undefined, 100)).toBe(0);
  });

  it('reports lag from the committed offset, or from where the group stood before the first commit', () => {
    expect(partitionStats({ partition: 3, committed: 90, base: 50, highWatermark: 100 })).toEqual({
      partition: 3,
      committed: 90,
      highWatermark: 100,
      lag: 10,
    });
    expect(partitionStats({ partition: 3, committed: undefined, base: 50, highWatermark: 100 }).lag).toBe(50);
    expect(
      partitionStats({ partition: 3, committed: undefined, base: undefined, highWatermark: 100 }).lag,
    ).toBe(undefined);
    expect(partitionStats({ partition: 3, committed: 90, base: 50, highWatermark: undefined }).lag).toBe(
      undefined,
    );
  });
});
