/**
 * A wake-up call for code that waits on a condition other code changes: the waiter looks, then
 * waits for the next {@link ChangeSignal.notify} (or a time bound), then looks again. No polling.
 *
 * @example
 * ```ts
 * const progress = new ChangeSignal();
 * while (!done()) await progress.wait(1_000); // elsewhere: progress.notify() after each change
 * ```
 */
export class ChangeSignal {
  readonly #waiters = new Set<() => void>();

  /** Wakes every current waiter. */
  notify(): void {
    const waiters = [...this.#waiters];
    this.#waiters.clear();
    for (const wake of waiters) wake();
  }

  /** Resolves at the next {@link notify}, or after `maxMs` at the latest (a missed change never hangs the waiter). */
  wait(maxMs: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.#waiters.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, maxMs);
      this.#waiters.add(wake);
    });
  }
}
