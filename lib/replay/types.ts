/**
 * Where to move the group's committed offsets (the "next record to read" of each partition), as
 * `kafka-consumer-groups --reset-offsets` spells it:
 * - `offset`: the same offset on every partition (`--to-offset`);
 * - `offsets`: one offset per partition (`--from-file`, or explicit);
 * - `timestamp`: the first record at or after this instant (`--to-datetime`; ISO 8601 or epoch ms);
 * - `duration`: the first record at or after now minus this duration (`--by-duration`; ISO 8601 like
 *   `PT1H30M` or milliseconds);
 * - `earliest` / `latest`: the low / high watermark (`--to-earliest` / `--to-latest`);
 * - `shift`: the committed offset plus `by` (negative re-delivers, positive skips; `--shift-by`);
 * - `current`: the committed offset as it is, and the log end where the group has none (`--to-current`:
 *   it pins a group's position on every partition, as Kafka's tool does).
 *
 * @example
 * ```ts
 * const target: ReplayTarget = { kind: 'timestamp', timestamp: '2026-11-29T10:00:00Z' };
 * ```
 */
export type ReplayTarget =
  | { kind: 'offset'; offset: number }
  | { kind: 'offsets'; offsets: { partition: number; offset: number }[] }
  | { kind: 'timestamp'; timestamp: string | number }
  | { kind: 'duration'; duration: string | number }
  | { kind: 'earliest' }
  | { kind: 'latest' }
  | { kind: 'shift'; by: number }
  | { kind: 'current' };

/**
 * Something worth knowing about one partition's plan; `code` is stable for scripts, `message` is for
 * people:
 * - `CLAMPED_TO_LOW` / `CLAMPED_TO_HIGH`: the target was before the first retained record / past the log
 *   end, and was moved there (`strict` refuses it instead);
 * - `NO_RECORD_AT_OR_AFTER_TIMESTAMP`: no record at or after the time: the target is the log end;
 * - `TIME_BEFORE_EPOCH`: the time is before 1970: the target is the first retained record;
 * - `NO_COMMITTED_OFFSET`: the group has no committed offset here: `redeliver` and `skip` are counted
 *   from the trigger's starting position when the plan knows it, and are null otherwise;
 * - `COMMITTED_BELOW_LOW`: the committed offset was deleted from the log (retention): counted from the
 *   first retained record.
 *
 * @example
 * ```ts
 * const clamped = plan.partitions.flatMap((p) => p.warnings).filter((w) => w.code === 'CLAMPED_TO_LOW');
 * ```
 */
export interface PlanWarning {
  code:
    | 'CLAMPED_TO_LOW'
    | 'CLAMPED_TO_HIGH'
    | 'NO_RECORD_AT_OR_AFTER_TIMESTAMP'
    | 'NO_COMMITTED_OFFSET'
    | 'COMMITTED_BELOW_LOW'
    | 'TIME_BEFORE_EPOCH';
  message: string;
}

/**
 * The plan for one partition. Offsets are Kafka positions (the next record to read).
 *
 * @example
 * ```ts
 * for (const p of plan.partitions) console.log(p.partition, p.committed, '→', p.target, p.redeliver);
 * ```
 */
export interface PartitionPlan {
  partition: number;
  /** The group's committed offset now, or null when it has none. */
  committed: number | null;
  /** The metadata string stored with the committed offset (a previous replay's audit record, say). */
  committedMetadata: string | null;
  /** First offset still in the log. */
  low: number;
  /** Offset the next produced record will get (log end). */
  high: number;
  /** What the target asked for before clamping. */
  requested: number;
  /** The offset that will be committed. */
  target: number;
  /**
   * Records that will be delivered again (target before the committed offset). Where the group has no
   * committed offset, counted from where the trigger would start instead (its mapping's StartingPosition,
   * when the plan knows it: see {@link PlanRequest.startingPosition}), and null when that is unknown.
   */
  redeliver: number | null;
  /**
   * Records that will never be delivered (target after the committed offset); where the group has no
   * committed offset, as `redeliver` (null when unknown).
   */
  skip: number | null;
  warnings: PlanWarning[];
}

/**
 * Where a Kafka trigger starts reading a partition its consumer group has no committed offset for: its
 * event source mapping's `StartingPosition` (`TRIM_HORIZON`: the oldest retained record; `LATEST`: the log
 * end; `AT_TIMESTAMP`: the first record at or after `StartingPositionTimestamp`, here as ISO 8601). A group
 * with committed offsets resumes from them instead:
 * https://docs.aws.amazon.com/lambda/latest/dg/kafka-starting-positions.html
 *
 * @example
 * ```ts
 * const start: StartingPosition = { position: 'AT_TIMESTAMP', timestamp: '2026-11-29T10:00:00.000Z' };
 * ```
 */
