import { type Command, CommanderError, InvalidArgumentError, type Option } from 'commander';
import { escapeControlCharacters } from '../text/control-characters.ts';

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
    // Decimal digits only: Number() also reads `1e3`, `0x10` and ` 3`, which nobody means as a count.
    if (/^-?\d+$/.test(value) && !Number.isSafeInteger(number)) {
      throw new InvalidArgumentError(
        `is beyond ±${Number.MAX_SAFE_INTEGER} (2^53 − 1), the largest integer read exactly here`,
      );
    }
    if (!/^-?\d+$/.test(value) || number < min || number > max) {
      throw new InvalidArgumentError(
        max === Number.MAX_SAFE_INTEGER
          ? `must be an integer ≥ ${min}`
          : `must be an integer from ${min} to ${max}`,
      );
    }
    return number;
  };
}

/** Kafka's rule for a topic name (its `Topic.validate`): 1–249 of `a-z A-Z 0-9 . _ -`, and not `.` or `..`. */
const KAFKA_TOPIC = /^(?!\.{1,2}$)[a-zA-Z0-9._-]{1,249}$/;

/**
 * A commander option parser for a Kafka topic name, so that a name the broker would refuse is a usage
 * error before anything is sent.
 *
 * @example
 * ```ts
 * command.requiredOption('-t, --topic <topic>', 'the topic to read', topicOption);
 * ```
 */
export function topicOption(value: string): string {
  if (!KAFKA_TOPIC.test(value))
    throw new InvalidArgumentError('not a Kafka topic name (1–249 of a-z A-Z 0-9 . _ -, not . or ..)');
  return value;
}

/** SGR sequences (colours, bold…), `ESC [ params m`, as Maven's and servers' log lines carry them. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the escape character is what is matched.
const ANSI_COLOUR = /\x1b\[[0-9;]*m/g;

/**
 * An error message as the CLI prints it: its line breaks and tabs kept (a server's log tail, Maven's
 * output), colour sequences dropped, and every other control character escaped as
 * {@link escapeControlCharacters} does, since the text may come from the user or a server and must not
 * drive the terminal (move the cursor, retitle the window, overwrite a line with `\r`).
 *
 * @example
 * ```ts
 * printableErrorMessage('Maven failed:\n\x1b[1;31m[ERROR]\x1b[m bad\x07'); // 'Maven failed:\n[ERROR] bad\\u0007'
 * ```
 */
export function printableErrorMessage(text: string): string {
  return escapeControlCharacters(text.replace(ANSI_COLOUR, ''), { keep: '\n\t' });
}

/**
 * Makes `program`'s commands report an unknown option before a missing required one: commander checks
 * required options first, so `event --topicc orders` said that `--topic` was missing. The options
 * declared with `requiredOption` are checked instead just before the action runs, after commander has
 * refused unknown options, with commander's message.
 *
 * @example
 * ```ts
 * registerEventCommand(program);
 * checkRequiredOptionsLast(program);
 * ```
 */
export function checkRequiredOptionsLast(program: Command): void {
  const required = new Set<Option>();
  const collect = (command: Command) => {
    for (const option of command.options.filter((o) => o.mandatory)) {
      option.mandatory = false;
      required.add(option);
    }
    for (const subcommand of command.commands) collect(subcommand);
  };
  collect(program);
  program.hook('preAction', (_program, action) => {
    const missing = action.options.find(
      (option) => required.has(option) && action.getOptionValue(option.attributeName()) === undefined,
    );
    if (missing)
      action.error(`error: required option '${missing.flags}' not specified`, {
        code: 'commander.missingMandatoryOptionValue',
        exitCode: USAGE_EXIT_CODE,
      });
  });
}
