/**
 * What every schema-registry decoder does, whatever the format: find where the writer schema comes
 * from in each wire situation a Lambda function meets, decode, then validate with a Standard Schema.
 *
 * Wire situations (https://docs.aws.amazon.com/lambda/latest/dg/services-consume-kafka-events.html):
 * - the trigger has a schema registry and `EventRecordFormat: JSON`: the bytes are JSON text and the
 *   record's `keySchemaMetadata`/`valueSchemaMetadata` says what they were; a schema in code applies
 *   to the JSON as it applies to the binary (`FormatCodec.fromJson`), so the data has one shape
 *   whatever the trigger's format;
 * - `EventRecordFormat: SOURCE`: the producer's encoded bytes with the registry framing removed, the
 *   schema id in the metadata;
 * - no registry on the trigger: the bytes as the producer wrote them, framed by its serializer
 *   (Confluent or Glue, see `wire.ts`), or unframed (`framing: 'none'`).
 */
import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { KafkaSchemaMetadata } from '../kafka-event/types.ts';
import { jsonSyntaxCause } from '../middleware/errors.ts';
import type { KafkaDecoder } from '../middleware/options.ts';
import type { KafkaRecord } from '../middleware/record.ts';
import { validateField } from '../middleware/validate-field.ts';
import { BoundedCache } from './cache.ts';
import { KafkaSchemaRegistryDecodeError, SchemaNotFoundError, withheldCause } from './errors.ts';
import type { RegisteredSchema, SchemaRegistryClient } from './registry.ts';
import { confluentSchemaIdHeaderProblem, type RegistryFraming, readFrame } from './wire.ts';

/**
 * Options every decoder (`avroDecoder`, `protobufDecoder`, `jsonSchemaDecoder`) takes.
 *
 * @example
 * ```ts
 * const options: SchemaRegistryDecoderOptions<Order> = { registry, eventRecordFormat: 'SOURCE', validate: OrderSchema };
 * ```
 */
export interface SchemaRegistryDecoderOptions<TOutput> {
  /** Resolves writer schemas by id (Confluent-compatible or Glue), cached; create it at module scope. */
  registry?: SchemaRegistryClient | undefined;
  /**
   * How the bytes are framed when the record has no schema metadata (no registry on the trigger):
   * `'registry'` (default) reads Confluent's or Glue's framing by its first byte; `'confluent'` or
   * `'glue'` accept only that one; `'none'`: plain encoded bytes, decoded with the schema in code.
   */
  framing?: RegistryFraming | 'none' | undefined;
  /**
   * The trigger's `EventRecordFormat`, needed when it has a schema registry (records then carry
   * schema metadata): `'JSON'` (the bytes are JSON text) or `'SOURCE'` (encoded bytes, framing
   * removed). A record with metadata fails (and is retried, not dropped) until this is set. With
   * `'JSON'`, the schema in code applies to the JSON as to binary records (an Avro reader schema reads
   * it, a Protobuf type becomes the message, a JSON Schema checks it): a record that does not fit is
   * poison; without a schema in code the parsed JSON is the data.
   */
  eventRecordFormat?: 'JSON' | 'SOURCE' | undefined;
  /** A Standard Schema (zod, valibot…) the decoded data must pass; its output becomes the data. */
  validate?: StandardSchemaV1<unknown, TOutput> | undefined;
  /** Compiled writer schemas kept (least recently used goes). Default 1000. */
  cacheSize?: number | undefined;
}

/** Decodes an encoded payload; throws (any error) when the bytes do not fit. */
export type PayloadReader = (payload: Buffer) => unknown;

/**
 * Where a payload's encoded message starts, or why it cannot be found. A start that was guessed comes
 * with a hint, added to the error when the message does not decode from there.
 */
export type PayloadStart = (
  payload: Buffer,
  registry: 'confluent' | 'glue',
  framingRemoved: boolean,
) => number | string | GuessedStart;

/** A message start read by a rule that can be wrong, and what to do when it is. */
export interface GuessedStart {
  readonly offset: number;
  /** Added to the problem of a message that does not decode from `offset`. */
  readonly hint: string;
}

