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

/**
 * Options of `Type.forSchema` that read every `long` of the schema with {@link exactLong}, and a
 * registry of named types of its own. A registry holds named types only once, so each schema (a
 * writer schema with the schemas it references, or a reader schema) gets new options, shared by the
 * calls that compile it. The `long` is swapped in by the type hook, which avsc calls for every
 * schema it meets: a name in the registry would catch `"long"` but not `{"type": "long"}` (nor a
 * `long` with a `logicalType`, such as `timestamp-millis`).
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
  typeHook: (schema: avsc.Schema) => avsc.Type | undefined;
} {
  const long = exactLong(library);
  return {
    registry: {},
    typeHook: (schema) => (schema === 'long' || isLongSchema(schema) ? long : undefined),
  };
}

function isLongSchema(schema: unknown): boolean {
  return typeof schema === 'object' && schema !== null && (schema as { type?: unknown }).type === 'long';
}
