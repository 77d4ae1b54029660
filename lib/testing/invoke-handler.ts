import { custom } from 'valibot';
import { isFunctionMemoryMB, LAMBDA_LIMITS } from '../kafka-event/limits.ts';
import { describeValue } from '../kafka-event/rules.ts';
import type { LambdaContext as Context } from '../kafka-event/types.ts';
import { createLambdaContext, type LambdaContextOptions } from '../lambda-runtime/context.ts';
import { refuseCallbackHandler } from '../lambda-runtime/load-handler.ts';
import {
  marshalResponse,
  type RuntimeErrorResponse,
  toRuntimeError,
} from '../lambda-runtime/runtime-error.ts';
import { defineOptions } from '../options/options.ts';
import { KafkaTestingError } from './errors.ts';
import { InvalidEventInputError } from './event-builder.ts';

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
 * The handler's response cannot be sent as JSON (a circular object, a BigInt, a `toJSON` that throws):
 * Lambda fails such an invocation with `Runtime.MarshalError`, and retries the whole batch. The
 * message is the serialiser's (types and property names, never the response's values).
 *
 * @example
 * ```ts
 * const circular = async () => { const response = { batchItemFailures: [] as unknown[], self: {} }; response.self = response; return response; };
 * await expect(invokeHandler(circular, event)).rejects.toThrow(ResponseMarshalError);
 * // ResponseMarshalError: Runtime.MarshalError: Unable to marshal response: Converting circular structure to JSON…
 * ```
 */
export class ResponseMarshalError extends KafkaTestingError {
  /** Always `'ResponseMarshalError'`. */
  override readonly name: string = 'ResponseMarshalError';
  /** The error as Lambda's runtime reports it (`errorType` `'Runtime.MarshalError'`). */
  readonly response: RuntimeErrorResponse;
  /**
   * @param response - Lambda's error response; the message is `errorType: errorMessage`.
   * @param options - `cause`, if any.
   */
  constructor(response: RuntimeErrorResponse, options?: ErrorOptions) {
    super(`${response.errorType}: ${response.errorMessage}`, options);
    this.response = response;
  }
}

/**
 * The options given to {@link invokeHandler} are not ones Lambda would run the function with: a
 * timeout outside what a Kafka trigger accepts, a memory size outside Lambda's, an unknown option
 * (the message names the one meant).
 *
 * @example
 * ```ts
 * await invokeHandler(handler, event, { timeout: 5_000 } as InvokeOptions);
 * // InvalidInvokeOptionsError: unknown option "timeout" — did you mean "timeoutMs"?
 * ```
 */
export class InvalidInvokeOptionsError extends KafkaTestingError {
  /** Always `'InvalidInvokeOptionsError'`. */
  override readonly name: string = 'InvalidInvokeOptionsError';
}

/**
 * Options of {@link invokeHandler}: the Lambda context's (`timeoutMs` defaults to 30 s; above 0 and at
 * most 840,000, as a Kafka trigger accepts; `memoryLimitInMB` a whole number from 128 to 10,240).
 * Each may be given as `undefined`, meaning its default (for projects with
 * `exactOptionalPropertyTypes`).
 *
 * @example
 * ```ts
 * const options: InvokeOptions = { timeoutMs: 5_000, functionName: 'orders', memoryLimitInMB: 512 };
 * ```
 */
export type InvokeOptions = {
  [Option in keyof LambdaContextOptions]?: LambdaContextOptions[Option] | undefined;
};

/** A function's memory size as Lambda's function configuration accepts it (`MemorySize`), in MB. */
const MAX_TIMEOUT_MS = LAMBDA_LIMITS.kafkaFunctionTimeoutSeconds.max * 1000;

const optionalString = (name: string) =>
  custom<string | undefined>(
    (value) => value === undefined || typeof value === 'string',
    (issue) => `${name} must be a string, not ${describeValue(issue.input)}`,
  );

// The rules of `kafka-lambda invoke --timeout` and `--memory`: a test must not pass with settings Lambda
// refuses (a 0 timeout fails every invocation at once; one past 2^31 ms fires at once in Node).
const OPTIONS = defineOptions<InvokeOptions>({
  functionName: optionalString('functionName'),
  timeoutMs: custom<number | undefined>(
    (value) => value === undefined || (typeof value === 'number' && value > 0 && value <= MAX_TIMEOUT_MS),
    (issue) =>
      `timeoutMs must be above 0 and at most ${MAX_TIMEOUT_MS} (${LAMBDA_LIMITS.kafkaFunctionTimeoutSeconds.max} s: Kafka triggers refuse longer timeouts), not ${describeValue(issue.input)}`,
  ),
  memoryLimitInMB: custom<number | undefined>(
    (value) => value === undefined || isFunctionMemoryMB(value),
    (issue) =>
      `memoryLimitInMB must be a whole number from ${LAMBDA_LIMITS.functionMemoryMB.min} to ${LAMBDA_LIMITS.functionMemoryMB.max}, as Lambda allows, not ${describeValue(issue.input)}`,
  ),
  awsRequestId: optionalString('awsRequestId'),
  region: optionalString('region'),
  logStreamName: optionalString('logStreamName'),
});

