import { encodeEventRecord } from '../kafka-event/encode.ts';
import { describeValue } from '../kafka-event/rules.ts';
import type {
  KafkaEventRecord,
  KafkaSchemaMetadata,
  MskEventSource,
  MskKafkaEvent,
  SelfManagedEventSource,
  SelfManagedKafkaEvent,
} from '../kafka-event/types.ts';
import { partitionKey } from '../kafka-event/types.ts';
import { defineOptions, unchecked } from '../options/options.ts';
import { KafkaTestingError } from './errors.ts';
import { partitionForKey } from './partitioner.ts';

/**
 * A record's key or value: a string (UTF-8); bytes (an `ArrayBuffer`, or any `ArrayBufferView`:
 * `Uint8Array`, `Buffer`, `DataView`…); or a plain object or array, a finite number or a boolean,
 * JSON-encoded. `null` is a null key or a tombstone value. Other objects (a `Map`, a `Set`, a `Date`,
 * a `Blob`, a `Promise`, a class instance) and functions are refused: JSON would encode most as `{}`.
 *
 * @example
 * ```ts
 * const values: RecordPayload[] = ['text', Buffer.from([0xde, 0xad]), { orderId: 'o-1' }, 42, null];
 * ```
 */
export type RecordPayload = string | ArrayBufferView | ArrayBuffer | number | boolean | object | null;

/**
 * A header value: a string (UTF-8) or bytes (an `ArrayBuffer`, or any `ArrayBufferView`: `Uint8Array`,
 * `Buffer`, `DataView`…).
 *
 * @example
 * ```ts
 * const traceparent: HeaderValue = '00-4bf92f3577b34da6-00f067aa0ba902b7-01';
 * ```
 */
export type HeaderValue = string | ArrayBufferView | ArrayBuffer;

/**
 * Headers as `[name, value]` pairs (order kept, names may repeat) or as a record (an array value
 * gives repeated headers).
 *
 * @example
 * ```ts
 * const pairs: HeadersInput = [['retry', '1'], ['retry', '2']];
 * const record: HeadersInput = { retry: ['1', '2'], 'trace-bin': Uint8Array.of(0xde, 0xad) };
 * ```
 */
export type HeadersInput =
  | ReadonlyArray<readonly [string, HeaderValue]>
  | Readonly<Record<string, HeaderValue | readonly HeaderValue[]>>;

/**
 * One record of {@link kafkaEvent}; everything but `value` has a default (`value` must be given, even
 * as `undefined`).
 *
 * @example
 * ```ts
 * const record: KafkaRecordInput = { key: 'customer-7', value: { orderId: 'o-1' }, partition: 2, offset: 1041 };
 * ```
 */
export interface KafkaRecordInput {
  /**
   * `null` is a tombstone (`"value": null`); `undefined`, given explicitly, a tombstone whose event has
   * no `value` field (Lambda sends both shapes). Leaving the property out is refused: a forgotten value
   * must not pass for a tombstone.
   */
  value: RecordPayload | undefined;
  /** Left out: the event has no `key` field; `null`: `"key": null` (Lambda sends both). */
  key?: RecordPayload | undefined;
  headers?: HeadersInput | undefined;
  /** Default: by key as Kafka's default partitioner would, round-robin for records without a key. */
  partition?: number | undefined;
  /** Default: one after the previous record of the partition (the first gets `startOffset`). */
  offset?: number | undefined;
  /** Default: the event's `timestamp` plus the record's index in milliseconds. */
  timestamp?: number | Date | undefined;
  timestampType?: 'CREATE_TIME' | 'LOG_APPEND_TIME' | undefined;
  keySchemaMetadata?: KafkaSchemaMetadata | undefined;
  valueSchemaMetadata?: KafkaSchemaMetadata | undefined;
}

/**
 * Options of {@link kafkaEvent}.
 *
 * @example
 * ```ts
 * const options: KafkaEventOptions = { topic: 'orders', partitions: 3, eventSource: 'SelfManagedKafka', records: [] };
 * ```
 */
