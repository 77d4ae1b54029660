import { decodeBase64, decodeHeaderValue, readTimestamp } from '../kafka-event/rules.ts';
import type { KafkaEventHeader, KafkaEventRecord, KafkaSchemaMetadata } from '../kafka-event/types.ts';
import { jsonSyntaxCause, KafkaRecordDecodeError, KafkaRecordEncodingError } from './errors.ts';

/** Marks a cache slot that has not been filled yet (`undefined` and `null` are real values here). */
const UNSET: unique symbol = Symbol('unset');
type Slot<T> = T | typeof UNSET;

/**
 * @internal Fills a record's key or value data slot with its decoder's or schema's output, before the
 * handler runs (the middleware). Set by the class below: the slots are private, so a spread copy of a
 * record (`{ ...record }`), `Object.assign` or a logger walking its own properties never sees the data.
 */
export let fillRecordData: (
  record: KafkaRecord<unknown, unknown>,
  field: 'key' | 'value',
  data: unknown,
) => void;

/**
 * A header as the middleware hands it over: name and raw bytes, in record order.
 *
 * @example
 * ```ts
 * for (const [name, value] of record.headers) console.log(name, value.toString('hex'));
 * ```
 */
export type KafkaHeader = readonly [name: string, value: Buffer<ArrayBuffer>];

/**
 * One Kafka record, as the record handler receives it. Key, value and headers are decoded from the
 * event lazily, on first access, and cached: a handler that never reads the headers never pays for
 * them. `JSON.stringify(record)` yields only the record's position, never its payload.
 *
 * `data` is the value after the `value` schema (or `json()` without one); `keyData` is the key after
 * the `key` schema (or the key as UTF-8 text without one).
 *
 * @example
 * ```ts
 * async onRecord(record) {
 *   const traceId = record.header('trace-id')?.toString();
 *   await save(record.topic, record.partition, record.offset, record.data, traceId);
 * }
 * ```
 */
export class KafkaRecord<TValue = unknown, TKey = string | null> {
  /** The record's topic. */
  readonly topic: string;
  /** The record's partition. */
  readonly partition: number;
  /** The record's offset in its partition. */
  readonly offset: number;
  /** `CREATE_TIME` or `LOG_APPEND_TIME`. */
  readonly timestampType: string;
  #raw: KafkaEventRecord;
  #timestamp: Date | undefined;
  #key: Slot<Buffer<ArrayBuffer> | null | undefined> = UNSET;
  #value: Slot<Buffer<ArrayBuffer> | null | undefined> = UNSET;
  #json: unknown = UNSET;
  #headers: KafkaHeader[] | undefined;
  /** Output of the value's decoder or schema, set by the middleware before the handler runs. */
  #valueData: unknown = UNSET;
  /** Output of the key's decoder or schema. */
  #keyData: unknown = UNSET;

  static {
    fillRecordData = (record, field, data) => {
      if (field === 'value') record.#valueData = data;
      else record.#keyData = data;
    };
  }

  /** @internal Built by the middleware from a validated event record. */
  constructor(raw: KafkaEventRecord, topic: string, partition: number, offset: number) {
    this.#raw = raw;
    this.topic = topic;
    this.partition = partition;
    this.offset = offset;
    this.timestampType = raw.timestampType;
  }

  /** The record as it came in the event (base64 key and value): what a dead-letter store keeps. */
  get raw(): KafkaEventRecord {
    return this.#raw;
  }

  /** The record's timestamp; an invalid Date if the event had none (or Kafka's `-1`, NO_TIMESTAMP). */
  get timestamp(): Date {
    this.#timestamp ??= new Date(readTimestamp(this.#raw.timestamp));
    return this.#timestamp;
  }

