import type { KafkaMessage } from 'kafkajs';
import { LAMBDA_LIMITS } from '../kafka-event/limits.ts';
import type { KafkaEventRecord } from '../kafka-event/types.ts';

/**
 * A fetched record, already encoded as Lambda puts it in an event.
 *
 * @example
 * ```ts
 * const record: PendingRecord = toPendingRecord('orders', 0, message);
 * ```
 */
export interface PendingRecord {
  readonly partition: number;
  readonly offset: number;
  /** Epoch milliseconds (for the record-age check). */
  readonly timestamp: number;
  /** The record as the event holds it (decoded from `json` on each access: only failure paths need it). */
  readonly encoded: KafkaEventRecord;
  /** The record's JSON, as it is spliced into events. */
  readonly json: string;
  readonly bytes: number;
}

/**
 * One partition's contiguous run of records in a batch.
 *
 * @example
 * ```ts
 * const part: BatchPart = { partition: 0, records, end: records.at(-1)!.offset + 1 };
 * ```
 */
export interface BatchPart {
  partition: number;
  records: PendingRecord[];
  /** The offset to commit once this part is done (one past its last record, or past the original run). */
  end: number;
}

/** A number as JSON writes it. */
function jsonNumber(n: number): string {
  return Number.isFinite(n) ? String(n) : 'null';
}

/** Bytes as Lambda writes header values (signed, −128..127), comma-separated as in JSON. */
function signedBytes(data: Buffer | string): string {
  const bytes = typeof data === 'string' ? Buffer.from(data) : data;
  let out = '';
  for (let i = 0; i < bytes.length; i++) out += `${i === 0 ? '' : ','}${(bytes[i]! << 24) >> 24}`;
  return out;
}

/** UTF-8 bytes beyond one per UTF-16 unit: what a string adds to `json.length` in bytes. */
function extraUtf8Bytes(text: string): number {
  return Buffer.byteLength(text) - text.length;
}

/** A class rather than an object literal with a getter: this is created for every record, and a literal with an accessor is an order of magnitude slower to build. */
class FetchedRecord implements PendingRecord {
  readonly partition: number;
  readonly offset: number;
  readonly timestamp: number;
  readonly json: string;
  readonly bytes: number;

  constructor(partition: number, offset: number, timestamp: number, json: string, bytes: number) {
    this.partition = partition;
    this.offset = offset;
    this.timestamp = timestamp;
    this.json = json;
    this.bytes = bytes;
  }

  get encoded(): KafkaEventRecord {
    return JSON.parse(this.json) as KafkaEventRecord;
  }
}

/**
 * Encodes a kafkajs message into a {@link PendingRecord}: the JSON `JSON.stringify(encodeEventRecord(…))`
 * gives, byte for byte, written directly (base64 and numbers need no escaping, so only the topic and
 * header names go through `JSON.stringify`; this is the emulator's hottest per-record path).
 *
 * @example
 * ```ts
 * const pending = toPendingRecord('orders', batch.partition, message);
 * ```
 */
export function toPendingRecord(topic: string, partition: number, message: KafkaMessage): PendingRecord {
  const context = (message as { batchContext?: { timestampType?: number } }).batchContext;
  const offset = Number(message.offset);
  const timestamp = Number(message.timestamp);
  const topicJson = JSON.stringify(topic);
  let extra = extraUtf8Bytes(topicJson);
  let json = `{"topic":${topicJson},"partition":${jsonNumber(partition)},"offset":${jsonNumber(offset)},"timestamp":${jsonNumber(timestamp)},"timestampType":"${context?.timestampType === 1 ? 'LOG_APPEND_TIME' : 'CREATE_TIME'}"`;
  if (message.key !== undefined)
    json += `,"key":${message.key === null ? 'null' : `"${message.key.toString('base64')}"`}`;
  json += `,"value":${message.value === null ? 'null' : `"${message.value.toString('base64')}"`},"headers":[`;
  let first = true;
  const headers = message.headers ?? {};
  for (const name of Object.keys(headers)) {
    const value = headers[name];
    const nameJson = JSON.stringify(name);
    // kafkajs groups repeated header names into an array at the first occurrence.
    for (const one of Array.isArray(value) ? value : [value]) {
      json += `${first ? '' : ','}{${nameJson}:[${one === undefined || one === null ? '' : signedBytes(one)}]}`;
      extra += extraUtf8Bytes(nameJson);
      first = false;
    }
  }
  json += ']}';
  return new FetchedRecord(partition, offset, timestamp, json, json.length + extra);
}

/**
 * The fixed top-level fields of every event one trigger emulator builds.
 *
 * @example
 * ```ts
 * const header: EventHeader = { eventSource: 'SelfManagedKafka', bootstrapServers: '127.0.0.1:9092' };
 * ```
 */
export interface EventHeader {
  eventSource: 'aws:kafka' | 'SelfManagedKafka';
  eventSourceArn?: string;
  bootstrapServers: string;
}

