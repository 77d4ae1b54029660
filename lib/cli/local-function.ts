import type { LocalFunction } from '../emulator/index.ts';
import {
  checkHandlerModule,
  lambdaEnvironment,
  loadHandler,
  resolveHandlerReference,
  type SandboxEvent,
} from '../lambda-runtime/index.ts';

/** How `dev` runs a handler module. */
interface LocalFunctionOptions {
  timeoutSeconds: number;
  memoryLimitInMB: number;
  functionName: string;
  /** Load it in this process (for debuggers) rather than in the sandbox. */
  inProcess: boolean;
  /** The function's own environment variables. */
  environment: Record<string, string>;
  /** Told the files of the function each init phase loaded (the module first): for `--watch`. */
  onInitFiles?: (files: readonly string[]) => void;
  /**
   * True once `dev` abandons its in-flight invocations (a second Ctrl-C): the environments that end then
   * were ended by `dev`, not by the function (their `Runtime.ExitError` is not the function's exit).
   */
  abandoned?: () => boolean;
}

/**
 * Gives this process the function's time zone: Lambda's is UTC unless the function's own environment
 * sets `TZ` (https://docs.aws.amazon.com/lambda/latest/dg/configuration-envvars.html), and a sandbox's
 * worker threads cannot have one of their own (the zone is the process's). The machine's zone, or a
 * `TZ` of this shell, is not the function's: give it with `--dotenv` or `--env-vars`.
 *
 * @example
 * ```ts
 * useFunctionTimeZone({}); // new Date(0).getTimezoneOffset() === 0 from here on
 * ```
 */
export function useFunctionTimeZone(environment: Record<string, string>): void {
  process.env.TZ = environment.TZ || 'UTC';
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
    // A close, or new code (`dev --watch` says so once, for all environments), is no news of the function.
    return event.reason === 'close' || event.reason === 'update'
      ? undefined
      : `environment ${event.environment} ended: ${event.reason}`;
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
 * @throws HandlerNotFoundError when the reference names no module or no function in it.
 * @throws HandlerInitError when the module fails in its init phase (a syntax error, an exception, a
 *   callback handler): the function could not run any record.
 */
export async function prepareLocalFunction(
  reference: string,
  options: LocalFunctionOptions,
): Promise<LocalFunction> {
  const { timeoutSeconds, memoryLimitInMB, functionName, environment } = options;
  resolveHandlerReference(reference);
  if (options.inProcess) {
    // This process is the function's environment: its variables, and Lambda's reserved ones.
    Object.assign(
      process.env,
      environment,
      lambdaEnvironment({ functionName, handler: reference, memoryLimitInMB }),
    );
    return { handler: await loadHandler(reference), timeoutSeconds, memoryLimitInMB, functionName };
  }
  const initFiles = (event: SandboxEvent) => {
    if (event.type === 'init' && event.files) options.onInitFiles?.(event.files);
  };
  // Lambda would fail every invocation with it: better said now than after the records' retries.
  const failure = await checkHandlerModule({
    handler: reference,
    timeoutSeconds,
    memoryLimitInMB,
    functionName,
    env: environment,
    onEvent: initFiles,
  });
  if (failure) throw failure;
  return {
    handler: reference,
    timeoutSeconds,
    memoryLimitInMB,
    functionName,
    environment,
    onOutput: (text, stream) => (stream === 'stdout' ? console.log : console.error)(text.replace(/\n$/, '')),
    onSandboxEvent: (event) => {
      initFiles(event);
      const line =
        event.type === 'shutdown' && event.reason !== 'close' && options.abandoned?.()
          ? `environment ${event.environment} ended: its invocation was abandoned`
          : describeSandboxEvent(event);
      if (line) console.error(line);
    },
  };
}
