import type { KafkaEventHeader, KafkaEventRecord, KafkaSchemaMetadata } from './types.ts';

/** A Kafka record as a client sees it, before Lambda encodes it into an event. */
export interface RawKafkaRecord {
  topic: string;
  partition: number;
  offset: number;
  /** Epoch milliseconds (or a Date). */
  timestamp: number | Date;
  timestampType?: 'CREATE_TIME' | 'LOG_APPEND_TIME';
  /** `null` encodes as `"key": null`; `undefined` leaves the field out, as Lambda does for some records. */
  key?: Uint8Array | string | null;
  /** `null` is a tombstone. */
  value: Uint8Array | string | null;
  /** Name/value pairs in record order; repeated names stay separate entries. */
  headers?: ReadonlyArray<readonly [string, Uint8Array | string]>;
  keySchemaMetadata?: KafkaSchemaMetadata;
  valueSchemaMetadata?: KafkaSchemaMetadata;
}

function toBytes(data: Uint8Array | string): Buffer {
  return typeof data === 'string'
    ? Buffer.from(data, 'utf8')
    : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

/**
 * Bytes as Lambda writes header values: signed, −128..127 (of `bytes[start..end)`).
 *
 * @example
 * ```ts
 * signedBytes(Buffer.from([0x61, 0xff])); // [97, -1]
 * ```
 */
export function signedBytes(bytes: Uint8Array, start = 0, end = bytes.length): number[] {
  const signed = new Array<number>(end - start);
  for (let i = start; i < end; i++) signed[i - start] = (bytes[i]! << 24) >> 24;
  return signed;
}

/** Bytes as Lambda writes header values: signed (−128..127); text as its UTF-8 bytes. */
export function toSignedBytes(data: Uint8Array | string): number[] {
  return signedBytes(toBytes(data));
}

/**
 * Encodes one record exactly as Lambda's Kafka trigger puts it in an event: base64 key and value,
 * headers as one-key objects of signed bytes.
 *
 * @example
 * ```ts
 * encodeEventRecord({ topic: 'orders', partition: 0, offset: 7, timestamp: Date.now(), key: 'c-1', value: '{"id":7}' });
 * ```
 */
export function encodeEventRecord(record: RawKafkaRecord): KafkaEventRecord {
  const encoded: KafkaEventRecord = {
    topic: record.topic,
    partition: record.partition,
    offset: record.offset,
    timestamp: record.timestamp instanceof Date ? record.timestamp.getTime() : record.timestamp,
    timestampType: record.timestampType ?? 'CREATE_TIME',
  };
  if (record.key !== undefined)
    encoded.key = record.key === null ? null : toBytes(record.key).toString('base64');
  encoded.value = record.value === null ? null : toBytes(record.value).toString('base64');
  encoded.headers = (record.headers ?? []).map(
    ([name, value]): KafkaEventHeader => ({ [name]: toSignedBytes(value) }),
  );
  if (record.keySchemaMetadata) encoded.keySchemaMetadata = record.keySchemaMetadata;
  if (record.valueSchemaMetadata) encoded.valueSchemaMetadata = record.valueSchemaMetadata;
  return encoded;
}
