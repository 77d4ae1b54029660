/**
 * Reads the JSON of an `EventRecordFormat` `JSON` record into an Avro reader schema, as schema
 * resolution reads a binary record into it: fields the JSON lacks take the reader's defaults, fields
 * the reader lacks are dropped, values must fit the reader's types (with Avro's promotions int → long →
 * float → double), and the data comes out as `fromBuffer` gives it (records of the type's class, wrapped
 * unions wrapped, bytes as Buffers, longs exact). Not an entry point.
 *
 * What Lambda's JSON for an Avro record looks like is not documented beyond "a standard JSON object"
 * (https://docs.aws.amazon.com/lambda/latest/api/API_KafkaSchemaRegistryConfig.html, EventRecordFormat;
 * https://docs.aws.amazon.com/lambda/latest/dg/services-consume-kafka-events.html): nothing says how a
 * union, `bytes`, `fixed` or a `long` beyond 2^53 is written. So every reading that cannot be ruled out
 * is taken, and none is guessed:
 * - a union value bare (`"x"`, as avsc and Avro's `GenericData.toString` write it) or wrapped in an
 *   object naming its branch (`{"string": "x"}`, Avro's JSON encoding and avsc's wrapped unions): a
 *   value that reads both ways, or as two branches, into different data is refused, not picked;
 * - a wrapped value where the reader has no union (the writer had one, the reader not);
 * - `bytes` and `fixed` as base64 text, as the emulator (lib/emulator/schema-registry.ts) writes them,
 *   and only that: other text is refused;
 * - a `long` as a JSON integer, read from its digits (a `bigint` beyond 2^53 − 1, see
 *   `parseWithExactIntegers` in lib/schema-registry/decoder.ts).
 * A value that does not fit is refused naming where (field names, array indexes, `*` for a map key)
 * and what was expected, never the value.
 */
import avsc from 'avsc';
import { exactLong, nearestFloat } from './long.ts';

/** Turns the parsed JSON into the reader's data, or says where it does not fit (no value quoted). */
export type AvroJsonRead = (json: unknown) => { readonly data: unknown } | string;

/**
 * A reader of JSON into `type`. `exactLongs`: a `long` beyond 2^53 − 1 is a `bigint` (the schema in
 * code was compiled by this package); otherwise `type` is the user's avsc `Type`, whose `long` reads
 * as it was built (avsc's own refuses a value beyond 2^53 − 1).
 *
 * @example
 * ```ts
 * const read = avroJsonReader(avsc.Type.forSchema(orderSchemaV2), true);
 * read({ id: 'o-1', total: 5 }); // { data: Order { id: 'o-1', total: 5, currency: 'EUR' } }
 * ```
 */
export function avroJsonReader(type: avsc.Type, exactLongs: boolean): AvroJsonRead {
  const read = new Compiler(exactLongs).tolerant(type);
  return (json) => {
    try {
      return { data: read(json) };
    } catch (error) {
      if (error instanceof Mismatch) return error.shown();
      throw error;
    }
  };
}

/** A value that does not fit: where (built as it unwinds) and what was expected. Not an Error: no stack. */
class Mismatch {
  readonly path: Array<string | number> = [];
  readonly problem: string;
  constructor(problem: string) {
    this.problem = problem;
  }
  at(segment: string | number): this {
    this.path.unshift(segment);
    return this;
  }
  shown(): string {
    return `${this.path.length === 0 ? '(root)' : this.path.join('.')}: ${this.problem}`;
  }
}

// The kinds of JSON value, as bits: a type's reader accepts some of them.
const NULL = 1;
const BOOLEAN = 2;
const NUMBER = 4;
const STRING = 8;
const ARRAY = 16;
const OBJECT = 32;

function kindOf(json: unknown): number {
  switch (typeof json) {
    case 'string':
      return STRING;
    case 'number':
    case 'bigint':
      return NUMBER;
    case 'boolean':
      return BOOLEAN;
    case 'object':
      return json === null ? NULL : Array.isArray(json) ? ARRAY : OBJECT;
    default:
      return 0;
  }
}

