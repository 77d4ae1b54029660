import avsc from 'avsc';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { confluentFrame, decodeValue } from '../../test/support/decoding.ts';
import { KafkaSchemaRegistryDecodeError } from '../schema-registry/errors.ts';
import type { RegisteredSchema, SchemaRegistryClient } from '../schema-registry/registry.ts';
import { avroDecoder } from './index.ts';

/** Avro's zigzag varint of a long, written by hand: avsc's own long refuses to write one past 2^53. */
function avroLong(value: bigint): Buffer {
  let n = BigInt.asUintN(64, (value << 1n) ^ (value >> 63n));
  const bytes: number[] = [];
  while (n > 0x7fn) {
    bytes.push(Number((n & 0x7fn) | 0x80n));
    n >>= 7n;
  }
  bytes.push(Number(n));
  return Buffer.from(bytes);
}

function decode(decoder: ReturnType<typeof avroDecoder>, value: Buffer): Promise<unknown> {
  // A decoder throws at once when it needs no registry request: turned into a rejection.
  return Promise.resolve().then(() => decodeValue(decoder, value));
}

/** A registry holding schema 1. */
function registryOf(definition: object): SchemaRegistryClient {
  const schema: RegisteredSchema = { id: '1', type: 'AVRO', definition: JSON.stringify(definition) };
  return {
    registry: 'confluent',
    stats: { requests: 0, cacheHits: 0 },
    getSchema: async (id) => {
      if (id !== '1') throw new Error(`no schema ${id}`);
      return schema;
    },
  };
}

const BEYOND = 2n ** 53n + 1n;
const MAX = 2n ** 63n - 1n;
const MIN = -(2n ** 63n);

describe('avroDecoder longs', () => {
  const schema = {
    type: 'record',
    name: 'Totals',
    fields: [
      { name: 'big', type: 'long' },
      { name: 'at', type: { type: 'long', logicalType: 'timestamp-micros' } },
      { name: 'maybe', type: ['null', 'long'] },
      { name: 'small', type: { type: 'long' } },
    ],
  };
  // `maybe` is branch 1 of its union: the index, then the long.
  const body = (big: bigint, at: bigint, maybe: bigint, small: bigint) =>
    Buffer.concat([avroLong(big), avroLong(at), avroLong(1n), avroLong(maybe), avroLong(small)]);
  const expected = { big: BEYOND, at: MAX, maybe: MIN, small: 42 };
  const bytes = body(BEYOND, MAX, MIN, 42n);

  it('reads a long beyond 2^53 − 1 as a bigint, a safe one as a number: schema in code (object or JSON text)', async () => {
    for (const given of [schema, JSON.stringify(schema)]) {
      expect({
        ...((await decode(avroDecoder({ schema: given, framing: 'none' }), bytes)) as object),
      }).toEqual(expected);
    }
  });

  it('reads it so from a writer schema of the registry, with and without a reader schema', async () => {
    const registry = registryOf(schema);
    for (const decoder of [avroDecoder({ registry }), avroDecoder({ registry, schema })])
      expect({ ...((await decode(decoder, confluentFrame(1, bytes))) as object) }).toEqual(expected);
  });

  it("uses an avsc Type given as it is: avsc's long refuses the value", async () => {
    const decoder = avroDecoder({ schema: avsc.Type.forSchema(schema as avsc.Schema), framing: 'none' });
    const error = await decode(decoder, bytes).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KafkaSchemaRegistryDecodeError);
    expect((error as KafkaSchemaRegistryDecodeError).reason).toBe('DESERIALIZATION_ERROR');
    const safe = body(1n, 2n, 3n, 4n);
    expect({ ...((await decode(decoder, safe)) as object) }).toEqual({ big: 1, at: 2, maybe: 3, small: 4 });
  });
  it('reads a negative long between −2^53 and −2^52 exactly, which avsc reads with its sign flipped', async () => {
    const registry = registryOf(schema);
    const values = [-(2n ** 52n) - 1n, -(2n ** 53n) + 1n, 2n ** 52n + 1n, -(2n ** 52n)];
    for (const value of values) {
      const near = body(value, value, value, value);
      const read = { big: Number(value), at: Number(value), maybe: Number(value), small: Number(value) };
      for (const [decoder, bytes] of [
        [avroDecoder({ schema, framing: 'none' }), near],
        [avroDecoder({ registry }), confluentFrame(1, near)],
        [avroDecoder({ registry, schema }), confluentFrame(1, near)],
      ] as const)
        expect({ ...((await decode(decoder, bytes)) as object) }).toEqual(read);
    }
  });

  it('wraps a union as avsc does, whether or not a long of the record passes 2^53 − 1', async () => {
    // ["int", "long"]: two numbers, which avsc wraps ({ long: 4 }); read exactly, it was left bare.
    const sized = {
      type: 'record',
      name: 'Sized',
      fields: [
        { name: 'size', type: ['int', 'long'] },
        { name: 'big', type: 'long' },
      ],
    };
    const decoder = avroDecoder({ schema: sized, framing: 'none' });
    for (const big of [5n, BEYOND]) {
      const read = (await decode(decoder, Buffer.concat([avroLong(1n), avroLong(4n), avroLong(big)]))) as {
        size: object;
      };
      expect({ ...read.size }).toEqual({ long: 4 });
    }
  });
});