  /** Key bytes; `null` for a null key, `undefined` when the event has no key field; may be empty. */
  get key(): Buffer<ArrayBuffer> | null | undefined {
    if (this.#key === UNSET) this.#key = this.#decode('key', this.#raw.key);
    return this.#key;
  }

  /** Value bytes; `null` (or `undefined` when the field is absent) for a tombstone; may be empty. */
  get value(): Buffer<ArrayBuffer> | null | undefined {
    if (this.#value === UNSET) this.#value = this.#decode('value', this.#raw.value);
    return this.#value;
  }

  /** The value after the `value` schema; without a schema, `json()`. */
  get data(): TValue {
    const data = this.#valueData;
    return (data === UNSET ? this.json() : data) as TValue;
  }

  /** The key after the `key` schema; without a schema, the key as UTF-8 text (`null` if none). */
  get keyData(): TKey {
    const data = this.#keyData;
    if (data !== UNSET) return data as TKey;
    const key = this.key;
    return (key == null ? null : key.toString('utf8')) as TKey;
  }

  /** Headers in record order, repeated names kept as separate entries. */
  get headers(): readonly KafkaHeader[] {
    this.#headers ??= this.#decodeHeaders();
    return this.#headers;
  }

  /** Schema registry metadata of the key, when the trigger has a schema registry. */
  get keySchemaMetadata(): KafkaSchemaMetadata | undefined {
    return this.#raw.keySchemaMetadata;
  }

  /** Schema registry metadata of the value, when the trigger has a schema registry. */
  get valueSchemaMetadata(): KafkaSchemaMetadata | undefined {
    return this.#raw.valueSchemaMetadata;
  }

  /**
   * The last value of header `name` (Kafka's `lastHeader` semantics), or `undefined`.
   *
   * @example
   * ```ts
   * record.header('content-type')?.toString(); // 'application/json'
   * ```
   */
  header(name: string): Buffer<ArrayBuffer> | undefined {
    const headers = this.headers;
    for (let i = headers.length - 1; i >= 0; i--) if (headers[i]![0] === name) return headers[i]![1];
    return undefined;
  }

  /**
   * The value as UTF-8 text; `null` for a tombstone.
   *
   * @example
   * ```ts
   * const csvLine = record.text();
   * ```
   */
  text(): string | null {
    const value = this.value;
    return value == null ? null : value.toString('utf8');
  }

  /**
   * The value parsed as JSON (once, then cached); `null` for a tombstone. Throws
   * {@link KafkaRecordDecodeError} when the value is not JSON.
   *
   * @example
   * ```ts
   * const order = record.json() as { id: string };
   * ```
   */
  json(): unknown {
    if (this.#json !== UNSET) return this.#json;
    const value = this.value;
    if (value == null) this.#json = null;
    else {
      try {
        this.#json = JSON.parse(value.toString('utf8'));
      } catch (error) {
        // JSON.parse's message quotes the payload: report the position only.
        throw new KafkaRecordDecodeError(this, 'value', 'is not valid JSON', {
          cause: jsonSyntaxCause(error),
        });
      }
    }
    return this.#json;
  }

  /** Only the record's position: a record passed to a logger must not leak its payload. */
  toJSON(): { topic: string; partition: number; offset: number } {
    return { topic: this.topic, partition: this.partition, offset: this.offset };
  }

  /**
   * What `console.log(record)` and `util.inspect` show: the position, as {@link KafkaRecord.toJSON}. By
   * default they would list the decoded key and value the middleware keeps on the record.
   * https://nodejs.org/api/util.html#utilinspectcustom
   */
  [Symbol.for('nodejs.util.inspect.custom')](): { topic: string; partition: number; offset: number } {
    return this.toJSON();
  }

  #decode(field: 'key' | 'value', encoded: unknown): Buffer<ArrayBuffer> | null | undefined {
    if (encoded === null || encoded === undefined) return encoded;
    const bytes = typeof encoded === 'string' ? decodeBase64(encoded) : undefined;
    if (bytes === undefined) throw new KafkaRecordEncodingError(this, field, 'is not a base64 string');
    return bytes;
  }

  #decodeHeaders(): KafkaHeader[] {
    const raw: unknown = this.#raw.headers;
    if (raw === undefined || raw === null) return [];
    if (!Array.isArray(raw)) throw new KafkaRecordEncodingError(this, 'headers', 'is not an array');
    const headers: KafkaHeader[] = [];
    for (const entry of raw as unknown[]) {
      if (typeof entry !== 'object' || entry === null)
        throw new KafkaRecordEncodingError(this, 'headers', 'has an entry that is not an object');
      for (const name of Object.keys(entry)) {
        headers.push([name, this.#headerBytes((entry as KafkaEventHeader)[name])]);
      }
    }
    return headers;
  }

  #headerBytes(bytes: unknown): Buffer<ArrayBuffer> {
    const decoded = decodeHeaderValue(bytes);
    if (decoded === undefined)
      throw new KafkaRecordEncodingError(this, 'headers', 'has a value that is not a byte array');
    return decoded;
  }
}
