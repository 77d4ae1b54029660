import { describe, expect, it } from 'vitest';
import { encodeEventRecord, type RawKafkaRecord } from '../kafka-event/encode.ts';
import type { KafkaEventRecord } from '../kafka-event/types.ts';
import { KafkaPoisonRecordError, KafkaRecordDecodeError, KafkaRecordEncodingError } from './errors.ts';
import { KafkaRecord } from './record.ts';

const base: RawKafkaRecord = {
  topic: 'order-events',
  partition: 3,
  offset: 1041,
  timestamp: 1_764_400_000_000,
  value: null,
};
const make = (raw: KafkaEventRecord) => new KafkaRecord(raw, raw.topic, raw.partition, raw.offset);
const build = (fields: Partial<RawKafkaRecord>) => make(encodeEventRecord({ ...base, ...fields }));

function encodingError(read: () => unknown): KafkaRecordEncodingError {
  try {
    read();
  } catch (error) {
    expect(error).toBeInstanceOf(KafkaRecordEncodingError);
    expect(error).not.toBeInstanceOf(KafkaPoisonRecordError);
    return error as KafkaRecordEncodingError;
  }
  throw new Error('expected a KafkaRecordEncodingError');
}

function decodeError(read: () => unknown): KafkaRecordDecodeError {
  try {
    read();
  } catch (error) {
    expect(error).toBeInstanceOf(KafkaRecordDecodeError);
    return error as KafkaRecordDecodeError;
  }
  throw new Error('expected a KafkaRecordDecodeError');
}

