/**
 * Encodes JSON values with an Avro, Protobuf or JSON Schema schema into the bytes a Lambda function
 * receives in each schema-registry wire situation
 * (https://docs.aws.amazon.com/lambda/latest/dg/services-consume-kafka-events.html):
 * - `json`: the trigger has a registry and `EventRecordFormat: JSON`: JSON text, with schema metadata;
 * - `source`: `EventRecordFormat: SOURCE`: the encoded bytes without framing (the magic byte and schema id;
 *   a Protobuf message index stays, as in events captured from Lambda), with schema metadata;
 * - `confluent` / `glue`: no registry on the trigger: the producer serializer's framing, no metadata.
 * Used by `kafka-lambda event --value-avro|--value-proto|--value-json-schema` and the sample events.
 *
 * Values are JSON as the emulator prints the records it reads, so that what it prints can be sent again:
 * Avro `bytes`, `fixed` and `decimal` values as base64 text, an Avro `long` beyond 2^53 − 1 as a
 * `bigint` ({@link parseValueJson} reads JSON text so). Protobuf values are read in proto3's JSON
 * mapping, the well-known types' forms included (a Timestamp as RFC 3339 text); a .proto file's imports
 * are read as protoc reads them (`importPaths`). A schema that does not compile is refused saying what
 * and where (line and column), never quoting it: the libraries' own messages quote names or content.
 */
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Ajv, AnySchema, ErrorObject } from 'ajv';
import type * as Avsc from 'avsc';
import type * as Protobuf from 'protobufjs';
import { exactLongOptions, nearestFloat } from '../avro/long.ts';
import type { KafkaSchemaMetadata } from '../kafka-event/types.ts';
import { jsonSyntaxCause, shownPath } from '../middleware/errors.ts';
import { ProtoJsonMismatch, protoJsonReader } from '../protobuf/json.ts';
import { jsonSchemaDraft } from '../schema-registry/json-schema-draft.ts';
import { jsonPosition, jsonValueOffset } from '../text/json-position.ts';
import { lineAndColumn } from '../text/line-column.ts';
import { protoParseProblem } from '../text/proto-position.ts';
import { KafkaTestingError } from './errors.ts';

const require = createRequire(import.meta.url);

/**
 * The schema library a format needs, loaded when that format is asked for: avsc, protobufjs and ajv are
 * optional peer dependencies, and a project encoding Avro installs only avsc.
 */
function peer<T>(name: 'avsc' | 'protobufjs' | 'ajv', format: string, module: string = name): T {
  try {
    return require(module) as T;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw error;
    throw new SchemaEncodeError(`${format} values need the ${name} package: npm install --save-dev ${name}`, {
      cause: error,
    });
  }
}

/**
 * The schema language of {@link schemaEncoder}.
 *
 * @example
 * ```ts
 * const format: SchemaFormat = 'protobuf';
 * ```
 */
export type SchemaFormat = 'avro' | 'protobuf' | 'json-schema';

/**
 * The wire situation the encoded bytes are for (see the module comment).
 *
 * @example
 * ```ts
 * const wire: SchemaWire = 'confluent';
 * ```
 */
export type SchemaWire = 'json' | 'source' | 'confluent' | 'glue';

/**
 * Options of {@link schemaEncoder}.
 *
 * @example
 * ```ts
 * const options: SchemaEncoderOptions = { format: 'protobuf', schema: protoText, schemaPath: 'order.proto', type: 'shop.Order', wire: 'source', schemaId: '17' };
 * ```
 */
export interface SchemaEncoderOptions {
  format: SchemaFormat;
  /** The schema text: Avro JSON (.avsc), .proto source, or a JSON Schema document. */
  schema: string;
  /**
   * The schema file's path, named in the errors about the schema. A .proto file's imports are looked
   * for in its folder first.
   */
  schemaPath?: string;
  /**
   * Protobuf only: the folders an import (`import "shop/money.proto";`) is looked for in after the
   * importing file's own folder, in order, as protoc's `--proto_path` (`-I`) folders; default: the
   * working directory, as protoc's. The well-known types (`google/protobuf/timestamp.proto`…) are
   * protobufjs's own; Google's common types (`google/type/money.proto`…), which Confluent's registry
   * knows without a schema reference but protobufjs does not ship, are looked for here too.
   */
  importPaths?: readonly string[];
  /** Protobuf only: the message type, fully qualified (`shop.Order`). */
  type?: string;
  wire: SchemaWire;
  /**
   * The writer schema's id: Confluent's decimal id (default `1`), or with `wire: 'glue'` the schema
   * version UUID (default a fixed placeholder UUID).
   */
  schemaId?: string;
}

/**
 * A value encoded for one wire situation: the record's bytes and, for `json`/`source`, the schema
 * metadata Lambda adds (`valueSchemaMetadata` / `keySchemaMetadata`).
 *
 * @example
 * ```ts
 * const { value, schemaMetadata } = encode({ id: 'o-1' });
 * ```
 */
export interface EncodedValue {
  bytes: Uint8Array;
  schemaMetadata?: KafkaSchemaMetadata;
}

/**
 * A value does not fit the schema, or the schema cannot be compiled; the message names the problem,
 * never the value.
 *
 * @example
 * ```ts
 * catch (error) { if (error instanceof SchemaEncodeError) console.error(error.message); }
 * ```
 */
export class SchemaEncodeError extends KafkaTestingError {
  override readonly name: string = 'SchemaEncodeError';
}

const GLUE_PLACEHOLDER_ID = '0b4c7d1e-2f3a-4b5c-8d6e-7f8091a2b3c4';
const DATA_FORMATS = { avro: 'AVRO', protobuf: 'PROTOBUF', 'json-schema': 'JSON' } as const;

/**
 * Compiles the schema once and returns an encoder of JSON values for the wire situation.
 *
 * @example
 * ```ts
 * const encode = schemaEncoder({ format: 'avro', schema: readFileSync('order.avsc', 'utf8'), wire: 'confluent', schemaId: '17' });
 * const { bytes } = encode({ id: 'o-1', total: 12.5 }); // 0x00 0x00000011 + Avro
 * ```
 * @throws SchemaEncodeError when the schema does not compile (and, from the encoder, when a value does not fit).
 */
