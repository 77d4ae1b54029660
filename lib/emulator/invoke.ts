import { randomUUID } from 'node:crypto';
import { InvokeCommand, type InvokeCommandOutput, LambdaClient } from '@aws-sdk/client-lambda';
import { isFunctionMemoryMB, LAMBDA_LIMITS } from '../kafka-event/limits.ts';
import type { KafkaEvent } from '../kafka-event/types.ts';
import { createLambdaContext, lambdaLogStreamName } from '../lambda-runtime/context.ts';
import {
  type AsyncHandler,
  loadErrorResponse,
  loadHandler,
  refuseCallbackHandler,
} from '../lambda-runtime/load-handler.ts';
import {
  type RuntimeErrorResponse,
  responseSizeError,
  toRuntimeError,
} from '../lambda-runtime/runtime-error.ts';
import { createSandbox, type SandboxOptions } from '../lambda-runtime/sandbox.ts';
import type { InvocationEvent } from './batch.ts';
import { InvalidMappingSettingError, InvokeRequestError } from './errors.ts';
import type { InvokeResult } from './response.ts';

/**
 * A handler run locally with a Lambda-like context. A module reference (`path/to/module.ts[#export]`)
 * runs in a sandbox like Lambda's (see {@link createSandbox}): execution environments in worker
 * threads, reused while warm, ended on a timeout (`Sandbox.Timedout`), on `process.exit`
 * (`Runtime.ExitError`) or on an exception or rejection nobody handled, then started afresh (a cold
 * start, its init phase bounded by Lambda's 10 s). `inProcess: true` loads it in this process instead,
 * for debuggers; a handler given as a function always runs in this process. In this process, a handler
 * still running at its timeout counts as a function error but cannot be stopped (its result is ignored).
 *
 * @example
 * ```ts
 * const sandboxed: LocalFunction = { handler: 'functions/orders/handler.ts', timeoutSeconds: 30 };
 * const inProcess: LocalFunction = { handler: async (event) => ({ batchItemFailures: [] }) };
 * ```
 */
export interface LocalFunction {
  handler: string | AsyncHandler<KafkaEvent>;
  /** 1–840 seconds (default 3, Lambda's default). */
  timeoutSeconds?: number;
  /**
   * 128–10,240 MB, as Lambda allows (default 1024): the context's `memoryLimitInMB` and
   * `AWS_LAMBDA_FUNCTION_MEMORY_SIZE`. Not enforced: a local function may use more.
   */
  memoryLimitInMB?: number;
  functionName?: string;
  /** With a module reference: load and run it in this process rather than in the sandbox (for debuggers). */
  inProcess?: boolean;
  /**
   * The function's own environment variables (Lambda's reserved ones are set as Lambda sets them). In
   * this process (`inProcess`, or a handler function) they are set on this process's environment.
   */
  environment?: Record<string, string>;
  /** Sandbox only: where the function's output goes (default this process's stdout and stderr). */
  onOutput?: SandboxOptions['onOutput'];
  /** Sandbox only: cold starts (with their init duration) and environments ended. */
  onSandboxEvent?: SandboxOptions['onEvent'];
}

/**
 * A function invoked through the Lambda Invoke API: a deployed one, or one served locally (for
 * example by `sam local start-lambda`) at `endpoint`.
 *
 * @example
 * ```ts
 * const target: LambdaApiFunction = { functionName: 'orders', endpoint: 'http://127.0.0.1:3001' };
 * ```
 */
export interface LambdaApiFunction {
  functionName: string;
  qualifier?: string;
  /** Invoke API endpoint; the SDK's regional endpoint when unset. */
  endpoint?: string;
  region?: string;
  /** A client of your own (credentials, retries); `endpoint` and `region` are then ignored. */
  client?: LambdaClient;
}

/**
 * The function a mapping invokes.
 *
 * @example
 * ```ts
 * const fn: MappingFunction = process.env.ENDPOINT ? { functionName: 'orders', endpoint: process.env.ENDPOINT } : { handler };
 * ```
 */
