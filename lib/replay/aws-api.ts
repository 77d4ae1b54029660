// The AWS API calls of a replay (Lambda, Secrets Manager, MSK): how their clients are configured, and the
// bound on each call. An endpoint that accepts a connection and never answers (a function in a VPC with no
// route to the service, a black-holing proxy) must end in an error naming the call, not in a hang: the
// AWS SDK's `requestTimeout` only logs a warning unless `throwOnRequestTimeout` is set, and nothing else
// ends a request that was sent and never answered.
import { AwsApiTimeoutError, ReplayAbortedError, ReplayTimeoutError } from './errors.ts';
import { pause, throwIfAborted } from './wait.ts';

/**
 * An AWS API call as errors name it: the service, the operation, and the name of the service's interface
 * VPC endpoint (what a function in a VPC without a NAT gateway needs to reach it).
 *
 * @example
 * ```ts
 * const call: AwsCall = { service: 'Lambda', operation: 'GetEventSourceMapping', endpoint: 'lambda' };
 * ```
 */
export interface AwsCall {
  service: string;
  operation: string;
  endpoint: string;
}

/** A Lambda API call. */
export const lambdaCall = (operation: string): AwsCall => ({
  service: 'Lambda',
  operation,
  endpoint: 'lambda',
});

/** A Secrets Manager API call. */
export const secretsManagerCall = (operation: string): AwsCall => ({
  service: 'Secrets Manager',
  operation,
  endpoint: 'secretsmanager',
});

/** An Amazon MSK API call. */
export const mskCall = (operation: string): AwsCall => ({
  service: 'Kafka (MSK)',
  operation,
  endpoint: 'kafka',
});

/**
 * How long one AWS API call may take before it is abandoned and sent again (the SDK's own attempts
 * included), within its step's bound. A Lambda control-plane call answers in well under a second.
 */
export const AWS_ATTEMPT_MS = 20_000;

/**
 * The configuration every AWS client of the replay gets: a connection must be made within 5 s and an
 * answer come within 15 s, after which the SDK fails the attempt (`throwOnRequestTimeout`: without it,
 * the installed @smithy/node-http-handler only logs a warning and waits on) and retries it as its
 * retry strategy says. Shorter bounds are for tests.
 *
 * @example
 * ```ts
 * const lambda = new LambdaClient({ region, ...awsApiClientConfig() });
 * ```
 */
export function awsApiClientConfig({
  connectionTimeoutMs = 5_000,
  requestTimeoutMs = 15_000,
}: {
  connectionTimeoutMs?: number;
  requestTimeoutMs?: number;
} = {}) {
  return {
    requestHandler: {
      connectionTimeout: connectionTimeoutMs,
      requestTimeout: requestTimeoutMs,
      throwOnRequestTimeout: true,
    },
  };
}

/** Connection losses that the SDK also names `TimeoutError`: the other side closed, nothing timed out. */
const CONNECTION_LOST = new Set(['ECONNRESET', 'EPIPE']);

/**
 * Whether an AWS SDK error is a request that took too long: the SDK's request, connection or socket
 * timeout (`TimeoutError`), or the socket's `ETIMEDOUT`. A connection the other side closed is not one,
 * although the SDK names it `TimeoutError` too (with code `ECONNRESET`).
 */
export function isAwsTimeout(error: unknown): boolean {
  const { name, code } = (error ?? {}) as { name?: unknown; code?: unknown };
  if (typeof code === 'string' && CONNECTION_LOST.has(code)) return false;
  return name === 'TimeoutError' || code === 'ETIMEDOUT';
}

/**
 * Sends an AWS API call until it answers, by `deadline` (epoch ms): each attempt gets an abort signal
 * that ends it after `attemptMs` or at the deadline, whichever comes first, and `signal`'s abort; an
 * attempt that timed out, and errors `retryable` accepts, are sent again after a back-off with full
 * jitter. Throws {@link AwsApiTimeoutError} naming the call when the deadline passes with no answer,
 * {@link ReplayTimeoutError} when it passes with the call still failing with a retryable error,
 * {@link ReplayAbortedError} when `signal` aborts, and any other error as it is.
 *
 * @example
 * ```ts
 * const out = await callAwsApi(lambdaCall('GetEventSourceMapping'), (abortSignal) =>
 *   lambda.send(new GetEventSourceMappingCommand({ UUID }), { abortSignal }), { deadline: Date.now() + 30_000 });
 * ```
 */
export async function callAwsApi<T>(
  call: AwsCall,
  send: (abortSignal: AbortSignal) => Promise<T>,
  {
    deadline,
    signal,
    attemptMs = AWS_ATTEMPT_MS,
    retryable = () => false,
  }: {
    deadline: number;
    signal?: AbortSignal;
    attemptMs?: number;
    retryable?: (error: unknown) => boolean;
  },
): Promise<T> {
  const started = Date.now();
  for (let attempt = 1; ; attempt++) {
    throwIfAborted(signal);
    const bound = AbortSignal.timeout(Math.max(1, Math.min(attemptMs, deadline - Date.now())));
    try {
      return await send(signal ? AbortSignal.any([signal, bound]) : bound);
    } catch (error) {
      if (signal?.aborted) throw new ReplayAbortedError('replay aborted', { cause: error });
      const name = (error as { name?: string } | undefined)?.name ?? '';
      const timedOut =
        isAwsTimeout(error) || (bound.aborted && (name === 'AbortError' || name === 'TimeoutError'));
      if (!timedOut && !retryable(error)) throw error;
      const delay = Math.random() * Math.min(5_000, 100 * 2 ** (attempt - 1));
      if (Date.now() + delay >= deadline) {
        const ms = Date.now() - started;
        if (timedOut) throw new AwsApiTimeoutError(call, ms, attempt, { cause: error });
        throw new ReplayTimeoutError(
          `${call.operation} to stop failing with ${name}`,
          ms,
          `${attempt} attempts`,
          {
            cause: error,
          },
        );
      }
      await pause(delay, signal);
    }
  }
}