function isObject(json: unknown): json is { [key: string]: unknown } {
  return typeof json === 'object' && json !== null && !Array.isArray(json);
}

/** The key of an object with exactly one key, else `undefined`. */
function soleKey(json: unknown): string | undefined {
  if (!isObject(json)) return undefined;
  let key: string | undefined;
  for (const name in json) {
    if (key !== undefined) return undefined;
    key = name;
  }
  return key;
}

type Read = (json: unknown) => unknown;

/** A reader schema's type, compiled. */
interface Node {
  /** Reads a value of the type as itself (not wrapped); throws a {@link Mismatch}. */
  read: Read;
  /** The kinds of JSON value `read` may accept. */
  readonly kinds: number;
  /** Branch names a writer union may wrap a value of this type in: the type's own, its aliases. */
  readonly names: readonly string[];
  /** Names of the writer types Avro promotes to this one (int → long…): matched after `names`. */
  readonly promotedFrom: readonly string[];
  /** The type, for `wrap` in a wrapped union. */
  readonly type: avsc.Type;
}

/** The parts of avsc's types this module reads (its public `.d.ts` does not declare them all). */
interface AvscField {
  readonly name: string;
  readonly type: avsc.Type;
  readonly aliases: readonly string[];
  defaultValue(): unknown;
}
interface AvscType {
  readonly typeName: string;
  readonly name?: string | undefined;
  readonly aliases?: readonly string[];
  readonly fields?: readonly AvscField[];
  readonly symbols?: readonly string[];
  readonly default?: string | undefined;
  readonly size?: number;
  readonly itemsType?: avsc.Type;
  readonly valuesType?: avsc.Type;
  readonly types?: readonly avsc.Type[];
  readonly underlyingType?: avsc.Type;
  getRecordConstructor?(): new (...values: unknown[]) => unknown;
  wrap(value: unknown): unknown;
  fromBuffer(buffer: Buffer): unknown;
  _fromValue?(value: unknown): unknown;
}

