// Its types name Node's (Buffer…): declared here, so that a project without @types/node is told so.
/// <reference types="node" preserve="true" />
/**
 * Avro decoder for `kafkaBatch` (`kafka-lambda/avro`), built on avsc (an optional peer dependency:
 * install it beside this package). Writer schemas come from the schema given in code or, with a
 * registry, by the record's schema id; a reader schema in code then reads every writer version
 * (Avro schema resolution: added fields take their defaults, removed fields are dropped). A `long` is
 * a number while it is a safe integer and a `bigint` beyond 2^53 − 1, never rounded nor refused.
 */
import avsc from 'avsc';
import type { KafkaDecoder } from '../middleware/options.ts';
import {
  createSchemaRegistryDecoder,
  type PayloadReader,
  type SchemaRegistryDecoderOptions,
} from '../schema-registry/decoder.ts';
import type { RegisteredSchema } from '../schema-registry/registry.ts';
import { exactLongOptions } from './long.ts';

// Types named by this entry's signatures, so that a user can name them too.
export type * from '../schema-registry/entry-types.ts';

/**
 * Options of {@link avroDecoder}: the common decoder options plus the schema in code.
 *
 * @example
 * ```ts
 * const options: AvroDecoderOptions<Order> = { schema: orderSchema, registry, validate: OrderSchema };
 * ```
 */
export interface AvroDecoderOptions<TOutput> extends SchemaRegistryDecoderOptions<TOutput> {
  /**
   * The reader schema: an Avro schema (object or JSON text) or an avsc `Type`. Without a registry it
   * is also the writer schema of every record; with one, records are read from their writer schema
   * into it. Without it, records are read as written (a registry is then required). An avsc `Type`
   * is used as it is: its `long` is avsc's, which refuses a value beyond 2^53 − 1 unless you gave it a
   * long type of your own.
   */
  schema?: avsc.Schema | avsc.Type | string | object;
}

/**
 * A decoder for Avro keys or values, for the `key` or `value` option of `kafkaBatch`. Handles every
 * wire situation: Confluent- or Glue-framed bytes (no registry on the trigger), and the trigger's
 * `EventRecordFormat` `SOURCE` or `JSON`. Undecodable records are poison
 * (`KafkaSchemaRegistryDecodeError`, reason `DESERIALIZATION_ERROR` or `SCHEMA_NOT_FOUND`), and no
 * error quotes their bytes. A tombstone (null value) is `null` and is not validated. An Avro `long`
 * is read exactly: a `number` while it is a safe integer, a `bigint` beyond 2^53 − 1 (type your
 * `validate` schema's long fields as `number | bigint` when they may grow that large), except with a
 * `schema` given as an avsc `Type`, which reads as it was built.
 *
 * @example
 * ```ts
 * import { avroDecoder } from 'kafka-lambda/avro';
 * import { confluentSchemaRegistry } from 'kafka-lambda/schema-registry';
 *
 * const registry = confluentSchemaRegistry({ url: process.env.SCHEMA_REGISTRY_URL! });
 * export const handler = middy().use(
 *   kafkaBatch({
 *     value: avroDecoder({ registry, schema: orderSchemaV2, validate: v.object({ id: v.string() }) }),
 *     onRecord: (record) => ship(record.data?.id),
 *   }),
 * );
 * ```
 */
export function avroDecoder<TOutput = unknown>(
  options: AvroDecoderOptions<TOutput>,
): KafkaDecoder<TOutput | null> {
  const reader = options.schema === undefined ? undefined : toTypes(options.schema);
  return createSchemaRegistryDecoder<TOutput>(
    {
      format: 'AVRO',
      label: 'Avro',
      local:
        reader === undefined
          ? undefined
          : exactOnOverflow(
              (payload) => reader.fast.fromBuffer(payload),
              (payload) => reader.exact.fromBuffer(payload),
            ),
      compile: (schema) => compileWriter(schema, reader),
      exactIntegers: true,
    },
    options,
  );
}

