import { randomUUID } from 'node:crypto';
import type { LambdaClient } from '@aws-sdk/client-lambda';
import { escapeControlCharacters, findControlCharacter } from '../text/control-characters.ts';
import type { GroupHold, ReplayKafka } from './connection.ts';
import {
  NotEnoughTimeError,
  OffsetVerificationError,
  ReplayConflictError,
  ReplayExecutionError,
  ReplayInputError,
  ReplayRefusedError,
} from './errors.ts';
import { describeGroup, refuseUnlessInactive, waitForEmptyGroup } from './group.ts';
import { listSome } from './list.ts';
import {
  checkMapping,
  enableMappingCommand,
  type MappingInfo,
  readMapping,
  setMappingEnabled,
  waitForMappingState,
} from './mapping.ts';
import { formatReplayMetadata, parseReplayMetadata } from './metadata.ts';
import { summarizeError } from './outcome.ts';
import { planReplay } from './plan.ts';
import { controlCharacterIssue } from './request.ts';
import type { FailureReport, PlanRequest, ReplayPlan, ReplayProgress, ReplayStep } from './types.ts';
import { beforeDeadline, pollUntil, throwIfAborted } from './wait.ts';

/**
 * Bounds of an execution's waits, in milliseconds.
 *
 * @example
 * ```ts
 * const timeouts: Partial<ReplayTimeouts> = { mappingMs: 120_000, groupMs: 60_000 };
 * ```
 */
export interface ReplayTimeouts {
  /** Each wait for the mapping to reach Disabled / Enabled, and each Lambda API call's retries. */
  mappingMs: number;
  /** The wait for the group to lose its members after the mapping is disabled. */
  groupMs: number;
  /**
   * Bound on putting the mapping back to Enabled after a failure (the safety net: not shortened by
   * `mappingMs`); kept back from `deadline`, and capped by it.
   */
  restoreMs: number;
  pollIntervalMs: number;
}

/**
 * Default bounds: five minutes per wait (a Kafka mapping's state changes can take minutes), polling
 * every two seconds.
 *
 * @example
 * ```ts
 * await executeReplay({ ...request, timeouts: { ...DEFAULT_REPLAY_TIMEOUTS, groupMs: 30_000 } });
 * ```
 */
export const DEFAULT_REPLAY_TIMEOUTS: ReplayTimeouts = {
  mappingMs: 300_000,
  groupMs: 300_000,
  restoreMs: 300_000,
  pollIntervalMs: 2_000,
};

/** Kept back from `deadline` for reading the offsets and the mapping's state into a failure report. */
const FAILURE_REPORT_MS = 5_000;

/** Bound on leaving the held group (best effort: the session expires on its own). */
const RELEASE_MS = 5_000;

/**
 * Least time the waits must have (after the restore's share) for a mapping to be disabled: below it the
 * replay is refused, as a mapping toggled off and on with no chance to settle helps no one. Bounds set
 * shorter (`mappingMs`) lower it.
 */
const MIN_WAIT_BUDGET_MS = 60_000;

/**
 * Request for {@link executeReplay}. With `mapping`, the group and topic come from the event source
 * mapping (when given here too they must match it).
 *
 * @example
 * ```ts
 * const request: ExecuteRequest = { kafka, mapping: { lambda, uuid }, target: { kind: 'earliest' }, reason: 'INC-42' };
 * ```
 */
export interface ExecuteRequest extends Omit<PlanRequest, 'groupId' | 'topic'> {
  kafka: ReplayKafka;
  groupId?: string;
  topic?: string;
  mapping?: { lambda: LambdaClient; uuid: string };
  /**
   * Stored in the audit metadata of every committed offset, and shown where the plan is printed: a reason
   * with control characters (escape codes, newlines) is refused with {@link ReplayInputError}.
   */
  reason?: string;
  timeouts?: Partial<ReplayTimeouts>;
  /**
   * Absolute deadline (epoch ms) for everything, e.g. a Lambda's remaining time: the steps end by it less
   * `restoreMs` (and a few seconds for the failure report), so that a failure can still restore the mapping,
   * and an enabled mapping is not touched unless the waits get at least a minute (or `mappingMs`).
   */
  deadline?: number;
  /** Aborting stops at the next step or wait, and the mapping is restored. */
  signal?: AbortSignal;
  onProgress?: (progress: ReplayProgress) => void;
}

