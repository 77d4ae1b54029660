/**
 * The trigger's schema registry, as the emulator plays it: before a record is invoked, the key and/or
 * value its `SchemaValidationConfigs` name are resolved in the registry by the schema id of their
 * producer framing, deserialized with that schema, and handed over as JSON text (`EventRecordFormat:
 * JSON`) or as the encoded bytes without framing (`SOURCE`), with the `keySchemaMetadata` /
 * `valueSchemaMetadata` Lambda adds. A record whose schema the registry does not have goes to the
 * on-failure destination with `SCHEMA_NOT_FOUND`, one that does not deserialize with
 * `DESERIALIZATION_ERROR` (dropped, with a log line, when there is none).
 * https://docs.aws.amazon.com/lambda/latest/dg/services-consume-kafka-events.html
 *
 * The emulator speaks to Confluent-compatible registries (Confluent, Apicurio's `/apis/ccompat/v7`, the
 * one `kafka-lambda registry` starts): a Glue registry ARN needs AWS and is refused with a clear error.
 */
import type { AnySchema } from 'ajv';
import type protobuf from 'protobufjs';
import type { KafkaEventRecord, KafkaSchemaMetadata } from '../kafka-event/types.ts';
import { SchemaNotFoundError } from '../schema-registry/errors.ts';
import { jsonSchemaDraft } from '../schema-registry/json-schema-draft.ts';
import {
  confluentSchemaRegistry,
  type RegisteredSchema,
  type SchemaRegistryClient,
} from '../schema-registry/registry.ts';
import { readConfluentMessageIndexes, readFrame } from '../schema-registry/wire.ts';
import type { BatchPart, PendingRecord } from './batch.ts';
import type { SchemaFailureCondition } from './destination.ts';
import { EmulatorError, InvalidMappingSettingError } from './errors.ts';

/**
 * The local mapping's `schemaRegistry`: Lambda's `SchemaRegistryConfig` (KafkaSchemaRegistryConfig),
 * field for field, with the registry's URL as `SchemaRegistryURI`. `AccessConfigs` name Secrets Manager
 * secrets, which a local registry has no use for: they are not taken.
 *
 * @example
 * ```ts
 * const schemaRegistry: SchemaRegistryConfig = {
 *   SchemaRegistryURI: 'http://127.0.0.1:8081/apis/ccompat/v7',
 *   EventRecordFormat: 'JSON',
 *   SchemaValidationConfigs: [{ Attribute: 'VALUE' }],
 * };
 * ```
 */
export interface SchemaRegistryConfig {
  SchemaRegistryURI: string;
  EventRecordFormat: 'JSON' | 'SOURCE';
  SchemaValidationConfigs: ReadonlyArray<{ Attribute: 'KEY' | 'VALUE' }>;
}

/**
 * A record after the registry: delivered (its key/value rewritten, metadata added; `filterValue` is
 * the value as JSON text, what filter criteria see) or failed with the reason Lambda gives.
 */
export type SchemaResolution =
  | { readonly kind: 'resolved'; readonly record: PendingRecord; readonly filterValue: Buffer | null }
  | { readonly kind: 'failed'; readonly reason: SchemaFailureCondition };

/**
 * Resolves and deserializes records as the trigger's schema registry does. Rejects with
 * `SchemaRegistryRequestError` when the registry cannot be asked (the record is then retried, never
 * failed: it is not its fault).
 *
 * @example
 * ```ts
 * const resolver = createSchemaResolver(resolveSchemaRegistry(config));
 * const outcome = await resolver.resolve(pending);
 * ```
 */
export interface SchemaResolver {
  readonly config: SchemaRegistryConfig;
  resolve(record: PendingRecord, signal?: AbortSignal): Promise<SchemaResolution>;
  /** Whether the record is already one this resolver produced (retries do not resolve twice). */
  isResolved(record: PendingRecord): boolean;
}

/**
 * Checks the local mapping's `schemaRegistry` (an http(s) registry URL, `JSON` or `SOURCE`, KEY and/or
 * VALUE each at most once).
 *
 * @example
 * ```ts
 * resolveSchemaRegistry({ SchemaRegistryURI: url, EventRecordFormat: 'SOURCE', SchemaValidationConfigs: [{ Attribute: 'VALUE' }] });
 * ```
 * @throws InvalidMappingSettingError naming what is wrong.
 */
