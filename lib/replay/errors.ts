import { resumeMappingAdvice } from './aws-cli.ts';
import { listSome } from './list.ts';
import type { FailureReport } from './types.ts';

/**
 * Typed errors of the replay core. Every error says what is wrong by its `name`; the ones raised before
 * anything changed are {@link ReplayRefusedError}s, so callers (the CLI's exit codes, the replay function's
 * result) can tell "refused, nothing changed" from "failed half-way" ({@link ReplayExecutionError}).
 */

/**
 * Base of the replay's typed errors: their messages are written to be shown (no secrets, no payloads),
 * so {@link describeReplayError} passes them on; any other error's message is withheld. `cause` (from
 * `options`) keeps the error that led to it (a kafkajs or AWS SDK error), for a debugger or a log of its
 * own; answers name only its name and code. Extend it for errors of your own that a replay answer should
 * spell out.
 *
 * @example
 * ```ts
 * class ReplayConfigError extends ReplayError { override name = 'ReplayConfigError'; }
 * throw new ReplayConfigError('cannot read the secret', { cause: error });
 * ```
 */
export class ReplayError extends Error {
  /** `'ReplayError'`; each subclass sets its own class name. */
  override name = 'ReplayError';

  /**
   * @param message - What is wrong, written to be shown: no secrets, no payloads.
   * @param options - `cause`: the error that led to this one (a kafkajs or AWS SDK error), if any.
   */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
  }
}

/**
 * A replay request that cannot be understood: a malformed target, duration, timestamp or plan file.
 *
 * @example
 * ```ts
 * try { parseDuration('PT1X'); } catch (e) { if (e instanceof ReplayInputError) console.error(e.message); }
 * ```
 */
export class ReplayInputError extends ReplayError {
  /** `'ReplayInputError'`; each subclass sets its own class name. */
  override name = 'ReplayInputError';
}

/**
 * The replay was refused before anything changed (active group, busy mapping, strict range check, …).
 *
 * @example
 * ```ts
 * if (error instanceof ReplayRefusedError) process.exitCode = 3; // nothing changed
 * ```
 */
export class ReplayRefusedError extends ReplayError {
  /** `'ReplayRefusedError'`; each subclass sets its own class name. */
  override name = 'ReplayRefusedError';
}

/**
 * The topic does not exist on the cluster.
 *
 * @example
 * ```ts
 * await planReplay({ kafka, groupId: 'g', topic: 'no-such-topic', target: { kind: 'earliest' } }); // throws
 * ```
 */
export class UnknownTopicError extends ReplayInputError {
  /** Always `'UnknownTopicError'`. */
  override name = 'UnknownTopicError';
  /** The topic that was not found. */
  readonly topic: string;
  /** @param topic - The topic that does not exist (or that this principal may not describe). */
  constructor(topic: string) {
    super(`topic "${topic}" does not exist (or this principal may not describe it)`);
    this.topic = topic;
  }
}

/**
 * A partition was named that the topic does not have.
 *
 * @example
 * ```ts
 * await planReplay({ kafka, groupId: 'g', topic: 'orders', partitions: [99], target: { kind: 'earliest' } });
 * ```
 */
export class UnknownPartitionError extends ReplayInputError {
  /** Always `'UnknownPartitionError'`. */
  override name = 'UnknownPartitionError';
  /** The topic. */
  readonly topic: string;
  /** The partitions named that the topic does not have. */
  readonly partitions: number[];
  /**
   * @param topic - The topic.
   * @param partitions - The partitions named that the topic does not have.
   * @param existing - How many partitions the topic has (numbered from 0).
   */
  constructor(topic: string, partitions: number[], existing: number) {
    super(
      `topic "${topic}" has no partition ${listSome(partitions)} (it has ${existing}: 0..${existing - 1})`,
    );
    this.topic = topic;
    this.partitions = partitions;
  }
}

/**
 * With `strict`, a target outside a partition's [low, high] watermarks is refused instead of clamped.
 *
 * @example
 * ```ts
 * await planReplay({ kafka, groupId: 'g', topic: 'orders', target: { kind: 'offset', offset: 1e9 }, strict: true });
 * ```
 */
export class OffsetOutOfRangeError extends ReplayRefusedError {
  /** Always `'OffsetOutOfRangeError'`. */
  override name = 'OffsetOutOfRangeError';
  /** Each refused partition: the offset `requested` and its valid range, `low`..`high` (its watermarks). */
  readonly outOfRange: { partition: number; requested: number; low: number; high: number }[];
  /**
   * @param topic - The topic, named in the message.
   * @param outOfRange - Each refused partition, as {@link OffsetOutOfRangeError.outOfRange} holds it.
   */
  constructor(topic: string, outOfRange: OffsetOutOfRangeError['outOfRange']) {
    super(
      `target out of range on ${topic}: ${listSome(
        outOfRange.map((p) => `partition ${p.partition} wants ${p.requested}, valid ${p.low}..${p.high}`),
      )} (strict: not clamped)`,
    );
    this.outOfRange = outOfRange;
  }
}