/**
 * What an execution did.
 *
 * @example
 * ```ts
 * const { plan, mapping, steps } = await executeReplay(request);
 * console.log(`${plan.totals.redeliver} records will be delivered again; mapping ${mapping?.stateAfter}`);
 * ```
 */
export interface ReplayResult {
  /** The plan that was applied (computed once the group had no members). */
  plan: ReplayPlan;
  mapping: { uuid: string; stateBefore: string; stateAfter: string } | null;
  steps: { step: ReplayStep; ms: number }[];
}

/**
 * Moves the group's committed offsets to the target, safely:
 * - with an event source mapping: refuses one in transition; disables it, waits until Disabled and until
 *   the group has no members; then as below; re-enables the mapping if it was enabled and waits until
 *   Enabled;
 * - without a mapping: refuses while the group has members;
 * - then holds the group (joins it as its only member, {@link ReplayKafka.holdGroup}) for the
 *   plan→commit→verify window, so that the broker refuses any other replay's or consumer's commit and
 *   join meanwhile; refuses with {@link ReplayConflictError} when another replay committed since this one
 *   planned (its audit record is there; without a mapping, any commit), so that two relative targets
 *   never stack; with a mapping, plans again against the offsets Lambda committed until it stopped; commits
 *   every partition in ONE OffsetCommit carrying audit metadata unique to this run; reads the offsets back
 *   and compares them with the plan (another replay's audit record there is a conflict too); leaves the
 *   group.
 *
 * Refusals before anything changed throw the typed {@link ReplayRefusedError}/{@link ReplayInputError},
 * {@link NotEnoughTimeError} among them when the `deadline` leaves too little time to disable and re-enable
 * the mapping. Every step, Kafka requests included, ends by the deadline less the restore's share.
 * A failure after that restores the mapping to its original state and throws
 * {@link ReplayExecutionError} whose `report` names the failed step, the mapping's state and the offsets.
 * Throttling and conflicts of the Lambda API are retried with back-off within the timeouts.
 *
 * @example
 * ```ts
 * await using kafka = await connectReplayKafka({ brokers, auth: { type: 'iam', region } });
 * const result = await executeReplay({
 *   kafka, mapping: { lambda: new LambdaClient({}), uuid }, target: { kind: 'timestamp', timestamp: '2026-11-29T10:00:00Z' },
 *   reason: 'INC-42: re-deliver after the fix', onProgress: (p) => console.error(p.message),
 * });
 * ```
 */
