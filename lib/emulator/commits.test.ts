import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  CommitCoalescer,
  type CommittedOffset,
  filteredCommitOffset,
  type PartitionOffset,
} from './commits.ts';

/** A commit function under the test's control: each request waits until the test settles it. */
function fakeCommits() {
  const requests: Array<{ offsets: PartitionOffset[]; settle: (error?: Error) => void }> = [];
  const committed: CommittedOffset[][] = [];
  const errors: Error[] = [];
  /** `busy` as each onSettled call saw it. */
  const settledBusy: boolean[] = [];
  let running = true;
  const coalescer = new CommitCoalescer({
    commit: (offsets) =>
      new Promise<void>((resolve, reject) => {
        requests.push({ offsets, settle: (error) => (error ? reject(error) : resolve()) });
      }),
    onCommitted: (offsets) => committed.push(offsets),
    onError: (error) => errors.push(error),
    mayRetry: () => running,
    retryDelayMs: 1_000,
    onSettled: () => settledBusy.push(coalescer.busy),
  });
  return {
    coalescer,
    requests,
    committed,
    errors,
    settledBusy,
    stop: () => {
      running = false;
    },
  };
}

/** Lets the coalescer's promise chain move on. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

afterEach(() => {
  vi.useRealTimers();
});

describe('CommitCoalescer', () => {
  it('commits a wanted offset and reports what was committed before it', async () => {
    const { coalescer, requests, committed } = fakeCommits();
    coalescer.want(0, 5);
    expect(requests.map((r) => r.offsets)).toEqual([[{ partition: 0, offset: 5 }]]);
    requests[0]!.settle();
    await coalescer.flush();
    expect(committed).toEqual([[{ partition: 0, offset: 5, previous: undefined }]]);
    expect(coalescer.committed(0)).toBe(5);
    coalescer.want(0, 9);
    requests[1]!.settle();
    await settle();
    expect(committed[1]).toEqual([{ partition: 0, offset: 9, previous: 5 }]);
  });

  it('coalesces offsets wanted during a request into one next request, with the latest offset per partition', async () => {
    const { coalescer, requests, committed } = fakeCommits();
    coalescer.want(0, 1);
    coalescer.want(0, 2);
    coalescer.want(1, 7);
    coalescer.want(0, 3);
    expect(requests).toHaveLength(1);
    expect(coalescer.busy).toBe(true);
    requests[0]!.settle();
    await settle();
    expect(requests).toHaveLength(2);
    expect(requests[1]!.offsets).toEqual([
      { partition: 0, offset: 3 },
      { partition: 1, offset: 7 },
    ]);
    requests[1]!.settle();
    await coalescer.flush();
    expect(coalescer.busy).toBe(false);
    expect(committed.flat().map(({ partition, offset }) => [partition, offset])).toEqual([
      [0, 1],
      [0, 3],
      [1, 7],
    ]);
  });

  it('tells when a flush has settled, once no request is in flight any more (idle() waits on it)', async () => {
    const { coalescer, requests, settledBusy } = fakeCommits();
    coalescer.want(0, 1);
    coalescer.want(0, 2); // joins the flush under way
    requests[0]!.settle();
    await settle();
    expect(settledBusy).toEqual([]);
    requests[1]!.settle(new Error('down'));
    await settle();
    expect(settledBusy).toEqual([false]);
    coalescer.cancelRetry();
  });

  it('never moves a partition backwards: a lower or equal offset is ignored', async () => {
    const { coalescer, requests } = fakeCommits();
    coalescer.want(2, 10);
    requests[0]!.settle();
    await coalescer.flush();
    coalescer.want(2, 10);
    coalescer.want(2, 4);
    await coalescer.flush();
    expect(requests).toHaveLength(1);
    expect(coalescer.wanted(2)).toBe(10);
  });

  it('retries a failed commit after the delay, with what is wanted by then', async () => {
    vi.useFakeTimers();
    const { coalescer, requests, committed, errors } = fakeCommits();
    coalescer.want(0, 4);
    requests[0]!.settle(new Error('coordinator not available'));
    await vi.advanceTimersByTimeAsync(0);
    expect(errors.map((e) => e.message)).toEqual(['coordinator not available']);
    expect(coalescer.committed(0)).toBeUndefined();
    coalescer.want(0, 6); // commits at once: the retry is still scheduled, once
    requests[1]!.settle(new Error('still down'));
    await vi.advanceTimersByTimeAsync(999);
    expect(requests).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(requests).toHaveLength(3);
    expect(requests[2]!.offsets).toEqual([{ partition: 0, offset: 6 }]);
    requests[2]!.settle();
    await vi.advanceTimersByTimeAsync(0);
    expect(committed).toEqual([[{ partition: 0, offset: 6, previous: undefined }]]);
  });

  it('does not retry once the emulator stopped, nor when the retry was cancelled', async () => {
    vi.useFakeTimers();
    const first = fakeCommits();
    first.stop();
    first.coalescer.want(0, 1);
    first.requests[0]!.settle(new Error('down'));
    await vi.advanceTimersByTimeAsync(5_000);
    expect(first.requests).toHaveLength(1);

    const second = fakeCommits();
    second.coalescer.want(0, 1);
    second.requests[0]!.settle(new Error('down'));
    await vi.advanceTimersByTimeAsync(0);
    second.coalescer.cancelRetry();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(second.requests).toHaveLength(1);
  });

  it('commits nothing more once abandoned, even what was wanted before', async () => {
    const { coalescer, requests, committed } = fakeCommits();
    coalescer.want(0, 1);
    coalescer.want(0, 2);
    coalescer.abandon();
    requests[0]!.settle();
    await coalescer.flush();
    coalescer.want(0, 3);
    await coalescer.flush();
    expect(requests).toHaveLength(1);
    expect(committed).toEqual([[{ partition: 0, offset: 1, previous: undefined }]]);
  });

  it('forgets a revoked partition: the next assignment starts afresh', async () => {
    const { coalescer, requests } = fakeCommits();
    coalescer.want(0, 8);
    requests[0]!.settle();
    await coalescer.flush();
    coalescer.forget(0);
    expect(coalescer.wanted(0)).toBeUndefined();
    expect(coalescer.committed(0)).toBeUndefined();
    coalescer.want(0, 3);
    expect(requests[1]!.offsets).toEqual([{ partition: 0, offset: 3 }]);
  });

  it('commits in order and only offsets that were wanted, ending at the highest (property)', async () => {
    const step = fc.oneof(
      fc.record({
        kind: fc.constant('want' as const),
        partition: fc.integer({ min: 0, max: 2 }),
        offset: fc.nat(50),
      }),
      fc.record({ kind: fc.constant('settle' as const), fail: fc.boolean() }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 40 }), async (steps) => {
        const { coalescer, requests, committed } = fakeCommits();
        const wanted = new Map<number, Set<number>>();
        let settled = 0;
        const pending = () => [...wanted.keys()].some((p) => coalescer.committed(p) !== coalescer.wanted(p));
        for (const s of steps) {
          if (s.kind === 'want') {
            if (!wanted.has(s.partition)) wanted.set(s.partition, new Set());
            wanted.get(s.partition)!.add(s.offset);
            coalescer.want(s.partition, s.offset);
          } else if (settled < requests.length) {
            requests[settled++]!.settle(s.fail ? new Error('down') : undefined);
            await settle();
          }
        }
        // Let every request left succeed (a failed one is retried by flush here: its timer is not awaited).
        for (
          let round = 0;
          round < 100 && (settled < requests.length || coalescer.busy || pending());
          round++
        ) {
          if (settled < requests.length) requests[settled++]!.settle();
          else void coalescer.flush();
          await settle();
        }
        coalescer.cancelRetry();
        const last = new Map<number, number>();
        for (const { partition, offset, previous } of committed.flat()) {
          expect(wanted.get(partition)!.has(offset)).toBe(true);
          expect(previous).toBe(last.get(partition));
          expect(offset).toBeGreaterThan(last.get(partition) ?? -1);
          last.set(partition, offset);
        }
        for (const [partition, offsets] of wanted) expect(last.get(partition)).toBe(Math.max(...offsets));
      }),
      { numRuns: 200 },
    );
  });
});

describe('filteredCommitOffset', () => {
  it('passes trailing filtered records once every queued record before them is committed', () => {
    expect(filteredCommitOffset({ filteredEnd: 10, lastQueued: 5, busy: false, wanted: 6 })).toBe(10);
    expect(
      filteredCommitOffset({ filteredEnd: 10, lastQueued: undefined, busy: false, wanted: undefined }),
    ).toBe(10);
  });

  it('never commits past a record still to be done', () => {
    // Record 5 was queued but its commit (6) is not wanted yet: a batch holding it stopped or is running.
    expect(filteredCommitOffset({ filteredEnd: 10, lastQueued: 5, busy: false, wanted: 5 })).toBeUndefined();
    expect(
      filteredCommitOffset({ filteredEnd: 10, lastQueued: 5, busy: false, wanted: undefined }),
    ).toBeUndefined();
    // Something of the partition is queued or held.
    expect(filteredCommitOffset({ filteredEnd: 10, lastQueued: 5, busy: true, wanted: 6 })).toBeUndefined();
    expect(
      filteredCommitOffset({ filteredEnd: undefined, lastQueued: 5, busy: false, wanted: 6 }),
    ).toBeUndefined();
  });
});