/**
 * A shift (`--shift-by`) needs a committed offset to shift from; these partitions have none.
 *
 * @example
 * ```ts
 * await planReplay({ kafka, groupId: 'new-group', topic: 'orders', target: { kind: 'shift', by: -10 } });
 * ```
 */
export class NoCommittedOffsetError extends ReplayInputError {
  /** Always `'NoCommittedOffsetError'`. */
  override name = 'NoCommittedOffsetError';
  /** The partitions without a committed offset. */
  readonly partitions: number[];
  /**
   * @param groupId - The consumer group.
   * @param topic - The topic.
   * @param partitions - The partitions where the group has no committed offset.
   */
  constructor(groupId: string, topic: string, partitions: number[]) {
    super(
      `group "${groupId}" has no committed offset on ${topic} partition ${listSome(partitions)} to shift from`,
    );
    this.partitions = partitions;
  }
}

/**
 * The consumer group has members (or is rebalancing), so its offsets cannot be moved safely.
 *
 * @example
 * ```ts
 * catch (e) { if (e instanceof GroupNotEmptyError) console.error(e.state, e.members); }
 * ```
 */
export class GroupNotEmptyError extends ReplayRefusedError {
  /** Always `'GroupNotEmptyError'`. */
  override name = 'GroupNotEmptyError';
  /** The consumer group. */
  readonly groupId: string;
  /**
   * The group's state as Kafka reports it (`Stable`, `PreparingRebalance`, …), or, when the broker
   * refused the replay's join or commit, what that refusal says (`active (the broker refused …)`).
   */
  readonly state: string;
  /** Member count, or null when the broker refused a commit without saying how many. */
  readonly members: number | null;
  /**
   * @param groupId - The consumer group.
   * @param state - The group's state (see {@link GroupNotEmptyError.state}).
   * @param members - Member count, or null when the broker refused a commit without saying how many.
   * @param waitedMs - How long the replay waited for the group to empty, when it waited.
   * @param options - `cause`: the error that led to this one, if any.
   */
  constructor(
    groupId: string,
    state: string,
    members: number | null,
    waitedMs?: number,
    options?: ErrorOptions,
  ) {
    super(
      `consumer group "${groupId}" is ${state}${members === null ? '' : ` with ${members} member(s)`}${
        waitedMs === undefined ? '' : ` after waiting ${waitedMs} ms`
      }; stop its consumers (or disable the event source mapping) first`,
      options,
    );
    this.groupId = groupId;
    this.state = state;
    this.members = members;
  }
}

/**
 * Another replay of the same group ran at the same time: this one was refused before it changed anything
 * (the other holds the group, joined it at the same moment and won, or committed since this one checked),
 * or — as a last line of defence — found after its own commit that the offsets carry another replay's
 * audit record. Its own exit code (6), so that scripts can tell it from other refusals and re-plan.
 *
 * @example
 * ```ts
 * catch (e) { if (e instanceof ReplayConflictError) console.error(`re-plan: ${e.message}`); }
 * ```
 */
export class ReplayConflictError extends ReplayRefusedError {
  /** Always `'ReplayConflictError'`. */
  override name = 'ReplayConflictError';
  /** The consumer group. */
  readonly groupId: string;
  /**
   * @param groupId - The consumer group; the message starts with it.
   * @param message - What happened, and whether this replay changed anything.
   * @param options - `cause`: the error that led to this one, if any.
   */
  constructor(groupId: string, message: string, options?: ErrorOptions) {
    super(`consumer group "${groupId}": ${message}`, options);
    this.groupId = groupId;
  }
}

/**
 * The event source mapping cannot be used for this replay: mid-transition, another topic, no group id.
 *
 * @example
 * ```ts
 * catch (e) { if (e instanceof MappingRefusedError) console.error(e.uuid, e.state); }
 * ```
 */
export class MappingRefusedError extends ReplayRefusedError {
  /** Always `'MappingRefusedError'`. */
  override name = 'MappingRefusedError';
  /** The event source mapping's UUID. */
  readonly uuid: string;
  /** The mapping's state as Lambda reported it (`Enabled`, `Disabling`, …), if it reported one. */
  readonly state: string | undefined;
  /**
   * @param uuid - The event source mapping's UUID.
   * @param state - The mapping's state as Lambda reported it, if it reported one.
   * @param message - Why the mapping cannot be used.
   */
  constructor(uuid: string, state: string | undefined, message: string) {
    super(`event source mapping ${uuid}${state ? ` (${state})` : ''}: ${message}`);
    this.uuid = uuid;
    this.state = state;
  }
}

