import {
  type EventSourceMappingConfiguration,
  GetEventSourceMappingCommand,
  type LambdaClient,
  UpdateEventSourceMappingCommand,
} from '@aws-sdk/client-lambda';
import { callAwsApi, lambdaCall } from './aws-api.ts';
import { MappingNotFoundError, MappingRefusedError } from './errors.ts';
import type { StartingPosition } from './types.ts';

export { enableMappingCommand } from './aws-cli.ts';

import { pollUntil, type WaitOptions } from './wait.ts';

/**
 * What the replay needs to know about a Kafka event source mapping.
 *
 * @example
 * ```ts
 * const mapping = await readMapping({ lambda, uuid, deadline: Date.now() + 30_000 });
 * console.log(mapping.groupId, mapping.topic, mapping.state);
 * ```
 */
export interface MappingInfo {
  uuid: string;
  /** `Creating`, `Enabling`, `Enabled`, `Disabling`, `Disabled`, `Updating`, `Deleting`. */
  state: string;
  /** The consumer group id configured on the mapping; undefined when the API does not return one. */
  groupId: string | undefined;
  topic: string | undefined;
  functionArn: string | undefined;
  /** Where the trigger starts a partition its group has no committed offset for, when the API says. */
  startingPosition: StartingPosition | undefined;
}

/** Lambda API errors that mean "try again later": throttling, or the mapping is busy with another change. */
const RETRYABLE = new Set([
  'TooManyRequestsException',
  'ResourceConflictException',
  'ResourceInUseException',
  'ServiceException',
]);

/**
 * Runs a Lambda API call, retrying throttling and conflicts with exponential back-off and full jitter
 * until `deadline` (epoch ms); any other error, or the deadline, ends it. Each attempt is sent with an
 * abort signal that ends it after `attemptMs` or at the deadline: one that got no answer is abandoned
 * and sent again, and the deadline passing with no answer is {@link AwsApiTimeoutError} naming `what`.
 *
 * @example
 * ```ts
 * const out = await withLambdaRetry((abortSignal) => lambda.send(command, { abortSignal }), { deadline: Date.now() + 30_000 });
 * ```
 */
export async function withLambdaRetry<T>(
  call: (abortSignal: AbortSignal) => Promise<T>,
  {
    deadline,
    signal,
    what = 'call',
    attemptMs,
  }: { deadline: number; signal?: AbortSignal; what?: string; attemptMs?: number },
): Promise<T> {
  return callAwsApi(lambdaCall(what), call, {
    deadline,
    signal,
    attemptMs,
    retryable: (error) => RETRYABLE.has((error as { name?: string } | undefined)?.name ?? ''),
  });
}

/**
 * The Lambda API's answer for a mapping that does not exist, `ResourceNotFoundException` (HTTP 404), as
 * {@link MappingNotFoundError} naming the UUID and the client's region; any other error as it is.
 * GetEventSourceMapping's errors are InvalidParameterValueException, ResourceNotFoundException,
 * ServiceException and TooManyRequestsException; UpdateEventSourceMapping adds ResourceConflictException
 * and ResourceInUseException:
 * https://docs.aws.amazon.com/lambda/latest/api/API_GetEventSourceMapping.html#API_GetEventSourceMapping_Errors
 * https://docs.aws.amazon.com/lambda/latest/api/API_UpdateEventSourceMapping.html#API_UpdateEventSourceMapping_Errors
 */
async function notFoundAsMappingError(error: unknown, lambda: LambdaClient, uuid: string): Promise<unknown> {
  if ((error as { name?: unknown } | undefined)?.name !== 'ResourceNotFoundException') return error;
  const region = await lambda.config.region().catch(() => undefined);
  return new MappingNotFoundError(uuid, region || undefined, { cause: error });
}

/**
 * Reads a mapping with `GetEventSourceMapping` (throttling retried until `deadline`).
 *
 * @throws {MappingNotFoundError} when no mapping has this UUID (in the client's region and account)
 * @example
 * ```ts
 * const { state } = await readMapping({ lambda, uuid: '14e0db71-…', deadline: Date.now() + 30_000 });
 * ```
 */
export async function readMapping({
  lambda,
  uuid,
  deadline,
  signal,
  attemptMs,
}: {
  lambda: LambdaClient;
  uuid: string;
  deadline: number;
  signal?: AbortSignal;
  /** Bound on each attempt (default: 20 s): one with no answer by then is sent again. */
  attemptMs?: number;
}): Promise<MappingInfo> {
  let mapping: EventSourceMappingConfiguration;
  try {
    mapping = await withLambdaRetry(
      (abortSignal) => lambda.send(new GetEventSourceMappingCommand({ UUID: uuid }), { abortSignal }),
      { deadline, signal, attemptMs, what: 'GetEventSourceMapping' },
    );
  } catch (error) {
    throw await notFoundAsMappingError(error, lambda, uuid);
  }
  return {
    uuid,
    state: mapping.State ?? 'Unknown',
    groupId:
      mapping.AmazonManagedKafkaEventSourceConfig?.ConsumerGroupId ??
      mapping.SelfManagedKafkaEventSourceConfig?.ConsumerGroupId,
    topic: mapping.Topics?.length === 1 ? mapping.Topics[0] : undefined,
    functionArn: mapping.FunctionArn,
    startingPosition: startingPosition(mapping),
  };
}

