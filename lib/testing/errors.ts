/**
 * The base of the testing helpers' errors. Each helper's own error lives next to it and extends
 * {@link KafkaTestingError}: `InvalidEventInputError` (kafkaEvent), `InvalidKafkaEventError`
 * (validateKafkaEvent), `InvalidBatchResponseError` (failedOffsets), `HandlerTimeoutError`,
 * `ResponseMarshalError` and `InvalidInvokeOptionsError` (invokeHandler) and `SchemaEncodeError` (the CLI's schema encoder).
 */

/**
 * Base of the testing helpers' errors: `error instanceof KafkaTestingError` tells a helper's refusal
 * (bad test input, a response Lambda would reject, a timeout) from the handler's own error. `cause`
 * (from `options`) keeps what led to it. Each subclass sets `name` to its own class name.
 *
 * @example
 * ```ts
 * try { failedOffsets(await invokeHandler(handler, event), event); } catch (error) {
 *   if (error instanceof KafkaTestingError) console.error(`${error.name}: ${error.message}`);
 * }
 * ```
 */
export class KafkaTestingError extends Error {
  /** `'KafkaTestingError'`; each subclass sets its own class name. */
  override readonly name: string = 'KafkaTestingError';

  /**
   * @param message - What the helper refused, and why.
   * @param options - `cause`: what led to the error, if anything.
   */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
  }
}
