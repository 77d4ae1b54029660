import type { ReplayKafka } from './connection.ts';
import {
  NoCommittedOffsetError,
  OffsetOutOfRangeError,
  ReplayInputError,
  ReplayRefusedError,
  UnknownPartitionError,
  UnknownTopicError,
} from './errors.ts';
import { isHeldByReplay } from './group.ts';
import { listSome } from './list.ts';
import { parseDuration, parseTimestamp } from './targets.ts';
import type { PartitionPlan, PlanRequest, PlanWarning, ReplayPlan, ReplayTarget } from './types.ts';

/**
 * Works out, for every selected partition, where the group is, where the target is (clamped into the
 * log's [low, high] range with a warning, or refused with `strict`), and how many records that re-delivers
 * or skips. Read-only. Offsets are read as `kafka-consumer-groups --reset-offsets` reads them (read
 * uncommitted): `high` is the high watermark, past any open transaction's records, and a time inside an
 * open transaction finds its records. The broker round trips do not grow with the partition count: the
 * watermarks, the committed offsets, the group and (for time targets) the offsets by timestamp are one
 * batched request each per broker, sent concurrently.
 *
 * @throws {UnknownTopicError | UnknownPartitionError | NoCommittedOffsetError | ReplayInputError}
 * @throws {OffsetOutOfRangeError | ReplayRefusedError} with `strict`, for targets outside the log
 * @example
 * ```ts
 * const plan = await planReplay({ kafka, groupId: 'orders-fn', topic: 'orders', target: { kind: 'duration', duration: 'PT1H' } });
 * for (const p of plan.partitions) console.log(p.partition, p.committed, '→', p.target, `${p.redeliver} again`);
 * ```
 */
export async function planReplay({
  kafka,
  ...request
}: PlanRequest & { kafka: ReplayKafka }): Promise<ReplayPlan> {
  const { groupId, topic, target, strict = false, startingPosition } = request;
  const { admin } = kafka;
  const now = request.now ?? new Date();
  const timestamp = targetTimestamp(target, now);
  const startTimestamp =
    startingPosition?.position === 'AT_TIMESTAMP' ? startingTimestamp(startingPosition.timestamp) : undefined;
  // listTopics is one metadata request, without kafkajs' retries on an unknown topic.
  if (!(await admin.listTopics()).includes(topic)) throw new UnknownTopicError(topic);
  const [lows, highs, committed, groups, byTimestamp, byStartTimestamp] = await Promise.all([
    kafka.listOffsets({ topic, at: 'earliest' }),
    kafka.listOffsets({ topic, at: 'latest' }),
    admin.fetchOffsets({ groupId, topics: [topic] }),
    admin.describeGroups([groupId]),
    // Kafka reads negative times as special offsets (-1 latest, -2 earliest, …): never ask for one.
    timestamp === undefined || timestamp < 0 ? undefined : kafka.listOffsets({ topic, at: timestamp }),
    startTimestamp === undefined ? undefined : kafka.listOffsets({ topic, at: startTimestamp }),
  ]);
  const existing = highs.size;
  const selected = selectPartitions(topic, existing, request.partitions, target);
  const group = groups.groups[0];
  const committedByPartition = new Map(
    (committed[0]?.partitions ?? []).map((p) => [
      p.partition,
      { offset: Number(p.offset), metadata: p.metadata },
    ]),
  );

  const withoutCommit = selected.filter((p) => !((committedByPartition.get(p)?.offset ?? -1) >= 0));
  if (target.kind === 'shift' && withoutCommit.length > 0) {
    throw new NoCommittedOffsetError(groupId, topic, withoutCommit);
  }

  const partitions = selected.map((partition): PartitionPlan => {
    const low = lows.get(partition);
    const high = highs.get(partition);
    if (low == null || high == null) throw new UnknownPartitionError(topic, [partition], existing);
    const stored = committedByPartition.get(partition);
    const committedOffset = stored && stored.offset >= 0 ? stored.offset : null;
    const warnings: PlanWarning[] = [];
    let requested: number;
    switch (target.kind) {
      case 'offset':
        requested = target.offset;
        break;
      case 'offsets':
        requested = target.offsets.find((o) => o.partition === partition)!.offset;
        break;
      case 'earliest':
        requested = low;
        break;
      case 'latest':
        requested = high;
        break;
      case 'shift':
        requested = committedOffset! + target.by;
        break;
      case 'current':
        requested = committedOffset ?? high;
        break;
      case 'timestamp':
      case 'duration': {
        if (timestamp! < 0) {
          requested = low;
          warnings.push({
            code: 'TIME_BEFORE_EPOCH',
            message: `the requested time is before the epoch (1970-01-01T00:00:00Z), where Kafka's record times start: target is the first retained record (${low})`,
          });
          break;
        }
        requested = byTimestamp?.get(partition) ?? high;
        if (requested >= high) {
          requested = high;
          warnings.push({
            code: 'NO_RECORD_AT_OR_AFTER_TIMESTAMP',
            message: `no record at or after ${new Date(timestamp!).toISOString()}: target is the log end (${high}), nothing is re-delivered`,
          });
        }
        break;
      }
    }
    let offset = requested;
    // --to-current keeps a committed offset as it is, even one deleted from the log, as Kafka's tool does
    // (COMMITTED_BELOW_LOW below says so); every other target is kept within the log.
    const clamps = target.kind !== 'current';
    if (clamps && requested < low) {
      offset = low;
      warnings.push({
        code: 'CLAMPED_TO_LOW',
        message: `${requested} is before the first retained record; clamped to ${low}`,
      });
    } else if (clamps && requested > high) {
      offset = high;
      warnings.push({
        code: 'CLAMPED_TO_HIGH',
        message: `${requested} is past the log end; clamped to ${high}`,
      });
    }
    // Where the group would read from without this replay: its committed offset, or where the trigger
    // starts a partition without one (null: unknown).
    let position = committedOffset;
    if (committedOffset === null) {
      if (startingPosition) {
        position =
          startingPosition.position === 'TRIM_HORIZON'
            ? low
            : startingPosition.position === 'LATEST'
              ? high
              : (byStartTimestamp?.get(partition) ?? high);
        warnings.push({
          code: 'NO_COMMITTED_OFFSET',
          message: `the group has no committed offset here: the trigger would start at its StartingPosition, ${startingPosition.position === 'AT_TIMESTAMP' ? `AT_TIMESTAMP ${startingPosition.timestamp}` : startingPosition.position} (offset ${position}); counted from there`,
        });
      } else {
        warnings.push({
          code: 'NO_COMMITTED_OFFSET',
          message:
            "the group has no committed offset here: where its consumer starts (a trigger's StartingPosition, a consumer's auto.offset.reset) decides what is re-delivered or skipped, so both are unknown",
        });
      }
    } else if (committedOffset < low) {
      position = low;
      warnings.push({
        code: 'COMMITTED_BELOW_LOW',
        message: `committed offset ${committedOffset} was deleted from the log (first retained: ${low})`,
      });
    }
    return {
      partition,
      committed: committedOffset,
      committedMetadata: stored?.metadata ?? null,
      low,
      high,
      requested,
      target: offset,
      redeliver: position === null ? null : Math.max(0, Math.min(position, high) - Math.max(offset, low)),
      skip: position === null ? null : Math.max(0, offset - Math.min(position, high)),
      warnings,
    };
  });

  if (strict) refuseOutOfRange(topic, partitions);
  return {
    groupId,
    topic,
    target,
    plannedAt: now.toISOString(),
    groupState: group?.state ?? 'Unknown',
    members: group?.members.length ?? 0,
    heldByReplay: isHeldByReplay(group),
    partitions,
    totals: {
      partitions: partitions.length,
      changed: partitions.filter((p) => p.committed !== p.target).length,
      redeliver: partitions.reduce((n, p) => n + (p.redeliver ?? 0), 0),
      skip: partitions.reduce((n, p) => n + (p.skip ?? 0), 0),
      unknown: partitions.filter((p) => p.redeliver === null).length,
    },
  };
}