export interface KafkaEventOptions {
  topic: string;
  records: readonly KafkaRecordInput[];
  /** The topic's partition count, used to place records without an explicit `partition` (default 1). */
  partitions?: number | undefined;
  /** Offset of each partition's first record when the record does not set one (default 0). */
  startOffset?: number | undefined;
  /** Timestamp of the first record (default: now). */
  timestamp?: number | Date | undefined;
  /** `'aws:kafka'` (MSK, the default), `'SelfManagedKafka'` or `'aws:SelfManagedKafka'`. */
  eventSource?: MskEventSource | SelfManagedEventSource | undefined;
  /** MSK only (default: a sample cluster ARN). */
  eventSourceArn?: string | undefined;
  bootstrapServers?: string | undefined;
}

/**
 * The input of {@link kafkaEvent} cannot make a valid event; the message names the record and field.
 *
 * @example
 * ```ts
 * kafkaEvent({ topic: 'orders', records: [{ value: 'a', offset: 5 }, { value: 'b', offset: 4 }] });
 * // InvalidEventInputError: records[1].offset 4 must be above the previous offset of orders-0 (5)…
 * ```
 */
export class InvalidEventInputError extends KafkaTestingError {
  /** Always `'InvalidEventInputError'`. */
  override readonly name: string = 'InvalidEventInputError';
}

// Only the names are checked here (each value has its own rule below): a misspelled option, such as
// `selfManaged: true`, would otherwise build an MSK event without a word.
const OPTIONS = defineOptions<KafkaEventOptions>({
  topic: unchecked,
  records: unchecked,
  partitions: unchecked,
  startOffset: unchecked,
  timestamp: unchecked,
  eventSource: unchecked,
  eventSourceArn: unchecked,
  bootstrapServers: unchecked,
});

// A record's fields, by name only, as the options': a misspelt `partiton` or `hedaers` would otherwise
// build a record on partition 0 without its headers.
const RECORD_FIELDS = defineOptions<KafkaRecordInput>({
  value: unchecked,
  key: unchecked,
  headers: unchecked,
  partition: unchecked,
  offset: unchecked,
  timestamp: unchecked,
  timestampType: unchecked,
  keySchemaMetadata: unchecked,
  valueSchemaMetadata: unchecked,
});

const TIMESTAMP_TYPES: ReadonlyArray<KafkaRecordInput['timestampType']> = ['CREATE_TIME', 'LOG_APPEND_TIME'];
const EVENT_SOURCES: ReadonlyArray<KafkaEventOptions['eventSource']> = [
  'aws:kafka',
  'SelfManagedKafka',
  'aws:SelfManagedKafka',
];

/** Refuses a record that is not an object or has a field the builder does not know, naming the one meant. */
function checkRecordFields(at: string, input: unknown): void {
  RECORD_FIELDS.check(input, (problem) => {
    if (problem.key === undefined) {
      return new InvalidEventInputError(`${at} must be an object with a value, got ${describeValue(input)}`);
    }
    const hint =
      problem.suggestion === undefined
        ? ` (fields: ${RECORD_FIELDS.keys.join(', ')})`
        : ` — did you mean "${problem.suggestion}"?`;
    return new InvalidEventInputError(`${at} has no field "${problem.key}"${hint}`);
  });
}

const DEFAULT_CLUSTER_ARN =
  'arn:aws:kafka:us-east-1:123456789012:cluster/local/11111111-2222-3333-4444-555555555555-1';
const DEFAULT_MSK_SERVERS =
  'b-1.local.kafka.us-east-1.amazonaws.com:9098,b-2.local.kafka.us-east-1.amazonaws.com:9098';
const DEFAULT_SELF_MANAGED_SERVERS = 'kafka-1.example.com:9092,kafka-2.example.com:9092';
const TOPIC_NAME = /^[a-zA-Z0-9._-]{1,249}$/;