describe('Avro longs with EventRecordFormat JSON', () => {
  function decodeJson(text: string, decoder: ReturnType<typeof avroDecoder>): unknown {
    return decodeValue(decoder, Buffer.from(text), { dataFormat: 'AVRO', schemaId: '1' });
  }
  const reader = {
    type: 'record',
    name: 'Reading',
    fields: [
      { name: 'id', type: 'string' },
      { name: 'big', type: 'long' },
      { name: 'small', type: 'long' },
      { name: 'price', type: 'double' },
    ],
  };

  it('reads an integer beyond 2^53 − 1 as a bigint, as the binary reader does, instead of rounding it', () => {
    const decoder = avroDecoder({ eventRecordFormat: 'JSON', schema: reader });
    expect({
      ...(decodeJson('{"id":"a","big":9007199254740993,"small":-42,"price":12.5}', decoder) as object),
    }).toEqual({ id: 'a', big: 9007199254740993n, small: -42, price: 12.5 });
    const longs = avroDecoder({ eventRecordFormat: 'JSON', schema: { type: 'array', items: 'long' } });
    expect(decodeJson('[-9223372036854775808, 9007199254740991]', longs)).toEqual([
      -9223372036854775808n,
      9007199254740991,
    ]);
    // Without a schema in code, the parsed JSON is the data, its long integers exact too.
    const parsedOnly = avroDecoder({ eventRecordFormat: 'JSON', registry: registryOf(reader) });
    expect(decodeJson('[-9223372036854775808, 9007199254740991, 1e400]', parsedOnly)).toEqual([
      -9223372036854775808n,
      9007199254740991,
      Number.POSITIVE_INFINITY,
    ]);
  });

  it("refuses a long beyond 2^53 − 1 with an avsc Type whose long is avsc's own, as its binary reader does", () => {
    const decoder = avroDecoder({
      eventRecordFormat: 'JSON',
      schema: avsc.Type.forSchema(reader as avsc.Schema),
    });
    expect(() => decodeJson('{"id":"a","big":9007199254740993,"small":1,"price":1}', decoder)).toThrow(
      "at big: is beyond 2^53 − 1, which the avsc Type's long does not read",
    );
    expect({
      ...(decodeJson('{"id":"a","big":9007199254740991,"small":1,"price":1}', decoder) as object),
    }).toEqual({ id: 'a', big: 9007199254740991, small: 1, price: 1 });
  });

  it("reads a long type of the user's (LongType.__with) from the 64 bits, as its binary reader does", () => {
    const bigints = avsc.types.LongType.__with({
      fromBuffer: (buffer: Buffer) => buffer.readBigInt64LE(),
      toBuffer: (value: bigint) => {
        const buffer = Buffer.alloc(8);
        buffer.writeBigInt64LE(value);
        return buffer;
      },
      fromJSON: BigInt,
      toJSON: Number,
      isValid: (value: unknown) => typeof value === 'bigint',
      compare: (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0),
    });
    const type = avsc.Type.forSchema(reader as avsc.Schema, { registry: { long: bigints } });
    const decoder = avroDecoder({ eventRecordFormat: 'JSON', schema: type });
    expect({
      ...(decodeJson('{"id":"a","big":-9223372036854775808,"small":5,"price":1}', decoder) as object),
    }).toEqual({ id: 'a', big: -9223372036854775808n, small: 5n, price: 1 });
  });
});

