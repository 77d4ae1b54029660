/**
 * Proto3's JSON mapping (https://protobuf.dev/programming-guides/json/) read with a protobufjs
 * reflected `Type`: JSON in, the plain object the type's `fromObject` takes out. `fromObject` alone
 * reads only the property names the type was loaded with and coerces what it is given (`String(x)`,
 * `x | 0`, an unknown enum name silently dropped); the mapping asks more:
 * - a field is named by its proto name (`order_id`) or its lowerCamelCase JSON name (`orderId`, or
 *   its `json_name`): "Parsers accept both the lowerCamelCase name (or the one specified by the
 *   json_name option) and the original proto field name";
 * - int64 kinds come as decimal strings or numbers, enums by name or number, bytes as base64
 *   (standard or URL-safe), floats also as "NaN", "Infinity", "-Infinity"; `null` is the default.
 * Imports no protobufjs (an optional peer): it reads the reflected types it is handed.
 */

/** The part of a protobufjs reflected field this module reads (protobufjs 7 and 8). */
interface ReflectedField {
  readonly name: string;
  /** protobufjs 8: the name in the .proto file (`name` is camelCased unless parsed with keepCase). */
  readonly protoName?: string;
  /** protobufjs 8: the JSON name, `json_name` or derived. */
  readonly jsonName?: string;
  readonly type: string;
  readonly repeated: boolean;
  readonly map?: boolean;
  readonly keyType?: string;
  readonly resolvedType: ReflectedType | ReflectedEnum | null;
  readonly options?: { readonly json_name?: unknown } | undefined;
}

/** The part of a protobufjs reflected `Type` this module reads. */
export interface ReflectedType {
  readonly fieldsArray: readonly ReflectedField[];
  fromObject(object: { [key: string]: unknown }): unknown;
  resolveAll?(): unknown;
  /** The root it was looked up in: resolved as a whole (see {@link protoJsonReader}). */
  readonly root?: { resolveAll?(): unknown } | null;
}

interface ReflectedEnum {
  readonly values: { readonly [name: string]: number };
}

/** Whether unknown fields and enum numbers are refused (a value being written) or skipped (a record read). */
export type ProtoJsonMode = 'strict' | 'lenient';

/**
 * A JSON value does not fit the message type: `message` says where (field names, array indexes; a
 * map key or an odd unknown name as `*`) and what was expected, never the value.
 *
 * @example
 * ```ts
 * catch (error) { if (error instanceof ProtoJsonMismatch) console.error(error.message); } // 'items.0.qty: must be an int32'
 * ```
 */
export class ProtoJsonMismatch extends Error {
  override readonly name: string = 'ProtoJsonMismatch';
}

/**
 * Whether `type` is a protobufjs reflected `Type` (`root.lookupType(...)`), whose fields can be read;
 * a static class (`pbjs -t static-module`) is not.
 */
export function isReflectedType(type: unknown): type is ReflectedType {
  const candidate = type as Partial<ReflectedType> | null | undefined;
  return typeof candidate?.fromObject === 'function' && Array.isArray(candidate.fieldsArray);
}

/**
 * A reader of proto3 JSON for a reflected type: returns the plain object `type.fromObject` takes.
 *
 * @example
 * ```ts
 * const read = protoJsonReader(root.lookupType('shop.Order'), 'strict');
 * const order = Order.fromObject(read({ order_id: 'o-1', status: 'PAID', cents: '5' }));
 * ```
 * @throws ProtoJsonMismatch from the reader when the JSON does not fit.
 */
export function protoJsonReader(
  type: ReflectedType,
  mode: ProtoJsonMode,
): (json: unknown) => { [key: string]: unknown } {
  // Message fields' resolvedType is set when the type is resolved, at its first use otherwise. The
  // root is resolved, not the type: protobufjs 8 resolves a nested type's edition features from its
  // file, and throws "Unknown edition" for a nested type resolved on its own.
  (type.root ?? type).resolveAll?.();
  const reader = new MessageReader(mode);
  return (json) => reader.message(type, json, []);
}

type Path = Array<string | number>;

/** Identifier-like names show in a path; any other key (data, in a map) is `*`. */
const SHOWN_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

function shown(path: Path): string {
  return path.length === 0
    ? '(root)'
    : path
        .map((segment) => (typeof segment === 'number' || SHOWN_NAME.test(segment) ? segment : '*'))
        .join('.');
}

