/**
 * Avro's `long` with all of its 64 bits, for every reader of Avro in this package (the decoder of
 * `kafka-lambda/avro` and the emulator's schema registry): avsc's own `long` refuses a value beyond
 * 2^53 − 1 ("potential precision loss"), which would make a valid record poison. avsc is passed in,
 * not imported, so that the emulator keeps loading it only when a schema needs it.
 */
import type avsc from 'avsc';

const MIN_SAFE_LONG = BigInt(Number.MIN_SAFE_INTEGER);
const MAX_SAFE_LONG = BigInt(Number.MAX_SAFE_INTEGER);
const MIN_LONG = -(2n ** 63n);
const MAX_LONG = 2n ** 63n - 1n;

/** One per avsc library: the type holds no state. */
const made = new WeakMap<object, avsc.types.LongType>();

/**
 * Avro's `long` read exactly: a number while it is a safe integer (|n| ≤ 2^53 − 1), a `bigint`
 * beyond. Writes a safe integer or a bigint of 64 bits (its `isValid` refuses any other). avsc's custom long type
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
      isValid: (value: unknown) =>
        typeof value === 'bigint' ? value >= MIN_LONG && value <= MAX_LONG : Number.isSafeInteger(value),
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
  const promoting = promotingTypes(library);
  return {
    registry: {},
    typeHook: (schema) => (schema === 'long' || isLongSchema(schema) ? type : promoting(schema)),
  };
}

/** avsc's reading position in a buffer (its `Tap`), as far as the promoted readers use it. */
interface Tap {
  pos: number;
  readLong(): number;
}

/** What avsc's types do with a resolver (lib/types.js, `Type.prototype.createResolver`). */
interface Resolvable {
  readonly typeName: string;
  _read(tap: Tap): unknown;
  _update(resolver: { _read(tap: Tap): unknown }, writer: Resolvable, options?: unknown): void;
}

/** One pair per avsc library. */
const promotingMade = new WeakMap<object, { float: avsc.Type; double: avsc.Type }>();

/**
 * The type hook's part for a reader's `float` and `double`: avsc's own, except for the values Avro's
 * schema resolution promotes to them ("int is promotable to long, float, or double; long is promotable
 * to float or double", https://avro.apache.org/docs/1.12.0/specification/#schema-resolution), read as
 * the nearest float or double to the writer's exact value, as Java's `(float)` and `(double)` widening
 * does (JLS 5.1.2). avsc reads a promoted long through a double (`tap.readLong()`): a negative long
 * below −2^52 came out with its sign flipped, and a float was not rounded to a float at all (nor an
 * int promoted to one).
 */
function promotingTypes(library: typeof avsc): (schema: avsc.Schema) => avsc.Type | undefined {
  let made = promotingMade.get(library);
  if (made === undefined) {
    const long = exactLong(library) as unknown as Resolvable;
    /** The writer's long exactly: avsc's double reading while it is exact, else the 64 bits again. */
    const readLong = (tap: Tap): number | bigint => {
      const start = tap.pos;
      const value = tap.readLong();
      if (value < FAST_LIMIT && value > -FAST_LIMIT) return value;
      tap.pos = start;
      return long._read(tap) as number | bigint;
    };
    const promote = (
      base: typeof avsc.types.FloatType,
      convert: (value: number | bigint) => number,
      fromInt: ((value: number) => number) | undefined,
    ): avsc.Type => {
      class Promoting extends base {}
      const proto = Promoting.prototype as unknown as Resolvable;
      const update = proto._update;
      proto._update = function (this: Resolvable, resolver, writer, options) {
        if (writer.typeName === 'long' || writer.typeName === 'abstract:long')
          resolver._read = (tap) => convert(readLong(tap));
        else if (writer.typeName === 'int' && fromInt !== undefined)
          resolver._read = (tap) => fromInt(writer._read(tap) as number);
        else update.call(this, resolver, writer, options);
      };
      return new Promoting();
    };
    made = {
      float: promote(library.types.FloatType, nearestFloat, Math.fround),
      double: promote(library.types.DoubleType as unknown as typeof avsc.types.FloatType, Number, undefined),
    };
    promotingMade.set(library, made);
  }
  const { float, double } = made;
  return (schema) => {
    const name = typeof schema === 'string' ? schema : isObjectSchema(schema) ? schema.type : undefined;
    return name === 'float' ? float : name === 'double' ? double : undefined;
  };
}

/**
 * The float nearest to an integer (ties to an even significand), as Java's `(float)` of a `long`:
 * rounded once, where `Math.fround(Number(value))` rounds to a double first and may land on a tie
 * that was none (2^60 + 2^36 + 1 would come out as 2^60, not 2^60 + 2^37).
 *
 * @example
 * ```ts
 * nearestFloat(2n ** 60n + 2n ** 36n + 1n); // 1152921642045800448 (2^60 + 2^37)
 * ```
 */
export function nearestFloat(value: number | bigint): number {
  // A safe integer is exact as a double: rounded once by `fround`.
  if (typeof value === 'number') return Math.fround(value);
  const negative = value < 0n;
  const magnitude = negative ? -value : value;
  const bits = magnitude.toString(2).length;
  if (bits <= 53) return Math.fround(Number(value));
  const shift = BigInt(bits - 24); // a float's significand holds 24 bits
  let kept = magnitude >> shift;
  const rest = magnitude - (kept << shift);
  const half = 1n << (shift - 1n);
  if (rest > half || (rest === half && (kept & 1n) === 1n)) kept += 1n;
  // ≤ 2^24 times a power of two: exact, and a float unless beyond a float's range (then infinite).
  const rounded = Math.fround(Number(kept) * 2 ** Number(shift));
  return negative ? -rounded : rounded;
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
  const promoting = promotingTypes(library);
  return {
    registry: {},
    typeHook: (schema, options) => {
      if (schema === 'long' || isLongSchema(schema)) return long;
      const promoted = promoting(schema);
      if (promoted !== undefined) return promoted;
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
  return isObjectSchema(schema) && schema.type === 'long';
}

function isObjectSchema(schema: unknown): schema is { readonly type?: unknown } {
  return typeof schema === 'object' && schema !== null && !Array.isArray(schema);
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
