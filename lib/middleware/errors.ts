/**
 * Typed errors of the Kafka batch middleware. Every error names what went wrong; none carries a
 * record's key, value or headers, so logging one never leaks a payload. All extend
 * {@link KafkaBatchError}; `KafkaEventError` (the event itself is not a Kafka event) is the event
 * parser's, re-exported here.
 */

import type { StandardSchemaV1 } from '@standard-schema/spec';
import { describeError } from './log.ts';
import { DECLARED_NAME, issuePaths } from './withheld.ts';

export { KafkaEventError } from '../kafka-event/errors.ts';
// Where the text of an error may be: kept beside the errors that use it.
export { jsonSyntaxCause, shownPath } from './withheld.ts';

/**
 * Base of the middleware's typed errors: `error instanceof KafkaBatchError` tells them from a
 * handler's own errors. `cause` (from `options`) keeps what led to the error; a cause never carries a
 * payload either. Each subclass sets `name` to its own class name (a literal, so minified bundles
 * keep it).
 *
 * @example
 * ```ts
 * try { await handler(event, context); } catch (error) {
 *   if (error instanceof KafkaBatchError) console.error(error.name); // the middleware's own error
 * }
 * ```
 */
export class KafkaBatchError extends Error {
  /** `'KafkaBatchError'`; each subclass sets its own class name. */
  override readonly name: string = 'KafkaBatchError';

  /**
   * @param message - What went wrong, without a record's key, value or headers.
   * @param options - `cause`: what led to the error, if anything.
   */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
  }
}

/**
 * The middleware's options are invalid (thrown when the middleware is created, or when the Middy
 * handler returns a value the middleware would overwrite).
 *
 * @example
 * ```ts
 * kafkaBatch({ onRecord, concurrency: 0 }); // throws KafkaBatchOptionsError: concurrency must be…
 * ```
 */
export class KafkaBatchOptionsError extends KafkaBatchError {
  /** Always `'KafkaBatchOptionsError'`. */
  override readonly name: string = 'KafkaBatchOptionsError';
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
 * Base class of "poison record" errors: the record itself cannot be processed (a value that is not
 * the JSON or the encoding asked for, a key or value the schema rejects). Retrying will not help; the `onPoison` option decides whether
 * it is reported (retried), skipped or handed to a callback.
 *
 * @example
 * ```ts
 * kafkaBatch({ onRecord, onPoison: (record, error: KafkaPoisonRecordError) => deadLetter(record.raw, error.name) });
 * ```
 */
export class KafkaPoisonRecordError extends KafkaBatchError {
  /** `'KafkaPoisonRecordError'`; each subclass sets its own class name. */
  override readonly name: string = 'KafkaPoisonRecordError';
  /** The record's topic. */
  readonly topic: string;
  /** The record's partition. */
  readonly partition: number;
  /** The record's offset. */
  readonly offset: number;
  /** The part of the record that is bad. */
  readonly field: 'key' | 'value';

  /** `problem` says what is wrong with `field` without quoting it, e.g. `'is not valid JSON'`. */
  constructor(position: RecordPosition, field: 'key' | 'value', problem: string, options?: ErrorOptions) {
    super(`${position.topic}-${position.partition}@${position.offset}: ${field} ${problem}`, options);
    this.topic = position.topic;
    this.partition = position.partition;
    this.offset = position.offset;
    this.field = field;
  }
}

/**
 * A record's key, value or headers are not encoded as Lambda encodes them (base64 text, headers as
 * byte arrays): Lambda never sends that, so something changed the event before the middleware (a
 * middleware that decodes values, such as `@middy/event-normalizer`, or a hand-written event). The
 * record in Kafka is not at fault: it is not poison, never skipped by `onPoison`, and is reported
 * for retry like a handler error.
 *
 * @example
 * ```ts
 * record.value; // throws KafkaRecordEncodingError: orders-0@7: value is not a base64 string (…)
 * ```
 */
export class KafkaRecordEncodingError extends KafkaBatchError {
  /** Always `'KafkaRecordEncodingError'`. */
  override readonly name: string = 'KafkaRecordEncodingError';
  /** The record's topic. */
  readonly topic: string;
  /** The record's partition. */
  readonly partition: number;
  /** The record's offset. */
  readonly offset: number;
  /** The part of the record that is not encoded as Lambda encodes it. */
  readonly field: 'key' | 'value' | 'headers';

  /** `problem` says what is wrong with `field` without quoting it, e.g. `'is not a base64 string'`. */
  constructor(position: RecordPosition, field: 'key' | 'value' | 'headers', problem: string) {
    super(
      `${position.topic}-${position.partition}@${position.offset}: ${field} ${problem} (Lambda sends base64 text and byte-array headers: did something change the event before kafkaBatch?)`,
    );
    this.topic = position.topic;
    this.partition = position.partition;
    this.offset = position.offset;
    this.field = field;
  }
}

/**
 * A key's or value's schema threw (or its promise rejected) instead of answering with issues: a
 * `transform` that failed, an async refinement whose lookup failed. The throw may be transient, so the
 * record is not poison: it is reported for retry and never skipped by `onPoison`. The thrown error's
 * message may quote the value (`JSON.parse` in a transform does), so only its class is kept: the
 * `cause` is an error of the same name whose message says it was withheld.
 *
 * @example
 * ```ts
 * // value: v.pipe(v.string(), v.transform((s) => JSON.parse(s))), on a value that is not JSON:
 * // KafkaSchemaThrewError: orders-0@7: value's schema threw a SyntaxError (its message is withheld: it may quote the value)
 * ```
 */
export class KafkaSchemaThrewError extends KafkaBatchError {
  /** Always `'KafkaSchemaThrewError'`. */
  override readonly name: string = 'KafkaSchemaThrewError';
  /** The record's topic. */
  readonly topic: string;
  /** The record's partition. */
  readonly partition: number;
  /** The record's offset. */
  readonly offset: number;
  /** Whose schema threw. */
  readonly field: 'key' | 'value';

