import { KafkaEventError } from './errors.ts';
import { describeValue, KAFKA_EVENT_SOURCES, positionProblem, readPosition, readTimestamp } from './rules.ts';
import type { KafkaEventRecord } from './types.ts';

/**
 * One problem found in an event: where (a path such as `records["orders-0"][2].offset`) and what.
 *
 * @example
 * ```ts
 * const issue: EventIssue = { path: 'records["orders-0"][2].offset', message: 'is -1, expected a non-negative integer' };
 * ```
 */
export interface EventIssue {
  path: string;
  message: string;
}

/**
 * Something Lambda never sends but that is processed safely, found while parsing:
 * - `repeatedOffset`: a partition repeats an offset (public sample events do). Its records run in
 *   event order; a reported offset appears once in the response, and Lambda resumes from it.
 * - `offsetOrder`: a partition's offsets go down. Its records run in offset order.
 * Noted once per partition and kind.
 *
 * @example
 * ```ts
 * const warning: EventWarning = { kind: 'repeatedOffset', partition: 'mytopic-0', path: 'records["mytopic-0"][1].offset', message: '…' };
 * ```
 */
export interface EventWarning extends EventIssue {
  kind: 'repeatedOffset' | 'offsetOrder';
  /** `"<topic>-<partition>"` of the records concerned. */
  partition: string;
}

/**
 * The records of one topic-partition, in offset order, as they are in the event (decoding waits
 * until a record starts), with their normalised offsets alongside.
 */
export interface PartitionBatch {
  /** `"<topic>-<partition>"`, built from the records' own fields. */
  readonly id: string;
  readonly topic: string;
  readonly partition: number;
  records: KafkaEventRecord[];
  offsets: number[];
}

/** A validated Kafka event, grouped by partition. */
export interface ParsedKafkaEvent {
  readonly partitions: PartitionBatch[];
  readonly recordCount: number;
  /** Smallest record timestamp (epoch ms), `NaN` if no record has one. */
  readonly oldestTimestamp: number;
  /** What the event does that Lambda never does; empty for every event Lambda sends. */
  readonly warnings: EventWarning[];
}

/**
 * Checks that `event` is a Kafka event whose records all say where they are (topic, partition,
 * offset) and groups the records by the partition their own fields name (not the map key). Partition
 * and offset given as digit strings are normalised to numbers (see `readPosition`). Key, value and
 * headers are not touched: a bad payload is a problem of one record (see `onPoison`), not of the
 * batch. Offsets that repeat or go down are accepted, with a warning (see {@link EventWarning}).
 *
 * Without `onError`, the first problem throws; with it, every problem is handed over (the record in
 * question is left out) and parsing goes on.
 *
 * @throws {KafkaEventError} naming the first field that is missing or wrong (without `onError`).
 * @example
 * ```ts
 * const { partitions, recordCount, warnings } = parseKafkaEvent(event);
 * ```
 */
