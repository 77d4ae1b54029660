import { describe, expect, it } from 'vitest';
import {
  countInvocation,
  newCounters,
  partitionStats,
  recordsCommittedPast,
  startPositions,
} from './stats.ts';

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
    expect(partitionStats({ partition: 3, committed: 90, base: 50, start: 40, highWatermark: 100 })).toEqual({
      partition: 3,
      committed: 90,
      highWatermark: 100,
      lag: 10,
    });
    expect(
      partitionStats({ partition: 3, committed: undefined, base: 50, start: 40, highWatermark: 100 }).lag,
    ).toBe(50);
    expect(
      partitionStats({
        partition: 3,
        committed: undefined,
        base: undefined,
        start: undefined,
        highWatermark: 100,
      }).lag,
    ).toBe(undefined);
    expect(
      partitionStats({ partition: 3, committed: 90, base: 50, start: 40, highWatermark: undefined }).lag,
    ).toBe(undefined);
  });

  it('an idle partition (nothing fetched, nothing committed) lags from where the group stood when assigned', () => {
    expect(
      partitionStats({ partition: 1, committed: undefined, base: undefined, start: 7, highWatermark: 7 }),
    ).toEqual({ partition: 1, committed: undefined, highWatermark: 7, lag: 0 });
    expect(
      partitionStats({ partition: 1, committed: undefined, base: undefined, start: 4, highWatermark: 7 }).lag,
    ).toBe(3);
  });

  it('finds where the group stands: a committed offset inside the log, else where its consumer starts', () => {
    const logs = [
      { partition: 0, low: '0', high: '12' },
      { partition: 1, low: '5', high: '9' },
      { partition: 2, low: '0', high: '0' },
      { partition: 3, low: '3', high: '8' },
    ];
    // 0: committed inside the log; 1: committed below the log start (deleted records); 2: empty; 3: none.
    const committed = new Map([
      [0, 10],
      [1, 2],
    ]);
    expect(Object.fromEntries(startPositions(logs, committed, false))).toEqual({
      0: { position: 10, highWatermark: 12 },
      1: { position: 5, highWatermark: 9 },
      2: { position: 0, highWatermark: 0 },
      3: { position: 3, highWatermark: 8 },
    });
    // LATEST: a partition with no valid offset starts at the log end.
    expect(Object.fromEntries(startPositions(logs, committed, true))).toMatchObject({
      0: { position: 10 },
      1: { position: 9 },
      3: { position: 8 },
    });
  });
});
