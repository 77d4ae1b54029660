import { CommanderError, InvalidArgumentError } from 'commander';

/**
 * Exit code of a command line or input the command cannot use.
 *
 * @example
 * ```ts
 * process.exitCode = USAGE_EXIT_CODE;
 * ```
 */
export const USAGE_EXIT_CODE = 2;

/**
 * Makes commander's usage errors (unknown option, missing or invalid argument) exit with
 * {@link USAGE_EXIT_CODE} instead of 1, which the command keeps for failures of the work itself.
 *
 * @example
 * ```ts
 * program.command('event').exitOverride(exitWithUsageCode);
 * ```
 */
export function exitWithUsageCode(error: CommanderError): never {
  if (error.exitCode === 0) throw error;
  throw new CommanderError(USAGE_EXIT_CODE, error.code, error.message);
}

/**
 * Commander's refusal of an option value, keeping the error that led to it as `cause` (commander's
 * `InvalidArgumentError` takes a message only).
 *
 * @example
 * ```ts
 * try { return JSON.parse(text); } catch (error) { throw invalidArgument('not JSON', error); }
 * ```
 */
export function invalidArgument(message: string, cause: unknown): InvalidArgumentError {
  const error = new InvalidArgumentError(message);
  error.cause = cause;
  return error;
}

/**
 * A commander option parser for an integer within `[min, max]`.
 *
 * @example
 * ```ts
 * command.option('--count <n>', 'records', integerOption(1, 10_000), 1);
 * ```
 */
export function integerOption(min: number, max = Number.MAX_SAFE_INTEGER): (value: string) => number {
  return (value) => {
    const number = Number(value);
    if (value.trim() === '' || !Number.isSafeInteger(number) || number < min || number > max) {
      throw new InvalidArgumentError(
        max === Number.MAX_SAFE_INTEGER
          ? `must be an integer ≥ ${min}`
          : `must be an integer from ${min} to ${max}`,
      );
    }
    return number;
  };
}
