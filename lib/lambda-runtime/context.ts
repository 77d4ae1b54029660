import type { LambdaContext as Context } from '../kafka-event/types.ts';

/**
 * node:crypto, loaded when a default id is made: an emulator's environment is given its ids and never
 * needs it, and loading it cost about 12 ms of CPU in each environment's start.
 */
const nodeCrypto = () => process.getBuiltinModule('node:crypto');

/** The memory a local function has unless told otherwise (the context, the sandbox, the CLI). */
export const DEFAULT_MEMORY_MB = 1024;

/**
 * Options of {@link createLambdaContext}.
 *
 * @example
 * ```ts
 * const options: LambdaContextOptions = { functionName: 'orders', timeoutMs: 10_000, region: 'eu-west-1' };
 * ```
 */
export interface LambdaContextOptions {
  functionName?: string | undefined;
  /** The function's timeout; `getRemainingTimeInMillis()` counts down from it (default 30 s). */
  timeoutMs?: number | undefined;
  memoryLimitInMB?: number | undefined;
  awsRequestId?: string | undefined;
  region?: string | undefined;
  /** The execution environment's log stream (default: a new one, named as Lambda names them). */
  logStreamName?: string | undefined;
}

/**
 * A log stream name as Lambda gives an execution environment: `YYYY/MM/DD/[$LATEST]` and 32 hex digits.
 *
 * @example
 * ```ts
 * lambdaLogStreamName(); // '2026/12/01/[$LATEST]5f0c…'
 * ```
 */
export function lambdaLogStreamName(now = new Date()): string {
  const date = now.toISOString().slice(0, 10).replaceAll('-', '/');
  return `${date}/[$LATEST]${nodeCrypto().randomBytes(16).toString('hex')}`;
}

/**
 * The runtime's legacy callback methods, which Lambda's Node.js 24 runtime no longer has: calling one
 * throws, as calling an absent method does there, so a handler using `context.fail()` fails instead of
 * passing for a success. They stay on the object for the `Context` types that still declare them.
 */
function removedInNode24(method: 'done' | 'fail' | 'succeed'): () => never {
  return () => {
    throw new TypeError(
      `context.${method} is not a function: Lambda's Node.js 24 runtime removed the context's callback methods; return (or throw) from an async handler instead`,
    );
  };
}

/**
 * A Lambda-like invocation context for running a handler locally, as Lambda's Node.js 24 runtime
 * builds it: a fresh request id, the function's names and ARN, and a deadline that
 * `getRemainingTimeInMillis()` counts down to. `done`, `fail` and `succeed` throw (that runtime has
 * none).
 *
 * @example
 * ```ts
 * const context = createLambdaContext({ functionName: 'orders', timeoutMs: 10_000 });
 * await handler(event, context);
 * ```
 */
export function createLambdaContext(options: LambdaContextOptions = {}): Context {
  const functionName = options.functionName ?? 'local-function';
  const region = options.region || process.env.AWS_REGION || 'us-east-1';
  const timeoutMs = options.timeoutMs ?? 30_000;
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${region}:000000000000:function:${functionName}`,
    memoryLimitInMB: String(options.memoryLimitInMB ?? DEFAULT_MEMORY_MB),
    awsRequestId: options.awsRequestId ?? nodeCrypto().randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: options.logStreamName ?? lambdaLogStreamName(),
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: removedInNode24('done'),
    fail: removedInNode24('fail'),
    succeed: removedInNode24('succeed'),
  };
}