/** What a format contributes to {@link createSchemaRegistryDecoder}. */
export interface FormatCodec {
  readonly format: RegisteredSchema['type'];
  /** `Avro`, `Protobuf`, `JSON Schema`: for messages. */
  readonly label: string;
  /** Reads payloads with the schema given in code; `undefined` when none was given. */
  readonly local: PayloadReader | undefined;
  /** Builds a reader for a writer schema from the registry, or says why it cannot. */
  compile: ((schema: RegisteredSchema) => PayloadReader | string) | undefined;
  /** Skips what the serializer writes between the framing and the message (Protobuf's message indexes). */
  start?: PayloadStart;
  /**
   * Turns the parsed JSON of an `EventRecordFormat` `JSON` record into the format's data, as the schema
   * in code reads a binary record (a Protobuf message, a record of the Avro reader schema, JSON that
   * matches the JSON Schema), or says where it does not fit: the problem is shown, so it names no
   * value; an error thrown is withheld. Without it (no schema in code) the parsed JSON is the data.
   */
  fromJson?: (json: unknown) => { readonly data: unknown } | string;
  /** What `fromJson` reads the JSON into, for messages: `the ${label} type` when not given. */
  readonly jsonTarget?: string;
  /**
   * Whether the JSON of an `EventRecordFormat` `JSON` record holds integers the format reads beyond
   * 2^53 − 1 (Avro's `long`): they are then read as a `bigint`, as the binary reader does, instead of
   * rounded by `JSON.parse`.
   */
  exactIntegers?: boolean;
}

const NO_METADATA_FORMAT =
  'has schema registry metadata (the trigger has a schema registry): set the decoder option eventRecordFormat to the trigger EventRecordFormat';

/**
 * Builds a {@link KafkaDecoder} from a format: the decoders of `kafka-lambda/avro`, `/protobuf` and
 * `/json-schema` are made with it. Synchronous once a schema id has been seen: a registry request
 * happens once per id per container (cache), and only on a miss is the result a promise.
 *
 * @example
 * ```ts
 * const decoder = createSchemaRegistryDecoder(codec, { registry });
 * ```
 */