/** A StartingPositionTimestamp as epoch ms (Lambda refuses one in the future; a bad one is an input error). */
function startingTimestamp(timestamp: string): number {
  const ms = Date.parse(timestamp);
  if (Number.isNaN(ms)) {
    throw new ReplayInputError(`starting position timestamp "${timestamp.slice(0, 64)}" is not a time`);
  }
  return Math.max(0, ms);
}

function targetTimestamp(target: ReplayTarget, now: Date): number | undefined {
  if (target.kind === 'timestamp') return parseTimestamp(target.timestamp);
  if (target.kind === 'duration') return now.getTime() - parseDuration(target.duration);
  if (target.kind === 'offset' && (!Number.isSafeInteger(target.offset) || target.offset < 0)) {
    throw new ReplayInputError(`offset must be a non-negative integer, got ${target.offset}`);
  }
  if (target.kind === 'shift' && !Number.isSafeInteger(target.by)) {
    throw new ReplayInputError(
      Number.isInteger(target.by)
        ? `shift must be within ±${Number.MAX_SAFE_INTEGER} (a safe integer), got ${target.by}`
        : `shift must be an integer, got ${target.by}`,
    );
  }
  if (target.kind === 'offsets') {
    const bad = target.offsets.find((o) => !Number.isSafeInteger(o.offset) || o.offset < 0);
    if (bad)
      throw new ReplayInputError(`offset for partition ${bad.partition} must be a non-negative integer`);
  }
  return undefined;
}

function selectPartitions(
  topic: string,
  existing: number,
  subset: number[] | undefined,
  target: ReplayTarget,
): number[] {
  const all = Array.from({ length: existing }, (_, i) => i);
  let selected = subset ? [...new Set(subset)].sort((a, b) => a - b) : all;
  if (target.kind === 'offsets') {
    const listed = target.offsets.map((o) => o.partition);
    if (new Set(listed).size !== listed.length)
      throw new ReplayInputError('an offset is given twice for one partition');
    const outside = subset ? listed.filter((p) => !subset.includes(p)) : [];
    if (outside.length > 0) {
      throw new ReplayInputError(
        `offsets given for partitions outside the selected ones: ${listSome(outside)}`,
      );
    }
    selected = [...listed].sort((a, b) => a - b);
  }
  const unknown = selected.filter((p) => !Number.isInteger(p) || p < 0 || p >= existing);
  if (unknown.length > 0) throw new UnknownPartitionError(topic, unknown, existing);
  if (selected.length === 0) throw new ReplayInputError('no partition selected');
  return selected;
}

function refuseOutOfRange(topic: string, partitions: PartitionPlan[]): void {
  const clamped = partitions.filter((p) => p.warnings.some((w) => w.code.startsWith('CLAMPED')));
  if (clamped.length > 0) {
    throw new OffsetOutOfRangeError(
      topic,
      clamped.map((p) => ({ partition: p.partition, requested: p.requested, low: p.low, high: p.high })),
    );
  }
  const empty = partitions.filter((p) =>
    p.warnings.some((w) => w.code === 'NO_RECORD_AT_OR_AFTER_TIMESTAMP'),
  );
  if (empty.length > 0) {
    throw new ReplayRefusedError(
      `no record at or after the requested time on ${topic} partition ${listSome(empty.map((p) => p.partition))} (strict: not moved to the log end)`,
    );
  }
}