export async function executeReplay(request: ExecuteRequest): Promise<ReplayResult> {
  const { kafka, mapping, signal } = request;
  if (request.reason !== undefined && findControlCharacter(request.reason) !== undefined) {
    throw new ReplayInputError(`reason: ${controlCharacterIssue(request.reason)}`);
  }
  const timeouts = { ...DEFAULT_REPLAY_TIMEOUTS, ...request.timeouts };
  const deadline = request.deadline ?? Number.POSITIVE_INFINITY;
  // Time kept back from the deadline: the failure report's, and the restore's once the mapping may be disabled.
  let reserve = FAILURE_REPORT_MS;
  const stepsDeadline = () => deadline - reserve;
  const budget = (ms: number) => Math.max(0, Math.min(ms, stepsDeadline() - Date.now()));
  const steps: ReplayResult['steps'] = [];
  let step: ReplayStep = 'read-mapping';
  const progress = (message: string) => request.onProgress?.({ step, message });
  const timedStep: TimedStep = async (next, message, action) => {
    throwIfAborted(signal);
    step = next;
    progress(message);
    throwIfAborted(signal);
    const started = Date.now();
    const result = await beforeDeadline(`step ${next} to finish`, stepsDeadline(), action());
    steps.push({ step: next, ms: Date.now() - started });
    return result;
  };

  // Read-only checks first: a refusal here has changed nothing.
  let info: MappingInfo | undefined;
  let groupId = request.groupId;
  let topic = request.topic;
  if (mapping) {
    info = await timedStep('read-mapping', `reading event source mapping ${mapping.uuid}`, () =>
      readMapping({ ...mapping, deadline: Date.now() + budget(timeouts.mappingMs), signal }),
    );
    ({ groupId, topic } = checkMapping(info, { groupId, topic }));
  }
  if (!groupId || !topic)
    throw new ReplayInputError('a consumer group and a topic (or a mapping) are required');
  // A partition without a committed offset is counted from where the trigger would start it.
  const planRequest = {
    ...request,
    groupId,
    topic,
    kafka,
    startingPosition: request.startingPosition ?? info?.startingPosition,
  };
  let plan = await timedStep('plan', `planning ${groupId} on ${topic}`, () => planReplay(planRequest));
  if (!mapping) refuseUnlessInactive(groupId, { ...plan, state: plan.groupState });

  const wasEnabled = info?.state === 'Enabled';
  if (mapping && wasEnabled) {
    reserve += timeouts.restoreMs;
    const available = stepsDeadline() - Date.now();
    const needed = Math.min(MIN_WAIT_BUDGET_MS, timeouts.mappingMs);
    if (available < needed) throw new NotEnoughTimeError(available, needed, timeouts.restoreMs);
  }
  let mappingTouched = false;
  // An unanswered commit (its step timed out) may still be applied later: its outcome stays unknown.
  let commit: CommitState = 'none';
  try {
    if (mapping && wasEnabled) {
      // Said before the trigger stops: if this run is killed (a function timeout, a crash), this line
      // is what the logs keep of how to resume it.
      await timedStep(
        'disable-mapping',
        `disabling mapping ${mapping.uuid} until the offsets are moved; if this run ends without a result, resume it: ${enableMappingCommand(mapping.uuid)}`,
        async () => {
          mappingTouched = true;
          await setMappingEnabled({
            ...mapping,
            enabled: false,
            deadline: Date.now() + budget(timeouts.mappingMs),
            signal,
          });
        },
      );
      await timedStep('wait-mapping-disabled', `waiting for mapping ${mapping.uuid} to be Disabled`, () =>
        waitForMappingState({
          ...mapping,
          state: 'Disabled',
          timeoutMs: budget(timeouts.mappingMs),
          intervalMs: timeouts.pollIntervalMs,
          signal,
          onProgress: progress,
        }),
      );
    }
    if (mapping) {
      await timedStep('wait-group-empty', `waiting for group ${groupId} to have no members`, () =>
        waitForEmptyGroup({
          admin: kafka.admin,
          groupId,
          timeoutMs: budget(timeouts.groupMs),
          intervalMs: timeouts.pollIntervalMs,
          signal,
          onProgress: progress,
        }),
      );
    }
    const hold = await holdGroup(timedStep, kafka, groupId, topic);
    let offsets: CommittedOffset[] = [];
    const executionId = randomUUID();
    try {
      // A commit since the plan is another replay's (its audit record, or any commit when no trigger
      // shares the group): re-planning against it would stack a relative target (--shift-by) on the
      // other's, so this one gives way, having changed nothing but the mapping it restores.
      refuseIfReplayedSincePlan(plan, hold.baseline, groupId, topic, !mapping);
      // With a mapping, Lambda may have committed up to the moment it stopped, and minutes may have
      // passed: plan again, holding the group. Without, the plan stands: the offsets are unchanged.
      if (mapping) {
        plan = await timedStep(
          'plan',
          `planning ${groupId} on ${topic} against the committed offsets, holding the group`,
          () => planReplay({ ...planRequest, now: request.now ?? new Date(plan.plannedAt) }),
        );
      }
      const at = new Date().toISOString();
      offsets = plan.partitions.map((p) => ({
        partition: p.partition,
        offset: p.target,
        metadata: formatReplayMetadata({
          at,
          previous: p.committed,
          reason: request.reason ?? '',
          run: executionId,
        }),
      }));
      await timedStep('commit-offsets', `committing ${offsets.length} offset(s) in one request`, async () => {
        commit = 'unanswered';
        try {
          await kafka.commitOffsets({ groupId, topic, offsets, hold: hold.hold });
          commit = 'answered';
        } catch (error) {
          // Refused whole by the broker (the hold was lost): nothing changed.
          commit = error instanceof ReplayRefusedError ? 'none' : 'answered';
          throw error;
        }
      });
      await timedStep('verify-offsets', 'reading the committed offsets back', () =>
        verifyCommitted(kafka, groupId, topic, offsets, executionId, "after this replay's commit"),
      );
    } finally {
      await beforeDeadline('leaving the group', Date.now() + RELEASE_MS, hold.hold.release()).catch(() => {});
    }
    if (mapping && wasEnabled) {
      // Between leaving the group and the trigger's resume, nothing holds the group: a commit made then
      // (a stray consumer, a script) would be what the trigger resumes from. Nothing may have moved it.
      await timedStep(
        'verify-offsets',
        'reading the committed offsets again before the trigger resumes',
        () =>
          verifyCommitted(kafka, groupId, topic, offsets, executionId, 'after this replay left the group'),
      );
      await timedStep('enable-mapping', `enabling mapping ${mapping.uuid}`, () =>
        setMappingEnabled({
          ...mapping,
          enabled: true,
          deadline: Date.now() + budget(timeouts.mappingMs),
          signal,
        }),
      );
      await timedStep('wait-mapping-enabled', `waiting for mapping ${mapping.uuid} to be Enabled`, () =>
        waitForMappingState({
          ...mapping,
          state: 'Enabled',
          timeoutMs: budget(timeouts.mappingMs),
          intervalMs: timeouts.pollIntervalMs,
          signal,
          onProgress: progress,
        }),
      );
    }
    return {
      plan,
      mapping: info ? { uuid: info.uuid, stateBefore: info.state, stateAfter: info.state } : null,
      steps,
    };
  } catch (error) {
    // Nothing changed (no commit sent, or the broker refused it whole): the error speaks for itself.
    if (!mappingTouched && commit === 'none') throw error;
    const report = await failureReport({
      error,
      failedStep: step,
      kafka,
      groupId,
      topic,
      plan,
      commit,
      mapping:
        mapping && info
          ? { ...mapping, before: info.state, restore: mappingTouched && wasEnabled }
          : undefined,
      timeouts,
      deadline,
      progress,
    });
    throw new ReplayExecutionError(report, error);
  }
}