/**
 * A handler {@link invokeHandler} takes: `(event, context)`, sync or async. Also typed to take the
 * handlers of @types/aws-lambda (`MSKHandler`, `SelfManagedKafkaHandler`, `Handler<MSKEvent, R>`),
 * which declare a `callback` third parameter and a `void` return: an async handler of that type that
 * never takes the callback is what Lambda's Node.js 24 runtime runs (one that does is refused when
 * invoked). Its event parameter is compared both ways with the event given (method parameter
 * bivariance), since `MSKEvent` types fields more narrowly than the events `kafkaEvent` builds.
 *
 * @example
 * ```ts
 * const handler: InvokableHandler<MskKafkaEvent, KafkaBatchResponse> = async (event) => ({ batchItemFailures: [] });
 * ```
 */
export type InvokableHandler<TEvent, TResult> = {
  // A method's parameters are bivariant: see above. `callback: never`: no handler is ever given one.
  // biome-ignore lint/suspicious/noConfusingVoidType: @types/aws-lambda's Handler returns `void | Promise<R>`.
  handler(event: TEvent, context: Context, callback: never): TResult | Promise<TResult> | void;
}['handler'];

/**
 * Invokes a handler as Lambda would: on a copy of `event` made through JSON, as Lambda delivers it
 * (what the handler or its middlewares change in it leaves the test's `event` as it was), with a fresh
 * Lambda-like context whose `getRemainingTimeInMillis()` counts down to `timeoutMs`, failing with
 * {@link HandlerTimeoutError} if the handler has not settled by then. Resolves to the response as
 * Lambda reads it, through JSON: a class instance comes back as the plain object its JSON is (a getter
 * on its prototype, absent), a `toJSON()` as what it returns. A handler error is rethrown as is. (A
 * timed-out handler cannot be stopped in-process: it keeps running in the background, where Lambda
 * would freeze it. A promise it leaves rejected with nobody handling it is reported by the test runner,
 * not as this invocation's failure: `kafka-lambda invoke` and the emulator's sandbox fail the invocation
 * with `Runtime.UnhandledPromiseRejection`, as Lambda does.)
 *
 * @example
 * ```ts
 * const response = await invokeHandler(handler, event, { timeoutMs: 5_000 });
 * ```
 * @throws InvalidInvokeOptionsError for an unknown option, or a timeout or memory size Lambda refuses.
 * @throws InvalidEventInputError for an event JSON cannot carry (a circular object, a BigInt, `undefined`).
 * @throws HandlerTimeoutError when the handler outlives `timeoutMs`.
 * @throws ResponseMarshalError (`Runtime.MarshalError`) for a response JSON cannot carry.
 * @throws HandlerInitError (`Runtime.CallbackHandlerDeprecated`) for a handler declaring a callback
 *   parameter, which Lambda's Node.js 24 runtime refuses to load. (A handler typed with
 *   @types/aws-lambda's `MSKHandler` or `Handler<MSKEvent, …>` is accepted: those types declare the
 *   callback, an async handler written without it runs.)
 */
export async function invokeHandler<TEvent, TResult>(
  // The event's type is the one given; the handler's is only checked against it (see InvokableHandler).
  handler: InvokableHandler<NoInfer<TEvent>, TResult>,
  event: TEvent,
  options: InvokeOptions = {},
): Promise<TResult> {
  OPTIONS.check(options, (problem) => new InvalidInvokeOptionsError(problem.message));
  refuseCallbackHandler(handler);
  const delivered = deliveredEvent(event);
  const timeoutMs = options.timeoutMs ?? 30_000;
  const context = createLambdaContext({ ...options, timeoutMs });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new HandlerTimeoutError(timeoutMs)), timeoutMs);
  });
  let response: unknown;
  try {
    response = await Promise.race([
      Promise.resolve().then(() => (handler as TwoParameters<TEvent>)(delivered, context)),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
  const { json, error } = marshalResponse(response);
  if (error) throw new ResponseMarshalError(error);
  // The response's JSON, read back: what Lambda's Kafka trigger reads.
  return JSON.parse(json) as TResult;
}

/** A handler as it is called: refuseCallbackHandler has made sure it takes no callback. */
type TwoParameters<TEvent> = (event: TEvent, context: Context) => unknown;

/** `event` as Lambda delivers it: parsed from the JSON of the invocation's payload. */
function deliveredEvent<TEvent>(event: TEvent): TEvent {
  let json: string | undefined;
  try {
    json = JSON.stringify(event);
  } catch (error) {
    throw new InvalidEventInputError(
      `the event cannot be sent as JSON, as Lambda sends events: ${toRuntimeError(error).errorMessage}`,
      { cause: error },
    );
  }
  if (json === undefined) {
    throw new InvalidEventInputError(
      `the event cannot be sent as JSON, as Lambda sends events: it is ${typeof event}`,
    );
  }
  return JSON.parse(json) as TEvent;
}
