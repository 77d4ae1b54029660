import type { KafkaMessage } from 'kafkajs';
import { signedBytes } from '../kafka-event/encode.ts';
import { LAMBDA_LIMITS } from '../kafka-event/limits.ts';
import { jsonNumberValue, PackedEventWriter, type PackedKafkaEvent } from '../kafka-event/packed-event.ts';
import type { KafkaEvent, KafkaEventRecord } from '../kafka-event/types.ts';

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
  /** The record as the event holds it: a fresh object on each access (`JSON.parse(json)`). */
  readonly encoded: KafkaEventRecord;
  /** The record's JSON, as it is spliced into events. */
  readonly json: string;
  /** The UTF-8 size of `json`. */
  readonly bytes: number;
  /**
   * The offset of the record fetched just before this one in its partition, whatever became of it
   * (queued, matched no filter, done before); `undefined` when not known (the first record of a fetch
   * that does not continue the previous one). Records with nothing fetched between them are neighbours:
   * only neighbours may share an on-failure message's offset range (see failure-outbox.ts).
   */
  readonly previousOffset?: number | undefined;
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

/** For each byte value, the length of its signed decimal form (`-1` for 255 is 2). */
const SIGNED_BYTE_LENGTH = Array.from({ length: 256 }, (_, byte) => String((byte << 24) >> 24).length);

/** The length of a header value as Lambda writes it: its bytes, signed, comma-separated. */
function signedBytesLength(bytes: Buffer): number {
  let length = bytes.length > 0 ? bytes.length - 1 : 0;
  for (let i = 0; i < bytes.length; i++) length += SIGNED_BYTE_LENGTH[bytes[i]!]!;
  return length;
}

/** The length of the base64 form of `n` bytes (padded, as Lambda writes it). */
function base64Length(n: number): number {
  return Math.ceil(n / 3) * 4;
}

/** UTF-8 size of a string's JSON form, memoised: topics and header names repeat on every record. */
const jsonSizes = new Map<string, number>();
function jsonSize(text: string): number {
  let size = jsonSizes.get(text);
  if (size === undefined) {
    size = Buffer.byteLength(JSON.stringify(text));
    // Bounded: header names come from the records, and a topic's run must not grow without limit.
    if (jsonSizes.size >= 10_000) jsonSizes.clear();
    jsonSizes.set(text, size);
  }
  return size;
}

/** The size of the fixed parts of a record's JSON: `{"topic":…,"partition":…,"value":…,"headers":[…]}`. */
const RECORD_FIXED_BYTES =
  '{"topic":,"partition":,"offset":,"timestamp":,"timestampType":"","value":,"headers":[]}'.length;

type HeaderValue = Buffer | null;

/**
 * A class rather than an object literal with a getter: this is created for every record, and a literal
 * with an accessor is an order of magnitude slower to build. It keeps the message's fields and the
 * exact size of the record's JSON, computed without writing it: the JSON (for an event sent as text)
 * and the object (for a handler in this process) are each written only when an invocation needs them.
 */
class FetchedRecord implements PendingRecord {
  readonly partition: number;
  readonly offset: number;
  readonly timestamp: number;
  readonly bytes: number;
  readonly previousOffset: number | undefined;
  readonly #topic: string;
  readonly #timestampType: string;
  /** `undefined` when the message has no key field. */
  readonly #key: Buffer | null | undefined;
  /** `undefined` for a tombstone delivered without a value field (`tombstoneValue: 'absent'`). */
  readonly #value: Buffer | null | undefined;
  readonly #headers: readonly (readonly [name: string, value: HeaderValue])[];
  #json: string | undefined;

