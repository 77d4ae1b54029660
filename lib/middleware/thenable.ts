/**
 * Whether a value is a thenable: a native promise, one from another realm (a `vm` context, a worker's
 * test harness) or a promise library's. `instanceof Promise` misses all but the first, and a missed
 * one would be taken for a finished result: an unsettled validation as a pass, a rejection unheard.
 *
 * @example
 * ```ts
 * isThenable(Promise.resolve(1)); // true
 * isThenable({ then: (resolve: (v: number) => void) => resolve(1) }); // true
 * ```
 */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    value !== null &&
    (typeof value === 'object' || typeof value === 'function') &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}