export type MappingFunction = LocalFunction | LambdaApiFunction;

/**
 * Invokes the function with an event (as text to a sandbox or the Invoke API, as a fresh object to a
 * handler in this process); resolves to its result, rejects with {@link InvokeRequestError}.
 *
 * @example
 * ```ts
 * const result = await createInvoker({ handler }).invoke(batchEvent(header, topic, parts), newRequestId());
 * ```
 */
export interface Invoker {
  readonly functionArn: string;
  invoke(event: InvocationEvent, requestId: string): Promise<InvokeResult>;
  /**
   * Says how many invocations may run at once from now on (the trigger emulator: one per assigned
   * partition). The sandbox boots that many environments ahead of need (see `Sandbox.prepare`);
   * other invokers have nothing to prepare.
   */
  prepare(concurrency: number): void;
  /**
   * The function's code changed (see `Sandbox.update`): its next invocations start in new environments.
   * False when there is nothing this process can reload (a function object, a module already imported in
   * this process, a deployed function).
   */
  update(): boolean;
  close(): Promise<void>;
}

function errorFields(error: unknown): { errorType: string; errorMessage: string } {
  const { errorType, errorMessage } = toRuntimeError(error);
  return { errorType, errorMessage };
}

/**
 * The function's error as the emulator reports it: with the runtime's trace when it has one (an
 * `Error`'s stack; none for a timeout, an exit or a thrown value that is not an `Error`).
 */
function functionError({
  errorType,
  errorMessage,
  trace,
}: RuntimeErrorResponse): Extract<InvokeResult, { kind: 'function-error' }> {
  return { kind: 'function-error', errorType, errorMessage, ...(trace.length > 0 ? { trace } : {}) };
}

/** Lambda serialises the handler's result to JSON; what does not survive that is a function error. */
function asJsonResponse(value: unknown): InvokeResult {
  try {
    const json = JSON.stringify(value);
    const tooLarge = json === undefined ? undefined : responseSizeError(json);
    // Lambda's runtime cannot post it: for a Kafka trigger a function error, and the batch is retried.
    if (tooLarge)
      return { kind: 'function-error', errorType: tooLarge.errorType, errorMessage: tooLarge.errorMessage };
    return { kind: 'response', payload: json === undefined ? null : JSON.parse(json) };
  } catch (error) {
    return {
      kind: 'function-error',
      errorType: 'Runtime.MarshalError',
      errorMessage: `Unable to marshal response: ${errorFields(error).errorMessage}`,
    };
  }
}

function validTimeoutSeconds(target: LocalFunction): number {
  const timeoutSeconds = target.timeoutSeconds ?? LAMBDA_LIMITS.kafkaFunctionTimeoutSeconds.default;
  if (!(timeoutSeconds > 0 && timeoutSeconds <= LAMBDA_LIMITS.kafkaFunctionTimeoutSeconds.max)) {
    throw new InvalidMappingSettingError(
      'timeoutSeconds',
      `must be in (0, ${LAMBDA_LIMITS.kafkaFunctionTimeoutSeconds.max}] for a Kafka trigger`,
    );
  }
  return timeoutSeconds;
}

function functionArn(functionName: string, region: string): string {
  return `arn:aws:lambda:${region}:000000000000:function:${functionName}`;
}

function validMemoryLimitInMB(target: LocalFunction): number | undefined {
  const memory = target.memoryLimitInMB;
  if (memory !== undefined && !isFunctionMemoryMB(memory)) {
    const { min, max } = LAMBDA_LIMITS.functionMemoryMB;
    throw new InvalidMappingSettingError(
      'memoryLimitInMB',
      `must be a whole number of MB from ${min} to ${max}, as Lambda allows`,
    );
  }
  return memory;
}