function startingPosition(mapping: EventSourceMappingConfiguration): StartingPosition | undefined {
  const { StartingPosition: position, StartingPositionTimestamp: timestamp } = mapping;
  if (position === 'TRIM_HORIZON' || position === 'LATEST') return { position };
  if (position === 'AT_TIMESTAMP' && timestamp instanceof Date && !Number.isNaN(timestamp.getTime())) {
    return { position, timestamp: timestamp.toISOString() };
  }
  return undefined;
}

/**
 * Checks that a mapping can be replayed: a Kafka mapping, at rest (`Enabled` or `Disabled`; a dry run may
 * pass `atRest: false` to plan while it is in transition), on the expected topic and group; returns the
 * group id and topic to use. `groupFromMapping` is false when the mapping reports no group id and the
 * expected one is used instead: nothing ties that group to the mapping, so a caller enforcing an
 * allow-list must check it there.
 *
 * @throws {MappingRefusedError}
 * @example
 * ```ts
 * const { groupId, topic } = checkMapping(await readMapping({ lambda, uuid, deadline }), { topic: 'orders' });
 * ```
 */
export function checkMapping(
  mapping: MappingInfo,
  expected: { groupId?: string; topic?: string; atRest?: boolean },
): { groupId: string; topic: string; groupFromMapping: boolean } {
  const refuse = (message: string) => new MappingRefusedError(mapping.uuid, mapping.state, message);
  if (!mapping.topic) throw refuse('is not a Kafka event source mapping with one topic');
  if (expected.atRest !== false && mapping.state !== 'Enabled' && mapping.state !== 'Disabled') {
    throw refuse('is in transition; retry once it is Enabled or Disabled');
  }
  if (expected.topic && expected.topic !== mapping.topic) {
    throw refuse(`reads topic "${mapping.topic}", not "${expected.topic}"`);
  }
  if (mapping.groupId && expected.groupId && expected.groupId !== mapping.groupId) {
    throw refuse(`uses consumer group "${mapping.groupId}", not "${expected.groupId}"`);
  }
  const groupId = mapping.groupId ?? expected.groupId;
  if (!groupId) {
    throw refuse(
      'returns no ConsumerGroupId; give the group id explicitly (set it on the mapping to be safe)',
    );
  }
  return { groupId, topic: mapping.topic, groupFromMapping: groupId === mapping.groupId };
}

/**
 * Enables or disables a mapping (`UpdateEventSourceMapping`), retrying throttling and "in use"
 * conflicts until `deadline`.
 *
 * @throws {MappingNotFoundError} when no mapping has this UUID
 * @example
 * ```ts
 * await setMappingEnabled({ lambda, uuid, enabled: false, deadline: Date.now() + 60_000 });
 * ```
 */
export async function setMappingEnabled({
  lambda,
  uuid,
  enabled,
  deadline,
  signal,
  attemptMs,
}: {
  lambda: LambdaClient;
  uuid: string;
  enabled: boolean;
  deadline: number;
  signal?: AbortSignal;
  /** Bound on each attempt (default: 20 s): one with no answer by then is sent again. */
  attemptMs?: number;
}): Promise<void> {
  try {
    await withLambdaRetry(
      (abortSignal) =>
        lambda.send(new UpdateEventSourceMappingCommand({ UUID: uuid, Enabled: enabled }), { abortSignal }),
      { deadline, signal, attemptMs, what: 'UpdateEventSourceMapping' },
    );
  } catch (error) {
    throw await notFoundAsMappingError(error, lambda, uuid);
  }
}

/**
 * Polls `GetEventSourceMapping` until the mapping reaches `state` (bounded).
 *
 * @throws {ReplayTimeoutError} naming the last state seen
 * @example
 * ```ts
 * await waitForMappingState({ lambda, uuid, state: 'Disabled', timeoutMs: 300_000, intervalMs: 2_000 });
 * ```
 */
export async function waitForMappingState({
  lambda,
  uuid,
  state,
  onProgress,
  ...options
}: WaitOptions & {
  lambda: LambdaClient;
  uuid: string;
  state: 'Enabled' | 'Disabled';
  onProgress?: (message: string) => void;
}): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  await pollUntil(
    `mapping ${uuid} to be ${state}`,
    options,
    async () => {
      const seen = (await readMapping({ lambda, uuid, deadline, signal: options.signal })).state;
      return { done: seen === state, seen };
    },
    (seen, ms) => onProgress?.(`mapping ${uuid}: ${seen} (${Math.round(ms / 1000)} s, waiting for ${state})`),
  );
}