/**
 * Serialises a batch into the event Lambda sends: the fixed fields, then `records` keyed
 * `<topic>-<partition>`, each value the partition's records in offset order. Built from each
 * record's cached JSON, so the size is exact without serialising twice.
 *
 * @example
 * ```ts
 * const payload = serializeEvent(header, 'orders', [{ partition: 0, records, end: 8 }]);
 * ```
 */
export function serializeEvent(header: EventHeader, topic: string, parts: readonly BatchPart[]): string {
  let out = `${JSON.stringify(header).slice(0, -1)},"records":{`;
  parts.forEach((part, i) => {
    out += `${i === 0 ? '' : ','}${JSON.stringify(`${topic}-${part.partition}`)}:[`;
    for (let r = 0; r < part.records.length; r++) out += (r === 0 ? '' : ',') + part.records[r]!.json;
    out += ']';
  });
  return `${out}}}`;
}

/** Serialised size of the fixed part of an event plus one partition's key, brackets and separator. */
function partitionOverhead(topic: string, partition: number): number {
  return Buffer.byteLength(JSON.stringify(`${topic}-${partition}`)) + 4;
}

/**
 * Serialised size of an event's fixed part (header and the `records` object's braces).
 *
 * @example
 * ```ts
 * takeBatch(queues, 'orders', 100, eventOverhead(header));
 * ```
 */
export function eventOverhead(header: EventHeader): number {
  return Buffer.byteLength(JSON.stringify(header)) + 13;
}

/**
 * A partition's queue of fetched records, ready to be batched.
 *
 * @example
 * ```ts
 * const queue: PartitionQueue = { partition: 0, records: [] };
 * ```
 */
export interface PartitionQueue {
  partition: number;
  records: PendingRecord[];
}

/**
 * What {@link takeBatch} took: the batch, and a record too large for any event if there was one.
 *
 * @example
 * ```ts
 * const { parts, oversized } = takeBatch(queues, 'orders', 100, overhead);
 * ```
 */
export interface TakenBatch {
  parts: BatchPart[];
  /** The head record of a queue that cannot fit in an event on its own; it is not taken. */
  oversized?: PendingRecord;
}

/**
 * Takes the next batch as Lambda builds one: a contiguous run from the head of each queue in turn,
 * until `batchSize` records or the payload limit is reached. Takes records out of the queues.
 *
 * @example
 * ```ts
 * const { parts } = takeBatch(queues, 'orders', 100, eventOverhead(header));
 * ```
 */
export function takeBatch(
  queues: readonly PartitionQueue[],
  topic: string,
  batchSize: number,
  overhead: number,
  maxBytes: number = LAMBDA_LIMITS.payloadBytes,
): TakenBatch {
  const parts: BatchPart[] = [];
  let count = 0;
  let bytes = overhead;
  for (const queue of queues) {
    if (count >= batchSize) break;
    const head = queue.records[0];
    if (!head) continue;
    const partOverhead = partitionOverhead(topic, queue.partition);
    if (bytes + partOverhead + head.bytes > maxBytes) {
      if (parts.length === 0) return { parts, oversized: head };
      break;
    }
    bytes += partOverhead;
    let taken = 0;
    let full = false;
    while (taken < queue.records.length && count < batchSize) {
      const size = queue.records[taken]!.bytes + (taken === 0 ? 0 : 1);
      if (bytes + size > maxBytes) {
        full = true;
        break;
      }
      bytes += size;
      taken++;
      count++;
    }
    const records = queue.records.splice(0, taken);
    parts.push({ partition: queue.partition, records, end: records[records.length - 1]!.offset + 1 });
    if (full) break;
  }
  return { parts };
}

/**
 * Splits a batch into two halves by record count, keeping each partition's records contiguous and
 * in order (the first half holds the lower offsets of a partition split across both).
 *
 * @example
 * ```ts
 * const [first, second] = bisectBatch(parts);
 * ```
 */
export function bisectBatch(parts: readonly BatchPart[]): [BatchPart[], BatchPart[]] {
  const total = parts.reduce((n, part) => n + part.records.length, 0);
  let remaining = Math.ceil(total / 2);
  const first: BatchPart[] = [];
  const second: BatchPart[] = [];
  for (const part of parts) {
    if (remaining <= 0) {
      second.push(part);
    } else if (part.records.length <= remaining) {
      first.push(part);
      remaining -= part.records.length;
    } else {
      const head = part.records.slice(0, remaining);
      first.push({ partition: part.partition, records: head, end: head[head.length - 1]!.offset + 1 });
      second.push({ partition: part.partition, records: part.records.slice(remaining), end: part.end });
      remaining = 0;
    }
  }
  return [first, second];
}

/**
 * Number of records in a batch.
 *
 * @example
 * ```ts
 * recordCount([{ partition: 0, records, end: 8 }]); // records.length
 * ```
 */
export function recordCount(parts: readonly BatchPart[]): number {
  return parts.reduce((n, part) => n + part.records.length, 0);
}
