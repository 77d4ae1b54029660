/**
 * Errors of schema-registry decoding. Like every error of the middleware they carry the record's
 * position and the schema id, never its bytes.
 */
import { KafkaPoisonRecordError, type RecordPosition } from '../middleware/errors.ts';

/**
 * Why a record could not be decoded, in the words Lambda uses for its on-failure destination when
 * the trigger itself has a schema registry
 * (https://docs.aws.amazon.com/lambda/latest/dg/services-consume-kafka-events.html).
 *
 * @example
 * ```ts
 * const reason: SchemaRegistryFailureReason = 'SCHEMA_NOT_FOUND';
 * ```
 */
export type SchemaRegistryFailureReason = 'SCHEMA_NOT_FOUND' | 'DESERIALIZATION_ERROR';

/**
 * A record's key or value cannot be decoded: its framing is wrong, its schema id is unknown to the
 * registry, or its bytes do not match the schema. A poison record (see `onPoison`): retrying cannot
 * help. The message names the position, the schema id and the problem; never a byte of the payload.
 *
 * @example
 * ```ts
 * kafkaBatch({ value: avroDecoder({ registry }), onRecord, onPoison: (record, error) => {
 *   if (error instanceof KafkaSchemaRegistryDecodeError) deadLetter(record.raw, error.reason);
 * } });
 * ```
 */
export class KafkaSchemaRegistryDecodeError extends KafkaPoisonRecordError {
  override readonly name = 'KafkaSchemaRegistryDecodeError';
  readonly reason: SchemaRegistryFailureReason;
  /** The writer schema's id (Confluent) or version id (Glue), when the record named one. */
  readonly schemaId: string | undefined;

  constructor(
    position: RecordPosition,
    field: 'key' | 'value',
    reason: SchemaRegistryFailureReason,
    problem: string,
    schemaId?: string,
  ) {
    super(position, field, schemaId === undefined ? problem : `${problem} (schema ${schemaId})`);
    this.reason = reason;
    this.schemaId = schemaId;
  }
}

/**
 * The registry could not be asked (network error, timeout, 5xx, 401/403): not the record's fault, so
 * the record fails like a handler error and is retried. The message names the registry's answer,
 * never credentials.
 *
 * @example
 * ```ts
 * catch (error) { if (error instanceof SchemaRegistryRequestError) console.error(error.status); }
 * ```
 */
export class SchemaRegistryRequestError extends Error {
  override readonly name = 'SchemaRegistryRequestError';
  /** HTTP status, when the registry answered. */
  readonly status: number | undefined;

  constructor(message: string, status?: number, options?: ErrorOptions) {
    super(message, options);
    this.status = status;
  }
}

/**
 * The registry answered that it has no schema with this id (Confluent `40403`, Glue
 * `EntityNotFoundException`). Decoders turn it into a `SCHEMA_NOT_FOUND` poison record.
 *
 * @example
 * ```ts
 * await registry.getSchema('999', signal); // rejects with SchemaNotFoundError
 * ```
 */
export class SchemaNotFoundError extends Error {
  override readonly name = 'SchemaNotFoundError';
  readonly schemaId: string;

  constructor(schemaId: string) {
    super(`The schema registry has no schema ${schemaId}`);
    this.schemaId = schemaId;
  }
}
