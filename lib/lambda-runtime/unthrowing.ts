/**
 * A user's callback that cannot throw into the caller's bookkeeping (the sandbox's, the emulator's):
 * what it throws is thrown again on its own, an uncaught exception once the caller has carried on,
 * where a test runner or the process reports it.
 *
 * @example
 * ```ts
 * const onEvent = options.onEvent && unthrowing(options.onEvent);
 * ```
 */
export function unthrowing<A extends unknown[]>(callback: (...args: A) => void): (...args: A) => void {
  return (...args) => {
    try {
      callback(...args);
    } catch (error) {
      setImmediate(() => {
        throw error;
      });
    }
  };
}