export function schemaEncoder(options: SchemaEncoderOptions): (value: unknown) => EncodedValue {
  const { wire } = options;
  if (!['json', 'source', 'confluent', 'glue'].includes(wire))
    throw new SchemaEncodeError(`format must be json, source, confluent or glue, not ${String(wire)}`);
  const schemaId = options.schemaId ?? (wire === 'glue' ? GLUE_PLACEHOLDER_ID : '1');
  if (wire === 'glue' && !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(schemaId))
    throw new SchemaEncodeError('a Glue schema id is a schema version UUID');
  if (wire === 'confluent' && !/^\d{1,10}$/.test(schemaId))
    throw new SchemaEncodeError('a Confluent schema id is a decimal integer');
  const codec = compile(options);
  return (value) => {
    const { encoded, json, indexes, glueIndex } = codec(value);
    const metadata = { dataFormat: DATA_FORMATS[options.format], schemaId };
    if (wire === 'json') return { bytes: Buffer.from(json), schemaMetadata: metadata };
    // Confluent writes the message's path as an array (`[0]` as a single zero), Glue one varint.
    const glue = wire === 'glue' || (wire === 'source' && schemaId.includes('-'));
    const messageIndex = Buffer.from(
      indexes === undefined
        ? []
        : glue
          ? varint(glueIndex!)
          : indexes.length === 1 && indexes[0] === 0
            ? [0]
            : [zigzag(indexes.length), ...indexes.map(zigzag)].flat(),
    );
    if (wire === 'source') return { bytes: Buffer.concat([messageIndex, encoded]), schemaMetadata: metadata };
    if (wire === 'confluent') {
      const header = Buffer.alloc(5);
      header.writeInt32BE(Number(schemaId), 1);
      return { bytes: Buffer.concat([header, messageIndex, encoded]) };
    }
    const header = Buffer.concat([Buffer.from([3, 0]), Buffer.from(schemaId.replaceAll('-', ''), 'hex')]);
    return { bytes: Buffer.concat([header, messageIndex, encoded]) };
  };
}

type Codec = (value: unknown) => { encoded: Buffer; json: string; indexes?: number[]; glueIndex?: number };

function compile(options: SchemaEncoderOptions): Codec {
  if (options.format === 'avro') return compileAvro(options);
  if (options.format === 'protobuf') return compileProtobuf(options);
  return compileJsonSchema(options);
}

/** `path: ` before a message about the schema file, when its path is known. */
function about(path: string | undefined): string {
  return path === undefined ? '' : `${path}: `;
}

/**
 * A schema file's JSON (Avro's .avsc, a JSON Schema document). A file that is not JSON (the wrong file
 * given) is refused saying where parsing stopped, never quoting it as V8's message would.
 */
function parseSchemaJson(text: string, what: string, path: string | undefined): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const cause = jsonSyntaxCause(error, 'the file', jsonPosition(text));
    throw new SchemaEncodeError(
      `${about(path)}not ${what}: ${text.trim() === '' ? 'the file is empty' : `not JSON: ${cause.message}`}`,
      { cause },
    );
  }
}

/** ` at line L column C` of the value at `path` in a schema file's JSON text, or `''` when it has none. */
function jsonWhere(text: string, path: readonly (string | number)[] | undefined): string {
  const offset = path === undefined ? undefined : jsonValueOffset(text, path);
  return offset === undefined ? '' : ` at ${lineAndColumn(text, offset)}`;
}

/**
 * A schema library's refusal of a schema, its message withheld (it quotes names or content of the
 * schema): the error thrown says what kind of problem and where, its cause says so too (a logger
 * printing causes writes nothing of the schema).
 */
function schemaRefusal(message: string, library: string): SchemaEncodeError {
  return new SchemaEncodeError(message, {
    cause: new Error(`${library} refused the schema (its message is withheld: it quotes the schema)`),
  });
}

const isObject = (value: unknown): value is { [key: string]: unknown } =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Base64 text, standard or URL-safe alphabet, padding optional (what Buffer decodes without loss). */
const BASE64 = /^(?:[A-Za-z0-9+/\-_]{4})*(?:[A-Za-z0-9+/\-_]{2}(?:==)?|[A-Za-z0-9+/\-_]{3}=?)?$/;

// ---------------------------------------------------------------------------------------------------
// Avro

/**
 * Avro: a value is JSON as the emulator prints a record it read (lib/emulator/schema-registry.ts), so
 * that what it prints can be sent again: `bytes` and `fixed` values, a `decimal`'s among them (its
 * unscaled two's-complement integer), are base64 text; unions as avsc writes them (a union that JSON
 * cannot tell apart wrapped as `{"branch": value}`).
 */
function compileAvro(options: SchemaEncoderOptions): Codec {
  const avsc = peer<typeof Avsc>('avsc', 'Avro');
  const schema = parseSchemaJson(options.schema, 'a valid Avro schema', options.schemaPath);
  const decimals = new WeakSet<Avsc.Type>();
  // A long is written with all of its 64 bits (a number or a bigint), as the decoder reads it.
  const exact = exactLongOptions(avsc);
  let type: Avsc.Type;
  try {
    type = avsc.Type.forSchema(schema as Avsc.Schema, {
      registry: exact.registry,
      // A decimal is compiled as the bytes or fixed it is written as (as the emulator's reader does,
      // with no logical types), and remembered to say what a value of it must be.
      typeHook: (inner, opts) => {
        if (!isObject(inner) || inner.logicalType !== 'decimal') return exact.typeHook(inner, opts);
        if (inner.type !== 'bytes' && inner.type !== 'fixed') return exact.typeHook(inner, opts);
        const { logicalType: _decimal, ...plain } = inner;
        const compiled = avsc.Type.forSchema(plain as Avsc.Schema, opts);
        decimals.add(compiled);
        return compiled;
      },
    });
  } catch (error) {
    throw schemaRefusal(
      `${about(options.schemaPath)}${avroSchemaProblem(error as Error, schema, options.schema)} (its message is withheld: it quotes the schema)`,
      'avsc',
    );
  }
  return (value) => {
    const avroValue = avroFromJson(type, value);
    const problems = new Map<string, string>();
    const valid = type.isValid(avroValue, {
      errorHook: (path, _any, at) =>
        problems.set(shownPath(path.map(index)) || '(root)', avroExpected(at, decimals)),
    });
    if (!valid)
      throw new SchemaEncodeError(
        `value does not fit the Avro schema at ${[...problems].map(([path, expected]) => `${path} (expected ${expected})`).join(', ')}`,
      );
    return { encoded: type.toBuffer(avroValue), json: JSON.stringify(avroValue, bytesAsBase64) };
  };
}

/**
 * The value avsc takes for JSON `json` of `type`: base64 text where bytes or a fixed is (a decimal's
 * among them) becomes a Buffer; anything else stays as it is, for avsc's check to refuse where it
 * does not fit.
 */
function avroFromJson(type: Avsc.Type, json: unknown): unknown {
  switch (type.typeName) {
    // An integer beyond 2^53 − 1 (a bigint, see parseValueJson) is the nearest double or float, and
    // a number for an int too (beyond its range: refused as any number that does not fit).
    case 'int':
    case 'double':
      return typeof json === 'bigint' ? Number(json) : json;
    case 'float':
      return typeof json === 'bigint' ? nearestFloat(json) : json;
    case 'bytes':
    case 'fixed':
      return typeof json === 'string' && BASE64.test(json) ? Buffer.from(json, 'base64') : json;
    case 'record':
    case 'error': {
      if (!isObject(json)) return json;
      const record = { ...json };
      for (const field of (type as Avsc.types.RecordType).fields)
        if (Object.hasOwn(json, field.name)) record[field.name] = avroFromJson(field.type, json[field.name]);
      return record;
    }
    case 'array':
      return Array.isArray(json)
        ? json.map((item) => avroFromJson((type as Avsc.types.ArrayType).itemsType, item))
        : json;
    case 'map':
      return isObject(json)
        ? Object.fromEntries(
            Object.entries(json).map(([key, item]) => [
              key,
              avroFromJson((type as Avsc.types.MapType).valuesType, item),
            ]),
          )
        : json;
    case 'union:unwrapped': {
      const branches = (type as Avsc.types.UnwrappedUnionType).types;
      // Text is a string where the union has one: base64 is read as bytes only where it cannot be.
      if (typeof json === 'string' && branches.some((branch) => branch.typeName === 'string')) return json;
      for (const branch of branches) {
        const converted = avroFromJson(branch, json);
        if (branch.isValid(converted)) return converted;
      }
      return json;
    }
    case 'union:wrapped': {
      if (!isObject(json)) return json;
      const keys = Object.keys(json);
      const branch = (type as Avsc.types.WrappedUnionType).types.find((b) => b.branchName === keys[0]);
      return keys.length === 1 && branch ? { [keys[0]!]: avroFromJson(branch, json[keys[0]!]) } : json;
    }
    default:
      return json;
  }
}