function sandboxInvoker(target: LocalFunction & { handler: string }): Invoker {
  const timeoutSeconds = validTimeoutSeconds(target);
  const memoryLimitInMB = validMemoryLimitInMB(target);
  const functionName = target.functionName ?? 'local-function';
  const region = process.env.AWS_REGION ?? 'us-east-1';
  const sandbox = createSandbox({
    handler: target.handler,
    timeoutSeconds,
    functionName,
    region,
    ...(memoryLimitInMB !== undefined ? { memoryLimitInMB } : {}),
    ...(target.environment ? { env: target.environment } : {}),
    ...(target.onOutput ? { onOutput: target.onOutput } : {}),
    ...(target.onSandboxEvent ? { onEvent: target.onSandboxEvent } : {}),
  });
  return {
    functionArn: functionArn(functionName, region),
    async invoke(event, requestId) {
      const { result } = await sandbox.invoke(event.packed() ?? event.json(), requestId);
      if (result.kind === 'function-error') return functionError(result);
      return { kind: 'response', payload: JSON.parse(result.json) };
    },
    prepare: (concurrency) => void sandbox.prepare(concurrency),
    update: () => {
      sandbox.update();
      return true;
    },
    close: () => sandbox.close(),
  };
}

function inProcessInvoker(target: LocalFunction): Invoker {
  const timeoutSeconds = validTimeoutSeconds(target);
  const memoryLimitInMB = validMemoryLimitInMB(target);
  const functionName = target.functionName ?? 'local-function';
  const region = process.env.AWS_REGION ?? 'us-east-1';
  const reference = target.handler;
  Object.assign(process.env, target.environment);
  // This process is one execution environment: one log stream.
  const logStreamName = lambdaLogStreamName();
  let loading: Promise<AsyncHandler<KafkaEvent>> | undefined;
  // A module is loaded at the first invocation, and again after a failed load (a new cold start).
  const load = (): Promise<AsyncHandler<KafkaEvent>> => {
    if (typeof reference === 'function') {
      // As loadHandler does for a module's export: Lambda's Node.js 24 runtime refuses callback handlers.
      return Promise.resolve().then(() => {
        refuseCallbackHandler(reference);
        return reference;
      });
    }
    loading ??= loadHandler(reference).catch((error: unknown) => {
      loading = undefined;
      throw error;
    }) as Promise<AsyncHandler<KafkaEvent>>;
    return loading;
  };
  return {
    functionArn: functionArn(functionName, region),
    async invoke(event, requestId) {
      const timeoutMs = timeoutSeconds * 1000;
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<InvokeResult>((resolve) => {
        timer = setTimeout(
          () =>
            resolve({
              kind: 'function-error',
              errorType: 'Sandbox.Timedout',
              errorMessage: `Task timed out after ${timeoutSeconds.toFixed(2)} seconds`,
            }),
          timeoutMs,
        );
      });
      const run = (async (): Promise<InvokeResult> => {
        let handler: AsyncHandler<KafkaEvent>;
        try {
          handler = await load();
        } catch (error) {
          return functionError(loadErrorResponse(error));
        }
        const context = createLambdaContext({
          functionName,
          timeoutMs,
          awsRequestId: requestId,
          region,
          logStreamName,
          ...(memoryLimitInMB !== undefined ? { memoryLimitInMB } : {}),
        });
        let result: InvokeResult;
        try {
          result = asJsonResponse(await handler(event.parse(), context));
        } catch (error) {
          result = functionError(toRuntimeError(error));
        }
        // A handler that finished past its deadline (the timer's callback queued behind it on a busy event
        // loop) timed out as far as Lambda is concerned: its answer is not accepted, the batch is retried.
        return context.getRemainingTimeInMillis() <= 0 ? await timedOut : result;
      })();
      try {
        return await Promise.race([run, timedOut]);
      } finally {
        clearTimeout(timer);
      }
    },
    prepare() {},
    update: () => false,
    async close() {},
  };
}