  /** `thrown` is what the schema threw; only its class name is kept. */
  constructor(position: RecordPosition, field: 'key' | 'value', thrown: unknown) {
    // Read as the logs read any error (a throwing getter or Proxy trap tolerated), and kept only when
    // it looks like a class name: a name is the thrower's to set, and could carry anything.
    const { errorName } = describeError(thrown);
    const thrownName = DECLARED_NAME.test(errorName) ? errorName : 'non-Error value';
    const cause = new Error(`its message is withheld: it may quote the ${field}`);
    cause.name = thrownName;
    super(
      `${position.topic}-${position.partition}@${position.offset}: ${field}'s schema threw ${/^[AEIOU]/.test(thrownName) ? 'an' : 'a'} ${thrownName} (its message is withheld: it may quote the ${field})`,
      { cause },
    );
    this.topic = position.topic;
    this.partition = position.partition;
    this.offset = position.offset;
    this.field = field;
  }
}

/**
 * A record's key or value cannot be decoded as asked (not JSON when JSON was asked for, not what a
 * decoder reads).
 *
 * @example
 * ```ts
 * record.json(); // throws KafkaRecordDecodeError: orders-0@7: value is not valid JSON
 * ```
 */
export class KafkaRecordDecodeError extends KafkaPoisonRecordError {
  /** Always `'KafkaRecordDecodeError'`. */
  override readonly name: string = 'KafkaRecordDecodeError';
}

/**
 * A record's key or value was rejected by its Standard Schema. Of the schema's issues, `paths` keeps
 * only where they are, and of a path only what the schema declares ({@link shownPath}): schema
 * messages may quote the rejected value, and a path may hold the data's own keys; neither must reach
 * the logs.
 *
 * @example
 * ```ts
 * error.paths; // ['amount', 'items.0.sku', 'prices.*']
 * ```
 */
export class KafkaSchemaError extends KafkaPoisonRecordError {
  /** Always `'KafkaSchemaError'`. */
  override readonly name: string = 'KafkaSchemaError';
  /**
   * Dotted paths of the rejected fields (`''` for the root): declared field names and array indices,
   * `*` for a segment that comes from the data (a record's or map's key, an unknown key).
   */
  readonly paths: readonly string[];

  /**
   * `paths` go into the message as given: {@link KafkaSchemaError.fromIssues} builds them from a
   * Standard Schema's issues without the data's own keys.
   *
   * @param position - Where the record is.
   * @param field - The part of the record the schema rejected.
   * @param paths - Dotted paths of the rejected fields, as {@link KafkaSchemaError.paths} holds them.
   * @param absent - The record has no such field (a tombstone's value, a missing key): the schema was
   *   given `null`, and the message says so and how to accept it.
   */
  constructor(position: RecordPosition, field: 'key' | 'value', paths: readonly string[], absent = false) {
    const where = `failed schema validation at ${paths.map((p) => p || '(root)').join(', ')}`;
    super(
      position,
      field,
      absent
        ? `is null (${field === 'value' ? 'a tombstone: the record has no value' : 'the record has no key'}), which its schema refuses (${where}); make it accept null (v.nullable(…), z.nullable(…)) or skip such records with onPoison: 'skip'`
        : where,
    );
    this.paths = paths;
  }

  /**
   * The error for a Standard Schema's issues: their paths only (at most 10, data keys as `*`), never
   * their messages. `absent`: the schema was given `null` because the record has no such field (see
   * the constructor).
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
    absent = false,
  ): KafkaSchemaError {
    return new KafkaSchemaError(position, field, issuePaths(issues), absent);
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
export class KafkaBatchFailedError extends KafkaBatchError {
  /** Always `'KafkaBatchFailedError'`. */
  override readonly name: string = 'KafkaBatchFailedError';
  /** How many records the invocation had (none of them was processed). */
  readonly records: number;
  /** How many of them failed; the others waited behind a failed record of their partition, or for time. */
  readonly failed: number;
  /** Whether the invocation's deadline (less `timeoutReserveMs`) stopped records from starting. */
  readonly timedOut: boolean;

  /**
   * @param records - How many records the invocation had (none of them was processed).
   * @param failed - How many of them failed (default: all).
   * @param timedOut - Whether the deadline stopped records from starting.
   */
  constructor(records: number, failed = records, timedOut = false) {
    super(
      failed === records
        ? `All ${records} records of the batch failed`
        : `No record of the batch of ${records} was processed: ${failed} failed, ${
            timedOut
              ? "the others did not start before the invocation's deadline (timeoutReserveMs)"
              : 'the others wait behind them in their partitions'
          }`,
    );
    this.records = records;
    this.failed = failed;
    this.timedOut = timedOut;
  }
}
