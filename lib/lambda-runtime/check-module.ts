import { LAMBDA_LIMITS } from '../kafka-event/limits.ts';
import {
  HandlerInitError,
  HandlerNotFoundError,
  loadHandler,
  resolveHandlerReference,
} from './load-handler.ts';
import { createSandbox, type SandboxOptions } from './sandbox.ts';

/**
 * Options of {@link checkHandlerModule}: the sandbox's own (the module is loaded as the function's
 * environments would load it), less `onOutput`, as the check's output is discarded.
 */
export interface HandlerModuleCheckOptions extends Omit<SandboxOptions, 'onOutput'> {
  /**
   * Load the module in this process instead, within the same init limit: Node keeps the module, so a
   * later `loadHandler` of it reuses it (its init code does not run again). Sandbox settings other than
   * `handler`, `cwd` and `initTimeoutSeconds` do not apply.
   */
  inProcess?: boolean;
}

/**
 * Loads a handler module once, before the function runs anything, to find whether it loads: in a
 * throwaway sandbox environment (its output discarded; `onEvent` is told of its init and its end), or
 * in this process with `inProcess`. The reference is first resolved here: one naming no module file,
 * or malformed, is wrong whatever the code, and said without loading anything. What `dev` and the
 * trigger emulator's `start()` check, so that a function Lambda would fail on every invocation is
 * refused before any record is read.
 *
 * @example
 * ```ts
 * const failure = await checkHandlerModule({ handler: 'functions/orders/handler.ts', timeoutSeconds: 30 });
 * if (failure) throw failure;
 * ```
 * @returns `undefined` when the module loads; a {@link HandlerNotFoundError} when the reference names no
 *   module (`Runtime.ImportModuleError`), no function in it (`Runtime.HandlerNotFound`) or is malformed
 *   (`Runtime.MalformedHandlerName`); a {@link HandlerInitError} when the module fails in its init phase
 *   (an exception, a syntax error, a module it imports that is missing, a callback handler, an init phase
 *   past its limit: `Sandbox.Timedout`).
 * @throws anything else that went wrong (not the function's fault).
 */
export async function checkHandlerModule(
  options: HandlerModuleCheckOptions,
): Promise<HandlerNotFoundError | HandlerInitError | undefined> {
  const { inProcess, ...sandboxOptions } = options;
  const cwd = options.cwd ?? process.cwd();
  try {
    resolveHandlerReference(options.handler, cwd);
  } catch (error) {
    if (error instanceof HandlerNotFoundError) return error;
    throw error;
  }
  const limitSeconds = options.initTimeoutSeconds ?? LAMBDA_LIMITS.initTimeoutSeconds;
  if (inProcess) return loadInProcess(options.handler, cwd, limitSeconds);
  const probe = createSandbox({ ...sandboxOptions, cwd, onOutput: () => {} });
  const initError = await probe.prewarm().finally(() => probe.close());
  if (!initError) return undefined;
  // The module file exists (resolved above): an ImportModuleError now is a module it imports.
  return initError.errorType === 'Runtime.HandlerNotFound' ||
    initError.errorType === 'Runtime.MalformedHandlerName'
    ? new HandlerNotFoundError(initError.errorMessage, initError.errorType)
    : new HandlerInitError(initError);
}

/** `loadHandler` in this process, bounded as the sandbox bounds an init phase (a top-level await that never settles). */
async function loadInProcess(
  reference: string,
  cwd: string,
  limitSeconds: number,
): Promise<HandlerNotFoundError | HandlerInitError | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<HandlerInitError>((resolve) => {
    timer = setTimeout(
      () =>
        resolve(
          new HandlerInitError({
            errorType: 'Sandbox.Timedout',
            errorMessage: `the init phase outlived its ${limitSeconds} s limit`,
            trace: [],
          }),
        ),
      limitSeconds * 1000,
    );
  });
  try {
    return await Promise.race([loadHandler(reference, cwd).then(() => undefined), timedOut]);
  } catch (error) {
    if (error instanceof HandlerNotFoundError || error instanceof HandlerInitError) return error;
    throw error;
  } finally {
    clearTimeout(timer);
  }
}
