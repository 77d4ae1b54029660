/**
 * Typed errors of the local Lambda runtime (handler loading and the sandbox). All extend
 * {@link LambdaRuntimeError}. A function's own failures are not errors of this module: the sandbox
 * reports them as Lambda does, in the invocation's result.
 */

/**
 * Base of the local Lambda runtime's errors: `error instanceof LambdaRuntimeError` tells them from a
 * handler's own errors. `cause` (from `options`) keeps what led to the error. Each subclass sets `name`
 * to its own class name (a literal, so minified bundles keep it).
 *
 * @example
 * ```ts
 * try { await loadHandler('functions/orders/handler.ts'); } catch (error) {
 *   if (error instanceof LambdaRuntimeError) console.error(error.name, error.message);
 * }
 * ```
 */
export class LambdaRuntimeError extends Error {
  /** `'LambdaRuntimeError'`; each subclass sets its own class name. */
  override readonly name: string = 'LambdaRuntimeError';

  /**
   * @param message - What went wrong.
   * @param options - `cause`: what led to the error, if anything.
   */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
  }
}

/**
 * An invocation asked of a sandbox after its `close()`.
 *
 * @example
 * ```ts
 * await sandbox.close();
 * await sandbox.invoke('{}', requestId); // rejects with SandboxClosedError
 * ```
 */
export class SandboxClosedError extends LambdaRuntimeError {
  override readonly name: string = 'SandboxClosedError';

  constructor(options?: ErrorOptions) {
    super('the sandbox is closed', options);
  }
}
