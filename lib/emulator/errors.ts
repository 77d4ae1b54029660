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
  /** `'EmulatorError'`; each subclass sets its own class name. */
  override readonly name: string = 'EmulatorError';

  /**
   * @param message - What went wrong: a position or a setting, never a record's payload.
   * @param options - `cause`: what led to the error, if anything.
   */
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
  /** Always `'InvalidMappingSettingError'`. */
  override readonly name: string = 'InvalidMappingSettingError';
  /**
   * The offending option as the mapping's settings name it (`batchSize`, `onFailure`,
   * `provisionedPollerConfig.maximumPollers`, …), or `settings` for the settings object as a whole.
   */
  readonly setting: string;

  /**
   * @param setting - The offending option; the message starts with it.
   * @param message - What is wrong with it.
   * @param options - `cause`: what led to the error, if anything.
   */
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
  /** Always `'RecordTooLargeError'`. */
  override readonly name: string = 'RecordTooLargeError';
  /** The record's partition, as `"<topic>-<partition>"` (e.g. `orders-0`). */
  readonly partition: string;
  /** The record's offset. */
  readonly offset: number;

  /**
   * @param partition - The record's partition, as `"<topic>-<partition>"`.
   * @param offset - The record's offset.
   * @param bytes - The size of the record as the event holds it (its JSON, UTF-8), in bytes.
   * @param limit - The invocation payload limit in bytes (`LAMBDA_LIMITS.payloadBytes`).
   * @param options - `cause`: what led to the error, if anything.
   */
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
  /** Always `'InvokeRequestError'`. */
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
  /** Always `'EmulatorStateError'`. */
  override readonly name: string = 'EmulatorStateError';
}

/**
 * The function's module does not load, found by `start()` before it reads any record: the reference
 * names no module (`Runtime.ImportModuleError`) or no function in it (`Runtime.HandlerNotFound`), is
 * malformed (`Runtime.MalformedHandlerName`), or the module fails in its init phase (a syntax error, an
 * exception at its top level, a callback handler, an init phase past Lambda's 10 s). Lambda would fail
 * every invocation with it, and drop or commit past the records once the retries ran out. `cause` is the
 * runtime's error: a `HandlerNotFoundError` for a wrong reference, a `HandlerInitError` for an init failure.
 *
 * @example
 * ```ts
 * await mapping.start().catch((error) => {
 *   if (error instanceof FunctionLoadError) console.error(error.handler, error.errorType); // 'src/handlr.ts' 'Runtime.ImportModuleError'
 * });
 * ```
 */
export class FunctionLoadError extends EmulatorError {
  /** Always `'FunctionLoadError'`. */
  override readonly name: string = 'FunctionLoadError';
  /** The module reference as given in `function.handler` (`src/handler.ts#handler`). */
  readonly handler: string;
  /** The error type Lambda's runtime reports for it (`Runtime.ImportModuleError`, `Runtime.HandlerNotFound`, `Error`…). */
  readonly errorType: string;

  /**
   * @param handler - The module reference as given.
   * @param errorType - The error type Lambda's runtime reports.
   * @param message - What the runtime said (the module's own error message for an init failure).
   * @param options - `cause`: the runtime's error.
   */
  constructor(handler: string, errorType: string, message: string, options?: ErrorOptions) {
    super(`function.handler ${handler} does not load: ${errorType}: ${message}`, options);
    this.handler = handler;
    this.errorType = errorType;
  }
}
