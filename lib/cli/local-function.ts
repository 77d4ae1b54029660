import type { LocalFunction } from '../emulator/index.ts';
import {
  createSandbox,
  HandlerNotFoundError,
  loadHandler,
  type SandboxEvent,
} from '../lambda-runtime/index.ts';

/** How `dev` runs a handler module. */
interface LocalFunctionOptions {
  timeoutSeconds: number;
  functionName: string;
  /** Load it in this process (for debuggers) rather than in the sandbox. */
  inProcess: boolean;
}

/**
 * One line about a sandbox environment's life for a progress display: cold starts with their init
 * duration, failed inits, environments ended by a timeout, an exit or a crash. Nothing for a normal close.
 *
 * @example
 * ```ts
 * describeSandboxEvent({ type: 'init', environment: 2, durationMs: 84.2, phase: 'init', status: 'success' });
 * // 'cold start: environment 2, init 84.2 ms'
 * ```
 */
export function describeSandboxEvent(event: SandboxEvent): string | undefined {
  if (event.type === 'shutdown') {
    return event.reason === 'close' ? undefined : `environment ${event.environment} ended: ${event.reason}`;
  }
  const took = `${event.durationMs.toFixed(1)} ms`;
  const phase = event.phase === 'invoke' ? ' (retried within the invocation)' : '';
  return event.status === 'success'
    ? `cold start: environment ${event.environment}, init ${took}${phase}`
    : `cold start: environment ${event.environment}, init ${event.status === 'timeout' ? 'timed out' : 'failed'} after ${took}${phase}`;
}

/**
 * The function `dev` gives the emulator for a handler module: in the sandbox (checked to load first,
 * so a wrong reference is a usage error before any record is read), its output and lifecycle through
 * `console` (which the progress display keeps above its live line); or loaded in this process.
 *
 * @example
 * ```ts
 * const fn = await prepareLocalFunction('functions/orders/handler.ts', { timeoutSeconds: 30, functionName: 'orders', inProcess: false });
 * ```
 * @throws HandlerNotFoundError when the module cannot be loaded or has no such export.
 */
export async function prepareLocalFunction(
  reference: string,
  options: LocalFunctionOptions,
): Promise<LocalFunction> {
  const { timeoutSeconds, functionName } = options;
  if (options.inProcess) return { handler: await loadHandler(reference), timeoutSeconds, functionName };
  const probe = createSandbox({ handler: reference, timeoutSeconds, functionName, onOutput: () => {} });
  const initError = await probe.prewarm().finally(() => probe.close());
  if (
    initError?.errorType === 'Runtime.ImportModuleError' ||
    initError?.errorType === 'Runtime.HandlerNotFound'
  ) {
    throw new HandlerNotFoundError(initError.errorMessage, initError.errorType);
  }
  return {
    handler: reference,
    timeoutSeconds,
    functionName,
    onOutput: (text, stream) => (stream === 'stdout' ? console.log : console.error)(text.replace(/\n$/, '')),
    onSandboxEvent: (event) => {
      const line = describeSandboxEvent(event);
      if (line) console.error(line);
    },
  };
}
