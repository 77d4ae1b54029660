import { randomUUID } from 'node:crypto';
import type { LambdaContext as Context } from '../kafka-event/types.ts';

/** Options of {@link createLambdaContext}. */
export interface LambdaContextOptions {
  functionName?: string;
  /** The function's timeout; `getRemainingTimeInMillis()` counts down from it (default 30 s). */
  timeoutMs?: number;
  memoryLimitInMB?: number;
  awsRequestId?: string;
  region?: string;
}

/**
 * A Lambda-like invocation context for running a handler locally: a fresh request id, and a
 * deadline that `getRemainingTimeInMillis()` counts down to, as in Lambda.
 *
 * @example
 * ```ts
 * const context = createLambdaContext({ functionName: 'orders', timeoutMs: 10_000 });
 * await handler(event, context);
 * ```
 */
export function createLambdaContext(options: LambdaContextOptions = {}): Context {
  const functionName = options.functionName ?? 'local-function';
  const region = options.region ?? process.env.AWS_REGION ?? 'us-east-1';
  const timeoutMs = options.timeoutMs ?? 30_000;
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${region}:000000000000:function:${functionName}`,
    memoryLimitInMB: String(options.memoryLimitInMB ?? 1024),
    awsRequestId: options.awsRequestId ?? randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: `local/${randomUUID()}`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => {},
    fail: () => {},
    succeed: () => {},
  };
}
