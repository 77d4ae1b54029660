/**
 * The on-failure destination's order. Records of a batch fail at different moments: too old before an
 * invocation, refused by the schema registry before it, or after the last retry of the invocation that
 * held them. Sent as each failed, they reached the destination out of offset order (a record the
 * registry refused before the batch was invoked went out ahead of an earlier record whose retries ran
 * out later). Here they wait, per partition, until the commit that passes them: by then every record of
 * the partition below them is done, so each partition's failed records leave in offset order, whatever
 * order they failed in.
 */
import type { KafkaEventRecord } from '../kafka-event/types.ts';
import type { PendingRecord } from './batch.ts';
import type { PartitionOffset } from './commits.ts';
import type { FailureContext } from './destination.ts';

/**
 * A failed record and why it failed, waiting for its delivery.
 *
 * @example
 * ```ts
 * const failed: HeldFailure = { record, failure: { condition: 'RecordAgeExceeded', requestId, functionArn, invokeCount: 0 } };
 * ```
 */
export interface HeldFailure {
  readonly record: PendingRecord;
  /** Shared by the records that failed together (one invocation, one registry reason, one age check). */
  readonly failure: FailureContext;
}

/**
 * One record for the destination, as a sender takes it.
 *
 * @example
 * ```ts
 * await sender.send([{ record: pending.encoded, failure }]);
 * ```
 */
export interface FailedRecord {
  readonly record: KafkaEventRecord;
  readonly failure: FailureContext;
}

/**
 * A batch's failed records not delivered yet, kept per partition in offset order.
 *
 * @example
 * ```ts
 * const outbox = new FailureOutbox();
 * outbox.hold(aged, { condition: 'RecordAgeExceeded', requestId, functionArn, invokeCount: 0 });
 * const due = outbox.take([{ partition: 0, offset: 42 }]); // the held records of partition 0 below 42
 * ```
 */
export class FailureOutbox {
  readonly #held = new Map<number, HeldFailure[]>();

  /** Holds records that failed for one reason. */
  hold(records: readonly PendingRecord[], failure: FailureContext): void {
    const added = new Map<number, HeldFailure[]>();
    for (const record of records) {
      const list = added.get(record.partition);
      if (list) list.push({ record, failure });
      else added.set(record.partition, [{ record, failure }]);
    }
    for (const [partition, list] of added) {
      list.sort((a, b) => a.record.offset - b.record.offset);
      const held = this.#held.get(partition);
      this.#held.set(partition, held ? merged(held, list) : list);
    }
  }

  /**
   * Takes out the held records each commit passes (offset below it), partition by partition in the
   * order given, each partition's in offset order.
   */
  take(offsets: readonly PartitionOffset[]): HeldFailure[] {
    const due: HeldFailure[] = [];
    for (const { partition, offset } of offsets) {
      const list = this.#held.get(partition);
      if (!list) continue;
      let count = 0;
      while (count < list.length && list[count]!.record.offset < offset) count++;
      due.push(...list.splice(0, count));
      if (list.length === 0) this.#held.delete(partition);
    }
    return due;
  }

  /** Takes out every record still held for the partition, in offset order (no commit passed them). */
  drain(partition: number): PendingRecord[] {
    const list = this.#held.get(partition) ?? [];
    this.#held.delete(partition);
    return list.map((held) => held.record);
  }

  /** The partitions with records held. */
  partitions(): number[] {
    return [...this.#held.keys()];
  }
}

/** Two lists in offset order, merged. */
function merged(a: readonly HeldFailure[], b: readonly HeldFailure[]): HeldFailure[] {
  const out: HeldFailure[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length)
    out.push(a[i]!.record.offset <= b[j]!.record.offset ? a[i++]! : b[j++]!);
  while (i < a.length) out.push(a[i++]!);
  while (j < b.length) out.push(b[j++]!);
  return out;
}

/**
 * Splits records due at the destination into deliveries, keeping each partition's offset order across
 * them. A destination that takes one message per record (`kafka://`, a callback) gets them all at once,
 * each with its own reason. One that takes one message per delivery (SQS, SNS, S3: a single
 * `requestContext` and, per partition, one first-to-last offset range) gets a delivery per run of
 * records that failed together and are neighbours in their partition (nothing was fetched between them,
 * see {@link PendingRecord.previousOffset}). A record of the partition that is not in the run starts a
 * new one, whatever became of it: it failed for another reason, it succeeded (records too old on both
 * sides of one that was invoked), it matched no filter, or it was not listed in a partial response
 * (`redelivery: 'listed'`). So no message's range covers a record another message reports, or one that
 * was not given up on; a record whose neighbour below it is not known starts a run too. Records of
 * several partitions that failed together stay in one message.
 *
 * @example
 * ```ts
 * deliveries(due, false); // [[p0@1 DESERIALIZATION_ERROR], [p0@2 SCHEMA_NOT_FOUND], [p0@3 DESERIALIZATION_ERROR]]
 * ```
 */
export function deliveries(due: readonly HeldFailure[], perRecord: boolean): HeldFailure[][] {
  if (due.length === 0) return [];
  if (perRecord) return [[...due]];
  const queues = new Map<number, HeldFailure[]>();
  for (const held of due) {
    const queue = queues.get(held.record.partition);
    if (queue) queue.push(held);
    else queues.set(held.record.partition, [held]);
  }
  const runs: HeldFailure[][] = [];
  for (;;) {
    const first = [...queues.values()].find((queue) => queue.length > 0)?.[0];
    if (!first) return runs;
    const run: HeldFailure[] = [];
    for (const queue of queues.values()) {
      let last: PendingRecord | undefined;
      while (
        queue.length > 0 &&
        queue[0]!.failure === first.failure &&
        (last === undefined || queue[0]!.record.previousOffset === last.offset)
      ) {
        const held = queue.shift()!;
        run.push(held);
        last = held.record;
      }
    }
    runs.push(run);
  }
}