export function createSchemaRegistryDecoder<TOutput>(
  codec: FormatCodec,
  options: SchemaRegistryDecoderOptions<TOutput>,
): KafkaDecoder<TOutput | null> {
  const { registry, validate, eventRecordFormat } = options;
  const framing = options.framing ?? 'registry';
  if (!['registry', 'confluent', 'glue', 'none'].includes(framing))
    throw new TypeError(`framing must be 'registry', 'confluent', 'glue' or 'none', not ${String(framing)}`);
  if (eventRecordFormat !== undefined && eventRecordFormat !== 'JSON' && eventRecordFormat !== 'SOURCE')
    throw new TypeError(`eventRecordFormat must be 'JSON' or 'SOURCE', not ${String(eventRecordFormat)}`);
  if (framing === 'none' && codec.local === undefined)
    throw new TypeError(`framing 'none' needs the ${codec.label} schema in code`);
  if (codec.local === undefined && (registry === undefined || codec.compile === undefined))
    throw new TypeError(`The ${codec.label} decoder needs a schema in code or a registry`);
  const readers = new BoundedCache<string, PayloadReader>(options.cacheSize ?? 1000);
  // Writer schemas come from the registry when there is one and the format can use them (Avro's
  // schema resolution, JSON Schema); otherwise the schema in code reads every id.
  const resolve = registry !== undefined && codec.compile !== undefined;

  function fail(
    record: KafkaRecord<unknown, unknown>,
    field: 'key' | 'value',
    reason: 'SCHEMA_NOT_FOUND' | 'DESERIALIZATION_ERROR',
    problem: string,
    schemaId?: string,
    cause?: Error,
  ): never {
    throw new KafkaSchemaRegistryDecodeError(record, field, reason, problem, schemaId, cause && { cause });
  }

  function finish(
    data: unknown,
    record: KafkaRecord<unknown, unknown>,
    field: 'key' | 'value',
  ): TOutput | Promise<TOutput> {
    if (validate === undefined) return data as TOutput;
    return validateField(validate, data, record, field, (output) => output);
  }

  function read(
    reader: PayloadReader,
    payload: Buffer,
    record: KafkaRecord<unknown, unknown>,
    field: 'key' | 'value',
    schemaId: string | undefined,
    hint?: string,
  ): TOutput | Promise<TOutput> {
    let data: unknown;
    try {
      data = reader(payload);
    } catch (error) {
      // The library's message may quote the bytes: only the position, the schema id and the
      // library error's class are kept.
      fail(
        record,
        field,
        'DESERIALIZATION_ERROR',
        `is not valid ${codec.label} for its writer schema${hint === undefined ? '' : ` ${hint}`}`,
        schemaId,
        withheldCause(codec.label, error),
      );
    }
    return finish(data, record, field);
  }

  const jsonMismatch = `does not fit ${codec.jsonTarget ?? `the ${codec.label} type`} (EventRecordFormat JSON)`;

  function fromJson(
    convert: NonNullable<FormatCodec['fromJson']>,
    json: unknown,
    record: KafkaRecord<unknown, unknown>,
    field: 'key' | 'value',
    schemaId: string | undefined,
  ): unknown {
    let converted: { readonly data: unknown } | string;
    try {
      converted = convert(json);
    } catch (error) {
      fail(record, field, 'DESERIALIZATION_ERROR', jsonMismatch, schemaId, withheldCause(codec.label, error));
    }
    if (typeof converted === 'string')
      fail(record, field, 'DESERIALIZATION_ERROR', `${jsonMismatch} at ${converted}`, schemaId);
    return converted.data;
  }

  async function readResolved(
    client: SchemaRegistryClient,
    schemaId: string,
    payload: Buffer,
    record: KafkaRecord<unknown, unknown>,
    field: 'key' | 'value',
    signal: AbortSignal,
    hint: string | undefined,
  ): Promise<TOutput> {
    let schema: RegisteredSchema;
    try {
      schema = await client.getSchema(schemaId, signal);
    } catch (error) {
      if (error instanceof SchemaNotFoundError)
        fail(
          record,
          field,
          'SCHEMA_NOT_FOUND',
          `names a schema the ${client.registry} registry does not have`,
          schemaId,
          error,
        );
      throw error; // the registry could not be asked: not the record's fault, it is retried
    }
    let reader = readers.get(schemaId);
    if (reader === undefined) {
      if (schema.type !== codec.format)
        fail(
          record,
          field,
          'DESERIALIZATION_ERROR',
          `was written with a ${schema.type} schema, not ${codec.label}`,
          schemaId,
        );
      const compiled = codec.compile!(schema);
      if (typeof compiled === 'string') fail(record, field, 'DESERIALIZATION_ERROR', compiled, schemaId);
      reader = compiled;
      readers.set(schemaId, reader);
    }
    return read(reader, payload, record, field, schemaId, hint);
  }

  function readWithId(
    schemaId: string,
    registryKind: 'confluent' | 'glue',
    payload: Buffer,
    framingRemoved: boolean,
    record: KafkaRecord<unknown, unknown>,
    field: 'key' | 'value',
    signal: AbortSignal,
  ): TOutput | Promise<TOutput> {
    let body = payload;
    let hint: string | undefined;
    if (codec.start !== undefined) {
      const start = codec.start(payload, registryKind, framingRemoved);
      if (typeof start === 'string') fail(record, field, 'DESERIALIZATION_ERROR', start, schemaId);
      const offset = typeof start === 'number' ? start : start.offset;
      if (typeof start !== 'number') hint = start.hint;
      if (offset !== 0) body = payload.subarray(offset);
    }
    if (!resolve) return read(codec.local!, body, record, field, schemaId, hint);
    const reader = readers.get(schemaId);
    if (reader !== undefined) return read(reader, body, record, field, schemaId, hint);
    // Bytes framed for the other kind of registry name no schema this registry could be asked
    // for: its deserializer cannot read them, which Lambda reports as DESERIALIZATION_ERROR
    // (SCHEMA_NOT_FOUND is for an id the registry was asked and does not have), and so does the
    // emulator (lib/emulator/schema-registry.ts).
    // https://docs.aws.amazon.com/lambda/latest/dg/services-consume-kafka-events.html#services-consume-kafka-events-troubleshooting
    if (registry.registry !== registryKind)
      fail(
        record,
        field,
        'DESERIALIZATION_ERROR',
        `was framed for a ${registryKind} registry, but the decoder's registry is ${registry.registry}`,
        schemaId,
      );
    return readResolved(registry, schemaId, body, record, field, signal, hint);
  }

  let lastSchemaId: string | undefined;
  let lastRegistryKind: 'confluent' | 'glue' = 'confluent';

  return {
    kind: 'kafka-decoder',
    decode(bytes, record, field, signal) {
      if (bytes === null) return null;
      const metadata: KafkaSchemaMetadata | undefined =
        field === 'key' ? record.keySchemaMetadata : record.valueSchemaMetadata;
      if (metadata != null) {
        if (eventRecordFormat === undefined) throw new TypeError(`${field} ${NO_METADATA_FORMAT}`);
        const id = metadata.schemaId;
        const schemaId = typeof id === 'string' ? id : id == null ? undefined : String(id);
        if (eventRecordFormat === 'JSON') {
          let data: unknown;
          try {
            const text = bytes.toString('utf8');
            data = codec.exactIntegers === true ? parseWithExactIntegers(text) : JSON.parse(text);
          } catch (error) {
            fail(
              record,
              field,
              'DESERIALIZATION_ERROR',
              'is not valid JSON (EventRecordFormat JSON)',
              schemaId,
              jsonSyntaxCause(error),
            );
          }
          if (codec.fromJson !== undefined) data = fromJson(codec.fromJson, data, record, field, schemaId);
          return finish(data, record, field);
        }
        if (schemaId === undefined) {
          if (codec.local === undefined)
            fail(record, field, 'SCHEMA_NOT_FOUND', 'has schema metadata without a schema id');
          return read(codec.local, bytes, record, field, undefined);
        }
        // Confluent ids are decimal integers, Glue's schema version ids dashed UUIDs: the id's own
        // format. A topic's records name one id after another: the last one's kind is kept.
        if (schemaId !== lastSchemaId) {
          lastRegistryKind = schemaId.includes('-') ? 'glue' : 'confluent';
          lastSchemaId = schemaId;
        }
        return readWithId(schemaId, lastRegistryKind, bytes, true, record, field, signal);
      }
      if (framing === 'none') return read(codec.local!, bytes, record, field, undefined);
      const frame = readFrame(bytes, framing);
      if (typeof frame === 'string')
        return fail(record, field, 'DESERIALIZATION_ERROR', headerSchemaIdProblem(record, field) ?? frame);
      return readWithId(frame.schemaId, frame.registry, frame.payload, false, record, field, signal);
    },
  };
}

