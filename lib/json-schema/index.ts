// Its types name Node's (Buffer…): declared here, so that a project without @types/node is told so.
/// <reference types="node" preserve="true" />
/**
 * JSON Schema decoder for `kafkaBatch` (`kafka-lambda/json-schema`), built on Ajv (an optional peer
 * dependency). Reads Confluent- or Glue-framed JSON, checks it against the writer's JSON Schema (in
 * code or from the registry by id), then against your Standard Schema.
 */
import { Ajv, type AnySchema, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { KafkaDecoder } from '../middleware/options.ts';
import {
  createSchemaRegistryDecoder,
  type PayloadReader,
  type SchemaRegistryDecoderOptions,
} from '../schema-registry/decoder.ts';
import { jsonSchemaDraft } from '../schema-registry/json-schema-draft.ts';

// Types named by this entry's signatures, so that a user can name them too.
export type * from '../schema-registry/entry-types.ts';

/**
 * Options of {@link jsonSchemaDecoder}.
 *
 * @example
 * ```ts
 * const options: JsonSchemaDecoderOptions<Order> = { schema: { type: 'object', required: ['id'] } };
 * ```
 */
export interface JsonSchemaDecoderOptions<TOutput> extends SchemaRegistryDecoderOptions<TOutput> {
  /**
   * The JSON Schema every record must match, used instead of the registry's: draft-07, or 2019-09 and
   * 2020-12 by its `$schema` (another dialect, such as draft-04, does not compile).
   */
  schema?: AnySchema;
}

/**
 * A decoder for JSON Schema keys or values, for the `key` or `value` option of `kafkaBatch`. A
 * record that is not JSON or does not match the JSON Schema is poison (reason
 * `DESERIALIZATION_ERROR`); neither the record nor Ajv's messages are quoted.
 *
 * @example
 * ```ts
 * import { jsonSchemaDecoder } from 'kafka-lambda/json-schema';
 * kafkaBatch({ value: jsonSchemaDecoder({ registry, validate: OrderSchema }), onRecord: (r) => r.data?.id });
 * ```
 */
export function jsonSchemaDecoder<TOutput = unknown>(
  options: JsonSchemaDecoderOptions<TOutput>,
): KafkaDecoder<TOutput | null> {
  // Unknown keywords (registry annotations) are allowed; formats are not checked (no ajv-formats). One
  // Ajv per dialect, made when a schema of it is first met.
  const ajvs = new Map<string, Ajv>();
  const compile = (schema: AnySchema) => {
    const draft = jsonSchemaDraft(schema);
    let ajv = ajvs.get(draft);
    if (ajv === undefined) {
      const Dialect = draft === '2020-12' ? Ajv2020 : draft === '2019-09' ? Ajv2019 : Ajv;
      ajv = new Dialect({ strict: false, allErrors: false, validateFormats: false });
      ajvs.set(draft, ajv);
    }
    return ajv.compile(schema);
  };
  const local = options.schema === undefined ? undefined : reader(compile(options.schema));
  return createSchemaRegistryDecoder<TOutput>(
    {
      format: 'JSON',
      label: 'JSON Schema',
      local,
      compile: (registered) => {
        try {
          // Each id is compiled once (the decoder caches readers); the schema's $id must not clash.
          const definition = JSON.parse(registered.definition) as Record<string, unknown>;
          const { $id: _ignored, ...schema } = definition;
          return reader(compile(schema));
        } catch {
          return 'has a writer schema that is not a valid JSON Schema';
        }
      },
    },
    options,
  );
}

function reader(validate: ValidateFunction): PayloadReader {
  return (payload) => {
    const data: unknown = JSON.parse(payload.toString('utf8'));
    if (!validate(data)) throw new Error('does not match its JSON Schema');
    return data;
  };
}
