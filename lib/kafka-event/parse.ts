import type { KafkaEventRecord } from '../kafka-event/types.ts';
import { KafkaEventError } from './errors.ts';

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
}

const SOURCES = new Set(['aws:kafka', 'SelfManagedKafka', 'aws:SelfManagedKafka']);
const DIGITS = /^\d+$/;

/**
 * Checks that `event` is a Kafka event whose records all say where they are (topic, partition,
 * offset) and groups the records by the partition their own fields name (not the map key). Partition
 * and offset given as digit strings are normalised to numbers. Key, value and headers are not
 * touched: a bad payload is a problem of one record (see `onPoison`), not of the batch.
 *
 * @throws {KafkaEventError} naming the first field that is missing or wrong.
 * @example
 * ```ts
 * const { partitions, recordCount } = parseKafkaEvent(event);
 * ```
 */
export function parseKafkaEvent(event: unknown): ParsedKafkaEvent {
  if (typeof event !== 'object' || event === null || Array.isArray(event))
    throw new KafkaEventError('event', 'is not an object');
  const { eventSource, records } = event as { eventSource?: unknown; records?: unknown };
  if (typeof eventSource !== 'string' || !SOURCES.has(eventSource))
    throw new KafkaEventError(
      'eventSource',
      `is ${describe(eventSource)}, expected "aws:kafka", "SelfManagedKafka" or "aws:SelfManagedKafka"`,
    );
  if (typeof records !== 'object' || records === null || Array.isArray(records))
    throw new KafkaEventError('records', 'is not an object keyed by "<topic>-<partition>"');

  const partitions: PartitionBatch[] = [];
  const byId = new Map<string, PartitionBatch>();
  const unsorted = new Set<PartitionBatch>();
  let recordCount = 0;
  let oldestTimestamp = Number.NaN;
  for (const mapKey of Object.keys(records)) {
    const list: unknown = (records as Record<string, unknown>)[mapKey];
    const where = `records[${JSON.stringify(mapKey)}]`;
    if (!Array.isArray(list)) throw new KafkaEventError(where, 'is not an array');
    let current: PartitionBatch | undefined;
    let currentTopic = '';
    let currentPartition = -1;
    for (let i = 0; i < list.length; i++) {
      const raw: unknown = list[i];
      if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
        throw new KafkaEventError(`${where}[${i}]`, 'is not an object');
      const { topic } = raw as { topic?: unknown };
      if (typeof topic !== 'string' || topic === '')
        throw new KafkaEventError(`${where}[${i}].topic`, 'is missing or not a non-empty string');
      const partition = toPosition((raw as { partition?: unknown }).partition, `${where}[${i}].partition`);
      const offset = toPosition((raw as { offset?: unknown }).offset, `${where}[${i}].offset`);
      if (current === undefined || topic !== currentTopic || partition !== currentPartition) {
        const id = `${topic}-${partition}`;
        current = byId.get(id);
        if (current === undefined) {
          current = { id, topic, partition, records: [], offsets: [] };
          byId.set(id, current);
          partitions.push(current);
        }
        currentTopic = topic;
        currentPartition = partition;
      }
      const { offsets } = current;
      if (offsets.length > 0 && offsets[offsets.length - 1]! > offset) unsorted.add(current);
      offsets.push(offset);
      current.records.push(raw as KafkaEventRecord);
      const timestamp = Number((raw as { timestamp?: unknown }).timestamp);
      if (timestamp < oldestTimestamp || (Number.isNaN(oldestTimestamp) && !Number.isNaN(timestamp)))
        oldestTimestamp = timestamp;
    }
    recordCount += list.length;
  }
  // Lambda sends each partition in offset order; a hand-written event may not.
  for (const batch of unsorted) {
    const order = batch.offsets.map((_, i) => i).sort((a, b) => batch.offsets[a]! - batch.offsets[b]!);
    batch.records = order.map((i) => batch.records[i]!);
    batch.offsets = order.map((i) => batch.offsets[i]!);
  }
  return { partitions, recordCount, oldestTimestamp };
}

function toPosition(value: unknown, field: string): number {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
  if (typeof value === 'string' && DIGITS.test(value)) {
    const number = Number(value);
    if (Number.isSafeInteger(number)) return number;
  }
  throw new KafkaEventError(field, `is ${describe(value)}, expected a non-negative integer`);
}

/** A short, payload-free description of a bad value for an error message. */
function describe(value: unknown): string {
  if (value === undefined) return 'missing';
  if (typeof value === 'string') return value.length > 40 ? 'a long string' : JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  return Array.isArray(value) ? 'an array' : `a ${typeof value}`;
}