export function parseKafkaEvent(event: unknown, onError?: (issue: EventIssue) => void): ParsedKafkaEvent {
  const fail = (path: string, problem: string): void => {
    if (onError === undefined) throw new KafkaEventError(path, problem);
    onError({ path, message: problem });
  };
  const empty: ParsedKafkaEvent = {
    partitions: [],
    recordCount: 0,
    oldestTimestamp: Number.NaN,
    warnings: [],
  };
  if (Array.isArray(event)) {
    fail('event', `is an array, not a Kafka event: ${ENVELOPE_HINT}`);
    return empty;
  }
  if (typeof event !== 'object' || event === null) {
    fail('event', 'is not an object');
    return empty;
  }
  const { eventSource, records, bootstrapServers } = event as {
    eventSource?: unknown;
    records?: unknown;
    bootstrapServers?: unknown;
  };
  if (
    eventSource === undefined &&
    records === undefined &&
    typeof (event as { success?: unknown }).success === 'boolean'
  ) {
    fail('event', `is a parse result ({ success, … }), not a Kafka event: ${SAFE_PARSE_HINT}`);
    return empty;
  }
  if (typeof eventSource !== 'string' || !KAFKA_EVENT_SOURCES.has(eventSource))
    fail(
      'eventSource',
      `is ${describeValue(eventSource)}, expected "aws:kafka", "SelfManagedKafka" or "aws:SelfManagedKafka"`,
    );
  // Lambda always sends one comma-separated string. An array is what a parser middleware placed
  // before kafkaBatch leaves (Powertools' KafkaMskEventSchema and KafkaSelfManagedEventSchema split
  // it), and that parser has also decoded every key and value to text and every header value to a
  // string: each record would fail as not base64, the partition never advancing. Refused as a whole.
  if (Array.isArray(bootstrapServers))
    fail('bootstrapServers', `is an array, but Lambda sends one comma-separated string: ${PARSER_HINT}`);
  if (typeof records !== 'object' || records === null || Array.isArray(records)) {
    fail('records', 'is not an object keyed by "<topic>-<partition>"');
    return empty;
  }

  const partitions: PartitionBatch[] = [];
  const byId = new Map<string, PartitionBatch>();
  const unsorted = new Set<PartitionBatch>();
  const warnings: EventWarning[] = [];
  let warned: Set<string> | undefined;
  // Once per partition and kind, and no closure in the loop (it would cost every record a context).
  const warn = (
    kind: EventWarning['kind'],
    batch: PartitionBatch,
    path: string,
    previous: number,
    offset: number,
  ) => {
    warned ??= new Set();
    if (warned.has(`${kind} ${batch.id}`)) return;
    warned.add(`${kind} ${batch.id}`);
    warnings.push({
      kind,
      partition: batch.id,
      path,
      message: offsetWarning(kind, batch.id, previous, offset),
    });
  };
  let recordCount = 0;
  let oldestTimestamp = Number.NaN;
  for (const mapKey of Object.keys(records)) {
    const list: unknown = (records as Record<string, unknown>)[mapKey];
    const where = `records[${JSON.stringify(mapKey)}]`;
    if (!Array.isArray(list)) {
      fail(where, 'is not an array');
      continue;
    }
    let current: PartitionBatch | undefined;
    let currentTopic = '';
    let currentPartition = -1;
    // Lambda puts one partition's records under its key: those are taken as one run (a copy of the
    // list, the offsets written in place) instead of pushed one by one, which would cost the whole
    // parse as much again. A run ends where the partition changes or a record is left out.
    const listOffsets: number[] = new Array(list.length);
    let runStart = 0;
    let runEnd = 0;
    let previous = -1;
    for (let i = 0; i < list.length; i++) {
      const raw: unknown = list[i];
      // Paths are built only for a problem: a string per record would cost the hot path.
      if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
        fail(`${where}[${i}]`, 'is not an object');
        continue;
      }
      const {
        topic,
        partition: rawPartition,
        offset: rawOffset,
      } = raw as {
        topic?: unknown;
        partition?: unknown;
        offset?: unknown;
      };
      const partition = readPosition(rawPartition);
      const offset = readPosition(rawOffset);
      if (typeof topic !== 'string' || topic === '' || partition === undefined || offset === undefined) {
        if (typeof topic !== 'string' || topic === '')
          fail(`${where}[${i}].topic`, 'is missing or not a non-empty string');
        if (partition === undefined) fail(`${where}[${i}].partition`, positionProblem(rawPartition));
        if (offset === undefined) fail(`${where}[${i}].offset`, positionProblem(rawOffset));
        continue;
      }
      if (current === undefined || topic !== currentTopic || partition !== currentPartition || runEnd !== i) {
        if (current !== undefined) addRun(current, list, listOffsets, runStart, runEnd);
        const id = `${topic}-${partition}`;
        current = byId.get(id);
        if (current === undefined) {
          current = { id, topic, partition, records: [], offsets: [] };
          byId.set(id, current);
          partitions.push(current);
        }
        currentTopic = topic;
        currentPartition = partition;
        runStart = i;
        const { offsets } = current;
        previous = offsets.length > 0 ? offsets[offsets.length - 1]! : -1;
      }
      if (previous > offset) {
        unsorted.add(current);
        warn('offsetOrder', current, `${where}[${i}].offset`, previous, offset);
      } else if (previous === offset)
        warn('repeatedOffset', current, `${where}[${i}].offset`, previous, offset);
      previous = offset;
      listOffsets[i] = offset;
      runEnd = i + 1;
      recordCount++;
      const timestamp = readTimestamp((raw as { timestamp?: unknown }).timestamp);
      if (timestamp < oldestTimestamp || (Number.isNaN(oldestTimestamp) && !Number.isNaN(timestamp)))
        oldestTimestamp = timestamp;
    }
    if (current !== undefined) addRun(current, list, listOffsets, runStart, runEnd);
  }
  // Lambda sends each partition in offset order; a hand-written event may not. The sort is stable:
  // records with the same offset keep their order in the event.
  for (const batch of unsorted) {
    const order = batch.offsets.map((_, i) => i).sort((a, b) => batch.offsets[a]! - batch.offsets[b]!);
    batch.records = order.map((i) => batch.records[i]!);
    batch.offsets = order.map((i) => batch.offsets[i]!);
    // A repeat may only show once the partition is in order ([15, 16, 15]).
    const i = batch.offsets.findIndex((offset, k) => k > 0 && offset === batch.offsets[k - 1]);
    if (i > 0) warn('repeatedOffset', batch, 'records', batch.offsets[i]!, batch.offsets[i]!);
  }
  return { partitions, recordCount, oldestTimestamp, warnings };
}

// What a parser middleware before kafkaBatch leaves in place of the event, named without quoting it.
const USE_VALUE_OPTION = 'remove it and give kafkaBatch your schema as its `value` option instead';
const PARSER_HINT = `most likely a parser middleware placed before kafkaBatch (such as Powertools' parser with KafkaMskEventSchema or KafkaSelfManagedEventSchema) replaced the event, its keys and values decoded to text; ${USE_VALUE_OPTION}`;
const ENVELOPE_HINT = `if a parser middleware with an envelope (such as Powertools' KafkaEnvelope) runs before kafkaBatch, it replaced the event with the records' values; ${USE_VALUE_OPTION}`;
const SAFE_PARSE_HINT = `if a parser middleware with safeParse runs before kafkaBatch, it replaced the event with its result; ${USE_VALUE_OPTION}`;

/** Appends the records `start` to `end` (exclusive) of `list` to `batch`: a whole list at once when it is all the batch has. */
function addRun(batch: PartitionBatch, list: unknown[], offsets: number[], start: number, end: number): void {
  if (batch.records.length === 0 && start === 0 && end === list.length) {
    batch.records = list.slice() as KafkaEventRecord[];
    batch.offsets = offsets;
    return;
  }
  for (let i = start; i < end; i++) {
    batch.records.push(list[i] as KafkaEventRecord);
    batch.offsets.push(offsets[i]!);
  }
}

function offsetWarning(kind: EventWarning['kind'], id: string, previous: number, offset: number): string {
  return kind === 'offsetOrder'
    ? `${offset} is below the previous offset of ${id} (${previous}): Lambda sends each partition in offset order; its records run in offset order`
    : `repeats offset ${offset} of ${id}: Lambda never sends this (sample events do); the records run in event order and the offset is reported once`;
}
