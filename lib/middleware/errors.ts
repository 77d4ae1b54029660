/**
 * Typed errors of the Kafka batch middleware. Every error names what went wrong; none carries a
 * record's key, value or headers, so logging one never leaks a payload.
 */

import type { StandardSchemaV1 } from '@standard-schema/spec';

export { KafkaEventError } from '../kafka-event/parse.ts';

/**
 * The middleware's options are invalid (thrown when the middleware is created, or when the Middy
 * handler returns a value the middleware would overwrite).
 *
 * @example
 * ```ts
 * kafkaBatch({ onRecord, concurrency: 0 }); // throws KafkaBatchOptionsError: concurrency must be…
 * ```
 */
export class KafkaBatchOptionsError extends Error {
  override readonly name = 'KafkaBatchOptionsError';
}

/**
 * Where a record is: what errors and log lines carry instead of its payload.
 *
 * @example
 * ```ts
 * const position: RecordPosition = { topic: 'orders', partition: 3, offset: 1042 };
 * ```
 */
export interface RecordPosition {
  topic: string;
  partition: number;
  offset: number;
}

/**
 * Base class of "poison record" errors: the record itself cannot be processed (bytes that do not
 * decode, a value the schema rejects). Retrying will not help; the `onPoison` option decides whether
 * it is reported (retried), skipped or handed to a callback.
 *
 * @example
 * ```ts
 * kafkaBatch({ onRecord, onPoison: (record, error: KafkaPoisonRecordError) => deadLetter(record.raw, error.name) });
 * ```
 */
export class KafkaPoisonRecordError extends Error {
  override readonly name: string = 'KafkaPoisonRecordError';
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  /** The part of the record that is bad. */
  readonly field: 'key' | 'value' | 'headers';

  constructor(position: RecordPosition, field: 'key' | 'value' | 'headers', problem: string) {
    super(`${position.topic}-${position.partition}@${position.offset}: ${field} ${problem}`);
    this.topic = position.topic;
    this.partition = position.partition;
    this.offset = position.offset;
    this.field = field;
  }
}

/**
 * A record's key, value or headers cannot be decoded (wrong type in the event, not JSON when JSON
 * was asked for, a header that is not a byte array).
 *
 * @example
 * ```ts
 * record.json(); // throws KafkaRecordDecodeError: orders-0@7: value is not valid JSON
 * ```
 */
export class KafkaRecordDecodeError extends KafkaPoisonRecordError {
  override readonly name = 'KafkaRecordDecodeError';
}

/**
 * A record's key or value was rejected by its Standard Schema. `issues` keeps only the paths of the
 * problems: schema messages may quote the rejected value, which must not reach the logs.
 *
 * @example
 * ```ts
 * error.paths; // ['amount', 'items.0.sku']
 * ```
 */
export class KafkaSchemaError extends KafkaPoisonRecordError {
  override readonly name = 'KafkaSchemaError';
  /** Dotted paths of the rejected fields (`''` for the root). */
  readonly paths: readonly string[];

  constructor(position: RecordPosition, field: 'key' | 'value', paths: readonly string[]) {
    super(position, field, `failed schema validation at ${paths.map((p) => p || '(root)').join(', ')}`);
    this.paths = paths;
  }

  /**
   * The error for a Standard Schema's issues: their paths only (at most 10), never their messages.
   *
   * @example
   * ```ts
   * const result = schema['~standard'].validate(data);
   * if (result.issues) throw KafkaSchemaError.fromIssues(record, 'value', result.issues);
   * ```
   */
  static fromIssues(
    position: RecordPosition,
    field: 'key' | 'value',
    issues: readonly StandardSchemaV1.Issue[],
  ): KafkaSchemaError {
    const paths = new Set<string>();
    for (const issue of issues) {
      paths.add((issue.path ?? []).map((s) => String(typeof s === 'object' ? s.key : s)).join('.'));
      if (paths.size === 10) break;
    }
    return new KafkaSchemaError(position, field, [...paths]);
  }
}

/**
 * Thrown only with `throwOnBatchFailure: true`, when no record of the invocation was processed
 * successfully; Lambda then treats the invocation as a function error (retry, bisect, on-failure
 * destination) instead of reading a partial batch response.
 *
 * @example
 * ```ts
 * kafkaBatch({ onRecord, throwOnBatchFailure: true });
 * ```
 */
export class KafkaBatchFailedError extends Error {
  override readonly name = 'KafkaBatchFailedError';
  readonly records: number;

  constructor(records: number) {
    super(`All ${records} records of the batch failed`);
    this.records = records;
  }
}
