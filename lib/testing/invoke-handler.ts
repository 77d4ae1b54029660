import type { LambdaContext as Context } from '../kafka-event/types.ts';
import { createLambdaContext, type LambdaContextOptions } from '../lambda-runtime/context.ts';
import { refuseCallbackHandler } from '../lambda-runtime/load-handler.ts';
import { KafkaTestingError } from './errors.ts';

/**
 * The handler did not settle within the function's timeout; Lambda would fail the whole batch.
 *
 * @example
 * ```ts
 * await expect(invokeHandler(handler, event, { timeoutMs: 100 })).rejects.toThrow(HandlerTimeoutError);
 * ```
 */
export class HandlerTimeoutError extends KafkaTestingError {
  /** Always `'HandlerTimeoutError'`. */
  override readonly name: string = 'HandlerTimeoutError';
  /** The timeout the handler outlived, in milliseconds. */
  readonly timeoutMs: number;
  /** @param timeoutMs - The function's timeout, in milliseconds (the message says it as Lambda does). */
  constructor(timeoutMs: number) {
    // Lambda's own wording, so logs read the same locally.
    super(`Task timed out after ${(timeoutMs / 1000).toFixed(2)} seconds`);
    this.timeoutMs = timeoutMs;
  }
}

/**
 * Options of {@link invokeHandler}: the Lambda context's (`timeoutMs` defaults to 30 s).
 *
 * @example
 * ```ts
 * const options: InvokeOptions = { timeoutMs: 5_000, functionName: 'orders', memoryLimitInMB: 512 };
 * ```
 */
export type InvokeOptions = LambdaContextOptions;

/**
 * Invokes a handler as Lambda would: with a fresh Lambda-like context whose
 * `getRemainingTimeInMillis()` counts down to `timeoutMs`, failing with {@link HandlerTimeoutError}
 * if the handler has not settled by then. Resolves to the handler's response; a handler error is
 * rethrown as is. (A timed-out handler cannot be stopped in-process: it keeps running in the
 * background, where Lambda would freeze it.)
 *
 * @example
 * ```ts
 * const response = await invokeHandler(handler, event, { timeoutMs: 5_000 });
 * ```
 * @throws HandlerTimeoutError when the handler outlives `timeoutMs`.
 * @throws HandlerInitError (`Runtime.CallbackHandlerDeprecated`) for a handler declaring a callback
 *   parameter, which Lambda's Node.js 24 runtime refuses to load.
 */
export async function invokeHandler<TEvent, TResult>(
  handler: (event: TEvent, context: Context) => TResult | Promise<TResult>,
  event: TEvent,
  options: InvokeOptions = {},
): Promise<TResult> {
  refuseCallbackHandler(handler);
  const timeoutMs = options.timeoutMs ?? 30_000;
  const context = createLambdaContext({ ...options, timeoutMs });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new HandlerTimeoutError(timeoutMs)), timeoutMs);
  });
  try {
    return await Promise.race([Promise.resolve().then(() => handler(event, context)), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