export type StartingPosition =
  | { position: 'TRIM_HORIZON' | 'LATEST' }
  | { position: 'AT_TIMESTAMP'; timestamp: string };

/**
 * What a replay would do (dry run) or did: per partition, from where to where.
 *
 * @example
 * ```ts
 * const plan = await planReplay({ kafka, groupId: 'orders-fn', topic: 'orders', target: { kind: 'earliest' } });
 * console.log(plan.totals.redeliver, 'records will be delivered again');
 * ```
 */
export interface ReplayPlan {
  groupId: string;
  topic: string;
  target: ReplayTarget;
  /** When the plan was computed (ISO 8601); timestamp and duration targets resolve against it. */
  plannedAt: string;
  /** The group's state when planned (`Empty`, `Stable`, `Dead`, …) and its member count. */
  groupState: string;
  members: number;
  /** True when the members are another replay holding the group (an execution now is a conflict). */
  heldByReplay: boolean;
  partitions: PartitionPlan[];
  /**
   * Sums over the partitions: `redeliver` and `skip` add up the partitions where they are known;
   * `unknown` counts the others (no committed offset, and no starting position to count from).
   */
  totals: { redeliver: number; skip: number; partitions: number; changed: number; unknown: number };
}

/**
 * Request for {@link planReplay}: which group, topic and partitions, and the target.
 *
 * @example
 * ```ts
 * const request: PlanRequest = { groupId: 'g', topic: 'orders', partitions: [0, 2], target: { kind: 'shift', by: -100 } };
 * ```
 */
export interface PlanRequest {
  groupId: string;
  topic: string;
  /** Only these partitions (default: all). */
  partitions?: number[];
  target: ReplayTarget;
  /** Refuse targets outside [low, high] instead of clamping them. */
  strict?: boolean;
  /** "Now" for duration targets (default: the current time). */
  now?: Date;
  /**
   * Where the trigger starts a partition without a committed offset (its mapping's StartingPosition):
   * such a partition's `redeliver` and `skip` are counted from there. Without it they are null (unknown):
   * a plain consumer group's starting position is its consumers' own setting.
   */
  startingPosition?: StartingPosition;
}

/**
 * One step of an execution, in order. `mapping-*` steps only happen with an event source mapping.
 *
 * @example
 * ```ts
 * onProgress: (p) => console.error(`[${p.step}] ${p.message}`)
 * ```
 */
export type ReplayStep =
  | 'read-mapping'
  | 'disable-mapping'
  | 'wait-mapping-disabled'
  | 'wait-group-empty'
  | 'hold-group'
  | 'plan'
  | 'commit-offsets'
  | 'verify-offsets'
  | 'enable-mapping'
  | 'wait-mapping-enabled';

/**
 * A progress line while executing (what is being waited on and what was last seen).
 *
 * @example
 * ```ts
 * const onProgress = (p: ReplayProgress) => process.stderr.write(`${p.step}: ${p.message}\n`);
 * ```
 */
export interface ReplayProgress {
  step: ReplayStep;
  message: string;
}

/**
 * The state of the world after a failed execution: what failed, where the mapping is, where the offsets are.
 *
 * @example
 * ```ts
 * catch (e) { if (e instanceof ReplayExecutionError) console.error(e.report.failedStep, e.report.mappingState); }
 * ```
 */
export interface FailureReport {
  failedStep: ReplayStep;
  error: { name: string; message: string };
  /** `untouched`: no commit was sent or Kafka refused it whole; `set`: all planned offsets are committed;
   * `partial`: some partitions are at their target and the others where they were (Kafka checks a
   * commit partition by partition, so it can refuse some and store the rest); `unknown`: the commit's
   * outcome could not be read back, or the commit went unanswered (a broker that stopped answering may
   * still apply it later). `offsetsNow` shows what was read. */
  offsets: 'untouched' | 'set' | 'partial' | 'unknown';
  /** Committed offsets read back after the failure (partition → offset, null when none). */
  offsetsNow: { partition: number; offset: number | null }[] | null;
  /** The mapping's state before and after (null without a mapping). */
  mappingStateBefore: string | null;
  mappingStateNow: string | null;
  /** True when the mapping ended in the state it started in (or there was no mapping). */
  mappingRestored: boolean;
  /** Why restoring the mapping failed, when it did. */
  restoreError?: { name: string; message: string };
  /** The event source mapping's UUID (absent without a mapping). */
  mappingUuid?: string;
  /**
   * How long putting the mapping back to Enabled took, or waited before giving up, in milliseconds, and
   * the bound it had (`restoreMs`, capped by the deadline); absent when no restore was needed.
   */
  restore?: { ms: number; timeoutMs: number };
}
