import { deflateSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  confluentSchemaIdHeaderProblem,
  readConfluentMessageIndexes,
  readFrame,
  readGlueMessageIndex,
} from './wire.ts';

/** Confluent's encoding of a message-index array (zigzag varints; `[0]` as a single 0), from its spec. */
function confluentIndexes(indexes: number[], zigzag = true): Buffer {
  if (indexes.length === 1 && indexes[0] === 0) return Buffer.from([0]);
  const bytes: number[] = [];
  const varint = (n: number) => {
    let z = zigzag ? n * 2 : n; // zigzag of a non-negative number
    while (z >= 0x80) {
      bytes.push((z % 0x80) | 0x80);
      z = Math.floor(z / 0x80);
    }
    bytes.push(z);
  };
  varint(indexes.length);
  for (const index of indexes) varint(index);
  return Buffer.from(bytes);
}

const uuid = Buffer.from('0f3c5a6e9b1d4c2e8a7f1234567890ab', 'hex');

describe('readFrame', () => {
  it('reads a Confluent frame: magic 0, big-endian id, payload', () => {
    const frame = readFrame(Buffer.from([0, 0, 0, 1, 2, 0xaa, 0xbb]));
    expect(frame).toEqual({ registry: 'confluent', schemaId: '258', payload: Buffer.from([0xaa, 0xbb]) });
  });

  it('reads an AWS Glue frame, uncompressed and zlib-compressed', () => {
    const body = Buffer.from('avro bytes');
    const plain = readFrame(Buffer.concat([Buffer.from([3, 0]), uuid, body]));
    expect(plain).toEqual({
      registry: 'glue',
      schemaId: '0f3c5a6e-9b1d-4c2e-8a7f-1234567890ab',
      payload: body,
    });
    const zlib = readFrame(Buffer.concat([Buffer.from([3, 5]), uuid, deflateSync(body)]));
    expect(zlib).toEqual(plain);
  });

  it('points unframed bytes at the decoder option that reads them', () => {
    expect(readFrame(Buffer.from([0xd2, 0x0f]))).toMatch(/framing: 'none'/);
  });

  it('names what is wrong without quoting the bytes', () => {
    const secret = Buffer.from('SECRET');
    const cases = [
      readFrame(Buffer.concat([Buffer.from([7]), secret])),
      readFrame(Buffer.from([0, 1])),
      readFrame(Buffer.concat([Buffer.from([3, 9]), uuid, secret])),
      readFrame(Buffer.concat([Buffer.from([3, 5]), uuid, secret])),
      readFrame(Buffer.alloc(0)),
      readFrame(Buffer.concat([Buffer.from([3, 0]), uuid]), 'confluent'),
      readFrame(Buffer.from([0, 0, 0, 0, 1]), 'glue'),
    ];
    for (const problem of cases) {
      expect(typeof problem).toBe('string');
      expect(problem).not.toMatch(/SECRET|U0VDUkVU|534543524554/);
    }
    expect(cases[2]).toContain('compression byte 9');
  });
});

describe('readConfluentMessageIndexes', () => {
  it.each([
    ['zigzag', 'as every current Confluent serializer writes it'],
    ['unsigned', "as Confluent .NET's deprecated format writes it"],
  ] as const)('reads any array in %s varints, %s, and where the message starts', (encoding, _writer) => {
    fc.assert(
      fc.property(
        fc.array(fc.nat({ max: 100_000 }), { minLength: 1, maxLength: 6 }),
        fc.uint8Array({ maxLength: 20 }),
        (indexes, message) => {
          const prefix = confluentIndexes(indexes, encoding === 'zigzag');
          const read = readConfluentMessageIndexes(Buffer.concat([prefix, message]), encoding);
          expect(read).toEqual({ indexes, offset: prefix.length });
        },
      ),
    );
  });

  it('reads the deprecated format only when told to', () => {
    // [1, 0] as that format writes it: count 2, then 1 and 0. Read as zigzag, index 1 is -1.
    expect(readConfluentMessageIndexes(Buffer.from([2, 1, 0, 8]), 'unsigned')).toEqual({
      indexes: [1, 0],
      offset: 3,
    });
    expect(typeof readConfluentMessageIndexes(Buffer.from([2, 1, 0, 8]))).toBe('string');
  });

  it('refuses a truncated or impossible array', () => {
    expect(typeof readConfluentMessageIndexes(Buffer.from([0x80]))).toBe('string');
    expect(typeof readConfluentMessageIndexes(Buffer.from([0x08, 0x02]))).toBe('string'); // 4 indexes, 1 byte
    expect(typeof readConfluentMessageIndexes(Buffer.from([0x01]))).toBe('string'); // negative count
  });
});

describe('readGlueMessageIndex', () => {
  it('reads one unsigned varint', () => {
    expect(readGlueMessageIndex(Buffer.from([0x96, 0x01, 0x08]))).toEqual({ index: 150, offset: 2 });
    expect(typeof readGlueMessageIndex(Buffer.from([0x96]))).toBe('string');
  });
});

describe('confluentSchemaIdHeaderProblem', () => {
  // Magic byte 1 and a schema GUID, as @confluentinc/schemaregistry's HeaderSchemaIdSerializer writes it.
  const guid = Buffer.from('0189791762233641869674299b90a802e2', 'hex');

  it("says the schema id is in Confluent's header, naming the GUID, and does not suggest framing 'none'", () => {
    const problem = confluentSchemaIdHeaderProblem(
      [
        ['traceparent', Buffer.from('00-abc')],
        ['__value_schema_id', guid],
      ],
      'value',
    );
    expect(problem).toBe(
      "is not framed: its schema id is in Confluent's __value_schema_id header (schema GUID 89791762-2336-4186-9674-299b90a802e2), which this decoder does not read; have the producer's serializer put the schema id before the bytes (Confluent's default prefix schema id)",
    );
    expect(problem).not.toContain("framing: 'none'");
  });

  it('reads the header of the field only, and any value of it', () => {
    const headers: [string, Buffer][] = [['__key_schema_id', Buffer.from([9])]];
    expect(confluentSchemaIdHeaderProblem(headers, 'value')).toBeUndefined();
    expect(confluentSchemaIdHeaderProblem(headers, 'key')).toContain(
      "Confluent's __key_schema_id header, which",
    );
    expect(confluentSchemaIdHeaderProblem([], 'key')).toBeUndefined();
  });
});