/** What a value of `type` is written as in JSON, for the error saying a value does not fit. */
function avroExpected(type: Avsc.Type, decimals: WeakSet<Avsc.Type>): string {
  const size = (type as { size?: number }).size;
  if (decimals.has(type))
    return `decimal: base64 text of its unscaled two's-complement integer${size === undefined ? '' : ` (${size} bytes)`}`;
  switch (type.typeName) {
    case 'bytes':
      return 'bytes: base64 text';
    case 'fixed':
      return `fixed: base64 text of ${size} bytes`;
    case 'null':
      return 'null';
    case 'boolean':
      return 'true or false';
    case 'int':
      return 'an int, a 32-bit integer';
    case 'long':
    case 'abstract:long':
      return 'a long, an integer from −2^63 to 2^63 − 1';
    case 'float':
    case 'double':
      return `a number (${type.typeName})`;
    case 'string':
      return 'a string';
    case 'enum':
      return 'a symbol of the enum';
    case 'array':
      return 'an array';
    case 'map':
      return 'an object (a map)';
    case 'record':
    case 'error':
      return 'an object (a record)';
    case 'union:wrapped':
      return 'a union branch, null or wrapped as {"<branch type name>": value}';
    default:
      return "a value of one of the union's branches";
  }
}

/**
 * JSON of an avsc value: a Buffer (bytes, fixed) as base64 text, a long beyond 2^53 − 1 (a bigint) as
 * its digits, as the emulator prints them.
 */
function bytesAsBase64(_key: string, value: unknown): unknown {
  const buffer = value as { type?: unknown; data?: unknown };
  if (buffer && buffer.type === 'Buffer' && Array.isArray(buffer.data))
    return Buffer.from(buffer.data as number[]).toString('base64');
  return typeof value === 'bigint' ? (JSON as RawJson).rawJSON(value.toString()) : value;
}

/** `JSON.rawJSON` (Node ≥ 21), not yet in TypeScript's lib. */
type RawJson = JSON & { rawJSON(text: string): unknown };

/**
 * The value of JSON text, for the encoder of `format`. For Avro, an integer written in digits that a
 * number would round (beyond 2^53 − 1 either way) is a `bigint` of those digits: the encoder writes it
 * exactly where the schema has a `long` (refusing it beyond 64 bits) and as the nearest number where it
 * has a `float` or `double`. The digits are the reviver's source text (TC39 "JSON.parse source text
 * access", https://github.com/tc39/proposal-json-parse-with-source, in Node since 21); a number in
 * another form (`1e3`, `1.0`) stays a number, which a `long` takes only when it is a safe integer.
 * Other formats: `JSON.parse`. Throws JSON.parse's `SyntaxError` for text that is not JSON.
 *
 * @example
 * ```ts
 * parseValueJson('{"id":9007199254740993}', 'avro'); // { id: 9007199254740993n }
 * ```
 */
export function parseValueJson(text: string, format: SchemaFormat): unknown {
  if (format !== 'avro') return JSON.parse(text);
  return JSON.parse(text, (_key, value: unknown, context?: { source?: string }) =>
    typeof value === 'number' &&
    !Number.isSafeInteger(value) &&
    context?.source !== undefined &&
    /^-?\d+$/.test(context.source)
      ? BigInt(context.source)
      : value,
  );
}

const AVRO_PRIMITIVES = new Set(['null', 'boolean', 'int', 'long', 'float', 'double', 'bytes', 'string']);

/**
 * What is wrong with an Avro schema avsc refused, and where when it can be found, from avsc's message
 * (which quotes names, defaults or the schema itself: read here, never shown).
 */
function avroSchemaProblem(error: Error, schema: unknown, text: string): string {
  const message = error.message;
  const quoted = (pattern: RegExp) => {
    const found = pattern.exec(message)?.[1];
    if (found === undefined) return undefined;
    try {
      return JSON.parse(found) as unknown;
    } catch {
      return found;
    }
  };
  const kinds: Array<[RegExp, string, () => (string | number)[] | undefined]> = [
    [
      /^undefined type name: (.+)$/s,
      'a type name is neither a primitive type nor a named type defined before it',
      () => avroTypeReference(schema, String(quoted(/^undefined type name: (.+)$/s))),
    ],
    [
      /^duplicate type name: /,
      'a named type (record, enum, fixed) is defined twice',
      () => avroSecondDefinition(schema, String(quoted(/^duplicate type name: (.+)$/s))),
    ],
    [
      /^unknown type: /,
      'a "type" is not an Avro type',
      () =>
        avroFind(schema, (node) => isObject(node) && node.type === quoted(/^unknown type: (.+)$/s), 'type'),
    ],
    [
      /^invalid (?:\S+ )?name: /,
      'a name is not a valid Avro name (a letter or _, then letters, digits or _; dots between the parts of a full name)',
      () => {
        const name = quoted(/^invalid (?:\S+ )?name: (.+)$/s);
        return avroFind(schema, (node) => isObject(node) && node.name === name, 'name');
      },
    ],
    [/^missing name property/, 'a named type (record, enum, fixed) has no "name"', () => undefined],
    [/^cannot rename primitive type/, "a named type has a primitive type's name", () => undefined],
    [/^duplicate field name/, 'a record has two fields of the same name', () => undefined],
    [/^non-array record fields/, 'a record\'s "fields" is not an array', () => undefined],
    [/^missing map values/, 'a map has no "values"', () => undefined],
    [/^missing array items/, 'an array has no "items"', () => undefined],
    [/^invalid \S+ size/, 'a fixed has no valid "size"', () => undefined],
    [
      /^(?:invalid enum symbols|invalid \S+ symbol|duplicate \S+ symbol)/,
      "an enum's symbols are not valid (names, none twice)",
      () => undefined,
    ],
    [
      /^(?:incompatible field default|invalid \S+ default)/,
      'a default does not fit its type',
      () => undefined,
    ],
    [/^invalid order/, 'a field\'s "order" is not ascending, descending or ignore', () => undefined],
    [
      /^(?:empty union|non-array union|unions cannot be directly|duplicate union branch)/,
      'a union is not valid (empty, directly in a union, or with two branches of one type)',
      () => undefined,
    ],
    [/^invalid type: null/, 'a type is null (the null type is written "null")', () => undefined],
  ];
  for (const [pattern, kind, locate] of kinds) {
    if (!pattern.test(message)) continue;
    let path: (string | number)[] | undefined;
    try {
      path = locate();
    } catch {
      path = undefined;
    }
    return `not a valid Avro schema${jsonWhere(text, path)}: ${kind}`;
  }
  return 'not a valid Avro schema';
}

