/**
 * Avro's `long` with all of its 64 bits, for every reader of Avro in this package (the decoder of
 * `kafka-lambda/avro` and the emulator's schema registry): avsc's own `long` refuses a value beyond
 * 2^53 − 1 ("potential precision loss"), which would make a valid record poison. avsc is passed in,
 * not imported, so that the emulator keeps loading it only when a schema needs it.
 */
import type avsc from 'avsc';

const MIN_SAFE_LONG = BigInt(Number.MIN_SAFE_INTEGER);
const MAX_SAFE_LONG = BigInt(Number.MAX_SAFE_INTEGER);

/** One per avsc library: the type holds no state. */
const made = new WeakMap<object, avsc.types.LongType>();

/**
 * Avro's `long` read exactly: a number while it is a safe integer (|n| ≤ 2^53 − 1), a `bigint`
 * beyond. Writes a number or a bigint. avsc's custom long type
 * (https://github.com/mtth/avsc/wiki/Advanced-usage#custom-long-types).
 *
 * @example
 * ```ts
 * exactLong(avsc).fromBuffer(bytes); // 9007199254740993n
 * ```
 */
export function exactLong(library: typeof avsc): avsc.types.LongType {
  let type = made.get(library);
  if (type === undefined) {
    type = library.types.LongType.__with({
      fromBuffer: (buffer: Buffer) => {
        const value = buffer.readBigInt64LE();
        return value >= MIN_SAFE_LONG && value <= MAX_SAFE_LONG ? Number(value) : value;
      },
      toBuffer: (value: number | bigint) => {
        const buffer = Buffer.alloc(8);
        buffer.writeBigInt64LE(BigInt(value));
        return buffer;
      },
      fromJSON: (value: number | bigint) => value,
      toJSON: (value: number | bigint) => value,
      isValid: (value: unknown) => typeof value === 'bigint' || Number.isSafeInteger(value),
      compare: (a: number | bigint, b: number | bigint) => (a < b ? -1 : a > b ? 1 : 0),
    });
    made.set(library, type);
  }
  return type;
}

/** What avsc's `long` throws for a value beyond 2^53 − 1 (lib/types.js, `LongType.prototype._read`). */
export const PRECISION_LOSS = 'potential precision loss';

/** |n| from which avsc's reading of a long through a double can be wrong: its zigzag form passes 2^53. */
const FAST_LIMIT = 2 ** 52;

/** One per avsc library. */
const fastMade = new WeakMap<object, avsc.Type>();

/**
 * avsc's own `long` (a number), refusing with avsc's {@link PRECISION_LOSS} error every value of 2^52
 * or more either way, for {@link exactLong} to read again. avsc reads a long's zigzag form through a
 * double, exact only up to 2^53: a negative long below −2^52 came out wrong, its sign flipped
 * (−4503599627370497 read as 4503599627370496), and avsc refuses only what lies beyond 2^53 − 1.
 *
 * @example
 * ```ts
 * const fast = avsc.Type.forSchema(schema, fastLongOptions(avsc));
 * ```
 */
export function fastLongOptions(library: typeof avsc): {
  registry: Record<string, avsc.Type>;
  typeHook: (schema: avsc.Schema) => avsc.Type | undefined;
} {
  let long = fastMade.get(library);
  if (long === undefined) {
    class FastLong extends library.types.LongType {}
    (FastLong.prototype as unknown as { _read(tap: { readLong(): number }): number })._read = (tap) => {
      const value = tap.readLong();
      if (value >= FAST_LIMIT || value <= -FAST_LIMIT) throw new Error(PRECISION_LOSS);
      return value;
    };
    long = new FastLong();
    fastMade.set(library, long);
  }
  const type = long;
  return {
    registry: {},
    typeHook: (schema) => (schema === 'long' || isLongSchema(schema) ? type : undefined),
  };
}

/**
 * Options of `Type.forSchema` that read every `long` of the schema with {@link exactLong}, and a
 * registry of named types of its own. A registry holds named types only once, so each schema (a
 * writer schema with the schemas it references, or a reader schema) gets new options, shared by the
 * calls that compile it. The `long` is swapped in by the type hook, which avsc calls for every
 * schema it meets: a name in the registry would catch `"long"` but not `{"type": "long"}` (nor a
 * `long` with a `logicalType`, such as `timestamp-millis`).
 *
 * Unions are wrapped as avsc wraps them with its own `long` (`wrapUnions: 'auto'`): only when two
 * branches are of one kind, the exact `long` a number as avsc's is. avsc puts a custom long type in a
 * kind of its own, so `["int", "long"]` would otherwise be wrapped with avsc's `long` and not with the
 * exact one: the shape of a record's data would change when one of its longs passes 2^53 − 1.
 *
 * @example
 * ```ts
 * const options = exactLongOptions(avsc);
 * for (const reference of registered.references ?? []) avsc.Type.forSchema(JSON.parse(reference.definition), options);
 * const writer = avsc.Type.forSchema(JSON.parse(registered.definition), options);
 * ```
 */
export function exactLongOptions(library: typeof avsc): {
  registry: Record<string, avsc.Type>;
  typeHook: (schema: avsc.Schema, options: avsc.ForSchemaOptions) => avsc.Type | undefined;
} {
  const long = exactLong(library);
  return {
    registry: {},
    typeHook: (schema, options) => {
      if (schema === 'long' || isLongSchema(schema)) return long;
      if (!Array.isArray(schema) || schema.every((branch) => library.Type.isType(branch))) return undefined;
      // The branches compiled here (named types registered once), the union made of them below.
      const branches = schema.map((branch) => library.Type.forSchema(branch as avsc.Schema, options));
      return library.Type.forSchema(branches as unknown as avsc.Schema, {
        ...options,
        wrapUnions: isAmbiguous(library, branches) ? 'always' : 'never',
      });
    },
  };
}

function isLongSchema(schema: unknown): boolean {
  return typeof schema === 'object' && schema !== null && (schema as { type?: unknown }).type === 'long';
}

/** avsc's rule for wrapping a union (lib/types.js, `isAmbiguous`), the exact `long` a number. */
function isAmbiguous(library: typeof avsc, branches: readonly avsc.Type[]): boolean {
  const kinds = new Set<string>();
  for (const branch of branches) {
    if (library.Type.isType(branch, 'logical')) continue;
    const kind = KINDS[branch.typeName] ?? branch.typeName;
    if (kinds.has(kind)) return true;
    kinds.add(kind);
  }
  return false;
}

const KINDS: { readonly [typeName: string]: string } = {
  double: 'number',
  float: 'number',
  int: 'number',
  long: 'number',
  'abstract:long': 'number',
  bytes: 'buffer',
  fixed: 'buffer',
  enum: 'string',
  map: 'object',
  error: 'object',
  record: 'object',
};