/**
 * Builds a Kafka event exactly as Lambda's Kafka trigger sends it (base64 keys and values, signed-byte
 * headers, records grouped under `"<topic>-<partition>"` in offset order), from plain values.
 *
 * @example
 * ```ts
 * const event = kafkaEvent({
 *   topic: 'order-events',
 *   partitions: 3,
 *   records: [
 *     { key: 'customer-1', value: { orderId: 'o-1', total: 20 } },
 *     { key: 'customer-2', value: { orderId: 'o-2', total: 35 }, headers: { traceparent: '00-ab-cd-01' } },
 *     { key: null, value: null }, // a tombstone with a null key
 *   ],
 * });
 * ```
 * @throws InvalidEventInputError for an invalid topic, partition, offset or payload.
 */
export function kafkaEvent(
  options: KafkaEventOptions & { eventSource?: MskEventSource | undefined },
): MskKafkaEvent;
/**
 * Builds a self-managed Kafka trigger's event (`eventSource` `'SelfManagedKafka'` or
 * `'aws:SelfManagedKafka'`) exactly as Lambda sends it: as an MSK event, but without `eventSourceArn`.
 *
 * @example
 * ```ts
 * const event = kafkaEvent({ topic: 'orders', eventSource: 'SelfManagedKafka', records: [{ value: 'a' }] });
 * ```
 * @throws InvalidEventInputError for an invalid topic, partition, offset or payload, or an `eventSourceArn`.
 */
export function kafkaEvent(
  options: KafkaEventOptions & { eventSource: SelfManagedEventSource },
): SelfManagedKafkaEvent;
/**
 * Builds an MSK or a self-managed Kafka event, as `eventSource` says, when which one is known only at
 * run time (`eventSource` of type `MskEventSource | SelfManagedEventSource`).
 *
 * @example
 * ```ts
 * // MskKafkaEvent | SelfManagedKafkaEvent:
 * const build = (eventSource: MskEventSource | SelfManagedEventSource) =>
 *   kafkaEvent({ topic: 'orders', eventSource, records: [{ value: 'a' }] });
 * ```
 * @throws InvalidEventInputError for an invalid topic, partition, offset or payload, or an `eventSourceArn`
 *   with a self-managed `eventSource`.
 */