/**
 * The event source mapping named does not exist (the Lambda API answered `ResourceNotFoundException`):
 * a wrong UUID, or one of another region or account. An invalid request: nothing was changed.
 *
 * @example
 * ```ts
 * catch (e) { if (e instanceof MappingNotFoundError) console.error(`no mapping ${e.uuid} in ${e.region}`); }
 * ```
 */
export class MappingNotFoundError extends ReplayInputError {
  /** Always `'MappingNotFoundError'`. */
  override name = 'MappingNotFoundError';
  /** The event source mapping's UUID, as given. */
  readonly uuid: string;
  /** The region the Lambda API was asked in, when known. */
  readonly region: string | undefined;
  /**
   * @param uuid - The event source mapping's UUID, as given.
   * @param region - The region the Lambda API was asked in, when known.
   * @param options - `cause`: the Lambda API's error.
   */
  constructor(uuid: string, region: string | undefined, options?: ErrorOptions) {
    super(
      `event source mapping ${uuid} not found${region ? ` in ${region}` : ''}: check the UUID and the region (aws lambda list-event-source-mappings lists them)`,
      options,
    );
    this.uuid = uuid;
    this.region = region;
  }
}

/**
 * Too little time is left before the deadline (a Lambda's remaining time) to disable the mapping, wait for
 * it and the group, and re-enable it, after keeping the restore's share: refused before touching anything.
 *
 * @example
 * ```ts
 * catch (e) { if (e instanceof NotEnoughTimeError) console.error(`${e.availableMs} ms < ${e.neededMs} ms`); }
 * ```
 */
export class NotEnoughTimeError extends ReplayRefusedError {
  /** Always `'NotEnoughTimeError'`. */
  override name = 'NotEnoughTimeError';
  /** Milliseconds left before the deadline once the restore's and the failure report's shares are kept. */
  readonly availableMs: number;
  /** The fewest milliseconds the replay needs to disable the mapping, wait and re-enable it. */
  readonly neededMs: number;
  /**
   * @param availableMs - Milliseconds left once the restore's and the failure report's shares are kept.
   * @param neededMs - The fewest milliseconds needed.
   * @param restoreMs - Milliseconds kept to restore the mapping, named in the message.
   */
  constructor(availableMs: number, neededMs: number, restoreMs: number) {
    super(
      `only ${Math.max(0, availableMs)} ms would be left to disable the mapping, wait and re-enable it after keeping ${restoreMs} ms to restore it (at least ${neededMs} ms needed): allow more time (the function's timeout) or a shorter restore timeout (REPLAY_RESTORE_TIMEOUT_MS)`,
    );
    this.availableMs = availableMs;
    this.neededMs = neededMs;
  }
}

/**
 * The cluster could not be reached, or what answered is not a Kafka broker speaking the configured
 * protocol (plaintext vs TLS, SASL): found on the first connection attempt, without retrying for
 * seconds. The message names the address and the cause, never credentials.
 *
 * @example
 * ```ts
 * catch (e) { if (e instanceof ReplayConnectionError) console.error(e.message); } // "cannot reach Kafka at …: ECONNREFUSED …"
 * ```
 */
export class ReplayConnectionError extends ReplayError {
  /** Always `'ReplayConnectionError'`. */
  override name = 'ReplayConnectionError';
}

/**
 * A bounded wait ran out (mapping state, group emptiness, Lambda API retries).
 *
 * @example
 * ```ts
 * catch (e) { if (e instanceof ReplayTimeoutError) console.error(e.waitingFor); }
 * ```
 */
export class ReplayTimeoutError extends ReplayError {
  /** Always `'ReplayTimeoutError'`. */
  override name = 'ReplayTimeoutError';
  /** What the wait was for, e.g. `mapping <uuid> to be Disabled`. */
  readonly waitingFor: string;
  /**
   * @param waitingFor - What the wait was for.
   * @param ms - How long it waited, in milliseconds.
   * @param last - What was seen last (a state, the attempts made), if anything.
   * @param options - `cause`: the error that led to this one, if any.
   */
  constructor(waitingFor: string, ms: number, last?: string, options?: ErrorOptions) {
    super(
      `timed out after ${ms} ms waiting for ${waitingFor}${last ? ` (last seen: ${last})` : ''}`,
      options,
    );
    this.waitingFor = waitingFor;
  }
}

