/**
 * An event source mapping setting is missing, out of Lambda's range or inconsistent with another one.
 * `setting` names the offending option as Lambda spells it.
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
export class InvalidMappingSettingError extends Error {
  override readonly name = 'InvalidMappingSettingError';
  readonly setting: string;

  constructor(setting: string, message: string) {
    super(`${setting}: ${message}`);
    this.setting = setting;
  }
}

/**
 * A single record is larger than the 6 MB synchronous invocation payload, so Lambda cannot deliver it.
 * Without an on-failure destination the partition stays blocked at this record.
 *
 * @example
 * ```ts
 * emulator.on('error', (error) => { if (error instanceof RecordTooLargeError) console.error(error.message); });
 * ```
 */
export class RecordTooLargeError extends Error {
  override readonly name = 'RecordTooLargeError';
  readonly partition: string;
  readonly offset: number;

  constructor(partition: string, offset: number, bytes: number, limit: number) {
    super(
      `record ${partition}@${offset} encodes to ${bytes} bytes, above the ${limit}-byte invocation payload limit`,
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
 * emulator.on('error', (error) => { if (error instanceof InvokeRequestError) console.error(error.message); });
 * ```
 */
export class InvokeRequestError extends Error {
  override readonly name = 'InvokeRequestError';
}

/**
 * `start()` was called on a mapping that is already running or stopping.
 *
 * @example
 * ```ts
 * await mapping.start();
 * await mapping.start().catch((e) => e instanceof MappingStateError); // true
 * ```
 */
export class MappingStateError extends Error {
  override readonly name = 'MappingStateError';
}
