// A batch of fetched Kafka records in the form the emulator hands them to a sandbox environment: the
// records' own bytes and numbers in a few typed arrays, moved to the environment's thread without a
// copy, where the event is built as objects. Writing the event's JSON here and parsing it there cost
// more CPU than the no-op consumer itself (base64 and JSON text for every record twice over); this way
// the base64 and the objects are made in the environment's thread, and this one only copies bytes.
// What the handler gets is what `JSON.parse` of the event's JSON gives, key order included (a property
// test holds the two equal: lib/emulator/batch.test.ts).
import { signedBytes } from './encode.ts';
import type { KafkaEvent, KafkaEventHeader, KafkaEventRecord } from './types.ts';

/** A length field's marks for a key or a value that is `null`, or absent from the record. */
const NULL = -1;
const ABSENT = -2;

/**
 * A batch packed for an environment: see {@link PackedEventWriter} and {@link unpackKafkaEvent}.
 * Its typed arrays' buffers are meant to be transferred (`postMessage(packed, packedTransferList(packed))`).
 *
 * @example
 * ```ts
 * const event: KafkaEvent = unpackKafkaEvent(packed);
 * ```
 */
export interface PackedKafkaEvent {
  /** The event's fields before `records`, in the event's order. */
  readonly head: Readonly<Record<string, string>>;
  readonly topic: string;
  /** Per partition of the batch, in order: the partition and its number of records. */
  readonly parts: readonly number[];
  /** Per record: offset, timestamp. */
  readonly numbers: Float64Array;
  /**
   * Per record: timestamp type (1 for `LOG_APPEND_TIME`), key length, value length (−1 `null`, −2
   * absent), number of headers, then per header its name's index in {@link names} and its value's
   * length (−1 `null`).
   */
  readonly ints: Int32Array;
  /** The header names the records use, each once. */
  readonly names: readonly string[];
  /** Every record's key, value and header values, in that order, one after the other. */
  readonly bytes: Uint8Array;
}

/**
 * A number as `JSON.parse` gives back what `JSON.stringify` wrote: non-finite numbers become `null`,
 * −0 becomes 0.
 *
 * @example
 * ```ts
 * jsonNumberValue(Number.NaN); // null
 * ```
 */
export function jsonNumberValue(n: number): number | null {
  return Number.isFinite(n) ? n + 0 : null;
}

/**
 * Builds a {@link PackedKafkaEvent}: the parts of the batch in order, each part's records in order.
 *
 * @example
 * ```ts
 * const writer = new PackedEventWriter(header, 'orders');
 * writer.part(0, 1);
 * writer.record(7, Date.now(), false, key, value, [['trace', traceBytes]]);
 * const packed = writer.finish();
 * ```
 */
export class PackedEventWriter {
  readonly #head: Record<string, string>;
  readonly #topic: string;
  readonly #parts: number[] = [];
  readonly #numbers: number[] = [];
  readonly #ints: number[] = [];
  readonly #names = new Map<string, number>();
  readonly #chunks: Uint8Array[] = [];
  #byteLength = 0;

  constructor(head: Readonly<Record<string, string | undefined>>, topic: string) {
    const kept: Record<string, string> = {};
    // What JSON.stringify leaves out, the event leaves out.
    for (const [name, value] of Object.entries(head)) if (value !== undefined) kept[name] = value;
    this.#head = kept;
    this.#topic = topic;
  }

  /** Starts the records of one partition. */
  part(partition: number, count: number): void {
    this.#parts.push(partition, count);
  }

  /**
   * Adds one record of the current part: `undefined` for a key or value the record has no field for,
   * `null` for one whose field is `null`.
   */
  record(
    offset: number,
    timestamp: number,
    logAppendTime: boolean,
    key: Uint8Array | null | undefined,
    value: Uint8Array | null | undefined,
    headers: readonly (readonly [name: string, value: Uint8Array | null])[],
  ): void {
    this.#numbers.push(offset, timestamp);
    this.#ints.push(logAppendTime ? 1 : 0, this.#bytes(key), this.#bytes(value), headers.length);
    for (const [name, data] of headers) {
      let index = this.#names.get(name);
      if (index === undefined) {
        index = this.#names.size;
        this.#names.set(name, index);
      }
      this.#ints.push(index, this.#bytes(data));
    }
  }

