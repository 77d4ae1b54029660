// Its types name Node's (Buffer…): declared here, so that a project without @types/node is told so.
/// <reference types="node" preserve="true" />
/**
 * The AWS Glue Schema Registry client: its own entry point (`kafka-lambda/schema-registry/glue`), so
 * only functions that use Glue load `@aws-sdk/client-glue`.
 */
import { GetSchemaVersionCommand, GlueClient } from '@aws-sdk/client-glue';
import { requestCause, SchemaNotFoundError, SchemaRegistryRequestError } from './errors.ts';
import {
  CachingSchemaRegistry,
  type RegisteredSchema,
  type SchemaRegistryCacheOptions,
  type SchemaRegistryClient,
} from './registry.ts';

// Types named by this entry's signatures, so that a user can name them too.
export type {
  RegisteredSchema,
  SchemaRegistryCacheOptions,
  SchemaRegistryClient,
  SchemaRegistryStats,
} from './registry.ts';

/**
 * Options of {@link glueSchemaRegistry}.
 *
 * @example
 * ```ts
 * const options: GlueSchemaRegistryOptions = { client: new GlueClient({ region: 'eu-west-1' }) };
 * ```
 */
export interface GlueSchemaRegistryOptions extends SchemaRegistryCacheOptions {
  /** Default: a `GlueClient` for the function's region. */
  client?: GlueClient | undefined;
}

/**
 * A client of the AWS Glue Schema Registry: `GetSchemaVersion` by schema version id (the UUID in the
 * record's Glue header), cached. The function needs `glue:GetSchemaVersion`.
 *
 * @example
 * ```ts
 * const registry = glueSchemaRegistry();
 * export const handler = middy().use(kafkaBatch({ value: avroDecoder({ registry }), onRecord }));
 * ```
 */
export function glueSchemaRegistry(options: GlueSchemaRegistryOptions = {}): SchemaRegistryClient {
  return new GlueSchemaRegistry(options);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

class GlueSchemaRegistry extends CachingSchemaRegistry {
  readonly registry = 'glue';
  readonly #client: GlueClient;

  constructor(options: GlueSchemaRegistryOptions) {
    super(options);
    this.#client = options.client ?? new GlueClient({});
  }

  protected async fetchSchema(id: string, signal: AbortSignal): Promise<RegisteredSchema> {
    if (!UUID.test(id)) throw new SchemaNotFoundError(id);
    let answer: { SchemaDefinition?: string; DataFormat?: string };
    try {
      answer = await this.#client.send(new GetSchemaVersionCommand({ SchemaVersionId: id }), {
        abortSignal: signal,
      });
    } catch (error) {
      if ((error as { name?: unknown }).name === 'EntityNotFoundException') throw new SchemaNotFoundError(id);
      const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      // The exception's name and status say what went wrong; its message is the endpoint's text,
      // which may echo what it was sent.
      throw new SchemaRegistryRequestError(
        `Glue GetSchemaVersion for ${id} failed (${(error as { name?: unknown }).name ?? 'error'})`,
        status,
        { cause: requestCause('GetSchemaVersion', error) },
      );
    }
    const { SchemaDefinition: definition, DataFormat: type } = answer;
    if (typeof definition !== 'string' || (type !== 'AVRO' && type !== 'PROTOBUF' && type !== 'JSON'))
      throw new SchemaRegistryRequestError(`Glue GetSchemaVersion for ${id} returned no usable schema`);
    return { id, type, definition };
  }
}