/**
 * Why an unframed record cannot be read when its producer put the schema id in a header (Confluent's
 * header schema-id serializers), or `undefined`. Headers Lambda did not encode as it does are not this
 * message's concern: the framing's own problem is told instead.
 */
function headerSchemaIdProblem(
  record: KafkaRecord<unknown, unknown>,
  field: 'key' | 'value',
): string | undefined {
  try {
    return confluentSchemaIdHeaderProblem(record.headers, field);
  } catch {
    return undefined;
  }
}

/** 16 digits in a row: the shortest integer text beyond 2^53 − 1 has 16. */
const LONG_DIGITS = /\d{16}/;

/**
 * `JSON.parse`, with every integer beyond 2^53 − 1 read as a `bigint` from its source text (the
 * reviver's `context.source`, https://tc39.es/proposal-json-parse-with-source/) instead of rounded. A
 * text without 16 digits in a row holds none, and is parsed without the reviver's cost.
 */
function parseWithExactIntegers(text: string): unknown {
  if (!LONG_DIGITS.test(text)) return JSON.parse(text);
  return JSON.parse(text, (_key, value: unknown, context?: { source?: string }) =>
    typeof value === 'number' &&
    !Number.isSafeInteger(value) &&
    context?.source !== undefined &&
    /^-?\d+$/.test(context.source)
      ? BigInt(context.source)
      : value,
  );
}