  constructor(
    topic: string,
    partition: number,
    offset: number,
    timestamp: number,
    timestampType: string,
    key: Buffer | null | undefined,
    value: Buffer | null | undefined,
    headers: readonly (readonly [string, HeaderValue])[],
    previousOffset: number | undefined,
  ) {
    this.#topic = topic;
    this.previousOffset = previousOffset;
    this.partition = partition;
    this.offset = offset;
    this.timestamp = timestamp;
    this.#timestampType = timestampType;
    this.#key = key;
    this.#value = value;
    this.#headers = headers;
    let bytes =
      RECORD_FIXED_BYTES +
      jsonSize(topic) +
      jsonNumber(partition).length +
      jsonNumber(offset).length +
      jsonNumber(timestamp).length +
      timestampType.length +
      (value === undefined ? -',"value":'.length : value === null ? 4 : base64Length(value.length) + 2);
    if (key !== undefined) bytes += ',"key":'.length + (key === null ? 4 : base64Length(key.length) + 2);
    for (let i = 0; i < headers.length; i++) {
      const [name, data] = headers[i]!;
      // `{name:[bytes]}`, and a comma before every header but the first.
      bytes += (i === 0 ? 0 : 1) + 5 + jsonSize(name) + (data === null ? 0 : signedBytesLength(data));
    }
    this.bytes = bytes;
  }

