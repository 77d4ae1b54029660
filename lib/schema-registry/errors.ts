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
 * Base of the schema-registry module's errors (`SchemaRegistryRequestError`, `SchemaNotFoundError`):
 * `error instanceof SchemaRegistryError` tells them apart from other errors. `cause` (from `options`)
 * says what led to the error (a network error's class and code, the AWS SDK exception's name), never
 * payload bytes or credentials. The one exception is {@link KafkaSchemaRegistryDecodeError}: a record
 * that cannot be decoded is a poison record, so that error extends the middleware's
 * `KafkaPoisonRecordError` instead (see there).
 *
 * @example
 * ```ts
 * try { await registry.getSchema('17'); } catch (error) {
 *   if (error instanceof SchemaRegistryError) console.error(error.name, error.message);
 * }
 * ```
 */
export class SchemaRegistryError extends Error {
  /** `'SchemaRegistryError'`; each subclass sets its own class name. */
  override readonly name: string = 'SchemaRegistryError';

  /**
   * @param message - What failed, never payload bytes or credentials.
   * @param options - `cause`: what led to the error, if anything.
   */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
  }
}

/**
 * A record's key or value cannot be decoded: its framing is wrong, its schema id is unknown to the
 * registry, or its bytes do not match the schema. A poison record (see `onPoison`): retrying cannot
 * help. The message names the position, the schema id and the problem; never a byte of the payload.
 *
 * It extends the middleware's `KafkaPoisonRecordError`, not {@link SchemaRegistryError}: `kafkaBatch`
 * treats poison records by that class (isolated, then reported, skipped or handed to `onPoison`), and
 * a class has one parent. Its `cause` says which library refused the bytes without the library's
 * message, which may quote them.
 *
 * @example
 * ```ts
 * kafkaBatch({ value: avroDecoder({ registry }), onRecord, onPoison: (record, error) => {
 *   if (error instanceof KafkaSchemaRegistryDecodeError) deadLetter(record.raw, error.reason);
 * } });
 * ```
 */
export class KafkaSchemaRegistryDecodeError extends KafkaPoisonRecordError {
  /** Always `'KafkaSchemaRegistryDecodeError'`. */
  override readonly name: string = 'KafkaSchemaRegistryDecodeError';
  /** Why, in the words of Lambda's on-failure destination: `SCHEMA_NOT_FOUND` or `DESERIALIZATION_ERROR`. */
  readonly reason: SchemaRegistryFailureReason;
  /** The writer schema's id (Confluent) or version id (Glue), when the record named one. */
  readonly schemaId: string | undefined;

  /**
   * @param position - Where the record is.
   * @param field - The part of the record that cannot be decoded.
   * @param reason - Why, in Lambda's words.
   * @param problem - What is wrong, without quoting the bytes (the message adds the schema id, if any).
   * @param schemaId - The writer schema's id or version id, when the record named one.
   * @param options - `cause`: the `SchemaNotFoundError`, or which library refused the bytes, if any.
   */
  constructor(
    position: RecordPosition,
    field: 'key' | 'value',
    reason: SchemaRegistryFailureReason,
    problem: string,
    schemaId?: string,
    options?: ErrorOptions,
  ) {
    super(position, field, schemaId === undefined ? problem : `${problem} (schema ${schemaId})`, options);
    this.reason = reason;
    this.schemaId = schemaId;
  }
}

/**
 * @internal The cause kept for bytes a decoding library refused: the library's error class only.
 * Its message (avsc's, protobufjs', Ajv's, `JSON.parse`'s) can quote the bytes, and a logger that
 * prints causes would write them out.
 */
export function withheldCause(library: string, error: unknown): Error {
  const kind = error instanceof Error ? error.name : typeof error;
  return new Error(`${library} refused the bytes (${kind}; its message is withheld: it may quote them)`);
}

/**
 * @internal The cause kept for a request that failed, or was refused, before the registry answered
 * usefully: the class and code of the error and of its causes, never a message. Node's fetch quotes
 * an invalid header (a credential) in its message, a server's error message may echo what it was
 * sent, and a logger that prints causes would write either out.
 */
export function requestCause(what: string, error: unknown): Error {
  const found: string[] = [];
  // A few levels cover fetch's TypeError and the socket error under it; a cycle ends there too.
  for (let at = error, depth = 0; at !== undefined && at !== null && depth < 4; depth++) {
    const { name, code, cause } = at as { name?: unknown; code?: unknown; cause?: unknown };
    found.push(typeof code === 'string' ? `${String(name)} ${code}` : String(name ?? typeof at));
    at = cause;
  }
  return new Error(
    `${what} failed (${found.join(', caused by ')}; messages withheld: they may quote credentials)`,
  );
}

/**
 * The registry could not be asked (network error, timeout, 5xx, 401/403, a 404 that is not
 * Confluent's "schema not found" 40403, such as a URL without Apicurio's `/apis/ccompat/v7`): not the
 * record's fault, so the record fails like a handler error and is retried. The message names the
 * registry's answer, never credentials.
 *
 * @example
 * ```ts
 * catch (error) { if (error instanceof SchemaRegistryRequestError) console.error(error.status); }
 * ```
 */
export class SchemaRegistryRequestError extends SchemaRegistryError {
  /** Always `'SchemaRegistryRequestError'`. */
  override readonly name: string = 'SchemaRegistryRequestError';
  /** HTTP status, when the registry answered. */
  readonly status: number | undefined;

  /**
   * @param message - What failed and what the registry answered, never credentials.
   * @param status - The HTTP status, when the registry answered.
   * @param options - `cause`: what led to the error (a network error's class and code, not its message).
   */
  constructor(message: string, status?: number, options?: ErrorOptions) {
    super(message, options);
    this.status = status;
  }
}

/**
 * The registry answered that it has no schema with this id (Confluent `40403`, Glue
 * `EntityNotFoundException`). Decoders turn it into a `SCHEMA_NOT_FOUND` poison record. A client of
 * your own (a `SchemaRegistryClient` implementation) rejects with it for an unknown id.
 *
 * @example
 * ```ts
 * await registry.getSchema('999', signal); // rejects with SchemaNotFoundError
 * ```
 */
export class SchemaNotFoundError extends SchemaRegistryError {
  /** Always `'SchemaNotFoundError'`. */
  override readonly name: string = 'SchemaNotFoundError';
  /** The id the registry has no schema for. */
  readonly schemaId: string;

  /**
   * @param schemaId - The id the registry has no schema for.
   * @param options - `cause`: what led to the error, if anything.
   */
  constructor(schemaId: string, options?: ErrorOptions) {
    super(`The schema registry has no schema ${schemaId}`, options);
    this.schemaId = schemaId;
  }
}