function mismatch(path: Path, problem: string): never {
  throw new ProtoJsonMismatch(`${shown(path)}: ${problem}`);
}

/** protoc's JSON name of a proto field name: underscores dropped, the letter after each capitalised. */
function jsonNameOf(protoName: string): string {
  return protoName.replace(/_+(.)?/g, (_match, next: string | undefined) => next?.toUpperCase() ?? '');
}

/** protobufjs's camelCase (parse without keepCase): how it named a field it loaded from `protoName`. */
function protobufjsNameOf(protoName: string): string {
  return (
    protoName.slice(0, 1) +
    protoName.slice(1).replace(/_([a-z])/g, (_match, next: string) => next.toUpperCase())
  );
}

const INT32 = { min: -(2n ** 31n), max: 2n ** 31n - 1n, label: 'an int32' };
const UINT32 = { min: 0n, max: 2n ** 32n - 1n, label: 'a uint32' };
const INT64 = { min: -(2n ** 63n), max: 2n ** 63n - 1n, label: 'an int64' };
const UINT64 = { min: 0n, max: 2n ** 64n - 1n, label: 'a uint64' };
const INTEGERS: { readonly [type: string]: typeof INT32 } = {
  int32: INT32,
  sint32: INT32,
  sfixed32: INT32,
  uint32: UINT32,
  fixed32: UINT32,
  int64: INT64,
  sint64: INT64,
  sfixed64: INT64,
  uint64: UINT64,
  fixed64: UINT64,
};
const FLOAT_MAX = 3.4028234663852886e38;
const BASE64 = /^(?:[A-Za-z0-9+/\-_]{4})*(?:[A-Za-z0-9+/\-_]{2}(?:==)?|[A-Za-z0-9+/\-_]{3}=?)?$/;

class MessageReader {
  private readonly mode: ProtoJsonMode;
  private readonly tables = new Map<ReflectedType, Map<string, ReflectedField>>();

  constructor(mode: ProtoJsonMode) {
    this.mode = mode;
  }

  /** The fields of a type by every name JSON may use for them. */
  private fieldsOf(type: ReflectedType): Map<string, ReflectedField> {
    let table = this.tables.get(type);
    if (table !== undefined) return table;
    table = new Map();
    for (const field of type.fieldsArray) {
      const protoName = field.protoName ?? field.name;
      const customJson = typeof field.options?.json_name === 'string' ? field.options.json_name : undefined;
      for (const name of [field.name, protoName, field.jsonName ?? customJson ?? jsonNameOf(protoName)])
        table.set(name, field);
    }
    this.tables.set(type, table);
    return table;
  }

  message(type: ReflectedType, json: unknown, path: Path): { [key: string]: unknown } {
    if (typeof json !== 'object' || json === null || Array.isArray(json)) mismatch(path, 'must be an object');
    const fields = this.fieldsOf(type);
    const object: { [key: string]: unknown } = {};
    for (const [key, value] of Object.entries(json)) {
      // protobufjs 7 keeps no proto name: a field it camelCased is found by camelCasing the key too.
      const field = fields.get(key) ?? fields.get(protobufjsNameOf(key));
      if (field === undefined) {
        if (this.mode === 'strict') mismatch([...path, key], `is not a field of the message`);
        continue; // a field of a newer writer schema, skipped as binary decoding skips it
      }
      const at = [...path, field.name];
      if (Object.hasOwn(object, field.name))
        mismatch(at, 'is given twice (by its proto name and its JSON name)');
      if (value === null) continue; // null is the field's default
      const read = field.map
        ? this.map(field, value, at)
        : field.repeated
          ? this.list(field, value, at)
          : this.value(field, field.type, value, at);
      if (read !== SKIP) object[field.name] = read;
    }
    return object;
  }

  private list(field: ReflectedField, json: unknown, path: Path): unknown[] {
    if (!Array.isArray(json)) mismatch(path, 'must be an array (a repeated field)');
    const items: unknown[] = [];
    json.forEach((item: unknown, index) => {
      const read = this.value(field, field.type, item, [...path, index]);
      if (read !== SKIP) items.push(read);
    });
    return items;
  }

