import { setTimeout as sleep } from 'node:timers/promises';
import { ReplayAbortedError, ReplayTimeoutError } from './errors.ts';

/**
 * Options of a bounded wait.
 *
 * @example
 * ```ts
 * const options: WaitOptions = { timeoutMs: 60_000, intervalMs: 1_000 };
 * ```
 */
export interface WaitOptions {
  timeoutMs: number;
  intervalMs: number;
  signal?: AbortSignal;
}

/**
 * Sleeps, unless the signal aborts first ({@link ReplayAbortedError}).
 *
 * @example
 * ```ts
 * await pause(500, signal);
 * ```
 */
export async function pause(ms: number, signal?: AbortSignal): Promise<void> {
  throwIfAborted(signal);
  try {
    await sleep(ms, undefined, { signal });
  } catch (error) {
    if (signal?.aborted) throw new ReplayAbortedError('replay aborted', { cause: error });
    throw error;
  }
}

/**
 * Throws {@link ReplayAbortedError} when the signal has aborted.
 *
 * @example
 * ```ts
 * throwIfAborted(signal); // between two steps
 * ```
 */
export function throwIfAborted(signal?: AbortSignal): void {
  if (signal?.aborted) throw new ReplayAbortedError('replay aborted');
}

/**
 * Polls `check` until it reports done, reporting what it sees whenever that changes (and every
 * `reportEveryMs` while it does not), and throws {@link ReplayTimeoutError} naming the last observation.
 *
 * @example
 * ```ts
 * await pollUntil('mapping Disabled', { timeoutMs: 300_000, intervalMs: 2_000 }, async () => {
 *   const state = await getState();
 *   return { done: state === 'Disabled', seen: state };
 * }, (seen, ms) => console.error(`${seen} after ${ms} ms`));
 * ```
 */
export async function pollUntil(
  what: string,
  options: WaitOptions,
  check: () => Promise<{ done: boolean; seen: string }>,
  report: (seen: string, elapsedMs: number) => void = () => {},
  reportEveryMs = 5_000,
): Promise<string> {
  const started = Date.now();
  let last: string | undefined;
  let lastReport = 0;
  for (;;) {
    throwIfAborted(options.signal);
    const { done, seen } = await check();
    const elapsed = Date.now() - started;
    if (seen !== last || elapsed - lastReport >= reportEveryMs) {
      report(seen, elapsed);
      last = seen;
      lastReport = elapsed;
    }
    if (done) return seen;
    if (elapsed + options.intervalMs > options.timeoutMs) throw new ReplayTimeoutError(what, elapsed, last);
    await pause(options.intervalMs, options.signal);
  }
}

/**
 * Settles with `work`, or throws {@link ReplayTimeoutError} at `deadline` (epoch ms) — for calls that do
 * not bound themselves (a kafkajs request may take its 30 s timeout and retries). The abandoned work runs
 * on; a late failure of it is ignored.
 *
 * @example
 * ```ts
 * const offsets = await beforeDeadline('the committed offsets', Date.now() + 5_000, admin.fetchOffsets({ groupId, topics }));
 * ```
 */
export async function beforeDeadline<T>(what: string, deadline: number, work: Promise<T>): Promise<T> {
  if (deadline === Number.POSITIVE_INFINITY) return work;
  const started = Date.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new ReplayTimeoutError(what, Date.now() - started)),
      Math.max(0, deadline - started),
    );
  });
  work.catch(() => {});
  try {
    return await Promise.race([work, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