/** Every node of a parsed schema, with its path, in document order. */
function* jsonNodes(
  node: unknown,
  path: (string | number)[] = [],
): Generator<[unknown, (string | number)[]]> {
  yield [node, path];
  if (Array.isArray(node)) for (const [i, item] of node.entries()) yield* jsonNodes(item, [...path, i]);
  else if (isObject(node))
    for (const [key, item] of Object.entries(node)) yield* jsonNodes(item, [...path, key]);
}

/** The path of the first node `matches`, with `key` after it; `undefined` when none does. */
function avroFind(
  schema: unknown,
  matches: (node: unknown) => boolean,
  key: string,
): (string | number)[] | undefined {
  for (const [node, path] of jsonNodes(schema)) if (matches(node)) return [...path, key];
  return undefined;
}

/** Where a type slot of the schema names `fullName` (written in full or without its namespace). */
function avroTypeReference(schema: unknown, fullName: string): (string | number)[] | undefined {
  for (const [node, path] of jsonNodes(schema)) {
    if (typeof node !== 'string' || AVRO_PRIMITIVES.has(node)) continue;
    if (node !== fullName && !fullName.endsWith(`.${node}`)) continue;
    // A type slot: the schema itself, a "type", "items" or "values", or a branch of a union.
    const slot = path.at(-1);
    if (
      path.length === 0 ||
      slot === 'type' ||
      slot === 'items' ||
      slot === 'values' ||
      typeof slot === 'number'
    )
      return path;
  }
  return undefined;
}