/**
 * A schema compiled twice: with avsc's own `long` (`fast`), and with {@link exactLongOptions}
 * (`exact`), which reads a `long` through a `bigint` and costs a record of three longs 2.5 times as
 * much. Records are read `fast`; only a record that avsc refuses for a long beyond 2^53 − 1 is read
 * again `exact` (see {@link exactOnOverflow}). A user's avsc `Type` is both.
 */
interface AvroTypes {
  readonly fast: avsc.Type;
  readonly exact: avsc.Type;
}

/** What avsc's `long` throws for a value beyond 2^53 − 1 (lib/types.js, `LongType.prototype._read`). */
const PRECISION_LOSS = 'potential precision loss';

/** Reads with `fast`, and with `exact` only when `fast` refused a long beyond 2^53 − 1. */
function exactOnOverflow(fast: PayloadReader, exact: PayloadReader): PayloadReader {
  return (payload) => {
    try {
      return fast(payload);
    } catch (error) {
      if (error instanceof Error && error.message === PRECISION_LOSS) return exact(payload);
      throw error;
    }
  };
}

function toTypes(schema: avsc.Schema | avsc.Type | string | object): AvroTypes {
  if (schema instanceof avsc.Type) return { fast: schema, exact: schema };
  // A string is JSON text, or the name of a primitive type (`'string'`, `'long'`…).
  const parsed = (
    typeof schema === 'string' && /^\s*[[{"]/.test(schema) ? JSON.parse(schema) : schema
  ) as avsc.Schema;
  return {
    fast: avsc.Type.forSchema(parsed),
    exact: avsc.Type.forSchema(parsed, exactLongOptions(avsc)),
  };
}

/** A reader for one writer schema: resolved into the reader schema when there is one. */
function compileWriter(registered: RegisteredSchema, reader: AvroTypes | undefined): PayloadReader | string {
  const writer = writerTypes(registered);
  if (typeof writer === 'string') return writer;
  if (reader === undefined)
    return exactOnOverflow(
      (payload) => writer.fast.fromBuffer(payload),
      (payload) => writer.exact.fromBuffer(payload),
    );
  let fastResolver: avsc.Resolver;
  let exactResolver: avsc.Resolver;
  try {
    fastResolver = reader.fast.createResolver(writer.fast);
    exactResolver = reader.exact.createResolver(writer.exact);
  } catch {
    return 'has a writer schema the reader schema cannot read (incompatible evolution)';
  }
  return exactOnOverflow(
    (payload) => reader.fast.fromBuffer(payload, fastResolver),
    (payload) => reader.exact.fromBuffer(payload, exactResolver),
  );
}

/**
 * The writer schema as avsc types, or why it cannot be one. The named types of the schemas it
 * references (Confluent's schema references: a field whose type is a record of another subject)
 * are compiled first, in dependency order, into the registry of names the schema is then compiled
 * with, as Confluent's deserializer does (Confluent's "Schema references":
 * https://docs.confluent.io/platform/current/schema-registry/fundamentals/serdes-develop/index.html).
 */
function writerTypes(registered: RegisteredSchema): AvroTypes | string {
  const compiled: avsc.Type[] = [];
  for (const options of [{ registry: {} }, exactLongOptions(avsc)]) {
    for (const reference of registered.references ?? []) {
      if (reference.type !== 'AVRO')
        return `has a writer schema that references a ${reference.type} schema (${reference.name}), not Avro`;
      try {
        avsc.Type.forSchema(JSON.parse(reference.definition) as avsc.Schema, options);
      } catch {
        return `has a writer schema whose reference ${reference.name} is not a valid Avro schema`;
      }
    }
    try {
      compiled.push(avsc.Type.forSchema(JSON.parse(registered.definition) as avsc.Schema, options));
    } catch {
      return 'has a writer schema that is not a valid Avro schema';
    }
  }
  return { fast: compiled[0]!, exact: compiled[1]! };
}