describe('KafkaRecord', () => {
  it('exposes position, timestamp and schema metadata', () => {
    const record = build({
      valueSchemaMetadata: { dataFormat: 'AVRO', schemaId: '17' },
      timestampType: 'LOG_APPEND_TIME',
    });
    expect([record.topic, record.partition, record.offset]).toEqual(['order-events', 3, 1041]);
    expect(record.timestamp).toEqual(new Date(1_764_400_000_000));
    expect(record.timestampType).toBe('LOG_APPEND_TIME');
    expect(record.valueSchemaMetadata).toEqual({ dataFormat: 'AVRO', schemaId: '17' });
    expect(record.keySchemaMetadata).toBeUndefined();
  });

  it("reads Kafka's NO_TIMESTAMP (-1) as no timestamp, not as 1969", () => {
    expect(build({ timestamp: -1 }).timestamp.getTime()).toBeNaN();
    expect(build({ timestamp: 0 }).timestamp).toEqual(new Date(0));
  });

  it('keeps an absent key, a null key and an empty key distinct', () => {
    expect(build({}).key).toBeUndefined();
    expect(build({ key: null }).key).toBeNull();
    expect(build({ key: '' }).key).toEqual(Buffer.alloc(0));
    expect(build({ key: 'customer-7' }).key).toEqual(Buffer.from('customer-7'));
    expect(build({}).keyData).toBeNull();
    expect(build({ key: 'customer-7' }).keyData).toBe('customer-7');
  });

  it('keeps a tombstone (null or absent value) distinct from an empty value', () => {
    expect(build({ value: null }).value).toBeNull();
    const { value: _v, ...absent } = encodeEventRecord(base);
    expect(make(absent).value).toBeUndefined();
    expect(make(absent).text()).toBeNull();
    expect(build({ value: '' }).value).toEqual(Buffer.alloc(0));
    expect(build({ value: '' }).text()).toBe('');
    expect(build({ value: null }).json()).toBeNull();
  });

  it('decodes the value as bytes, text and JSON, once', () => {
    const record = build({ value: '{"id":7,"name":"thé"}' });
    expect(record.value).toBe(record.value);
    expect(record.text()).toBe('{"id":7,"name":"thé"}');
    const parsed = record.json();
    expect(parsed).toEqual({ id: 7, name: 'thé' });
    expect(record.json()).toBe(parsed);
    expect(record.data).toBe(parsed);
  });

  it('keeps binary values byte for byte', () => {
    const bytes = Uint8Array.from([0, 255, 128, 10]);
    expect([...build({ value: bytes }).value!]).toEqual([0, 255, 128, 10]);
  });

  it('decodes signed-byte headers, keeping repeated names in order', () => {
    const record = build({
      headers: [
        ['trace', 'abé'],
        ['retry', '1'],
        ['retry', '2'],
        ['raw', Uint8Array.from([0xff, 0x80, 0x00])],
      ],
    });
    expect(record.raw.headers![0]).toEqual({ trace: [97, 98, -61, -87] });
    expect(record.headers.map(([name, value]) => [name, [...value]])).toEqual([
      ['trace', [97, 98, 0xc3, 0xa9]],
      ['retry', [49]],
      ['retry', [50]],
      ['raw', [0xff, 0x80, 0x00]],
    ]);
    expect(record.header('trace')!.toString()).toBe('abé');
    expect(record.header('retry')!.toString()).toBe('2');
    expect(record.header('missing')).toBeUndefined();
    expect(record.headers).toBe(record.headers);
  });

  it('treats missing headers as none and a base64 header value as bytes', () => {
    const { headers: _h, ...noHeaders } = encodeEventRecord(base);
    expect(make(noHeaders).headers).toEqual([]);
    const artefact = { ...encodeEventRecord(base), headers: [{ h: 'aGk=' }] } as unknown as KafkaEventRecord;
    expect(make(artefact).header('h')!.toString()).toBe('hi');
  });

  it('throws a typed decode error for undecodable parts, naming the part and never the payload', () => {
    const secret = '{"card":"4111 1111 1111 1111"';
    const invalidJson = decodeError(() => build({ value: secret }).json());
    expect(invalidJson.name).toBe('KafkaRecordDecodeError');
    expect(invalidJson.field).toBe('value');
    expect(invalidJson.message).toBe('order-events-3@1041: value is not valid JSON');
    expect([invalidJson.topic, invalidJson.partition, invalidJson.offset]).toEqual(['order-events', 3, 1041]);

    // Not encoded as Lambda encodes records: the event was changed, the record is not poison.
    const raw = encodeEventRecord(base);
    expect(encodingError(() => make({ ...raw, key: 42 } as unknown as KafkaEventRecord).key).field).toBe(
      'key',
    );
    expect(encodingError(() => make({ ...raw, value: {} } as unknown as KafkaEventRecord).value).field).toBe(
      'value',
    );
    for (const headers of [{}, [null], [{ h: [1, 'x'] }], [{ h: [300] }], [{ h: 5 }]]) {
      const error = encodingError(() => make({ ...raw, headers } as unknown as KafkaEventRecord).headers);
      expect(error.field).toBe('headers');
    }
  });

  it('refuses key, value or header text that is not base64 instead of decoding garbage bytes', () => {
    const raw = encodeEventRecord({ ...base, key: 'k', value: '{"id":7}' });
    for (const text of [
      '!!!not base64$$$',
      `${raw.value}garbage`,
      'eyJpZCI6N30',
      'eyJp ZCI6N30=',
      '-_-',
      'a===',
    ]) {
      const value = encodingError(() => make({ ...raw, value: text }).value);
      expect([value.field, value.message]).toEqual([
        'value',
        'order-events-3@1041: value is not a base64 string (Lambda sends base64 text and byte-array headers: did something change the event before kafkaBatch?)',
      ]);
      expect(encodingError(() => make({ ...raw, key: text }).key).field).toBe('key');
      expect(encodingError(() => make({ ...raw, value: text }).json()).field).toBe('value');
      const headers = [{ h: text }] as unknown as KafkaEventRecord['headers'];
      expect(encodingError(() => make({ ...raw, headers }).headers).field).toBe('headers');
    }
    expect(make({ ...raw, value: '' }).value).toEqual(Buffer.alloc(0));
    // The URL-safe alphabet, which Lambda never writes, decodes to the bytes the standard one names.
    expect(make({ ...raw, value: '-_-_' }).value).toEqual(Buffer.from([0xfb, 0xff, 0xbf]));
  });

  it('serialises to its position only', () => {
    const record = build({ key: 'customer-7', value: '{"secret":true}', headers: [['h', 'x']] });
    expect(JSON.parse(JSON.stringify(record))).toEqual({ topic: 'order-events', partition: 3, offset: 1041 });
  });
});