/** The float nearest to `value` (ties to an even significand), found by comparing neighbours exactly. */
function nearestFloat(value: bigint): number {
  if (value >= -(2n ** 24n) && value <= 2n ** 24n) return Number(value); // a float holds it exactly
  const candidate = Math.fround(Number(value));
  const bits = new Uint32Array(new Float32Array([candidate]).buffer)[0]!;
  const around = [bits - 1, bits, bits + 1]
    .map((b) => new Float32Array(new Uint32Array([b >>> 0]).buffer)[0]!)
    .filter(Number.isFinite);
  let best = candidate;
  for (const float of around) {
    const distance = (f: number) => (value > BigInt(f) ? value - BigInt(f) : BigInt(f) - value);
    const even = (f: number) => (new Uint32Array(new Float32Array([f]).buffer)[0]! & 1) === 0;
    if (distance(float) < distance(best) || (distance(float) === distance(best) && even(float))) best = float;
  }
  return best;
}

describe('a writer long promoted to a reader float or double (Avro schema resolution)', () => {
  const writer = {
    type: 'record',
    name: 'Reading',
    fields: [
      { name: 'value', type: 'long' },
      { name: 'maybe', type: ['null', 'long'] },
    ],
  };
  const readerOf = (to: 'float' | 'double') => ({
    type: 'record',
    name: 'Reading',
    fields: [
      { name: 'value', type: to },
      { name: 'maybe', type: ['null', to] },
    ],
  });
  const metadata = { dataFormat: 'AVRO', schemaId: '1' };
  const body = (value: bigint) => Buffer.concat([avroLong(value), avroLong(1n), avroLong(value)]);
  const decoders = (to: 'float' | 'double') => {
    const registry = registryOf(writer);
    const schema = readerOf(to);
    return {
      framed: avroDecoder({ registry, schema }),
      source: avroDecoder({ registry, schema, eventRecordFormat: 'SOURCE' }),
      json: avroDecoder({ registry, schema, eventRecordFormat: 'JSON' }),
    };
  };
  const double = decoders('double');
  const float = decoders('float');
  /** Every way the value reaches the decoder: Confluent-framed, SOURCE, and the trigger's JSON. */
  async function readAll(
    ways: ReturnType<typeof decoders>,
    value: bigint,
  ): Promise<Array<{ value: unknown; maybe: unknown }>> {
    const bytes = body(value);
    const json = Buffer.from(`{"value":${value},"maybe":{"long":${value}}}`);
    const read = [
      await decode(ways.framed, confluentFrame(1, bytes)),
      await decodeValue(ways.source, bytes, metadata),
      await decodeValue(ways.json, json, metadata),
    ] as Array<{ value: unknown; maybe: unknown }>;
    return read.map(({ value, maybe }) => ({ value, maybe }));
  }
  const edges = [
    0n,
    1n,
    -1n,
    2n ** 24n + 1n,
    -(2n ** 52n),
    2n ** 52n,
    -(2n ** 52n) - 1n,
    2n ** 52n + 1n,
    -(2n ** 53n),
    2n ** 53n,
    -(2n ** 53n) - 1n,
    2n ** 53n + 1n,
    2n ** 60n + 2n ** 36n + 1n, // rounded twice (to a double, then a float) it would lose the + 1
    MAX,
    -MAX,
    MIN,
  ];
  const longs = fc.oneof(fc.constantFrom(...edges), fc.bigInt({ min: MIN, max: MAX }));

  it('reads the nearest double, whatever the sign or size of the long', async () => {
    expect(await readAll(double, -4503599627370497n)).toEqual(
      Array(3).fill({ value: -4503599627370497, maybe: -4503599627370497 }),
    );
    await fc.assert(
      fc.asyncProperty(longs, async (value) => {
        const expected = { value: Number(value), maybe: Number(value) };
        expect(await readAll(double, value)).toEqual([expected, expected, expected]);
      }),
      { examples: edges.map((edge) => [edge]) },
    );
  });

  it('reads the nearest float, whatever the sign or size of the long', async () => {
    await fc.assert(
      fc.asyncProperty(longs, async (value) => {
        const expected = { value: nearestFloat(value), maybe: nearestFloat(value) };
        expect(await readAll(float, value)).toEqual([expected, expected, expected]);
      }),
      { examples: edges.map((edge) => [edge]) },
    );
  });

  it('reads an int promoted to a float as the nearest float', async () => {
    const ints = { type: 'record', name: 'Reading', fields: [{ name: 'value', type: 'int' }] };
    const floats = { type: 'record', name: 'Reading', fields: [{ name: 'value', type: 'float' }] };
    const decoder = avroDecoder({ registry: registryOf(ints), schema: floats });
    const read = (await decode(decoder, confluentFrame(1, avroLong(16777217n)))) as { value: number };
    expect(read.value).toBe(16777216);
  });
});
