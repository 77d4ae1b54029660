/**
 * The framings schema-registry serializers put before the encoded bytes. Both are fixed by their
 * first byte, so reading them is exact, never a guess:
 * - Confluent: magic byte 0, the schema id as a 4-byte big-endian integer, then (Protobuf only) the
 *   message-index array (https://docs.confluent.io/platform/current/schema-registry/fundamentals/serdes-develop/index.html#wire-format);
 * - AWS Glue: header version byte 3, a compression byte (0 none, 5 zlib), the 16-byte schema version
 *   UUID, then the (possibly zlib-compressed) bytes (aws-glue-schema-registry's serializer).
 */
import { inflateSync } from 'node:zlib';

/** Confluent's magic byte. */
export const CONFLUENT_MAGIC_BYTE = 0;
/** AWS Glue's header version byte. */
export const GLUE_HEADER_VERSION = 3;
const GLUE_COMPRESSION_NONE = 0;
const GLUE_COMPRESSION_ZLIB = 5;
const GLUE_HEADER_LENGTH = 18;
const CONFLUENT_HEADER_LENGTH = 5;

/**
 * A framed record: which registry framed it, the writer schema's id in that registry, and the bytes
 * after the framing (Glue's already decompressed).
 *
 * @example
 * ```ts
 * const frame: RegistryFrame = { registry: 'confluent', schemaId: '17', payload };
 * ```
 */
export interface RegistryFrame {
  readonly registry: 'confluent' | 'glue';
  /** Confluent: the decimal id; Glue: the schema version UUID (lower case, dashed). */
  readonly schemaId: string;
  readonly payload: Buffer;
}

/**
 * Which framing the producer used: `'registry'` reads either, by the first byte; `'confluent'` and
 * `'glue'` accept only theirs.
 *
 * @example
 * ```ts
 * avroDecoder({ registry, framing: 'confluent' });
 * ```
 */
export type RegistryFraming = 'registry' | 'confluent' | 'glue';

/**
 * Reads the framing, or returns why the bytes are not framed as expected (a short phrase, never the
 * bytes themselves).
 *
 * @example
 * ```ts
 * const frame = readFrame(bytes, 'registry');
 * if (typeof frame === 'string') throw new Error(`value ${frame}`);
 * ```
 */
export function readFrame(bytes: Buffer, framing: RegistryFraming = 'registry'): RegistryFrame | string {
  const first = bytes[0];
  if (first === CONFLUENT_MAGIC_BYTE && framing !== 'glue') {
    if (bytes.length < CONFLUENT_HEADER_LENGTH) return 'is shorter than a Confluent header (5 bytes)';
    return {
      registry: 'confluent',
      schemaId: confluentIdText(bytes.readInt32BE(1)),
      payload: bytes.subarray(CONFLUENT_HEADER_LENGTH),
    };
  }
  if (first === GLUE_HEADER_VERSION && framing !== 'confluent') {
    if (bytes.length < GLUE_HEADER_LENGTH) return 'is shorter than an AWS Glue header (18 bytes)';
    const schemaId = formatUuid(bytes.subarray(2, GLUE_HEADER_LENGTH));
    const compression = bytes[1];
    const body = bytes.subarray(GLUE_HEADER_LENGTH);
    if (compression === GLUE_COMPRESSION_NONE) return { registry: 'glue', schemaId, payload: body };
    if (compression !== GLUE_COMPRESSION_ZLIB)
      return `has an unknown AWS Glue compression byte ${compression}`;
    try {
      return { registry: 'glue', schemaId, payload: inflateSync(body) };
    } catch {
      return 'has an AWS Glue body that is not valid zlib';
    }
  }
  if (bytes.length === 0) return 'is empty, not framed by a schema registry serializer';
  const expected =
    framing === 'confluent'
      ? 'Confluent magic byte 0'
      : framing === 'glue'
        ? 'AWS Glue header byte 3'
        : 'Confluent magic byte 0 or AWS Glue header byte 3';
  // Raw bytes from a producer without a registry serializer: the decoder has to be told, since an unframed
  // message may well start with byte 0 or 3 itself.
  return `does not start with the ${expected}: not framed by a schema registry serializer (for unframed bytes, set the decoder option framing: 'none')`;
}

/**
 * The headers where Confluent's newer serializers (`@confluentinc/schemaregistry`'s
 * `HeaderSchemaIdSerializer`, and the Java and .NET clients' header schema-id serializers) put the
 * schema id instead of framing the bytes: magic byte 1, then the schema's 16-byte GUID; the key or
 * value is then the encoded bytes alone (Confluent.SchemaRegistry's `SchemaId`:
 * https://docs.confluent.io/platform/current/clients/confluent-kafka-dotnet/_site/api/Confluent.SchemaRegistry.SchemaId.html).
 */
const CONFLUENT_SCHEMA_ID_HEADERS = { key: '__key_schema_id', value: '__value_schema_id' } as const;
const CONFLUENT_GUID_MAGIC_BYTE = 1;

/**
 * @internal Why a key or value that {@link readFrame} found unframed cannot be read, when the record
 * carries its schema id in Confluent's header instead (`__value_schema_id` or `__key_schema_id`): that
 * header names the schema by GUID, which this package's registry clients do not look up, and setting
 * framing 'none' would not help (the writer schema would still be unknown). `undefined` when the
 * record has no such header. Only the GUID is quoted, never a byte of the payload.
 *
 * @example
 * ```ts
 * const problem = confluentSchemaIdHeaderProblem(record.headers, 'value') ?? readFrameProblem;
 * ```
 */
