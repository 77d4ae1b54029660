// Its types name Node's (Buffer…): declared here, so that a project without @types/node is told so.
/// <reference types="node" preserve="true" />
/**
 * Avro decoder for `kafkaBatch` (`kafka-lambda/avro`), built on avsc (an optional peer dependency:
 * install it beside this package). Writer schemas come from the schema given in code or, with a
 * registry, by the record's schema id; a reader schema in code then reads every writer version
 * (Avro schema resolution: added fields take their defaults, removed fields are dropped), and the
 * JSON of the trigger's `EventRecordFormat` `JSON` records likewise. A `long` is a number while it is
 * a safe integer and a `bigint` beyond 2^53 − 1, never rounded nor refused.
 */
import type avsc from 'avsc';
import type { KafkaDecoder } from '../middleware/options.ts';
import {
  createSchemaRegistryDecoder,
  type SchemaRegistryDecoderOptions,
} from '../schema-registry/decoder.ts';
import { avroJsonReader } from './json.ts';
import { compileWriter, exactOnOverflow, toTypes } from './types.ts';

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
   * into it. Records the trigger hands over as JSON (`eventRecordFormat: 'JSON'`) are read into it
   * too, as schema resolution reads a binary record (fields the JSON lacks take their defaults, others
   * are dropped, values must fit its types), so `record.data` has the same shape whatever the trigger's
   * format. Without it, records are read as written (a registry is then required) and JSON records are
   * the parsed JSON. An avsc `Type` is used as it is: its `long` is avsc's, which refuses a value
   * beyond 2^53 − 1 unless you gave it a long type of your own.
   */
  schema?: avsc.Schema | avsc.Type | string | object | undefined;
}

/**
 * A decoder for Avro keys or values, for the `key` or `value` option of `kafkaBatch`. Handles every
 * wire situation: Confluent- or Glue-framed bytes (no registry on the trigger), and the trigger's
 * `EventRecordFormat` `SOURCE` or `JSON`. With `JSON` and a reader schema, the JSON is read into it as
 * a binary record is: a union value bare or wrapped in its branch name (`{"string": "x"}`), `bytes`
 * and `fixed` as base64, a `long` from its digits; a value that reads two ways into different data is
 * refused rather than guessed. Undecodable records are poison (`KafkaSchemaRegistryDecodeError`,
 * reason `DESERIALIZATION_ERROR` or `SCHEMA_NOT_FOUND`), and no error quotes their bytes or values
 * (a JSON record's error names the field: `at lines.0.qty: must be an int (a 32-bit integer)`). A tombstone (null value) is `null` and is not validated. An Avro `long`
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
      // EventRecordFormat JSON: the record's JSON read into the reader schema as binary records are.
      fromJson: reader === undefined ? undefined : avroJsonReader(reader.fast, reader.fast !== reader.exact),
      jsonTarget: 'the Avro reader schema',
      exactIntegers: true,
    },
    options,
  );
}