/** Runs one step of an execution: reports it, bounds it by the deadline and times it. */
type TimedStep = <T>(next: ReplayStep, message: string, action: () => Promise<T>) => Promise<T>;

/**
 * The hold-group step: reads the committed offsets, checks that the group has no members, joins it
 * ({@link ReplayKafka.holdGroup}) and reads the offsets again. The first read comes before the check, so
 * that a replay that committed after the check (and left before the join) shows as a difference: a
 * conflict. Answers the offsets committed while holding.
 */
async function holdGroup(
  timedStep: TimedStep,
  kafka: ReplayKafka,
  groupId: string,
  topic: string,
): Promise<{ hold: GroupHold; baseline: Awaited<ReturnType<typeof committedOffsets>> }> {
  let pending: Promise<GroupHold> | undefined;
  try {
    return await timedStep(
      'hold-group',
      `holding group ${groupId}: no other replay or consumer can join it or commit until this one is done`,
      async () => {
        const baseline = await committedOffsets(kafka, groupId, topic);
        refuseUnlessInactive(groupId, await describeGroup(kafka.admin, groupId));
        pending = kafka.holdGroup({ groupId });
        const hold = await pending;
        const now = await committedOffsets(kafka, groupId, topic);
        const moved = [...new Set([...baseline.keys(), ...now.keys()])].filter(
          (p) =>
            (baseline.get(p)?.offset ?? null) !== (now.get(p)?.offset ?? null) ||
            (baseline.get(p)?.metadata ?? null) !== (now.get(p)?.metadata ?? null),
        );
        if (moved.length > 0) {
          throw new ReplayConflictError(
            groupId,
            `the committed offset of ${topic} partition ${listSome(moved.sort((x, y) => x - y))} changed after this replay found the group empty (another replay committed in between); nothing was changed by this one: plan again`,
          );
        }
        return { hold, baseline: now };
      },
    );
  } catch (error) {
    // A hold obtained after its step gave up (deadline, abort) is let go at once.
    void pending?.then(
      (hold) => hold.release(),
      () => {},
    );
    throw error;
  }
}

