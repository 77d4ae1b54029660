import { DEFAULT_MEMORY_MB, lambdaLogStreamName } from './context.ts';

/** What {@link lambdaEnvironment} describes. */
export interface LambdaEnvironmentOptions {
  functionName: string;
  /** Default {@link DEFAULT_MEMORY_MB}. */
  memoryLimitInMB?: number;
  /** Default this process's `AWS_REGION`, else `us-east-1`. */
  region?: string;
  /** The handler reference, as `_HANDLER` holds the function's Handler setting. */
  handler: string;
  /** The folder the function's code is in (`LAMBDA_TASK_ROOT`; default the current directory). */
  taskRoot?: string;
  /** The execution environment's log stream (default: a new one). */
  logStreamName?: string;
}

/**
 * The environment variables Lambda's Node.js 24 runtime sets for a function, as it sets them (the
 * reserved ones: https://docs.aws.amazon.com/lambda/latest/dg/configuration-envvars.html#configuration-envvars-runtime).
 * Not set: credentials (the developer's own reach the function), `AWS_LAMBDA_RUNTIME_API` (there is
 * no Runtime API to call here), `_X_AMZN_TRACE_ID` (no X-Ray), and `TZ`, which this process's time
 * zone decides for every thread (`invoke` and `dev` set it to UTC, Lambda's default, unless `TZ` is given).
 *
 * @example
 * ```ts
 * const env = lambdaEnvironment({ functionName: 'orders', handler: 'handler.ts', region: 'eu-west-1' });
 * env.AWS_LAMBDA_LOG_GROUP_NAME; // '/aws/lambda/orders'
 * ```
 */
export function lambdaEnvironment(options: LambdaEnvironmentOptions): Record<string, string> {
  const { functionName } = options;
  const region = options.region || process.env.AWS_REGION || 'us-east-1';
  return {
    _HANDLER: options.handler,
    LAMBDA_TASK_ROOT: options.taskRoot ?? process.cwd(),
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
    AWS_LAMBDA_FUNCTION_NAME: functionName,
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(options.memoryLimitInMB ?? DEFAULT_MEMORY_MB),
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
    AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/${functionName}`,
    AWS_LAMBDA_LOG_STREAM_NAME: options.logStreamName ?? lambdaLogStreamName(),
    AWS_REGION: region,
    AWS_DEFAULT_REGION: region,
  };
}