/** Where the second definition of the named type `fullName` gives its name. */
function avroSecondDefinition(schema: unknown, fullName: string): (string | number)[] | undefined {
  let seen = 0;
  for (const [node, path] of jsonNodes(schema)) {
    if (
      !isObject(node) ||
      typeof node.name !== 'string' ||
      !['record', 'error', 'enum', 'fixed'].includes(String(node.type))
    )
      continue;
    if (node.name !== fullName && !fullName.endsWith(`.${node.name}`)) continue;
    if (++seen === 2) return [...path, 'name'];
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------------
// JSON Schema

type AjvClass = new (options: object) => Ajv;

/** The Ajv class of a schema's dialect (`$schema`): 2020-12 and 2019-09 have their own, as the emulator's. */
function ajvClass(schema: unknown): AjvClass {
  const draft = jsonSchemaDraft(schema);
  if (draft === '07') return peer<{ Ajv: AjvClass }>('ajv', 'JSON Schema').Ajv;
  return peer<{ default: AjvClass }>(
    'ajv',
    'JSON Schema',
    draft === '2020-12' ? 'ajv/dist/2020.js' : 'ajv/dist/2019.js',
  ).default;
}

function compileJsonSchema(options: SchemaEncoderOptions): Codec {
  const schema = parseSchemaJson(options.schema, 'a valid JSON Schema', options.schemaPath);
  const AjvDialect = ajvClass(schema);
  // Ajv warns on the console of an unknown format, quoting it: formats are not checked (as by the
  // emulator's reader), without a word.
  const ajv = new AjvDialect({ strict: false, logger: false });
  let validate: ReturnType<Ajv['compile']>;
  try {
    if (!ajv.validateSchema(schema as AnySchema)) throw new InvalidAgainstMetaSchema(ajv.errors ?? []);
    validate = ajv.compile(schema as AnySchema);
  } catch (error) {
    throw schemaRefusal(
      `${about(options.schemaPath)}${jsonSchemaProblem(error as Error, schema, options.schema)}`,
      'Ajv',
    );
  }
  return (value) => {
    if (!validate(value)) {
      // Ajv's messages say what the schema expects; where is the pointer, its keys masked like Avro's.
      const problems = (validate.errors ?? []).map(
        (e) => `${shownPath(e.instancePath.split('/').slice(1).map(index)) || '(root)'} ${e.message}`,
      );
      throw new SchemaEncodeError(`value does not fit the JSON Schema: ${problems.join('; ')}`);
    }
    const json = JSON.stringify(value);
    return { encoded: Buffer.from(json), json };
  };
}

/** The schema does not validate against its dialect's meta-schema: Ajv's errors, with their places. */
class InvalidAgainstMetaSchema extends Error {
  readonly errors: readonly ErrorObject[];
  constructor(errors: readonly ErrorObject[]) {
    super('schema is invalid');
    this.errors = errors;
  }
}

/**
 * What is wrong with a JSON Schema Ajv refused, and where: Ajv's own messages quote the schema's
 * property names (`data/properties/secret/type must be…`), a `$ref` or a pattern.
 */
function jsonSchemaProblem(error: Error, schema: unknown, text: string): string {
  const withheld = " (Ajv's message is withheld: it quotes the schema)";
  if (error instanceof InvalidAgainstMetaSchema) {
    // The first place the meta-schema refused, and everything it said of that place (meta-schema words).
    const first = error.errors[0]?.instancePath ?? '';
    const messages = [...new Set(error.errors.filter((e) => e.instancePath === first).map((e) => e.message))];
    return `not a valid JSON Schema${jsonWhere(text, pointerPath(schema, first))}: ${messages.join(', ') || 'it does not fit its meta-schema'}`;
  }
  const missingRef = (error as { missingRef?: unknown }).missingRef;
  if (typeof missingRef === 'string') {
    const at = avroFind(
      schema,
      (node) =>
        isObject(node) &&
        typeof node.$ref === 'string' &&
        (node.$ref === missingRef || missingRef.endsWith(node.$ref) || node.$ref.endsWith(missingRef)),
      '$ref',
    );
    return `not a valid JSON Schema${jsonWhere(text, at)}: a "$ref" names a schema the file does not hold (none is fetched)${withheld}`;
  }
  if (/^no schema with key or ref /.test(error.message))
    return `not a valid JSON Schema${jsonWhere(text, ['$schema'])}: its "$schema" is a dialect Ajv does not know here (draft-07, 2019-09 and 2020-12 are)${withheld}`;
  if (error instanceof SyntaxError && /regular expression/i.test(error.message)) {
    const at = avroFind(
      schema,
      (node) => {
        if (!isObject(node) || typeof node.pattern !== 'string') return false;
        try {
          new RegExp(node.pattern, 'u');
          return false;
        } catch {
          return true;
        }
      },
      'pattern',
    );
    return `not a valid JSON Schema${jsonWhere(text, at)}: a pattern is not a valid regular expression${withheld}`;
  }
  return `not a valid JSON Schema${withheld}`;
}

/** A JSON pointer of the schema as the path {@link jsonValueOffset} takes (array indexes as numbers). */
function pointerPath(schema: unknown, pointer: string): (string | number)[] | undefined {
  const path: (string | number)[] = [];
  let node = schema;
  for (const raw of pointer.split('/').slice(1)) {
    const segment = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (Array.isArray(node)) {
      if (!/^\d+$/.test(segment)) return undefined;
      path.push(Number(segment));
      node = node[Number(segment)];
    } else if (isObject(node)) {
      path.push(segment);
      node = node[segment];
    } else return undefined;
  }
  return path;
}

/**
 * A path segment of avsc's `errorHook` or of Ajv's `instancePath` (a JSON pointer), where an array index
 * is a digit string: as a number, so that {@link shownPath} keeps it. A map key of digits alone (below
 * 2^32 − 1) therefore shows, as an identifier-like one does; any other key of the value is `*`.
 */
function index(segment: string): string | number {
  return /^\d+$/.test(segment) ? Number(segment) : segment;
}

// ---------------------------------------------------------------------------------------------------
// Protobuf

/** A .proto file read for the schema: the schema's own, or one it imports (directly or not). */
interface ProtoFile {
  /** Where it was read; `undefined` for a schema given as text alone. */
  readonly path: string | undefined;
  readonly text: string;
  /** The file parsed alone: its package and its own messages (the message indexes count these). */
  readonly own: Protobuf.IParserResult;
  /** Its imports of files other than protobufjs's well-known types, as written, each with its file. */
  readonly imports: Array<{ readonly name: string; readonly file: ProtoFile }>;
}

/** All the files of a schema compiled into one root, resolved. */
interface LoadedProto {
  readonly root: Protobuf.Root;
  readonly top: ProtoFile;
}

function compileProtobuf(options: SchemaEncoderOptions): Codec {
  if (!options.type)
    throw new SchemaEncodeError('a Protobuf schema needs the message type (--type shop.Order)');
  const protobuf = peer<typeof Protobuf>('protobufjs', 'Protobuf');
  const { root, top } = loadProto(protobuf, options);
  let type: Protobuf.Type;
  try {
    type = root.lookupType(options.type);
  } catch (error) {
    throw new SchemaEncodeError(
      `${about(options.schemaPath)}the .proto file has no message ${options.type}`,
      {
        cause: error,
      },
    );
  }
  // The message indexes of the framing say where the message is among those of the schema's own file.
  const ownScope = (
    top.own.package ? top.own.root.lookup(top.own.package) : top.own.root
  ) as Protobuf.Namespace;
  const ownType = top.own.root.lookup(type.fullName);
  if (!(ownType instanceof protobuf.Type))
    throw new SchemaEncodeError(
      `${about(options.schemaPath)}${options.type} is a message of a file the .proto file imports, not of the file itself: give the file that defines it (the framing's message index counts the messages of the schema's own file)`,
    );
  const indexes = messagePath(protobuf, ownScope, ownType);
  const glueIndex = glueMessageIndex(protobuf, ownScope, ownType);
  // protobufjs's verify and fromObject take only the names the type was parsed with, and fromObject
  // drops any other key: a misspelt field was written as an empty message. The proto3 JSON reader
  // refuses unknown fields and enum values and checks integer ranges, taking both field names; the
  // well-known types' JSON forms (a Timestamp as RFC 3339 text…) are read into their fields first.
  const read = protoJsonReader(type, 'strict');
  const wellKnown = new WellKnownJson(protobuf, root);
  return (value) => {
    let fields: { [key: string]: unknown };
    try {
      fields = read(wellKnown.message(type, value, []));
    } catch (error) {
      if (!(error instanceof ProtoJsonMismatch)) throw error;
      throw new SchemaEncodeError(`value does not fit ${options.type} at ${error.message}`);
    }
    const message = type.fromObject(fields);
    const encoded = Buffer.from(type.encode(message).finish());
    const object = type.toObject(message, { longs: String, enums: String, bytes: String, defaults: true });
    return { encoded, json: JSON.stringify(object), indexes, glueIndex };
  };
}

/** A .proto file protobufjs refused: what and where, never its message (it quotes the file). */
function protoRefusal(path: string | undefined, problem: string): SchemaEncodeError {
  return schemaRefusal(
    `${about(path)}not a valid .proto file${problem} (its message is withheld: it quotes the file)`,
    'protobufjs',
  );
}

/** protobufjs's well-known types: its common types, and the .proto files it ships (descriptor.proto…). */
const WELL_KNOWN_FILE = /^google\/protobuf\/[A-Za-z0-9_/]+\.proto$/;

/**
 * The imports Confluent's Protobuf serializer does not register as schema references: the files its
 * registry knows by name (`ProtobufSchema.knownTypes()`, the `KNOWN_DEPENDENCIES` of
 * protobuf-provider/src/main/java/io/confluent/kafka/schemaregistry/protobuf/ProtobufSchema.java in
 * https://github.com/confluentinc/schema-registry), which `resolveDependencies` of
 * `AbstractKafkaProtobufSerializer` skips while `skip.known.types` is true (its default,
 * `KafkaProtobufSerializerConfig`). Every other import is registered, google/protobuf files not in the
 * list among them (compiler/plugin.proto). protobufjs ships the google/protobuf ones; the google/type and
 * confluent ones are read from the import folders like any other import.
 */
const CONFLUENT_KNOWN_FILES: ReadonlySet<string> = new Set([
  'confluent/meta.proto',
  'confluent/type/decimal.proto',
  ...[
    'calendar_period',
    'color',
    'date',
    'datetime',
    'dayofweek',
    'decimal',
    'expr',
    'fraction',
    'interval',
    'latlng',
    'money',
    'month',
    'phone_number',
    'postal_address',
    'quaternion',
    'timeofday',
  ].map((name) => `google/type/${name}.proto`),
  ...[
    'any',
    'api',
    'descriptor',
    'duration',
    'empty',
    'field_mask',
    'source_context',
    'struct',
    'timestamp',
    'type',
    'wrappers',
  ].map((name) => `google/protobuf/${name}.proto`),
]);

/** Where protobufjs ships a .proto file (`google/protobuf/compiler/plugin.proto`…), or `undefined`. */
function shippedByProtobufjs(name: string): string | undefined {
  if (!WELL_KNOWN_FILE.test(name)) return undefined;
  try {
    return require.resolve(`protobufjs/${name}`);
  } catch {
    return undefined;
  }
}

/**
 * The schema's .proto file and every file it imports, parsed into one root and resolved, as protoc
 * reads them: an import is looked for in the importing file's folder, then in each of `importPaths`
 * (default: the working directory); `google/protobuf/*.proto` are protobufjs's well-known types.
 */
function loadProto(
  protobuf: typeof Protobuf,
  options: Pick<SchemaEncoderOptions, 'schema' | 'schemaPath' | 'importPaths'>,
): LoadedProto {
  const importPaths = options.importPaths?.length ? options.importPaths : ['.'];
  const root = new protobuf.Root();
  const loaded = new Map<string, ProtoFile>();
  const loading = new Set<string>();
  const wellKnown = new Set<string>();
  const files: ProtoFile[] = [];
  const parse = (text: string) => protobuf.parse(text, { keepCase: true });

  const addWellKnown = (name: string): boolean => {
    if (!WELL_KNOWN_FILE.test(name)) return false;
    if (wellKnown.has(name)) return true;
    const common = protobuf.common.get(name);
    if (common?.nested) {
      wellKnown.add(name);
      root.addJSON(common.nested);
      return true;
    }
    let shipped: string;
    try {
      shipped = require.resolve(`protobufjs/${name}`);
    } catch {
      return false; // not one of protobufjs's: looked for as the user's
    }
    wellKnown.add(name);
    const parsed = protobuf.parse(readFileSync(shipped, 'utf8'), root, { keepCase: true });
    for (const inner of parsed.imports ?? []) addWellKnown(inner);
    return true;
  };

  const load = (text: string, path: string | undefined): ProtoFile => {
    let own: Protobuf.IParserResult;
    try {
      own = parse(text);
    } catch (error) {
      const problem = protoParseProblem((error as Error).message, text, parse);
      throw protoRefusal(path, problem === undefined ? '' : `: ${problem}`);
    }
    const file: ProtoFile = { path, text, own, imports: [] };
    const real = path === undefined ? undefined : realpathSync(path);
    if (real !== undefined) loading.add(real);
    for (const name of [...(own.imports ?? []), ...(own.weakImports ?? [])]) {
      const known = CONFLUENT_KNOWN_FILES.has(name);
      // A file Confluent knows and protobufjs has: no file of the user's, no reference.
      if (known && addWellKnown(name)) continue;
      const folders = [...(path === undefined ? [] : [dirname(path)]), ...importPaths];
      // One protobufjs ships but Confluent does not know is registered as a reference, as the user's are.
      const found =
        (known ? undefined : shippedByProtobufjs(name)) ??
        folders.map((folder) => join(folder, name)).find(isFile);
      if (found === undefined && known)
        // Named: one of Confluent's fixed list, not the user's text.
        throw new SchemaEncodeError(
          `${about(path)}the import${protoImportWhere(text, name)} of ${name}, one of the files Confluent's registry knows by name (not registered as a schema reference), is in none of: ${folders.map(shownFolder).join(', ')}; protobufjs does not ship it: give the folder holding a copy (${name} under it, as in ${name.startsWith('confluent/') ? "Confluent's schema-registry repository" : "Google's googleapis repository"}) with --proto-path, as protoc's -I`,
        );
      if (found === undefined)
        throw new SchemaEncodeError(
          `${about(path)}an import${protoImportWhere(text, name)} names a file that is in none of: ${folders.map(shownFolder).join(', ')} (give the folder its path starts from with --proto-path, as protoc's -I)`,
        );
      const foundReal = realpathSync(found);
      if (loading.has(foundReal))
        throw new SchemaEncodeError(
          `${about(path)}the import${protoImportWhere(text, name)} closes a cycle: the file imports itself through the files it imports (protoc refuses this too)`,
        );
      let imported = loaded.get(foundReal);
      if (imported === undefined) {
        let importedText: string;
        try {
          importedText = readFileSync(found, 'utf8');
        } catch (error) {
          throw new SchemaEncodeError(`${found}: cannot read it: ${(error as NodeJS.ErrnoException).code}`, {
            cause: error,
          });
        }
        imported = load(importedText, found);
        loaded.set(foundReal, imported);
      }
      // Read to encode, but not a reference: Confluent's registry has it (CONFLUENT_KNOWN_FILES).
      if (!known) file.imports.push({ name, file: imported });
    }
    if (real !== undefined) loading.delete(real);
    try {
      protobuf.parse(text, root, { keepCase: true });
    } catch (error) {
      // Parsed alone, it parsed: a name another file defined already.
      const problem = protoParseProblem((error as Error).message, text, parse);
      throw protoRefusal(
        path,
        `: ${problem ?? 'it does not fit the files it imports'} (with the files it imports)`,
      );
    }
    files.push(file);
    return file;
  };

  const top = load(options.schema, options.schemaPath);
  try {
    root.resolveAll();
  } catch (error) {
    throw protoUnresolved(protobuf, (error as Error).message, root, files, top);
  }
  return { root, top };
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

const shownFolder = (folder: string) => (folder === '.' ? 'the working directory' : folder);

/**
 * The .proto text with its comments blanked (each character a space, line breaks kept), so that a
 * statement is found where it is, not in a comment; strings are kept.
 */
function blankProtoComments(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < text.length && text[j] !== c && text[j] !== '\n') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (text.startsWith('//', i) || text.startsWith('/*', i)) {
      const line = text[i + 1] === '/';
      const close = line ? text.indexOf('\n', i) : text.indexOf('*/', i + 2);
      const stop = close === -1 ? text.length : line ? close : close + 2;
      out += text.slice(i, stop).replace(/[^\r\n]/g, ' ');
      i = stop;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** ` at line L column C` of the import statement of `name` in a .proto text, or `''`. */
function protoImportWhere(text: string, name: string): string {
  const statement = /\bimport\s+(?:(?:public|weak)\s+)?("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')/g;
  for (const match of blankProtoComments(text).matchAll(statement))
    if (match[1]!.slice(1, -1) === name) return ` at ${lineAndColumn(text, match.index)}`;
  return '';
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A type name of the schema's files that resolves to nothing (a message or enum neither defined nor
 * imported): which file and where, when protobufjs's message (which quotes the name) lets it be found.
 */
function protoUnresolved(
  protobuf: typeof Protobuf,
  message: string,
  root: Protobuf.Root,
  files: readonly ProtoFile[],
  top: ProtoFile,
): SchemaEncodeError {
  let file: ProtoFile | undefined;
  let where = '';
  const names = /^no such Type or Enum '(.+?)' in Type (\S+)$/.exec(message);
  if (names) {
    const [, typeName, parentName] = names as unknown as [string, string, string];
    file = files.find((candidate) => candidate.own.root.lookup(parentName) instanceof protobuf.Type);
    const parent = root.lookup(parentName);
    const field =
      parent instanceof protobuf.Type ? parent.fieldsArray.find((f) => f.type === typeName) : undefined;
    if (file !== undefined && field !== undefined) {
      // `Money total = 2` or `map<string, Money> totals = 3`, with any label before it.
      const declaration = new RegExp(
        `(?<![\\w.])${escapeRegExp(typeName)}\\s*>?\\s*${escapeRegExp(field.name)}\\s*=\\s*${field.id}(?!\\d)`,
      ).exec(blankProtoComments(file.text));
      if (declaration) where = ` at ${lineAndColumn(file.text, declaration.index)}`;
    }
  }
  return protoRefusal(
    (file ?? top).path,
    `${where}: a type it names is defined neither in the file nor in a file it imports`,
  );
}

/**
 * A .proto file the schema imports, as Confluent's serializer registers it: under a subject named as
 * the import (Confluent's default reference subject name strategy), with its own imports as its
 * references. The files Confluent's registry knows by name are left out (google/protobuf's well-known
 * types, google/type's common types, confluent/meta.proto and confluent/type/decimal.proto), as
 * Confluent's serializer leaves them (`skip.known.types`, its default); a google/type or confluent file
 * is still read from the import folders to encode.
 *
 * @example
 * ```ts
 * const { imports } = protoImports({ schema, schemaPath: 'schemas/invoice.proto' });
 * // [{ name: 'money.proto', path: 'schemas/money.proto', schema: '…', references: [] }]
 * ```
 */
export interface ProtoImport {
  /** The import path as the importing file writes it (`money.proto`): the reference's name and subject. */
  readonly name: string;
  /** Where the file was found. */
  readonly path: string;
  /** The file's text. */
  readonly schema: string;
  /** The names of its own imports, the files Confluent's registry knows by name left out. */
  readonly references: readonly string[];
}

/**
 * The files a .proto schema imports (directly or not), each after the ones it imports itself, and the
 * names of the schema's own imports (its references), the files Confluent's registry knows by name
 * left out; see
 * {@link ProtoImport}. The files are compiled as `schemaEncoder` compiles them.
 *
 * @example
 * ```ts
 * const { imports, references } = protoImports({ schema: readFileSync(path, 'utf8'), schemaPath: path });
 * ```
 * @throws SchemaEncodeError as `schemaEncoder` does for a schema that does not compile.
 */
export function protoImports(options: Pick<SchemaEncoderOptions, 'schema' | 'schemaPath' | 'importPaths'>): {
  imports: ProtoImport[];
  references: string[];
} {
  const protobuf = peer<typeof Protobuf>('protobufjs', 'Protobuf');
  const { top } = loadProto(protobuf, options);
  const imports: ProtoImport[] = [];
  const byName = new Map<string, ProtoFile>();
  const visit = (name: string, file: ProtoFile) => {
    const seen = byName.get(name);
    if (seen === file) return;
    if (seen !== undefined)
      throw new SchemaEncodeError(
        `two imports written alike are different files (${seen.path}, ${file.path}): a registry holds one schema per subject, the import's name`,
      );
    byName.set(name, file);
    for (const inner of file.imports) visit(inner.name, inner.file);
    imports.push({
      name,
      path: file.path!,
      schema: file.text,
      references: file.imports.map((inner) => inner.name),
    });
  };
  for (const { name, file } of top.imports) visit(name, file);
  return { imports, references: top.imports.map(({ name }) => name) };
}

/** A JSON path as the proto3 JSON reader shows it: declared names and indexes, any other key `*`. */
function protoPath(path: readonly (string | number)[]): string {
  return path.length === 0 ? '(root)' : shownPath(path);
}

const TIMESTAMP =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;
const DURATION = /^(-)?(\d{1,12})(?:\.(\d{1,9}))?s$/;
/** 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z, the range of a google.protobuf.Timestamp. */
const TIMESTAMP_SECONDS = { min: -62_135_596_800, max: 253_402_300_799 };
const DURATION_MAX_SECONDS = 315_576_000_000n;
const WRAPPERS = new Set(
  ['Double', 'Float', 'Int64', 'UInt64', 'Int32', 'UInt32', 'Bool', 'String', 'Bytes'].map(
    (kind) => `google.protobuf.${kind}Value`,
  ),
);

/**
 * The well-known types' proto3 JSON forms (https://protobuf.dev/programming-guides/json/) read into the
 * fields the proto3 JSON reader takes: a Timestamp as RFC 3339 text, a Duration as `"1.5s"`, a wrapper
 * as its bare value, a Struct, Value or ListValue as any JSON, a FieldMask as `"a.b,c"`, an Any as
 * `{"@type": …, fields…}`. Their fields' form (`{"seconds": …, "nanos": …}`, as the emulator prints
 * them) is taken too; everything else is handed on as it is.
 */
class WellKnownJson {
  private readonly protobuf: typeof Protobuf;
  private readonly root: Protobuf.Root;
  private readonly fields = new Map<Protobuf.Type, Map<string, Protobuf.Field>>();
  private readonly readers = new Map<Protobuf.Type, (json: unknown) => { [key: string]: unknown }>();

  constructor(protobuf: typeof Protobuf, root: Protobuf.Root) {
    this.protobuf = protobuf;
    this.root = root;
  }

  message(type: Protobuf.Type, json: unknown, path: (string | number)[]): unknown {
    const name = type.fullName.slice(1);
    if (name === 'google.protobuf.Timestamp' && typeof json === 'string') return timestamp(json, path);
    if (name === 'google.protobuf.Duration' && typeof json === 'string') return duration(json, path);
    if (name === 'google.protobuf.FieldMask' && typeof json === 'string')
      return {
        paths:
          json === '' ? [] : json.split(',').map((p) => p.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)),
      };
    if (name === 'google.protobuf.Struct') return this.struct(json, path);
    if (name === 'google.protobuf.Value') return this.value(json, path);
    if (name === 'google.protobuf.ListValue') return this.list(json, path);
    if (name === 'google.protobuf.Any' && isObject(json) && Object.hasOwn(json, '@type'))
      return this.any(json, path);
    if (WRAPPERS.has(name) && json !== null && typeof json !== 'object') return { value: json };
    if (!isObject(json)) return json;
    const out: { [key: string]: unknown } = {};
    for (const [key, item] of Object.entries(json)) {
      const field = this.fieldOf(type, key);
      const inner = field?.resolvedType;
      if (field === undefined || !(inner instanceof this.protobuf.Type)) {
        out[key] = item;
        continue;
      }
      // null is a field's default, except in a google.protobuf.Value, where it is JSON's null.
      if (item === null && inner.fullName !== '.google.protobuf.Value') out[key] = item;
      else if (field.map && isObject(item))
        out[key] = Object.fromEntries(
          Object.entries(item).map(([k, v]) => [k, this.message(inner, v, [...path, field.name, '*'])]),
        );
      else if (field.repeated && Array.isArray(item))
        out[key] = item.map((v, i) => this.message(inner, v, [...path, field.name, i]));
      else out[key] = this.message(inner, item, [...path, field.name]);
    }
    return out;
  }

  /** The field JSON names `key`: its proto name, its JSON name, or protobufjs's camelCase name. */
  private fieldOf(type: Protobuf.Type, key: string): Protobuf.Field | undefined {
    let table = this.fields.get(type);
    if (table === undefined) {
      table = new Map();
      for (const field of type.fieldsArray) {
        const jsonName =
          (field.options?.json_name as string | undefined) ??
          field.name.replace(/_+(.)?/g, (_m, c: string | undefined) => c?.toUpperCase() ?? '');
        for (const name of [field.name, jsonName]) table.set(name, field);
      }
      this.fields.set(type, table);
    }
    return table.get(key) ?? table.get(key.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase()));
  }

  private struct(json: unknown, path: (string | number)[]): unknown {
    if (!isObject(json)) mismatch(path, 'must be an object (a google.protobuf.Struct)');
    return {
      fields: Object.fromEntries(Object.entries(json).map(([k, v]) => [k, this.value(v, [...path, '*'])])),
    };
  }

  private value(json: unknown, path: (string | number)[]): unknown {
    if (json === null) return { nullValue: 'NULL_VALUE' };
    if (typeof json === 'number') return { numberValue: json };
    if (typeof json === 'string') return { stringValue: json };
    if (typeof json === 'boolean') return { boolValue: json };
    if (Array.isArray(json)) return { listValue: this.list(json, path) };
    return { structValue: this.struct(json, path) };
  }

  private list(json: unknown, path: (string | number)[]): unknown {
    if (!Array.isArray(json)) mismatch(path, 'must be an array (a google.protobuf.ListValue)');
    return { values: json.map((item, i) => this.value(item, [...path, i])) };
  }

  /** An Any: the message its `@type` names, encoded into its `value` (a well-known type's JSON as `value`). */
  private any(json: { [key: string]: unknown }, path: (string | number)[]): unknown {
    const url = json['@type'];
    if (typeof url !== 'string')
      mismatch(path, 'has an @type that is not a type URL, as type.googleapis.com/shop.Order');
    let type: Protobuf.Type;
    try {
      type = this.root.lookupType(url.slice(url.lastIndexOf('/') + 1));
    } catch {
      return mismatch(path, 'has an @type that names no message of the schema or of the files it imports');
    }
    const { '@type': _url, ...fields } = json;
    const special =
      type.fullName.startsWith('.google.protobuf.') && type.fullName !== '.google.protobuf.Empty';
    const inner = this.message(type, special ? json.value : fields, path);
    let reader = this.readers.get(type);
    if (reader === undefined) {
      reader = protoJsonReader(type, 'strict');
      this.readers.set(type, reader);
    }
    let object: { [key: string]: unknown };
    try {
      object = reader(inner);
    } catch (error) {
      if (!(error instanceof ProtoJsonMismatch)) throw error;
      const at = error.message.startsWith('(root)')
        ? error.message.slice('(root)'.length)
        : `.${error.message}`;
      throw new ProtoJsonMismatch(
        `${protoPath(path)}${path.length === 0 && at.startsWith('.') ? at.slice(1) : at}`,
      );
    }
    return {
      typeUrl: url,
      value: Buffer.from(type.encode(type.fromObject(object)).finish()).toString('base64'),
    };
  }
}

function mismatch(path: readonly (string | number)[], problem: string): never {
  throw new ProtoJsonMismatch(`${protoPath(path)}: ${problem}`);
}

/** A google.protobuf.Timestamp of RFC 3339 text (`2024-05-01T12:00:00.5+02:00`), as its fields. */
function timestamp(text: string, path: readonly (string | number)[]): { seconds: string; nanos: number } {
  const refuse = () =>
    mismatch(
      path,
      'must be an RFC 3339 time, as 2024-05-01T12:00:00Z, from year 1 to 9999 (a google.protobuf.Timestamp)',
    );
  const parts = TIMESTAMP.exec(text);
  if (!parts) return refuse();
  const [, year, month, day, hour, minute, second, fraction = '', utc, sign, offsetHours, offsetMinutes] =
    parts;
  const date = new Date(0);
  date.setUTCFullYear(Number(year), Number(month) - 1, Number(day));
  date.setUTCHours(Number(hour), Number(minute), Number(second), 0);
  if (
    date.getUTCFullYear() !== Number(year) ||
    date.getUTCMonth() !== Number(month) - 1 ||
    date.getUTCDate() !== Number(day) ||
    date.getUTCHours() !== Number(hour) ||
    date.getUTCMinutes() !== Number(minute) ||
    date.getUTCSeconds() !== Number(second) ||
    (utc === undefined && (Number(offsetHours) > 23 || Number(offsetMinutes) > 59))
  )
    return refuse();
  const offset =
    utc !== undefined
      ? 0
      : (sign === '-' ? -1 : 1) * (Number(offsetHours) * 3600 + Number(offsetMinutes) * 60);
  const seconds = date.getTime() / 1000 - offset;
  if (seconds < TIMESTAMP_SECONDS.min || seconds > TIMESTAMP_SECONDS.max) return refuse();
  return { seconds: String(seconds), nanos: Number(fraction.padEnd(9, '0')) };
}

/** A google.protobuf.Duration of its JSON text (`"1.5s"`, `"-0.25s"`), as its fields. */
function duration(text: string, path: readonly (string | number)[]): { seconds: string; nanos: number } {
  const parts = DURATION.exec(text);
  if (!parts || BigInt(parts[2]!) > DURATION_MAX_SECONDS)
    return mismatch(
      path,
      'must be seconds with an s, as "1.5s" or "-30s", within ±10,000 years (a google.protobuf.Duration)',
    );
  const [, negative, whole, fraction = ''] = parts;
  const sign = negative ? -1 : 1;
  const nanos = Number(fraction.padEnd(9, '0'));
  return { seconds: (BigInt(sign) * BigInt(whole!)).toString(), nanos: nanos === 0 ? 0 : sign * nanos };
}

/** The message's position path among the file's message types (Confluent's message indexes). */
function messagePath(protobuf: typeof Protobuf, scope: Protobuf.Namespace, target: Protobuf.Type): number[] {
  const path: number[] = [];
  const chain: Protobuf.Type[] = [];
  for (let at: Protobuf.ReflectionObject | null = target; at instanceof protobuf.Type; at = at.parent)
    chain.unshift(at);
  let candidates = scope.nestedArray;
  for (const type of chain) {
    const messages = candidates.filter((nested) => nested instanceof protobuf.Type);
    path.push(messages.indexOf(type));
    candidates = type.nestedArray;
  }
  return path;
}

/**
 * The message's index as AWS Glue's serializer writes it: its position among all message types of the
 * file, nested ones and the entry types protoc makes for map fields included, sorted by full name
 * (awslabs/aws-glue-schema-registry, MessageIndexFinder: "B = 0, B.A = 1, B.A.D = 2, B.C = 3").
 */
function glueMessageIndex(
  protobuf: typeof Protobuf,
  scope: Protobuf.Namespace,
  target: Protobuf.Type,
): number {
  const names: string[] = [];
  const queue = scope.nestedArray.filter(
    (nested): nested is Protobuf.Type => nested instanceof protobuf.Type,
  );
  for (let type = queue.shift(); type !== undefined; type = queue.shift()) {
    names.push(type.fullName);
    for (const field of type.fieldsArray)
      if (field instanceof protobuf.MapField) names.push(`${type.fullName}.${mapEntryName(field.name)}`);
    queue.push(
      ...type.nestedArray.filter((nested): nested is Protobuf.Type => nested instanceof protobuf.Type),
    );
  }
  // Java compares full names by UTF-16 code units, as Array.prototype.sort does.
  return names.sort().indexOf(target.fullName);
}

/** The entry type protoc makes for map field `name`: `my_map` → `MyMapEntry` (protoc's MapEntryName). */
function mapEntryName(name: string): string {
  return `${name.replace(/(?:^|_+)([a-z]?)/g, (_match, letter: string) => letter.toUpperCase())}Entry`;
}

function zigzag(n: number): number[] {
  return varint(n * 2);
}

function varint(n: number): number[] {
  const bytes: number[] = [];
  let rest = n;
  while (rest >= 0x80) {
    bytes.push((rest & 0x7f) | 0x80);
    rest = Math.floor(rest / 128);
  }
  bytes.push(rest);
  return bytes;
}
