// Its types name Node's (Buffer…): declared here, so that a project without @types/node is told so.
/// <reference types="node" preserve="true" />
/**
 * JSON Schema decoder for `kafkaBatch` (`kafka-lambda/json-schema`), built on Ajv (an optional peer
 * dependency). Reads Confluent- or Glue-framed JSON, checks it against the writer's JSON Schema (in
 * code or from the registry by id), then against your Standard Schema. The trigger's
 * `EventRecordFormat` `JSON` records are checked against the schema in code too, when there is one.
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
import type { RegisteredSchema } from '../schema-registry/registry.ts';

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
   * 2020-12 by its `$schema` (another dialect, such as draft-04, does not compile). Records the trigger
   * hands over as JSON (`eventRecordFormat: 'JSON'`) must match it too; without it, their JSON is
   * taken as the trigger validated it against the registry's schema.
   */
  schema?: AnySchema | undefined;
}

/**
 * A decoder for JSON Schema keys or values, for the `key` or `value` option of `kafkaBatch`. A
 * record that is not JSON or does not match the JSON Schema is poison (reason
 * `DESERIALIZATION_ERROR`); neither the record nor Ajv's messages are quoted. With the trigger's
 * `EventRecordFormat` `JSON`, the error says where the JSON fails the schema in code and by which
 * keyword (`at lines.0.sku: required`), showing only the property names the schema declares.
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
  // One Ajv per dialect, made when a schema of it is first met.
  const ajvs = new Map<string, Ajv>();
  const compile = (schema: AnySchema) => {
    const draft = jsonSchemaDraft(schema);
    let ajv = ajvs.get(draft);
    if (ajv === undefined) {
      ajv = newAjv(draft);
      ajvs.set(draft, ajv);
    }
    return ajv.compile(schema);
  };
  const validateLocal = options.schema === undefined ? undefined : compile(options.schema);
  return createSchemaRegistryDecoder<TOutput>(
    {
      format: 'JSON',
      label: 'JSON Schema',
      local: validateLocal && reader(validateLocal),
      // EventRecordFormat JSON: the record's JSON must match the schema in code, as framed records do.
      fromJson:
        validateLocal && ((json) => (validateLocal(json) ? { data: json } : mismatch(validateLocal, json))),
      jsonTarget: 'the JSON Schema in code',
      compile: (registered) => {
        if (registered.references !== undefined && registered.references.length > 0)
          return compileWithReferences(registered.definition, registered.references);
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

/** Unknown keywords (registry annotations) are allowed; formats are not checked (no ajv-formats). */
function newAjv(draft: ReturnType<typeof jsonSchemaDraft>): Ajv {
  const Dialect = draft === '2020-12' ? Ajv2020 : draft === '2019-09' ? Ajv2019 : Ajv;
  return new Dialect({ strict: false, allErrors: false, validateFormats: false });
}

/**
 * A writer schema that references others (Confluent's schema references: a `$ref` naming another
 * subject's schema): each referenced schema is added under its reference name, the `$ref` value,
 * then the schema is compiled, as Confluent's deserializer resolves them (Confluent's "Schema references":
 * https://docs.confluent.io/platform/current/schema-registry/fundamentals/serdes-develop/index.html).
 * An Ajv of its own: two writer schemas may reference two versions under one name, and keep their
 * `$id`, against which a relative `$ref` resolves.
 */
function compileWithReferences(
  definition: string,
  references: NonNullable<RegisteredSchema['references']>,
): PayloadReader | string {
  let schema: AnySchema;
  try {
    schema = JSON.parse(definition) as AnySchema;
  } catch {
    return 'has a writer schema that is not a valid JSON Schema';
  }
  const ajv = newAjv(jsonSchemaDraft(schema));
  for (const reference of references) {
    if (reference.type !== 'JSON')
      return `has a writer schema that references a ${reference.type} schema (${reference.name}), not a JSON Schema`;
    try {
      ajv.addSchema(JSON.parse(reference.definition) as AnySchema, reference.name);
    } catch {
      return `has a writer schema whose reference ${reference.name} is not a valid JSON Schema`;
    }
  }
  try {
    return reader(ajv.compile(schema));
  } catch {
    return 'has a writer schema that is not a valid JSON Schema (or one of its references is not)';
  }
}

/**
 * Where JSON fails its schema, and by which keyword (Ajv's first error), naming no value: a property
 * name is shown only when the schema declares it (`properties`, or the one `required` misses), an
 * array index as itself, any other key (data, such as an additional property's name) as `*`.
 */
function mismatch(validate: ValidateFunction, json: unknown): string {
  const error = validate.errors?.[0];
  if (error === undefined) return '(root): does not match';
  const path: Array<string | number> = [];
  let value = json;
  for (const escaped of error.instancePath.split('/').slice(1)) {
    const segment = escaped.replaceAll('~1', '/').replaceAll('~0', '~');
    if (Array.isArray(value)) {
      path.push(Number(segment));
      value = value[Number(segment)];
      continue;
    }
    const declared =
      error.schemaPath.includes(`/properties/${escaped}/`) ||
      error.schemaPath.includes(`/properties/${encodeURIComponent(escaped)}/`);
    path.push(declared ? segment : '*');
    value = (value as { [key: string]: unknown } | undefined)?.[segment];
  }
  const missing = (error.params as { missingProperty?: unknown }).missingProperty;
  if (error.keyword === 'required' && typeof missing === 'string') path.push(missing);
  return `${path.length === 0 ? '(root)' : path.join('.')}: ${error.keyword}`;
}

function reader(validate: ValidateFunction): PayloadReader {
  return (payload) => {
    const data: unknown = JSON.parse(payload.toString('utf8'));
    if (!validate(data)) throw new Error('does not match its JSON Schema');
    return data;
  };
}