/**
 * An AWS API call (Lambda, Secrets Manager, MSK) got no answer in time: the endpoint accepts connections
 * but does not answer, or cannot be reached (a function in a VPC without a route to the service). Each
 * attempt is abandoned when it takes too long and sent again until the step's bound; this is what is
 * left when the bound ran out. The message names the call and what to check, never a secret.
 *
 * @example
 * ```ts
 * catch (e) { if (e instanceof AwsApiTimeoutError) console.error(e.service, e.operation); } // 'Lambda', 'GetEventSourceMapping'
 * ```
 */
export class AwsApiTimeoutError extends ReplayTimeoutError {
  /** Always `'AwsApiTimeoutError'`. */
  override name = 'AwsApiTimeoutError';
  /** The AWS service, as its API is named: `Lambda`, `Secrets Manager`, `Kafka` (MSK). */
  readonly service: string;
  /** The API operation that got no answer, e.g. `GetEventSourceMapping`. */
  readonly operation: string;
  /**
   * @param call - The service, the operation, and the name of the service's interface VPC endpoint
   *   (`lambda`, `secretsmanager`, `kafka`), named in the advice.
   * @param ms - How long the call was tried, in milliseconds.
   * @param attempts - How many times it was sent.
   * @param options - `cause`: the last attempt's error, if any.
   */
  constructor(
    call: { service: string; operation: string; endpoint: string },
    ms: number,
    attempts: number,
    options?: ErrorOptions,
  ) {
    super(`${call.service} ${call.operation} to answer`, ms, `${attempts} attempt(s)`, options);
    this.message = `${call.service} API call ${call.operation} got no answer in ${ms} ms (${attempts} attempt(s)): check that the ${call.service} API endpoint is reachable from where this runs (a function in a VPC reaches it through a NAT gateway or a "${call.endpoint}" interface VPC endpoint; elsewhere: the network, a proxy, AWS_ENDPOINT_URL_* settings)`;
    this.service = call.service;
    this.operation = call.operation;
  }
}

/**
 * The replay was aborted through its `signal` (e.g. Ctrl-C in the CLI).
 *
 * @example
 * ```ts
 * const controller = new AbortController(); process.once('SIGINT', () => controller.abort());
 * ```
 */
export class ReplayAbortedError extends ReplayError {
  /** Always `'ReplayAbortedError'`. */
  override name = 'ReplayAbortedError';
}

/**
 * The offsets read back after the commit differ from the plan.
 *
 * @example
 * ```ts
 * catch (e) { if (e instanceof ReplayExecutionError && e.cause instanceof OffsetVerificationError) … }
 * ```
 */
export class OffsetVerificationError extends ReplayError {
  /** Always `'OffsetVerificationError'`. */
  override name = 'OffsetVerificationError';
  /** Each partition whose committed offset is not the planned one (`actual` null: none committed). */
  readonly mismatches: { partition: number; expected: number; actual: number | null }[];
  /** @param mismatches - Each partition whose committed offset differs from the plan. */
  constructor(mismatches: OffsetVerificationError['mismatches']) {
    super(
      `committed offsets differ from the plan: ${listSome(
        mismatches.map((m) => `partition ${m.partition} expected ${m.expected}, found ${m.actual ?? 'none'}`),
      )}`,
    );
    this.mismatches = mismatches;
  }
}

/**
 * An execution failed after it started changing things. The mapping was put back in its original state
 * where possible; `report` says which step failed, the mapping's state and the committed offsets now.
 *
 * @example
 * ```ts
 * try { await executeReplay(request); } catch (e) {
 *   if (e instanceof ReplayExecutionError) console.error(JSON.stringify(e.report));
 * }
 * ```
 */
export class ReplayExecutionError extends ReplayError {
  /** Always `'ReplayExecutionError'`. */
  override name = 'ReplayExecutionError';
  /** The step that failed, and where the offsets and the mapping are now. */
  readonly report: FailureReport;
  /**
   * @param report - The step that failed, and where the offsets and the mapping are now.
   * @param cause - The error the step failed with, kept as `cause`.
   */
  constructor(report: FailureReport, cause: unknown) {
    super(
      `replay failed at step ${report.failedStep}: ${report.error.message}; offsets ${report.offsets}; ${
        report.mappingStateBefore === null
          ? 'no mapping'
          : report.mappingRestored
            ? `mapping restored to ${report.mappingStateNow}`
            : `mapping NOT restored (was ${report.mappingStateBefore}, now ${report.mappingStateNow ?? 'unknown'})${
                report.mappingUuid && report.mappingStateBefore === 'Enabled'
                  ? `: ${resumeMappingAdvice(report.mappingUuid, report.mappingStateNow)}`
                  : ''
              }`
      }`,
      { cause },
    );
    this.report = report;
  }
}
