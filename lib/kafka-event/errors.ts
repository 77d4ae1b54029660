/**
 * The error of the Kafka event kernel (`parseKafkaEvent`): one class, the base of any error this module
 * adds later. Its message names a field of the event, never a payload.
 */

/**
 * The invocation's payload is not a Kafka event, or a record lacks what identifies it (topic,
 * partition, offset). Such a record cannot be reported by offset, so the middleware throws this and
 * Lambda retries the whole batch.
 *
 * @example
 * ```ts
 * try { await handler(event, context); } catch (error) {
 *   if (error instanceof KafkaEventError) console.error(error.field); // 'records["orders-0"][3].offset'
 * }
 * ```
 */
export class KafkaEventError extends Error {
  /** Always `'KafkaEventError'`. */
  override readonly name: string = 'KafkaEventError';
  /** Path of the offending field in the event, e.g. `records["orders-0"][3].offset`. */
  readonly field: string;

  /** `problem` says what is wrong with `field` without quoting a payload, e.g. `'is missing'`. */
  constructor(field: string, problem: string, options?: ErrorOptions) {
    super(`Invalid Kafka event: ${field} ${problem}`, options);
    this.field = field;
  }
}
