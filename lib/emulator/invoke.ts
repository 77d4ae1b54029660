import { randomUUID } from 'node:crypto';
import { InvokeCommand, type InvokeCommandOutput, LambdaClient } from '@aws-sdk/client-lambda';
import type { KafkaEvent } from '../kafka-event/types.ts';
import { createLambdaContext } from '../local/context.ts';
import type { AsyncHandler } from '../local/load-handler.ts';
import { InvalidMappingSettingError, InvokeRequestError } from './errors.ts';
import type { InvokeResult } from './response.ts';

/** Kafka triggers refuse functions with a timeout above 14 minutes. */
const MAX_TIMEOUT_SECONDS = 840;

/**
 * A handler run in this process, with a Lambda-like context. A handler still running at its timeout
 * counts as a function error, as in Lambda (its promise cannot be killed; its result is ignored).
 *
 * @example
 * ```ts
 * const target: InProcessFunction = { handler, timeoutSeconds: 30, functionName: 'orders' };
 * ```
 */
export interface InProcessFunction {
  handler: AsyncHandler<KafkaEvent>;
  /** 1–840 seconds (default 3, Lambda's default). */
  timeoutSeconds?: number;
  functionName?: string;
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
export type MappingFunction = InProcessFunction | LambdaApiFunction;

/**
 * Invokes the function with a serialised event; resolves to its result, rejects with {@link InvokeRequestError}.
 *
 * @example
 * ```ts
 * const result = await createInvoker({ handler }).invoke(payload, newRequestId());
 * ```
 */
export interface Invoker {
  readonly functionArn: string;
  invoke(payload: string, requestId: string): Promise<InvokeResult>;
  close(): void;
}

function errorFields(error: unknown): { errorType: string; errorMessage: string } {
  return error instanceof Error
    ? { errorType: error.name, errorMessage: error.message }
    : { errorType: 'Error', errorMessage: String(error) };
}

/** Lambda serialises the handler's result to JSON; what does not survive that is a function error. */
function asJsonResponse(value: unknown): InvokeResult {
  try {
    const json = JSON.stringify(value);
    return { kind: 'response', payload: json === undefined ? null : JSON.parse(json) };
  } catch (error) {
    return {
      kind: 'function-error',
      errorType: 'Runtime.ResponseSerializationError',
      ...{ errorMessage: errorFields(error).errorMessage },
    };
  }
}

function inProcessInvoker(target: InProcessFunction): Invoker {
  const timeoutSeconds = target.timeoutSeconds ?? 3;
  if (!(timeoutSeconds > 0 && timeoutSeconds <= MAX_TIMEOUT_SECONDS)) {
    throw new InvalidMappingSettingError(
      'timeoutSeconds',
      `must be in (0, ${MAX_TIMEOUT_SECONDS}] for a Kafka trigger`,
    );
  }
  const functionName = target.functionName ?? 'local-function';
  const region = process.env.AWS_REGION ?? 'us-east-1';
  return {
    functionArn: `arn:aws:lambda:${region}:000000000000:function:${functionName}`,
    async invoke(payload, requestId) {
      const timeoutMs = timeoutSeconds * 1000;
      const context = createLambdaContext({ functionName, timeoutMs, awsRequestId: requestId, region });
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
        try {
          return asJsonResponse(await target.handler(JSON.parse(payload) as KafkaEvent, context));
        } catch (error) {
          return { kind: 'function-error', ...errorFields(error) };
        }
      })();
      try {
        return await Promise.race([run, timedOut]);
      } finally {
        clearTimeout(timer);
      }
    },
    close() {},
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
    functionArn: target.functionName.startsWith('arn:')
      ? target.functionName
      : `arn:aws:lambda:${region}:000000000000:function:${target.functionName}`,
    async invoke(payload) {
      let response: InvokeCommandOutput;
      try {
        response = await client.send(
          new InvokeCommand({
            FunctionName: target.functionName,
            InvocationType: 'RequestResponse',
            Payload: Buffer.from(payload),
            ...(target.qualifier ? { Qualifier: target.qualifier } : {}),
          }),
        );
      } catch (error) {
        const { errorType, errorMessage } = errorFields(error);
        throw new InvokeRequestError(`Invoke ${target.functionName} failed: ${errorType}: ${errorMessage}`, {
          cause: error,
        });
      }
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
          };
        }
      }
      if (response.FunctionError) {
        const fields = (body ?? {}) as { errorType?: unknown; errorMessage?: unknown };
        return {
          kind: 'function-error',
          errorType: typeof fields.errorType === 'string' ? fields.errorType : response.FunctionError,
          errorMessage: typeof fields.errorMessage === 'string' ? fields.errorMessage : '',
        };
      }
      return { kind: 'response', payload: body };
    },
    close() {
      if (ownClient) client.destroy();
    },
  };
}

/**
 * Creates the invoker for a mapping's function: in-process when it has a `handler`, otherwise the
 * Lambda Invoke API.
 *
 * @example
 * ```ts
 * const invoker = createInvoker({ handler: async () => ({ batchItemFailures: [] }) });
 * ```
 * @throws InvalidMappingSettingError for a timeout outside Lambda's Kafka range.
 */
export function createInvoker(target: MappingFunction): Invoker {
  return 'handler' in target ? inProcessInvoker(target) : lambdaApiInvoker(target);
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