/**
 * Throws {@link ReplayConflictError} when a partition's committed offset or metadata differs from what the
 * plan saw and the difference is another replay's commit: its audit record, or, when `anyCommit` (no
 * trigger shares the group, so nothing else commits), any commit.
 */
function refuseIfReplayedSincePlan(
  plan: ReplayPlan,
  committed: Awaited<ReturnType<typeof committedOffsets>>,
  groupId: string,
  topic: string,
  anyCommit: boolean,
): void {
  const moved = plan.partitions
    .filter((p) => {
      const now = committed.get(p.partition);
      const changed =
        (now?.offset ?? null) !== p.committed || (now?.metadata ?? null) !== (p.committedMetadata ?? null);
      return changed && (anyCommit || parseReplayMetadata(now?.metadata) !== null);
    })
    .map((p) => p.partition);
  if (moved.length > 0) {
    throw new ReplayConflictError(
      groupId,
      `the committed offset of ${topic} partition ${listSome(moved.sort((x, y) => x - y))} changed after this replay planned (another replay committed in between); nothing was changed by this one: plan again`,
    );
  }
}

/** The commit's progress: none (not sent, or refused whole), sent but unanswered, answered. */
type CommitState = 'none' | 'unanswered' | 'answered';

async function committedOffsets(
  kafka: ReplayKafka,
  groupId: string,
  topic: string,
): Promise<Map<number, { offset: number | null; metadata: string | null }>> {
  const [fetched] = await kafka.admin.fetchOffsets({ groupId, topics: [topic] });
  return new Map(
    (fetched?.partitions ?? []).map((p) => [
      p.partition,
      { offset: Number(p.offset) >= 0 ? Number(p.offset) : null, metadata: p.metadata },
    ]),
  );
}

async function failureReport(input: {
  error: unknown;
  failedStep: ReplayStep;
  kafka: ReplayKafka;
  groupId: string;
  topic: string;
  plan: ReplayPlan;
  commit: CommitState;
  mapping: { lambda: LambdaClient; uuid: string; before: string; restore: boolean } | undefined;
  timeouts: ReplayTimeouts;
  /** The execution's deadline: the restore ends by it less the report's share. */
  deadline: number;
  progress: (message: string) => void;
}): Promise<FailureReport> {
  const { mapping, timeouts } = input;
  let restoreError: FailureReport['restoreError'];
  let restore: FailureReport['restore'];
  if (mapping?.restore) {
    const started = Date.now();
    const until = Math.min(started + timeouts.restoreMs, input.deadline - FAILURE_REPORT_MS);
    input.progress(
      `restoring mapping ${mapping.uuid} to Enabled (for up to ${Math.round((until - started) / 1000)} s)`,
    );
    try {
      await beforeDeadline(
        `mapping ${mapping.uuid} to be Enabled again`,
        until,
        restoreEnabled(mapping.lambda, mapping.uuid, until, timeouts.pollIntervalMs, input.progress),
      );
    } catch (error) {
      restoreError = summarizeError(error);
    }
    restore = { ms: Date.now() - started, timeoutMs: Math.max(0, until - started) };
  }
  // Both reads are bounded: a broker or API that stopped answering must not hold the answer back.
  const reportBy = Date.now() + FAILURE_REPORT_MS;
  const [now, state] = await Promise.allSettled([
    beforeDeadline(
      'the committed offsets',
      reportBy,
      committedOffsets(input.kafka, input.groupId, input.topic),
    ),
    mapping &&
      beforeDeadline(`mapping ${mapping.uuid}`, reportBy, readMapping({ ...mapping, deadline: reportBy })),
  ]);
  let offsetsNow: FailureReport['offsetsNow'] = null;
  let offsets: FailureReport['offsets'] = input.commit === 'none' ? 'untouched' : 'unknown';
  // Unread offsets stay "unknown"/null in the report.
  if (now.status === 'fulfilled') {
    const read = now.value;
    offsetsNow = input.plan.partitions.map((p) => ({
      partition: p.partition,
      offset: read.get(p.partition)?.offset ?? null,
    }));
    if (input.commit !== 'none') {
      const { partitions } = input.plan;
      const now = (p: (typeof partitions)[number]) => read.get(p.partition)?.offset ?? null;
      if (partitions.every((p) => now(p) === p.target)) offsets = 'set';
      else if (input.commit === 'answered' && partitions.every((p) => now(p) === p.committed))
        offsets = 'untouched';
      // Each partition where it was or at its target, and one that moved: the coordinator stores the
      // partitions it accepted in one write, so a mix seen once stays a mix.
      else if (
        partitions.every((p) => now(p) === p.target || now(p) === p.committed) &&
        partitions.some((p) => p.target !== p.committed && now(p) === p.target)
      )
        offsets = 'partial';
    }
  }
  let mappingStateNow: string | null = null;
  if (state.status === 'fulfilled') mappingStateNow = state.value?.state ?? null;
  else restoreError ??= summarizeError(state.reason);
  return {
    failedStep: input.failedStep,
    error: summarizeError(input.error),
    offsets,
    offsetsNow,
    mappingStateBefore: mapping?.before ?? null,
    mappingStateNow,
    mappingRestored: !mapping || mappingStateNow === mapping.before,
    ...(restoreError ? { restoreError } : {}),
    ...(mapping ? { mappingUuid: mapping.uuid } : {}),
    ...(restore ? { restore } : {}),
  };
}