  /** The packed batch; its arrays are new, so that they can be transferred. */
  finish(): PackedKafkaEvent {
    const bytes = new Uint8Array(this.#byteLength);
    let at = 0;
    for (const chunk of this.#chunks) {
      bytes.set(chunk, at);
      at += chunk.length;
    }
    return {
      head: this.#head,
      topic: this.#topic,
      parts: this.#parts,
      numbers: Float64Array.from(this.#numbers),
      ints: Int32Array.from(this.#ints),
      names: [...this.#names.keys()],
      bytes,
    };
  }

  #bytes(data: Uint8Array | null | undefined): number {
    if (data === undefined) return ABSENT;
    if (data === null) return NULL;
    this.#chunks.push(data);
    this.#byteLength += data.length;
    return data.length;
  }
}

/**
 * The buffers of a packed event, to transfer with it rather than copy.
 *
 * @example
 * ```ts
 * port.postMessage({ type: 'invoke', payload: packed }, packedTransferList(packed));
 * ```
 */
export function packedTransferList(packed: PackedKafkaEvent): ArrayBuffer[] {
  return [packed.numbers.buffer, packed.ints.buffer, packed.bytes.buffer] as ArrayBuffer[];
}

/**
 * The event a packed batch stands for, as fresh objects: equal to `JSON.parse` of the event's JSON
 * (keys in the same order, `null` and absent fields kept apart).
 *
 * @example
 * ```ts
 * await handler(unpackKafkaEvent(packed), context);
 * ```
 */
export function unpackKafkaEvent(packed: PackedKafkaEvent): KafkaEvent {
  const { topic, numbers, ints, names } = packed;
  const bytes = Buffer.from(packed.bytes.buffer, packed.bytes.byteOffset, packed.bytes.byteLength);
  const event: Record<string, unknown> = { ...packed.head };
  const records: Record<string, KafkaEventRecord[]> = {};
  let number = 0;
  let int = 0;
  let at = 0;
  const text = (length: number): string | null | undefined => {
    if (length === ABSENT) return undefined;
    if (length === NULL) return null;
    const base64 = bytes.toString('base64', at, at + length);
    at += length;
    return base64;
  };
  for (let p = 0; p < packed.parts.length; p += 2) {
    const partition = packed.parts[p]!;
    const list = new Array<KafkaEventRecord>(packed.parts[p + 1]!);
    for (let r = 0; r < list.length; r++) {
      const record: KafkaEventRecord = {
        topic,
        partition: jsonNumberValue(partition) as number,
        offset: jsonNumberValue(numbers[number++]!) as number,
        timestamp: jsonNumberValue(numbers[number++]!) as number,
        timestampType: ints[int++] === 1 ? 'LOG_APPEND_TIME' : 'CREATE_TIME',
      };
      const key = text(ints[int++]!);
      if (key !== undefined) record.key = key;
      const value = text(ints[int++]!);
      if (value !== undefined) record.value = value;
      const headers = new Array<KafkaEventHeader>(ints[int++]!);
      for (let h = 0; h < headers.length; h++) {
        const name = names[ints[int++]!]!;
        const length = ints[int++]!;
        const start = at;
        if (length !== NULL) at += length;
        // A computed key defines an own property, as JSON.parse does, even for "__proto__".
        headers[h] = { [name]: signedBytes(bytes, start, at) };
      }
      record.headers = headers;
      list[r] = record;
    }
    records[`${topic}-${partition}`] = list;
  }
  event.records = records;
  return event as unknown as KafkaEvent;
}