  /** The record's JSON as Lambda writes it in an event (`JSON.stringify(encoded)`, byte for byte). */
  get json(): string {
    if (this.#json !== undefined) return this.#json;
    const key = this.#key;
    const value = this.#value;
    let json = `{"topic":${JSON.stringify(this.#topic)},"partition":${jsonNumber(this.partition)},"offset":${jsonNumber(this.offset)},"timestamp":${jsonNumber(this.timestamp)},"timestampType":"${this.#timestampType}"`;
    if (key !== undefined) json += `,"key":${key === null ? 'null' : `"${key.toString('base64')}"`}`;
    if (value !== undefined) json += `,"value":${value === null ? 'null' : `"${value.toString('base64')}"`}`;
    json += ',"headers":[';
    const headers = this.#headers;
    for (let i = 0; i < headers.length; i++) {
      const [name, data] = headers[i]!;
      json += `${i === 0 ? '' : ','}{${JSON.stringify(name)}:[${data === null ? '' : signedBytes(data).join(',')}]}`;
    }
    this.#json = `${json}]}`;
    return this.#json;
  }

  /** A fresh object equal to `JSON.parse(json)`, built without writing or parsing the JSON. */
  get encoded(): KafkaEventRecord {
    const record: KafkaEventRecord = {
      topic: this.#topic,
      partition: jsonNumberValue(this.partition) as number,
      offset: jsonNumberValue(this.offset) as number,
      timestamp: jsonNumberValue(this.timestamp) as number,
      timestampType: this.#timestampType as KafkaEventRecord['timestampType'],
    };
    const key = this.#key;
    if (key !== undefined) record.key = key === null ? null : key.toString('base64');
    const value = this.#value;
    if (value !== undefined) record.value = value === null ? null : value.toString('base64');
    const headers = this.#headers;
    const copies = new Array<Record<string, number[]>>(headers.length);
    for (let i = 0; i < headers.length; i++) {
      const [name, data] = headers[i]!;
      // A computed key defines an own property, as JSON.parse does, even for "__proto__".
      copies[i] = { [name]: data === null ? [] : signedBytes(data) };
    }
    record.headers = copies;
    return record;
  }

  /** Adds the record to a batch packed for a sandbox environment (lib/kafka-event/packed-event.ts). */
  packInto(writer: PackedEventWriter): void {
    writer.record(
      this.offset,
      this.timestamp,
      this.#timestampType === 'LOG_APPEND_TIME',
      this.#key,
      this.#value,
      this.#headers,
    );
  }
}

/**
 * How a tombstone (a record with a null value) carries its value in the event: `"value": null` (the
 * default), or no `value` field at all. AWS documents neither; both have been seen in Lambda events
 * (Powertools for AWS Lambda (TypeScript) issues 4988 and 5016), so handlers should accept both.
 *
 * @example
 * ```ts
 * const tombstoneValue: TombstoneValue = 'absent'; // { "topic": …, "key": "…", "headers": [] }
 * ```
 */
export type TombstoneValue = 'null' | 'absent';

/**
 * Wraps a kafkajs message as a {@link PendingRecord}. Only its size is computed now (exactly the
 * UTF-8 length of `JSON.stringify(encodeEventRecord(…))`, without writing it: this is the emulator's
 * hottest per-record path); the JSON or the event object is written when an invocation needs it.
 * `previousOffset` is the offset of the record fetched just before it in the partition, when known.
 *
 * @example
 * ```ts
 * const pending = toPendingRecord('orders', batch.partition, message, 'null', previous);
 * ```
 */
export function toPendingRecord(
  topic: string,
  partition: number,
  message: KafkaMessage,
  tombstoneValue: TombstoneValue = 'null',
  previousOffset?: number,
): PendingRecord {
  const context = (message as { batchContext?: { timestampType?: number } }).batchContext;
  const headers: (readonly [string, HeaderValue])[] = [];
  const fields = message.headers;
  if (fields !== undefined) {
    for (const name of Object.keys(fields)) {
      const value = fields[name];
      // kafkajs groups repeated header names into an array at the first occurrence, as it decodes the
      // record (protocol/recordBatch/record/v0/decoder.js): the wire order of interleaved names (a, b, a)
      // is lost before the message reaches the emulator, which delivers them grouped (a, a, b). Values
      // of one name keep their order.
      if (Array.isArray(value)) for (const one of value) headers.push([name, headerBytes(one)]);
      else headers.push([name, headerBytes(value)]);
    }
  }
  return new FetchedRecord(
    topic,
    partition,
    Number(message.offset),
    Number(message.timestamp),
    context?.timestampType === 1 ? 'LOG_APPEND_TIME' : 'CREATE_TIME',
    message.key,
    message.value ?? (tombstoneValue === 'absent' ? undefined : null),
    headers,
    previousOffset,
  );
}

function headerBytes(value: Buffer | string | undefined | null): HeaderValue {
  if (value === undefined || value === null) return null;
  return typeof value === 'string' ? Buffer.from(value) : value;
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

/**
 * One invocation's event, in the form its invoker takes it: JSON text for the Lambda API (and for a
 * sandbox when the batch cannot be packed), the batch packed for a sandbox environment, or, for a
 * handler in this process, a fresh object equal to `JSON.parse(json())` built without the text (what
 * Lambda's runtime hands a handler, without serialising and parsing every record again).
 *
 * @example
 * ```ts
 * const event = batchEvent(header, 'orders', parts);
 * await handler(event.parse(), context);
 * ```
 */
export interface InvocationEvent {
  json(): string;
  parse(): KafkaEvent;
  /**
   * The batch packed for a sandbox environment (built anew on each call: its buffers are transferred),
   * or `undefined` when the event only exists as JSON or holds records other than fetched ones.
   */
  packed(): PackedKafkaEvent | undefined;
}

/**
 * The {@link InvocationEvent} of a batch: {@link serializeEvent} for its text, its records' `encoded`
 * objects for the parsed form.
 *
 * @example
 * ```ts
 * const payload = batchEvent(header, 'orders', parts).json();
 * ```
 */
export function batchEvent(header: EventHeader, topic: string, parts: readonly BatchPart[]): InvocationEvent {
  let text: string | undefined;
  return {
    json: () => {
      text ??= serializeEvent(header, topic, parts);
      return text;
    },
    parse: () => {
      // Built in the order serializeEvent writes, with what JSON.stringify would leave out left out.
      const event: Record<string, unknown> = {};
      for (const [name, value] of Object.entries(header)) if (value !== undefined) event[name] = value;
      const records: Record<string, KafkaEventRecord[]> = {};
      for (const part of parts) {
        const list = new Array<KafkaEventRecord>(part.records.length);
        for (let i = 0; i < list.length; i++) list[i] = part.records[i]!.encoded;
        records[`${topic}-${part.partition}`] = list;
      }
      event.records = records;
      return event as unknown as KafkaEvent;
    },
    packed: () => {
      const writer = new PackedEventWriter({ ...header }, topic);
      for (const part of parts) {
        writer.part(part.partition, part.records.length);
        for (const record of part.records) {
          // Records resolved through a schema registry exist as JSON only.
          if (!(record instanceof FetchedRecord)) return undefined;
          record.packInto(writer);
        }
      }
      return writer.finish();
    },
  };
}

/**
 * An {@link InvocationEvent} given as JSON text (a sample event, a test's payload).
 *
 * @example
 * ```ts
 * await invoker.invoke(jsonEvent('{"eventSource":"aws:kafka","records":{}}'), newRequestId());
 * ```
 */
export function jsonEvent(text: string): InvocationEvent {
  return { json: () => text, parse: () => JSON.parse(text) as KafkaEvent, packed: () => undefined };
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