function lambdaApiInvoker(target: LambdaApiFunction): Invoker {
  const region = target.region ?? process.env.AWS_REGION ?? 'us-east-1';
  const ownClient = !target.client;
  const client =
    target.client ??
    new LambdaClient({
      region,
      ...(target.endpoint ? { endpoint: target.endpoint } : {}),
      // Local endpoints (sam local, test servers) ignore signatures; spare users fake credentials.
      ...(target.endpoint && !process.env.AWS_ACCESS_KEY_ID
        ? { credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
        : {}),
    });
  return {
    functionArn: qualified(
      target.functionName.startsWith('arn:')
        ? target.functionName
        : `arn:aws:lambda:${region}:000000000000:function:${target.functionName}`,
      target.qualifier,
    ),
    async invoke(event) {
      let response: InvokeCommandOutput;
      try {
        response = await client.send(
          new InvokeCommand({
            FunctionName: target.functionName,
            InvocationType: 'RequestResponse',
            Payload: Buffer.from(event.json()),
            ...(target.qualifier ? { Qualifier: target.qualifier } : {}),
          }),
        );
      } catch (error) {
        const { errorType, errorMessage } = errorFields(error);
        throw new InvokeRequestError(`Invoke ${target.functionName} failed: ${errorType}: ${errorMessage}`, {
          cause: error,
        });
      }
      const ranAs = {
        ...(response.$metadata?.requestId ? { requestId: response.$metadata.requestId } : {}),
        ...(response.ExecutedVersion ? { executedVersion: response.ExecutedVersion } : {}),
      };
      const text = response.Payload ? Buffer.from(response.Payload).toString('utf8') : '';
      let body: unknown = null;
      if (text.trim() !== '') {
        try {
          body = JSON.parse(text);
        } catch {
          return {
            kind: 'function-error',
            errorType: 'InvalidResponse',
            errorMessage: 'the response is not JSON',
            ranAs,
          };
        }
      }
      if (response.FunctionError) {
        const fields = (body ?? {}) as { errorType?: unknown; errorMessage?: unknown; trace?: unknown };
        // A Node.js function's error response carries its stack as `trace` (other runtimes name it
        // otherwise, or send none): https://docs.aws.amazon.com/lambda/latest/dg/nodejs-exceptions.html
        const trace =
          Array.isArray(fields.trace) && fields.trace.every((line) => typeof line === 'string')
            ? (fields.trace as string[])
            : [];
        return {
          kind: 'function-error',
          errorType: typeof fields.errorType === 'string' ? fields.errorType : response.FunctionError,
          errorMessage: typeof fields.errorMessage === 'string' ? fields.errorMessage : '',
          ...(trace.length > 0 ? { trace } : {}),
          ranAs,
        };
      }
      return { kind: 'response', payload: body, ranAs };
    },
    prepare() {},
    update: () => false,
    async close() {
      if (ownClient) client.destroy();
    },
  };
}

/**
 * The ARN the mapping invokes: with the qualifier when one is given and the ARN has none (an ARN of
 * seven parts; an eighth is its qualifier), as an event source mapping's `FunctionArn` names an alias or
 * version.
 */
function qualified(functionArn: string, qualifier: string | undefined): string {
  return qualifier && functionArn.split(':').length === 7 ? `${functionArn}:${qualifier}` : functionArn;
}

/**
 * Creates the invoker for a mapping's function: a local `handler` (a module reference in the sandbox
 * unless `inProcess`, a function in this process), otherwise the Lambda Invoke API.
 *
 * @example
 * ```ts
 * const invoker = createInvoker({ handler: async () => ({ batchItemFailures: [] }) });
 * ```
 * @throws InvalidMappingSettingError for a timeout outside Lambda's Kafka range.
 */
export function createInvoker(target: MappingFunction): Invoker {
  if (!('handler' in target)) return lambdaApiInvoker(target);
  const { handler } = target;
  return typeof handler === 'string' && !target.inProcess
    ? sandboxInvoker({ ...target, handler })
    : inProcessInvoker(target);
}

/**
 * A fresh Lambda-style request id.
 *
 * @example
 * ```ts
 * newRequestId(); // 'c0b8e7a2-…'
 * ```
 */
export function newRequestId(): string {
  return randomUUID();
}