export function resolveSchemaRegistry(config: SchemaRegistryConfig): SchemaRegistryConfig {
  const setting = 'schemaRegistry';
  if (typeof config !== 'object' || config === null)
    throw new InvalidMappingSettingError(setting, 'must be an object like Lambda SchemaRegistryConfig');
  const uri = config.SchemaRegistryURI;
  if (typeof uri === 'string' && uri.startsWith('arn:'))
    throw new InvalidMappingSettingError(
      `${setting}.SchemaRegistryURI`,
      'is an AWS Glue registry ARN: the emulator needs a Confluent-compatible registry URL (kafka-lambda registry start prints one)',
    );
  if (typeof uri !== 'string' || !/^https?:\/\/[^\s/]+/.test(uri))
    throw new InvalidMappingSettingError(`${setting}.SchemaRegistryURI`, 'must be an http(s) registry URL');
  if (config.EventRecordFormat !== 'JSON' && config.EventRecordFormat !== 'SOURCE')
    throw new InvalidMappingSettingError(
      `${setting}.EventRecordFormat`,
      `must be JSON or SOURCE, got ${String(config.EventRecordFormat)}`,
    );
  const attributes = Array.isArray(config.SchemaValidationConfigs)
    ? config.SchemaValidationConfigs.map((entry) => entry?.Attribute)
    : [];
  if (attributes.length === 0 || attributes.some((a) => a !== 'KEY' && a !== 'VALUE'))
    throw new InvalidMappingSettingError(
      `${setting}.SchemaValidationConfigs`,
      'must list { Attribute: KEY } and/or { Attribute: VALUE }',
    );
  if (new Set(attributes).size !== attributes.length)
    throw new InvalidMappingSettingError(`${setting}.SchemaValidationConfigs`, 'names an attribute twice');
  return config;
}

/**
 * A {@link SchemaResolver} for a checked configuration; `registry` replaces the Confluent-compatible
 * client made from the URL (tests).
 *
 * @example
 * ```ts
 * const resolver = createSchemaResolver(config);
 * ```
 */
export function createSchemaResolver(
  config: SchemaRegistryConfig,
  registry: SchemaRegistryClient = confluentSchemaRegistry({ url: config.SchemaRegistryURI }),
): SchemaResolver {
  const produced = new WeakSet<PendingRecord>();
  const readers = new Map<string, Reader>();
  const fields = config.SchemaValidationConfigs.map((entry) => (entry.Attribute === 'KEY' ? 'key' : 'value'));

  async function resolveField(
    encoded: KafkaEventRecord,
    field: 'key' | 'value',
    signal: AbortSignal | undefined,
  ): Promise<{ bytes: Buffer; json: string; metadata: KafkaSchemaMetadata } | SchemaFailureCondition | null> {
    const base64 = encoded[field];
    if (base64 === null || base64 === undefined) return null; // absent key, tombstone: nothing to validate
    const frame = readFrame(Buffer.from(base64, 'base64'), 'confluent');
    // Bytes not framed by this registry's serializer (unframed, or framed for AWS Glue) name no
    // schema the registry could be asked for: its deserializer cannot read them, a
    // DESERIALIZATION_ERROR; SCHEMA_NOT_FOUND is for an id the registry does not have. The decoders
    // of kafka-lambda/avro etc. give the same reason (lib/schema-registry/decoder.ts).
    // https://docs.aws.amazon.com/lambda/latest/dg/services-consume-kafka-events.html#services-consume-kafka-events-troubleshooting
    if (typeof frame === 'string') return 'DESERIALIZATION_ERROR';
    let schema: RegisteredSchema;
    try {
      schema = await registry.getSchema(frame.schemaId, signal);
    } catch (error) {
      if (error instanceof SchemaNotFoundError) return 'SCHEMA_NOT_FOUND';
      throw error;
    }
    let reader = readers.get(schema.id);
    if (reader === undefined) {
      const compiled = await compileReader(schema);
      if (compiled === undefined) return 'DESERIALIZATION_ERROR';
      reader = compiled;
      readers.set(schema.id, reader);
    }
    const read = reader(frame.payload);
    if (read === undefined) return 'DESERIALIZATION_ERROR';
    return {
      bytes: config.EventRecordFormat === 'JSON' ? Buffer.from(read.json) : read.source,
      json: read.json,
      metadata: { dataFormat: schema.type, schemaId: frame.schemaId },
    };
  }

  return {
    config,
    isResolved: (record) => produced.has(record),
    async resolve(record, signal) {
      const encoded = record.encoded;
      let filterValue: Buffer | null = encoded.value == null ? null : Buffer.from(encoded.value, 'base64');
      for (const field of fields) {
        const outcome = await resolveField(encoded, field, signal);
        if (outcome === null) continue;
        if (typeof outcome === 'string') return { kind: 'failed', reason: outcome };
        encoded[field] = outcome.bytes.toString('base64');
        encoded[field === 'key' ? 'keySchemaMetadata' : 'valueSchemaMetadata'] = outcome.metadata;
        if (field === 'value') filterValue = Buffer.from(outcome.json);
      }
      const json = JSON.stringify(encoded);
      const resolved = new ResolvedRecord(record, json);
      produced.add(resolved);
      return { kind: 'resolved', record: resolved, filterValue };
    },
  };
}