export function confluentSchemaIdHeaderProblem(
  headers: Iterable<readonly [name: string, value: Uint8Array]>,
  field: 'key' | 'value',
): string | undefined {
  const name = CONFLUENT_SCHEMA_ID_HEADERS[field];
  let value: Uint8Array | undefined;
  // Kafka's lastHeader: the last one of the name counts.
  for (const [header, bytes] of headers) if (header === name) value = bytes;
  if (value === undefined) return undefined;
  const guid =
    value.length === 17 && value[0] === CONFLUENT_GUID_MAGIC_BYTE
      ? ` (schema GUID ${formatUuid(Buffer.from(value.subarray(1)))})`
      : '';
  return `is not framed: its schema id is in Confluent's ${name} header${guid}, which this decoder does not read; have the producer's serializer put the schema id before the bytes (Confluent's default prefix schema id)`;
}

// A topic's records name one schema id after another: its text is made once, not once per record.
let lastConfluentId = Number.NaN;
let lastConfluentIdText = '';

function confluentIdText(id: number): string {
  if (id !== lastConfluentId) {
    lastConfluentIdText = String(id);
    lastConfluentId = id;
  }
  return lastConfluentIdText;
}

function formatUuid(bytes: Buffer): string {
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * How a Confluent-framed Protobuf record's message indexes are written: `'zigzag'` by every current
 * Confluent serializer, `'unsigned'` by Confluent's .NET serializer up to 1.5 (and later ones set to
 * its deprecated format).
 *
 * @example
 * ```ts
 * const encoding: ConfluentMessageIndexEncoding = 'unsigned';
 * ```
 */
export type ConfluentMessageIndexEncoding = 'zigzag' | 'unsigned';

/**
 * Confluent's Protobuf message-index array, read exactly as its serializer writes it: a zigzag
 * varint count, then that many zigzag varint indexes (the path of the message type in the .proto
 * file); a single `0` byte stands for `[0]`, the file's first message
 * (https://docs.confluent.io/platform/current/schema-registry/fundamentals/serdes-develop/index.html#wire-format).
 * `'unsigned'` reads the count and the indexes as plain varints instead, as Confluent's .NET serializer
 * wrote them up to 1.5 (its deserializer's `UseDeprecatedFormat`), `0` still standing for `[0]`.
 * Returns the indexes and the offset where the message starts, or why the array is malformed.
 *
 * @example
 * ```ts
 * readConfluentMessageIndexes(Buffer.from([0, 0x08, 0x01])); // { indexes: [0], offset: 1 }
 * readConfluentMessageIndexes(Buffer.from([2, 1, 0, 0x08]), 'unsigned'); // { indexes: [1, 0], offset: 3 }
 * ```
 */
export function readConfluentMessageIndexes(
  payload: Buffer,
  encoding: ConfluentMessageIndexEncoding = 'zigzag',
): { indexes: number[]; offset: number } | string {
  const cursor = { offset: 0 };
  const readIndex = encoding === 'zigzag' ? readZigZagVarint : readVarint;
  const count = readIndex(payload, cursor);
  if (count === undefined || count < 0) return 'has a malformed Protobuf message-index array';
  if (count === 0) return { indexes: [0], offset: cursor.offset };
  // Each index takes at least one byte: a count beyond the bytes left cannot be honest.
  if (count > payload.length - cursor.offset) return 'has a malformed Protobuf message-index array';
  const indexes: number[] = [];
  for (let i = 0; i < count; i++) {
    const index = readIndex(payload, cursor);
    if (index === undefined || index < 0) return 'has a malformed Protobuf message-index array';
    indexes.push(index);
  }
  return { indexes, offset: cursor.offset };
}

/**
 * AWS Glue's Protobuf message index: one unsigned varint (the message's position among the file's
 * message types) before the message. Returns the index and where the message starts.
 *
 * @example
 * ```ts
 * readGlueMessageIndex(Buffer.from([0, 0x08, 0x01])); // { index: 0, offset: 1 }
 * ```
 */
export function readGlueMessageIndex(payload: Buffer): { index: number; offset: number } | string {
  const cursor = { offset: 0 };
  const index = readVarint(payload, cursor);
  if (index === undefined) return 'has a malformed Protobuf message index';
  return { index, offset: cursor.offset };
}

/** An unsigned varint of at most 32 bits; `undefined` when truncated or longer than 5 bytes. */
function readVarint(bytes: Buffer, cursor: { offset: number }): number | undefined {
  let value = 0;
  for (let shift = 0; shift < 35; shift += 7) {
    const byte = bytes[cursor.offset];
    if (byte === undefined) return undefined;
    cursor.offset++;
    value += (byte & 0x7f) * 2 ** shift;
    if ((byte & 0x80) === 0) return value > 0xffffffff ? undefined : value;
  }
  return undefined;
}

/** A zigzag-encoded signed varint (Kafka's `ByteUtils.writeVarint`). */
function readZigZagVarint(bytes: Buffer, cursor: { offset: number }): number | undefined {
  const raw = readVarint(bytes, cursor);
  if (raw === undefined) return undefined;
  return raw % 2 === 0 ? raw / 2 : -(raw + 1) / 2;
}