/** Puts a mapping that was Enabled back to Enabled, whatever transition it is in, by `deadline`. */
async function restoreEnabled(
  lambda: LambdaClient,
  uuid: string,
  deadline: number,
  intervalMs: number,
  progress: (message: string) => void,
): Promise<void> {
  await pollUntil(
    `mapping ${uuid} to be Enabled again`,
    { timeoutMs: Math.max(0, deadline - Date.now()), intervalMs },
    async () => {
      const { state } = await readMapping({ lambda, uuid, deadline });
      if (state === 'Disabled') await setMappingEnabled({ lambda, uuid, enabled: true, deadline });
      return { done: state === 'Enabled', seen: state };
    },
    (seen, ms) => progress(`mapping ${uuid}: ${seen} (${Math.round(ms / 1000)} s, restoring to Enabled)`),
  );
}

/** An offset as a replay commits it: the target and its audit record. */
interface CommittedOffset {
  partition: number;
  offset: number;
  metadata: string;
}

/**
 * Reads the group's offsets and throws unless they are this replay's: {@link ReplayConflictError} when
 * another replay's audit record is there instead, {@link OffsetVerificationError} for any other change.
 */
async function verifyCommitted(
  kafka: ReplayKafka,
  groupId: string,
  topic: string,
  offsets: CommittedOffset[],
  executionId: string,
  when: string,
): Promise<void> {
  const now = await committedOffsets(kafka, groupId, topic);
  const differ = offsets.filter(
    (o) => now.get(o.partition)?.offset !== o.offset || now.get(o.partition)?.metadata !== o.metadata,
  );
  const other = differ
    .map((o) => parseReplayMetadata(now.get(o.partition)?.metadata))
    .find((audit) => audit?.run !== undefined && audit.run !== executionId);
  if (other) {
    throw new ReplayConflictError(
      groupId,
      // The record is anyone's who may commit to the group: its text is shown escaped, never obeyed.
      `${when}, the offsets carry another replay's audit record (at ${escapeControlCharacters(other.at)}${other.reason ? `: ${escapeControlCharacters(other.reason)}` : ''}): the other one's offsets won`,
    );
  }
  const mismatches = differ.map((o) => ({
    partition: o.partition,
    expected: o.offset,
    actual: now.get(o.partition)?.offset ?? null,
  }));
  if (mismatches.length > 0) throw new OffsetVerificationError(mismatches);
}
