/**
 * Lambda's limits on a Kafka trigger and its function, in one place: the emulator, the CLI, the test
 * helpers and the CDK constructs check settings and events against these constants, never against
 * literals of their own.
 *
 * Sources: https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html (payload, init),
 * https://docs.aws.amazon.com/lambda/latest/api/API_CreateEventSourceMapping.html (batch size, window,
 * retries, record age) and https://docs.aws.amazon.com/lambda/latest/dg/with-msk.html (Kafka triggers
 * refuse functions whose timeout is above 14 minutes).
 *
 * @example
 * ```ts
 * import { LAMBDA_LIMITS } from 'kafka-lambda/testing';
 *
 * if (Buffer.byteLength(JSON.stringify(event)) > LAMBDA_LIMITS.payloadBytes) throw new Error('too large for Lambda');
 * ```
 */
export const LAMBDA_LIMITS = {
  /** A synchronous invocation's payload (6 MB); the Kafka trigger's batches stay under it. */
  payloadBytes: 6 * 1024 * 1024,
  /**
   * A synchronous invocation's response, as the runtime enforces it (6 MB and 100 bytes): a function
   * answering more fails with `Function.ResponseSizeTooLarge`, a function error like any other.
   */
  responseBytes: 6_291_556,
  /** `BatchSize` of a Kafka event source mapping: 1–10,000 records. */
  batchSize: { min: 1, max: 10_000, default: 100 },
  /** `MaximumBatchingWindowInSeconds`: 0–300 whole seconds; unset, Kafka triggers wait 500 ms. */
  batchingWindowSeconds: { min: 0, max: 300, defaultMs: 500 },
  /**
   * `MaximumRetryAttempts`: −1 (until the record expires) or 0–10,000. With an on-failure destination,
   * −1 means 10 (https://docs.aws.amazon.com/lambda/latest/dg/kafka-retry-configurations.html).
   */
  maximumRetryAttempts: { infinite: -1, min: 0, max: 10_000, infiniteWithDestination: 10 },
  /** `MaximumRecordAgeInSeconds`: −1 (never) or 60–604,800 (7 days). */
  maximumRecordAgeSeconds: { infinite: -1, min: 60, max: 604_800 },
  /**
   * `ProvisionedPollerConfig` of a Kafka trigger: `MinimumPollers` 1–200 (default 1), `MaximumPollers`
   * 1–2,000 (default 200); each poller runs at most 5 invocations at once
   * (https://docs.aws.amazon.com/lambda/latest/api/API_ProvisionedPollerConfig.html,
   * https://docs.aws.amazon.com/lambda/latest/dg/kafka-scaling-modes.html).
   */
  provisionedPollers: {
    minimumPollers: { min: 1, max: 200, default: 1 },
    maximumPollers: { min: 1, max: 2_000, default: 200 },
    invocationsPerPoller: 5,
  },
  /** The function's timeout a Kafka trigger accepts: above 0, at most 14 minutes; Lambda's default is 3 s. */
  kafkaFunctionTimeoutSeconds: { max: 840, default: 3 },
  /** The function's memory: 128–10,240 MB (https://docs.aws.amazon.com/lambda/latest/dg/configuration-memory.html). */
  functionMemoryMB: { min: 128, max: 10_240 },
  /** The init phase (loading the handler's module) before Lambda gives up and retries it. */
  initTimeoutSeconds: 10,
  /**
   * Names the trigger's API accepts (https://docs.aws.amazon.com/lambda/latest/api/API_CreateEventSourceMapping.html):
   * a `Topics` entry (and a `kafka://` destination's topic) is 1–249 characters matching
   * `^[^.]([a-zA-Z0-9\-_.]+)`, so at least two and no leading dot, within Kafka's own alphabet; a
   * `PollerGroupName` is up to 128 characters of `[a-zA-Z0-9-_]`.
   */
  names: {
    topic: /^[a-zA-Z0-9_-][a-zA-Z0-9._-]{1,248}$/,
    pollerGroupName: /^[a-zA-Z0-9_-]{0,128}$/,
  },
} as const;

/**
 * Whether `value` is a memory size Lambda accepts for a function: a whole number of MB in
 * {@link LAMBDA_LIMITS}.functionMemoryMB.
 *
 * @example
 * ```ts
 * isFunctionMemoryMB(1024); // true; 64 and 512.5 are not
 * ```
 */
export function isFunctionMemoryMB(value: unknown): value is number {
  const { min, max } = LAMBDA_LIMITS.functionMemoryMB;
  return Number.isSafeInteger(value) && (value as number) >= min && (value as number) <= max;
}