/**
 * Runs the parts' records through the resolver, in offset order: what is delivered (with filtered-out
 * records dropped) and what goes to the destination, with its reason, in the parts' order (each
 * partition's records in offset order, whatever their reasons). A part left empty keeps its `end`, so
 * that the caller commits past it.
 *
 * @example
 * ```ts
 * const { parts: kept, failed } = await resolveBatchSchemas(parts, resolver, settings.filter);
 * ```
 */
export async function resolveBatchSchemas(
  parts: BatchPart[],
  resolver: SchemaResolver,
  filter: ((value: Buffer | null) => boolean) | undefined,
  signal?: AbortSignal,
): Promise<{
  parts: BatchPart[];
  failed: Array<{ record: PendingRecord; reason: SchemaFailureCondition }>;
  filtered: number;
}> {
  const failed: Array<{ record: PendingRecord; reason: SchemaFailureCondition }> = [];
  let filtered = 0;
  const kept: BatchPart[] = [];
  for (const part of parts) {
    const records: PendingRecord[] = [];
    for (const record of part.records) {
      if (resolver.isResolved(record)) {
        records.push(record);
        continue;
      }
      const outcome = await resolver.resolve(record, signal);
      if (outcome.kind === 'failed') failed.push({ record, reason: outcome.reason });
      else if (filter && !filter(outcome.filterValue)) filtered++;
      else records.push(outcome.record);
    }
    kept.push({ ...part, records });
  }
  return { parts: kept, failed, filtered };
}

/** A record with its registry-resolved JSON. */
class ResolvedRecord implements PendingRecord {
  readonly partition: number;
  readonly offset: number;
  readonly timestamp: number;
  readonly json: string;
  readonly bytes: number;
  readonly previousOffset: number | undefined;

  constructor(original: PendingRecord, json: string) {
    this.partition = original.partition;
    this.offset = original.offset;
    this.previousOffset = original.previousOffset;
    this.timestamp = original.timestamp;
    this.json = json;
    this.bytes = Buffer.byteLength(json);
  }

  get encoded(): KafkaEventRecord {
    return JSON.parse(this.json) as KafkaEventRecord;
  }
}

/** Reads one payload: its JSON text and its SOURCE bytes, or `undefined` when it does not deserialize. */
type Reader = (payload: Buffer) => { json: string; source: Buffer } | undefined;

/** The dialect of a registry's JSON Schema text; unparsable text compiles (and fails) as draft-07. */
function jsonSchemaDraftOf(definition: string): ReturnType<typeof jsonSchemaDraft> {
  try {
    return jsonSchemaDraft(JSON.parse(definition));
  } catch {
    return '07';
  }
}

/**
 * The decoding libraries are optional peer dependencies: each loads when a schema of its format is
 * first met, so a mapping without a registry (or an import of the emulator) needs none of them.
 */
async function compileReader(schema: RegisteredSchema): Promise<Reader | undefined> {
  const draft = schema.type === 'JSON' ? jsonSchemaDraftOf(schema.definition) : '07';
  const ajvModule = { '2020-12': 'ajv/dist/2020.js', '2019-09': 'ajv/dist/2019.js', '07': 'ajv' }[draft];
  const library = { AVRO: 'avsc', PROTOBUF: 'protobufjs', JSON: ajvModule }[schema.type];
  let loaded: unknown;
  try {
    // Avro is read by the Avro decoder's own types (lib/avro/types.ts, which imports avsc).
    loaded = schema.type === 'AVRO' ? await import('../avro/types.ts') : await import(library);
  } catch (error) {
    const name = library.split('/')[0];
    throw new EmulatorError(
      `The emulator needs ${name} to deserialize ${schema.type} records: npm install ${name}`,
      { cause: error },
    );
  }
  try {
    // Schemas it references (Confluent's schema references) are compiled with it, when they are of
    // its format; one of another format fails the schema, as it would Confluent's deserializer.
    const references = schema.references ?? [];
    if (references.some((reference) => reference.type !== schema.type)) return undefined;
    if (schema.type === 'AVRO') return avroReader(loaded as typeof import('../avro/types.ts'), schema);
    if (schema.type === 'PROTOBUF')
      return protobufReader((loaded as { default: typeof protobuf }).default, schema.definition, references);
    const Dialect = (loaded as { default: typeof import('ajv').Ajv }).default;
    return jsonSchemaReader(Dialect, schema.definition, references);
  } catch {
    return undefined; // a schema the library cannot compile: nothing deserializes with it
  }
}

