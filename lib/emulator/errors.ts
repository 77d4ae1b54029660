/**
 * Base of the trigger emulator's typed errors: every error the emulator throws or reports through
 * `onEvent` extends it, and keeps what caused it in `cause`. Messages name a position or a setting,
 * never a record's payload.
 *
 * @example
 * ```ts
 * try {
 *   await emulator.start();
 * } catch (error) {
 *   if (error instanceof EmulatorError) console.error(error.name, error.message, error.cause);
 * }
 * ```
 */
export class EmulatorError extends Error {
  override readonly name: string = 'EmulatorError';

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
  }
}

/**
 * A setting of the emulated event source mapping is missing, out of Lambda's range or inconsistent
 * with another one. `setting` names the offending option as Lambda spells it.
 *
 * @example
 * ```ts
 * try {
 *   resolveMappingSettings({ topic: 'orders', batchSize: 0 });
 * } catch (error) {
 *   if (error instanceof InvalidMappingSettingError) console.error(error.setting, error.message);
 * }
 * ```
 */
export class InvalidMappingSettingError extends EmulatorError {
  override readonly name: string = 'InvalidMappingSettingError';
  readonly setting: string;

  constructor(setting: string, message: string, options?: ErrorOptions) {
    super(`${setting}: ${message}`, options);
    this.setting = setting;
  }
}

/**
 * A single record is larger than Lambda's synchronous invocation payload limit
 * (`LAMBDA_LIMITS.payloadBytes`), so Lambda cannot deliver it. Without an on-failure destination the
 * partition stays blocked at this record.
 *
 * @example
 * ```ts
 * onEvent: (event) => {
 *   if (event.type === 'error' && event.error instanceof RecordTooLargeError) console.error(event.error.message);
 * }
 * ```
 */
export class RecordTooLargeError extends EmulatorError {
  override readonly name: string = 'RecordTooLargeError';
  readonly partition: string;
  readonly offset: number;

  constructor(partition: string, offset: number, bytes: number, limit: number, options?: ErrorOptions) {
    super(
      `record ${partition}@${offset} encodes to ${bytes} bytes, above the ${limit}-byte invocation payload limit`,
      options,
    );
    this.partition = partition;
    this.offset = offset;
  }
}

/**
 * The Lambda Invoke API call itself failed (endpoint unreachable, throttled, function missing), as
 * opposed to the function returning an error. The batch is retried without counting an attempt.
 *
 * @example
 * ```ts
 * onEvent: (event) => {
 *   if (event.type === 'error' && event.error instanceof InvokeRequestError) console.error(event.error.message);
 * }
 * ```
 */
export class InvokeRequestError extends EmulatorError {
  override readonly name: string = 'InvokeRequestError';
}

/**
 * The trigger emulator cannot do what was asked in its current state: `start()` on an emulator that
 * is already running or stopped, or `idle()` on one that stops before it becomes idle.
 *
 * @example
 * ```ts
 * await emulator.start();
 * await emulator.start().catch((e) => e instanceof EmulatorStateError); // true
 * ```
 */
export class EmulatorStateError extends EmulatorError {
  override readonly name: string = 'EmulatorStateError';
}