export function kafkaEvent(options: KafkaEventOptions): MskKafkaEvent | SelfManagedKafkaEvent;
export function kafkaEvent(options: KafkaEventOptions): MskKafkaEvent | SelfManagedKafkaEvent {
  OPTIONS.check(options, (problem) => new InvalidEventInputError(problem.message));
  const { topic } = options;
  if (!TOPIC_NAME.test(topic) || topic === '.' || topic === '..') {
    throw new InvalidEventInputError(
      `topic ${JSON.stringify(topic)} is not a valid Kafka topic name (1–249 of a-z A-Z 0-9 . _ -)`,
    );
  }
  const partitionCount = options.partitions ?? 1;
  requireInteger('partitions', partitionCount, 1);
  const startOffset = options.startOffset ?? 0;
  requireInteger('startOffset', startOffset, 0);
  const baseTimestamp = toMillis('timestamp', options.timestamp ?? Date.now());
  if (!Array.isArray(options.records)) {
    throw new InvalidEventInputError(
      `records must be an array of records, got ${describeValue(options.records)}`,
    );
  }
  if (options.eventSource !== undefined && !EVENT_SOURCES.includes(options.eventSource)) {
    throw new InvalidEventInputError(
      `eventSource must be 'aws:kafka', 'SelfManagedKafka' or 'aws:SelfManagedKafka', not ${describeValue(options.eventSource)}`,
    );
  }

  const byPartition = new Map<number, KafkaEventRecord[]>();
  const nextOffset = new Map<number, number>();
  let roundRobin = 0;
  options.records.forEach((input, index) => {
    const at = `records[${index}]`;
    checkRecordFields(at, input);
    if (input.timestampType !== undefined && !TIMESTAMP_TYPES.includes(input.timestampType)) {
      throw new InvalidEventInputError(
        `${at}.timestampType must be 'CREATE_TIME' or 'LOG_APPEND_TIME', not ${describeValue(input.timestampType)}`,
      );
    }
    if (!('value' in input)) {
      throw new InvalidEventInputError(
        `${at} has no value: give null for a tombstone, or value: undefined for a tombstone without the field`,
      );
    }
    const key = input.key === undefined ? undefined : toBytes(`${at}.key`, input.key);
    const partition =
      input.partition ?? (key ? partitionForKey(key, partitionCount) : roundRobin++ % partitionCount);
    requireInteger(`${at}.partition`, partition, 0);
    if (options.partitions !== undefined && partition >= partitionCount) {
      throw new InvalidEventInputError(
        `${at}.partition is ${partition} but the topic has ${partitionCount} partitions`,
      );
    }
    const expected = nextOffset.get(partition) ?? startOffset;
    const offset = input.offset ?? expected;
    requireInteger(`${at}.offset`, offset, 0);
    if (offset < expected) {
      throw new InvalidEventInputError(
        `${at}.offset ${offset} must be above the previous offset of ${partitionKey(topic, partition)} (${expected - 1}); records of a partition are in offset order`,
      );
    }
    if (offset === Number.MAX_SAFE_INTEGER) {
      throw new InvalidEventInputError(`${at}.offset ${offset} leaves no room for later records`);
    }
    nextOffset.set(partition, offset + 1);
    const record = encodeEventRecord({
      topic,
      partition,
      offset,
      timestamp:
        input.timestamp === undefined ? baseTimestamp + index : toMillis(`${at}.timestamp`, input.timestamp),
      timestampType: input.timestampType ?? 'CREATE_TIME',
      key,
      value: input.value === undefined ? null : toBytes(`${at}.value`, input.value),
      headers: headerPairs(`${at}.headers`, input.headers),
      keySchemaMetadata: input.keySchemaMetadata,
      valueSchemaMetadata: input.valueSchemaMetadata,
    });
    // The encoder always writes the field; an explicit undefined asks for the event without it.
    if (input.value === undefined) delete record.value;
    const partitionRecords = byPartition.get(partition);
    if (partitionRecords) partitionRecords.push(record);
    else byPartition.set(partition, [record]);
  });

  const records: Record<string, KafkaEventRecord[]> = {};
  for (const partition of [...byPartition.keys()].sort((a, b) => a - b)) {
    records[partitionKey(topic, partition)] = byPartition.get(partition)!;
  }
  const eventSource = options.eventSource ?? 'aws:kafka';
  if (eventSource === 'aws:kafka') {
    return {
      eventSource,
      eventSourceArn: options.eventSourceArn ?? DEFAULT_CLUSTER_ARN,
      bootstrapServers: options.bootstrapServers ?? DEFAULT_MSK_SERVERS,
      records,
    };
  }
  if (options.eventSourceArn !== undefined) {
    throw new InvalidEventInputError('eventSourceArn belongs to MSK events; self-managed events have none');
  }
  return { eventSource, bootstrapServers: options.bootstrapServers ?? DEFAULT_SELF_MANAGED_SERVERS, records };
}

function requireInteger(field: string, value: number, min: number): void {
  if (!Number.isSafeInteger(value) || value < min) {
    throw new InvalidEventInputError(`${field} must be an integer ≥ ${min}, got ${describeValue(value)}`);
  }
}

function toMillis(field: string, value: number | Date): number {
  const millis = value instanceof Date ? value.getTime() : value;
  if (!Number.isSafeInteger(millis)) {
    throw new InvalidEventInputError(`${field} must be epoch milliseconds (an integer) or a valid Date`);
  }
  return millis;
}

/**
 * What a payload is, for a message refusing it: `a Map`, `a function`, `a bigint`, `an Order`.
 */