  private map(field: ReflectedField, json: unknown, path: Path): { [key: string]: unknown } {
    if (typeof json !== 'object' || json === null || Array.isArray(json))
      mismatch(path, 'must be an object (a map field)');
    const entries: { [key: string]: unknown } = {};
    for (const [key, value] of Object.entries(json)) {
      const at = [...path, '*'];
      const keyType = field.keyType ?? 'string';
      if (
        keyType === 'bool'
          ? key !== 'true' && key !== 'false'
          : keyType !== 'string' && !fitsInteger(key, keyType)
      )
        mismatch(
          at,
          `has a key that is not ${keyType === 'bool' ? 'true or false' : INTEGERS[keyType]!.label}`,
        );
      const read = this.value(field, field.type, value, at);
      if (read !== SKIP) entries[key] = read;
    }
    return entries;
  }

  private value(field: ReflectedField, type: string, json: unknown, path: Path): unknown {
    const resolved = field.resolvedType;
    if (resolved !== null && 'fieldsArray' in resolved) return this.message(resolved, json, path);
    if (resolved !== null) return this.enumValue(resolved, json, path);
    if (json === null) mismatch(path, 'must not be null in a repeated or map field');
    switch (type) {
      case 'string':
        if (typeof json !== 'string') mismatch(path, 'must be a string');
        return json;
      case 'bool':
        if (typeof json !== 'boolean') mismatch(path, 'must be true or false');
        return json;
      case 'bytes':
        if (typeof json !== 'string' || !BASE64.test(json)) mismatch(path, 'must be base64 text (bytes)');
        // protobufjs decodes the standard alphabet: the URL-safe one is accepted too, by the spec.
        return json.replaceAll('-', '+').replaceAll('_', '/');
      case 'double':
      case 'float':
        return floating(type, json, path);
      default: {
        const range = INTEGERS[type];
        if (range === undefined) mismatch(path, `has a type this reader does not know (${type})`);
        if (!fitsInteger(json, type)) mismatch(path, `must be ${range.label} (a number or a decimal string)`);
        // 64-bit values go on as decimal strings: a JavaScript number holds only 53 bits.
        return range === INT64 || range === UINT64
          ? BigInt(json as string | number).toString()
          : Number(json);
      }
    }
  }

  private enumValue(type: ReflectedEnum, json: unknown, path: Path): unknown {
    if (typeof json === 'string') {
      const number = type.values[json];
      if (number !== undefined && Object.hasOwn(type.values, json)) return number;
      // A name a newer writer schema added: skipped, as the spec lets a parser ignoring unknown fields do.
      if (this.mode === 'lenient') return SKIP;
      mismatch(path, `must be one of ${Object.keys(type.values).join(', ')}`);
    }
    if (!fitsInteger(json, 'int32') || typeof json !== 'number')
      mismatch(path, `must be an enum name or number (one of ${Object.keys(type.values).join(', ')})`);
    // Proto3 enums are open: a record may carry a number its reader's enum lacks. A value being written
    // with one is more likely a mistake.
    if (this.mode === 'strict' && !Object.values(type.values).includes(json))
      mismatch(path, `must be one of ${Object.keys(type.values).join(', ')}`);
    return json;
  }
}

const SKIP = Symbol('skip');

function fitsInteger(json: unknown, type: string): boolean {
  const range = INTEGERS[type]!;
  let value: bigint;
  if (typeof json === 'number') {
    if (!Number.isInteger(json)) return false;
    value = BigInt(json);
  } else if (typeof json === 'string' && /^-?\d{1,20}$/.test(json)) value = BigInt(json);
  else return false;
  return value >= range.min && value <= range.max;
}

function floating(type: 'double' | 'float', json: unknown, path: Path): number {
  const special = {
    NaN: Number.NaN,
    Infinity: Number.POSITIVE_INFINITY,
    '-Infinity': Number.NEGATIVE_INFINITY,
  };
  let value: number;
  if (typeof json === 'number') value = json;
  else if (typeof json === 'string' && Object.hasOwn(special, json))
    return special[json as keyof typeof special];
  else if (typeof json === 'string' && json.trim() !== '' && Number.isFinite(Number(json)))
    value = Number(json);
  else return mismatch(path, `must be a number (a ${type})`);
  if (type === 'float' && Math.abs(value) > FLOAT_MAX) mismatch(path, 'is beyond the range of a float');
  return value;
}
