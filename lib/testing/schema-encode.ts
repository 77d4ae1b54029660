/**
 * Encodes JSON values with an Avro, Protobuf or JSON Schema schema into the bytes a Lambda function
 * receives in each schema-registry wire situation
 * (https://docs.aws.amazon.com/lambda/latest/dg/services-consume-kafka-events.html):
 * - `json`: the trigger has a registry and `EventRecordFormat: JSON`: JSON text, with schema metadata;
 * - `source`: `EventRecordFormat: SOURCE`: the encoded bytes without framing (the magic byte and schema id;
 *   a Protobuf message index stays, as in events captured from Lambda), with schema metadata;
 * - `confluent` / `glue`: no registry on the trigger: the producer serializer's framing, no metadata.
 * Used by `kafka-lambda event --value-avro|--value-proto|--value-json-schema` and the sample events.
 */
import { createRequire } from 'node:module';
import type { Ajv, AnySchema } from 'ajv';
import type * as Avsc from 'avsc';
import type * as Protobuf from 'protobufjs';
import type { KafkaSchemaMetadata } from '../kafka-event/types.ts';
import { jsonSyntaxCause, shownPath } from '../middleware/errors.ts';
import { ProtoJsonMismatch, protoJsonReader } from '../protobuf/json.ts';
import { jsonPosition } from '../text/json-position.ts';
import { KafkaTestingError } from './errors.ts';

const require = createRequire(import.meta.url);

/**
 * The schema library a format needs, loaded when that format is asked for: avsc, protobufjs and ajv are
 * optional peer dependencies, and a project encoding Avro installs only avsc.
 */
function peer<T>(name: 'avsc' | 'protobufjs' | 'ajv', format: string): T {
  try {
    return require(name) as T;
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
 * const options: SchemaEncoderOptions = { format: 'protobuf', schema: protoText, type: 'shop.Order', wire: 'source', schemaId: '17' };
 * ```
 */
export interface SchemaEncoderOptions {
  format: SchemaFormat;
  /** The schema text: Avro JSON (.avsc), .proto source, or a JSON Schema document. */
  schema: string;
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
  if (options.format === 'avro') {
    const avsc = peer<typeof Avsc>('avsc', 'Avro');
    const schema = parseSchemaJson(options.schema, 'a valid Avro schema') as Avsc.Schema;
    let type: Avsc.Type;
    try {
      type = avsc.Type.forSchema(schema);
    } catch (error) {
      throw new SchemaEncodeError(`not a valid Avro schema: ${(error as Error).message}`, { cause: error });
    }
    return (value) => {
      const paths = new Set<string>();
      if (!type.isValid(value, { errorHook: (path) => paths.add(shownPath(path.map(index)) || '(root)') }))
        throw new SchemaEncodeError(`value does not fit the Avro schema at ${[...paths].join(', ')}`);
      return { encoded: type.toBuffer(value), json: JSON.stringify(value) };
    };
  }
  if (options.format === 'protobuf') {
    if (!options.type)
      throw new SchemaEncodeError('a Protobuf schema needs the message type (--type shop.Order)');
    const protobuf = peer<typeof Protobuf>('protobufjs', 'Protobuf');
    let root: Protobuf.Root;
    let pkg: string | undefined;
    try {
      const parsed = protobuf.parse(options.schema, { keepCase: true });
      root = parsed.root;
      pkg = parsed.package;
    } catch (error) {
      throw new SchemaEncodeError(`not a valid .proto file: ${(error as Error).message}`, { cause: error });
    }
    let type: Protobuf.Type;
    try {
      type = root.lookupType(options.type);
    } catch (error) {
      throw new SchemaEncodeError(`the .proto file has no message ${options.type}`, { cause: error });
    }
    const scope = pkg ? (root.lookup(pkg) as Protobuf.Namespace) : root;
    const indexes = messagePath(protobuf, scope, type);
    const glueIndex = glueMessageIndex(protobuf, scope, type);
    // protobufjs's verify and fromObject take only the names the type was parsed with, and fromObject
    // drops any other key: a misspelt field was written as an empty message. The proto3 JSON reader
    // refuses unknown fields and enum values and checks integer ranges, taking both field names.
    const read = protoJsonReader(type, 'strict');
    return (value) => {
      let fields: { [key: string]: unknown };
      try {
        fields = read(value);
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
  const { Ajv: AjvClass } = peer<{ Ajv: typeof Ajv }>('ajv', 'JSON Schema');
  const schema = parseSchemaJson(options.schema, 'a valid JSON Schema') as AnySchema;
  let validate: ReturnType<Ajv['compile']>;
  try {
    validate = new AjvClass({ strict: false }).compile(schema);
  } catch (error) {
    throw new SchemaEncodeError(`not a valid JSON Schema: ${(error as Error).message}`, { cause: error });
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

/**
 * A schema file's JSON (Avro's .avsc, a JSON Schema document). A file that is not JSON (the wrong file
 * given) is refused saying where parsing stopped, never quoting it as V8's message would.
 */
function parseSchemaJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const cause = jsonSyntaxCause(error, 'the file', jsonPosition(text));
    throw new SchemaEncodeError(
      `not ${what}: ${text.trim() === '' ? 'the file is empty' : `not JSON: ${cause.message}`}`,
      { cause },
    );
  }
}

/**
 * A path segment of avsc's `errorHook` or of Ajv's `instancePath` (a JSON pointer), where an array index
 * is a digit string: as a number, so that {@link shownPath} keeps it. A map key of digits alone (below
 * 2^32 − 1) therefore shows, as an identifier-like one does; any other key of the value is `*`.
 */
function index(segment: string): string | number {
  return /^\d+$/.test(segment) ? Number(segment) : segment;
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