function describe(payload: unknown): string {
  const article = (noun: string) => `${/^(?!uint)[aeiou]/i.test(noun) ? 'an' : 'a'} ${noun}`;
  if (typeof payload !== 'object' || payload === null) return article(typeof payload);
  const name = (payload as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === 'string' && name !== '' ? article(name) : 'an object of no known kind';
}

/** A plain object or array: what JSON encodes to the same text it reads back (not a Map, a Promise, a Date…). */
function isJsonContainer(payload: object): boolean {
  if (Array.isArray(payload)) return true;
  const prototype = Object.getPrototypeOf(payload);
  return prototype === Object.prototype || prototype === null;
}

/**
 * `payload` as bytes: any `ArrayBufferView` (Uint8Array, Buffer, DataView…) or `ArrayBuffer` as the
 * bytes it holds, `undefined` for anything else.
 */
function viewBytes(payload: unknown): Uint8Array | undefined {
  if (ArrayBuffer.isView(payload))
    return new Uint8Array(payload.buffer, payload.byteOffset, payload.byteLength);
  if (payload instanceof ArrayBuffer || payload instanceof SharedArrayBuffer) return new Uint8Array(payload);
  return undefined;
}

function toBytes(field: string, payload: RecordPayload): Uint8Array | null {
  if (payload === null) return null;
  if (typeof payload === 'string') return Buffer.from(payload, 'utf8');
  const bytes = viewBytes(payload);
  if (bytes) return bytes;
  // JSON would write a Map, a Promise or a Blob as "{}" and NaN as "null": a payload the test never meant.
  const jsonable =
    (typeof payload === 'number' && Number.isFinite(payload)) ||
    typeof payload === 'boolean' ||
    (typeof payload === 'object' && isJsonContainer(payload));
  if (!jsonable) {
    throw new InvalidEventInputError(
      `${field} must be a string, bytes (a Uint8Array, Buffer, ArrayBuffer or other ArrayBufferView), a plain object or array, a finite number, a boolean or null; got ${
        typeof payload === 'number' ? payload : describe(payload)
      }`,
    );
  }
  let json: string;
  try {
    json = JSON.stringify(payload);
  } catch (error) {
    throw new InvalidEventInputError(`${field} cannot be JSON-encoded: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return Buffer.from(json, 'utf8');
}

/** A header value as bytes or a string, as the encoder takes it; anything else refused, naming it. */
function headerValue(field: string, value: unknown): Uint8Array | string {
  if (typeof value === 'string') return value;
  const bytes = viewBytes(value);
  if (bytes) return bytes;
  throw new InvalidEventInputError(
    `${field} must be a string or bytes (a Uint8Array, Buffer, ArrayBuffer or other ArrayBufferView); got ${
      value === null ? 'null' : describe(value)
    }`,
  );
}

function headerPairs(
  field: string,
  headers: HeadersInput | undefined,
): Array<readonly [string, Uint8Array | string]> {
  if (headers === undefined) return [];
  if (Array.isArray(headers)) {
    return (headers as readonly unknown[]).map((pair, index) => {
      if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== 'string') {
        throw new InvalidEventInputError(
          `${field}[${index}] must be a [name, value] pair with a string name, got ${describeValue(pair)}`,
        );
      }
      return [pair[0], headerValue(`${field}[${index}][1]`, pair[1])] as const;
    });
  }
  // A string would be read as one header per character, a number as none.
  if (typeof headers !== 'object' || headers === null || viewBytes(headers) !== undefined) {
    throw new InvalidEventInputError(
      `${field} must be [name, value] pairs or an object of names to values, got ${
        typeof headers === 'object' && headers !== null ? describe(headers) : describeValue(headers)
      }`,
    );
  }
  return Object.entries(headers as Readonly<Record<string, HeaderValue | readonly HeaderValue[]>>).flatMap(
    ([name, value]) => {
      const at = `${field}[${JSON.stringify(name)}]`;
      return Array.isArray(value)
        ? value.map((one, index) => [name, headerValue(`${at}[${index}]`, one)] as const)
        : [[name, headerValue(at, value)] as const];
    },
  );
}