const INT_MIN = -(2 ** 31);
const INT_MAX = 2 ** 31 - 1;
const LONG_MIN = -(2n ** 63n);
const LONG_MAX = 2n ** 63n - 1n;
const FLOAT_MAX = 3.4028234663852886e38;
/** Base64 as Buffer writes it: the standard alphabet, padded. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const PROMOTED_FROM: { readonly [type: string]: readonly string[] } = {
  long: ['int'],
  float: ['int', 'long'],
  double: ['int', 'long', 'float'],
};

class Compiler {
  private readonly exactLongs: boolean;
  private readonly nodes = new Map<avsc.Type, Node>();
  private readonly tolerants = new Map<avsc.Type, Read>();

  constructor(exactLongs: boolean) {
    this.exactLongs = exactLongs;
  }

  /**
   * A reader for a position that is not a union in the reader schema, where the writer may have had
   * one: a value wrapped in its branch's name is read too. Where both readings fit (an object of one
   * key read as a record or a map), they would give different data: refused.
   */
  tolerant(type: avsc.Type): Read {
    const known = this.tolerants.get(type);
    if (known !== undefined) return known;
    const node = this.node(type);
    if (node.kinds === 0) return node.read; // a union: it reads wrapped values itself
    const wrapped = new Set([...node.names, ...node.promotedFrom]);
    const objects = (node.kinds & OBJECT) !== 0;
    const read: Read = (json) => {
      const key = soleKey(json);
      if (key === undefined || !wrapped.has(key)) return node.read(json);
      const inner = (json as { [key: string]: unknown })[key];
      if (!objects) return node.read(inner);
      const bare = attempt(node.read, json);
      const unwrapped = attempt(node.read, inner);
      if (bare !== FAILED && unwrapped !== FAILED)
        throw new Mismatch(
          `is ambiguous: an object whose one key names the type (${key}) reads as the ${typeLabel(node.type)} itself or as its value wrapped by a writer union`,
        );
      if (unwrapped !== FAILED) return unwrapped;
      return node.read(json);
    };
    this.tolerants.set(type, read);
    return read;
  }

  private node(type: avsc.Type): Node {
    const known = this.nodes.get(type);
    if (known !== undefined) return known;
    const avro = type as unknown as AvscType;
    if (avsc.Type.isType(type, 'logical')) return this.logical(type, avro);
    switch (avro.typeName) {
      case 'record':
      case 'error':
        return this.record(type, avro);
      case 'union:wrapped':
      case 'union:unwrapped':
        return this.union(type, avro);
      case 'array': {
        const items = this.tolerant(avro.itemsType!);
        return this.add(type, ARRAY, ['array'], (json) => {
          if (!Array.isArray(json)) throw new Mismatch('must be an array');
          const values = new Array<unknown>(json.length);
          for (let index = 0; index < json.length; index++) {
            try {
              values[index] = items(json[index]);
            } catch (error) {
              throw error instanceof Mismatch ? error.at(index) : error;
            }
          }
          return values;
        });
      }
      case 'map': {
        const values = this.tolerant(avro.valuesType!);
        return this.add(type, OBJECT, ['map'], (json) => {
          if (!isObject(json)) throw new Mismatch('must be an object (a map)');
          // As avsc's binary reader builds a map.
          const map: { [key: string]: unknown } = {};
          for (const key in json) {
            try {
              map[key] = values(json[key]);
            } catch (error) {
              throw error instanceof Mismatch ? error.at('*') : error; // a key is data: never shown
            }
          }
          return map;
        });
      }
      case 'enum':
        return this.enumType(type, avro);
      case 'fixed': {
        const size = avro.size!;
        return this.add(type, STRING, namesOf(avro), (json) => {
          const bytes = typeof json === 'string' ? base64(json) : undefined;
          if (bytes === undefined || bytes.length !== size)
            throw new Mismatch(`must be base64 text of ${size} bytes (fixed)`);
          return bytes;
        });
      }
      case 'abstract:long':
        return this.abstractLong(type, avro);
      default:
        return this.primitive(type, avro.typeName);
    }
  }

  private add(
    type: avsc.Type,
    kinds: number,
    names: readonly string[],
    read: Read,
    promotedFrom: readonly string[] = [],
  ): Node {
    const node: Node = { read, kinds, names, promotedFrom, type };
    this.nodes.set(type, node);
    return node;
  }

  private primitive(type: avsc.Type, name: string): Node {
    const add = (kinds: number, read: Read) => this.add(type, kinds, [name], read, PROMOTED_FROM[name]);
    switch (name) {
      case 'null':
        return add(NULL, (json) => {
          if (json !== null) throw new Mismatch('must be null');
          return null;
        });
      case 'boolean':
        return add(BOOLEAN, (json) => {
          if (typeof json !== 'boolean') throw new Mismatch('must be true or false');
          return json;
        });
      case 'int':
        return add(NUMBER, (json) => {
          if (typeof json !== 'number' || !Number.isInteger(json) || json < INT_MIN || json > INT_MAX)
            throw new Mismatch('must be an int (a 32-bit integer)');
          return json | 0;
        });
      case 'long': {
        const exact = this.exactLongs;
        return add(NUMBER, (json) => {
          if (typeof json === 'number' && Number.isSafeInteger(json)) return json === 0 ? 0 : json;
          if (typeof json === 'bigint' && json >= LONG_MIN && json <= LONG_MAX) {
            // parseWithExactIntegers gives a bigint only beyond 2^53 − 1.
            if (exact) return json;
            throw new Mismatch("is beyond 2^53 − 1, which the avsc Type's long does not read");
          }
          throw new Mismatch('must be a long (a 64-bit integer)');
        });
      }
      case 'float':
        return add(NUMBER, (json) => {
          const value = typeof json === 'bigint' ? Number(json) : json;
          if (typeof value !== 'number') throw new Mismatch('must be a number (a float)');
          if (Math.abs(value) > FLOAT_MAX && Number.isFinite(value))
            throw new Mismatch('is beyond the range of a float');
          // An integer beyond 2^53 − 1 rounded once to a float, as the binary reader promotes a long.
          return typeof json === 'bigint' ? nearestFloat(json) : Math.fround(value);
        });
      case 'double':
        return add(NUMBER, (json) => {
          if (typeof json === 'number') return json;
          if (typeof json === 'bigint') return Number(json);
          throw new Mismatch('must be a number (a double)');
        });
      case 'string':
        return add(STRING, (json) => {
          if (typeof json !== 'string') throw new Mismatch('must be a string');
          return json;
        });
      case 'bytes':
        return add(STRING, (json) => {
          const bytes = typeof json === 'string' ? base64(json) : undefined;
          if (bytes === undefined) throw new Mismatch('must be base64 text (bytes)');
          return bytes;
        });
      default:
        return add(0, () => {
          throw new Mismatch(`has a type this reader does not know (${name})`);
        });
    }
  }

  /** A long type of the user's (avsc's `LongType.__with`): given the 64 bits, as its binary reader is. */
  private abstractLong(type: avsc.Type, avro: AvscType): Node {
    const long = exactLong(avsc);
    return this.add(
      type,
      NUMBER,
      ['long'],
      (json) => {
        const value = typeof json === 'number' && Number.isSafeInteger(json) ? BigInt(json) : json;
        if (typeof value !== 'bigint' || value < LONG_MIN || value > LONG_MAX)
          throw new Mismatch('must be a long (a 64-bit integer)');
        return avro.fromBuffer(long.toBuffer(value));
      },
      ['int'],
    );
  }

  /** A logical type of the user's avsc `Type`: its underlying value, then the type's own conversion. */
  private logical(type: avsc.Type, avro: AvscType): Node {
    const underlying = this.node(avro.underlyingType!);
    const node: Node = {
      read: (json) => avro._fromValue!(underlying.read(json)),
      kinds: underlying.kinds,
      names: underlying.names,
      promotedFrom: underlying.promotedFrom,
      type,
    };
    this.nodes.set(type, node);
    return node;
  }

  private enumType(type: avsc.Type, avro: AvscType): Node {
    const symbols = new Set(avro.symbols);
    // Schema resolution reads a symbol the reader lacks as the reader's default, when it has one.
    const fallback = avro.default;
    const listed =
      avro.symbols!.length > 12 ? `${avro.symbols!.slice(0, 12).join(', ')}…` : avro.symbols!.join(', ');
    return this.add(type, STRING, namesOf(avro), (json) => {
      if (typeof json === 'string') {
        if (symbols.has(json)) return json;
        if (fallback !== undefined) return fallback;
      }
      throw new Mismatch(`must be one of ${listed} (enum ${avro.name})`);
    });
  }

  private record(type: avsc.Type, avro: AvscType): Node {
    const Record = avro.getRecordConstructor!();
    const fields: Array<{
      readonly name: string;
      readonly aliases: readonly string[];
      /** A name `Object.prototype` has (`constructor`…): looked up as an own key only. */
      readonly inherited: boolean;
      readonly field: AvscField;
      read: Read;
    }> = [];
    // Registered before its fields are compiled: a recursive type reaches itself through them.
    const node = this.add(type, OBJECT, namesOf(avro), (json) => {
      if (!isObject(json)) throw new Mismatch(`must be an object (record ${avro.name})`);
      const values = new Array<unknown>(fields.length);
      for (let index = 0; index < fields.length; index++) {
        const field = fields[index]!;
        let value = field.inherited && !Object.hasOwn(json, field.name) ? undefined : json[field.name];
        // A field renamed in the reader schema keeps the writer's name as an alias.
        for (let alias = 0; value === undefined && alias < field.aliases.length; alias++)
          if (Object.hasOwn(json, field.aliases[alias]!)) value = json[field.aliases[alias]!];
        if (value === undefined) {
          value = field.field.defaultValue();
          if (value === undefined)
            throw new Mismatch('is missing, and the reader schema gives no default').at(field.name);
          values[index] = value;
          continue;
        }
        try {
          values[index] = field.read(value);
        } catch (error) {
          throw error instanceof Mismatch ? error.at(field.name) : error;
        }
      }
      return new Record(...values);
    });
    for (const field of avro.fields!)
      fields.push({
        name: field.name,
        aliases: field.aliases,
        inherited: field.name in Object.prototype,
        field,
        read: this.tolerant(field.type),
      });
    return node;
  }

  private union(type: avsc.Type, avro: AvscType): Node {
    const wrap = avro.typeName === 'union:wrapped';
    const branches = avro.types!.map((branch) => this.node(branch));
    const byKind = new Map<number, Node[]>();
    for (const kind of [NULL, BOOLEAN, NUMBER, STRING, ARRAY, OBJECT])
      byKind.set(
        kind,
        branches.filter((branch) => (branch.kinds & kind) !== 0),
      );
    // A writer's branch name: the reader's branch of that name, else the first it promotes to.
    const byName = new Map<string, Node>();
    for (const branch of branches)
      for (const name of branch.names) if (!byName.has(name)) byName.set(name, branch);
    for (const branch of branches)
      for (const name of branch.promotedFrom) if (!byName.has(name)) byName.set(name, branch);
    const listed = branches.map((branch) => typeLabel(branch.type)).join(', ');
    const out = (branch: Node, value: unknown) => (wrap ? branch.type.wrap(value) : value);
    const ambiguous = (a: Node, b: Node) =>
      new Mismatch(
        `is ambiguous: it reads as two of the union's branches (${typeLabel(a.type)}, ${typeLabel(b.type)}), into different data`,
      );
    return this.add(type, 0, [], (json) => {
      const kind = kindOf(json);
      let found: Node | undefined;
      let value: unknown;
      let refused: Mismatch | undefined;
      for (const branch of byKind.get(kind) ?? []) {
        let read: unknown;
        try {
          read = branch.read(json);
        } catch (error) {
          if (!(error instanceof Mismatch)) throw error;
          refused ??= error;
          continue;
        }
        if (found === undefined) {
          found = branch;
          value = read;
        } else if (!Object.is(read, value)) throw ambiguous(found, branch);
      }
      if (kind === OBJECT) {
        const key = soleKey(json);
        const branch = key === undefined ? undefined : byName.get(key);
        if (branch !== undefined) {
          let read: unknown;
          try {
            read = branch.read((json as { [key: string]: unknown })[key!]);
          } catch (error) {
            if (!(error instanceof Mismatch)) throw error;
            if (found === undefined) throw error;
            return out(found, value);
          }
          if (found !== undefined)
            throw new Mismatch(
              `is ambiguous: an object whose one key names a branch (${key}) reads as the union's ${typeLabel(found.type)} itself or as a wrapped ${typeLabel(branch.type)}`,
            );
          return out(branch, read);
        }
      }
      if (found !== undefined) return out(found, value);
      if (refused !== undefined && byKind.get(kind)!.length === 1) throw refused;
      throw new Mismatch(`fits none of the union's branches (${listed})`);
    });
  }
}

const FAILED = Symbol('failed');

function attempt(read: Read, json: unknown): unknown {
  try {
    return read(json);
  } catch (error) {
    if (error instanceof Mismatch) return FAILED;
    throw error;
  }
}

/** The bytes of base64 text as Buffer writes it (standard alphabet, padded), else `undefined`. */
function base64(text: string): Buffer | undefined {
  return text.length % 4 === 0 && BASE64.test(text) ? Buffer.from(text, 'base64') : undefined;
}

/** A named type's full name, its unqualified name, and its aliases. */
function namesOf(avro: AvscType): string[] {
  const name = avro.name!;
  const names = [name, name.slice(name.lastIndexOf('.') + 1)];
  for (const alias of avro.aliases ?? []) names.push(alias, alias.slice(alias.lastIndexOf('.') + 1));
  return [...new Set(names)];
}

/** How a type is named in a message: its name, or its type name. */
function typeLabel(type: avsc.Type): string {
  const avro = type as unknown as AvscType;
  return avro.name ?? avro.typeName.replace(/^logical:/, '');
}