/** A registered schema's references, in dependency order. */
type References = NonNullable<RegisteredSchema['references']>;

function avroReader(avro: typeof import('../avro/types.ts'), schema: RegisteredSchema): Reader | undefined {
  // A long past 2^53 is a valid Avro long: read as a bigint (a number when it fits), never refused.
  const read = avro.compileWriter(schema, undefined);
  if (typeof read === 'string') return undefined;
  return (payload) => {
    try {
      return { json: JSON.stringify(read(payload), jsonBytes), source: payload };
    } catch {
      return undefined;
    }
  };
}

/**
 * Avro `bytes`/`fixed` as base64 in JSON (Buffer's own JSON is an array of numbers); a long past 2^53
 * as the JSON number it is (`JSON.rawJSON`), not rounded.
 */
function jsonBytes(_key: string, value: unknown): unknown {
  const buffer = value as { type?: unknown; data?: unknown };
  if (buffer && buffer.type === 'Buffer' && Array.isArray(buffer.data))
    return Buffer.from(buffer.data as number[]).toString('base64');
  return typeof value === 'bigint' ? (JSON as RawJson).rawJSON(value.toString()) : value;
}

/** `JSON.rawJSON` (Node ≥ 21), not yet in TypeScript's lib. */
type RawJson = JSON & { rawJSON(text: string): unknown };

function protobufReader(library: typeof protobuf, definition: string, references: References): Reader {
  const messagesOf = (namespace: protobuf.Namespace): protobuf.Type[] =>
    namespace.nestedArray.filter((nested): nested is protobuf.Type => nested instanceof library.Type);
  // The message indexes count the messages of this file only: their names, in order, from it alone
  // (a referenced file of the same package adds its messages to the same namespace).
  const own = library.parse(definition, { keepCase: true });
  const ownScope = own.package ? own.root.lookup(own.package) : own.root;
  const names = messagesOf(ownScope as protobuf.Namespace).map((type) => type.fullName);
  // An import of a file another subject holds (Confluent's schema references: the reference's name is
  // the import path) resolves to that file, parsed into the same root first.
  const root = new library.Root();
  const imports = new Set(own.imports ?? []);
  for (const reference of references) {
    const parsed = library.parse(reference.definition, root, { keepCase: true });
    for (const file of parsed.imports ?? []) imports.add(file);
  }
  library.parse(definition, root, { keepCase: true });
  const referenced = new Set(references.map((reference) => reference.name));
  // Well-known types (google/protobuf/timestamp.proto, …) are built into Confluent's serializer and into
  // protobufjs: an import of one resolves without the registry.
  for (const file of imports) {
    if (referenced.has(file)) continue;
    const common = library.common.get(file);
    if (common?.nested) root.addJSON(common.nested);
  }
  const top = names.map((name) => root.lookupType(name));
  return (payload) => {
    // Confluent's serializer writes the message-index array (the message's path in the file) first.
    // SOURCE keeps it: AWS does not say, but events captured from Lambda (Powertools' fixtures) start
    // with it, and every Powertools deserializer skips it there.
    const indexes = readConfluentMessageIndexes(payload);
    if (typeof indexes === 'string') return undefined;
    let candidates = top;
    let type: protobuf.Type | undefined;
    for (const index of indexes.indexes) {
      type = candidates[index];
      if (type === undefined) return undefined;
      candidates = messagesOf(type);
    }
    if (type === undefined) return undefined;
    try {
      const message = type.decode(payload.subarray(indexes.offset));
      const object = type.toObject(message, { longs: String, enums: String, bytes: String, defaults: true });
      return { json: JSON.stringify(object), source: payload };
    } catch {
      return undefined;
    }
  };
}

function jsonSchemaReader(Ajv: typeof import('ajv').Ajv, definition: string, references: References): Reader {
  const ajv = new Ajv({ strict: false });
  // A referenced schema is known by its reference name, the `$ref` value that names it.
  for (const reference of references)
    ajv.addSchema(JSON.parse(reference.definition) as AnySchema, reference.name);
  const validate = ajv.compile(JSON.parse(definition) as AnySchema);
  return (payload) => {
    let data: unknown;
    try {
      data = JSON.parse(payload.toString('utf8'));
    } catch {
      return undefined;
    }
    if (!validate(data)) return undefined;
    // The payload is JSON already: handed over as written, so a number past 2^53 keeps its digits.
    return { json: payload.toString('utf8'), source: payload };
  };
}
