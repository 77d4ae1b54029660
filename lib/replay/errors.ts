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
  override name = 'ReplayError';

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
  override name = 'UnknownTopicError';
  readonly topic: string;
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
  override name = 'UnknownPartitionError';
  readonly topic: string;
  readonly partitions: number[];
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
  override name = 'OffsetOutOfRangeError';
  readonly outOfRange: { partition: number; requested: number; low: number; high: number }[];
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
  override name = 'NoCommittedOffsetError';
  readonly partitions: number[];
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
  override name = 'GroupNotEmptyError';
  readonly groupId: string;
  readonly state: string;
  /** Member count, or null when the broker refused a commit without saying how many. */
  readonly members: number | null;
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
  override name = 'ReplayConflictError';
  readonly groupId: string;
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
  override name = 'MappingRefusedError';
  readonly uuid: string;
  readonly state: string | undefined;
  constructor(uuid: string, state: string | undefined, message: string) {
    super(`event source mapping ${uuid}${state ? ` (${state})` : ''}: ${message}`);
    this.uuid = uuid;
    this.state = state;
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
  override name = 'NotEnoughTimeError';
  readonly availableMs: number;
  readonly neededMs: number;
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
  override name = 'ReplayTimeoutError';
  readonly waitingFor: string;
  constructor(waitingFor: string, ms: number, last?: string, options?: ErrorOptions) {
    super(
      `timed out after ${ms} ms waiting for ${waitingFor}${last ? ` (last seen: ${last})` : ''}`,
      options,
    );
    this.waitingFor = waitingFor;
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
  override name = 'OffsetVerificationError';
  readonly mismatches: { partition: number; expected: number; actual: number | null }[];
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
  override name = 'ReplayExecutionError';
  readonly report: FailureReport;
  constructor(report: FailureReport, cause: unknown) {
    super(
      `replay failed at step ${report.failedStep}: ${report.error.message}; offsets ${report.offsets}; ${
        report.mappingStateBefore === null
          ? 'no mapping'
          : report.mappingRestored
            ? `mapping restored to ${report.mappingStateNow}`
            : `mapping NOT restored (was ${report.mappingStateBefore}, now ${report.mappingStateNow ?? 'unknown'})`
      }`,
      { cause },
    );
    this.report = report;
  }
}
