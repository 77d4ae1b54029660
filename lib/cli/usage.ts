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
 * Like {@link exitWithUsageCode}, and a usage error of a command line that asks for `--json` is also
 * reported on stdout: `print` gets the message (what stderr says, without commander's `error: `), to
 * write the command's `{ "ok": false, "error": { "message": … } }` object, so that a script reading
 * stdout gets an object whatever went wrong. Without `--json`, nothing more than commander's output.
 *
 * @example
 * ```ts
 * reportUsageErrorsAsJson(command, (message) => console.log(JSON.stringify({ ok: false, error: { message } })));
 * ```
 */
export function reportUsageErrorsAsJson(command: Command, print: (message: string) => void): Command {
  return command.exitOverride((error) => {
    if (error.exitCode !== 0 && givesFlag(command, commandLineOf(command), '--json'))
      print(printableErrorMessage(error.message.replace(/^error: /, '')).trimEnd());
    exitWithUsageCode(error);
  });
}

/**
 * The arguments given to `command`, as its parent passed them on: the parent's `args` are the command's
 * name then its arguments (set before the command is parsed).
 */
function commandLineOf(command: Command): readonly string[] {
  const args = command.parent?.args ?? [];
  const at = args.indexOf(command.name());
  return at === -1 ? [] : args.slice(at + 1);
}

/**
 * Whether `args` give `command` the boolean option `flag` (`--json`), read as commander reads them
 * (an option's value is not an option: `--value --json` sets --value; combined short flags; `--` ends
 * the options), without running any option's parser: an invalid value anywhere else on the line does
 * not hide it, and neither does an unknown option before it.
 *
 * @example
 * ```ts
 * givesFlag(produce, ['--count', '0', '--json'], '--json'); // true
 * givesFlag(produce, ['--value', '--json'], '--json'); // false
 * ```
 */
export function givesFlag(command: Command, args: readonly string[], flag: string): boolean {
  const find = (name: string) => command.options.find((o) => o.long === name || o.short === name);
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') return false;
    if (arg === flag) return true;
    if (arg.length < 2 || !arg.startsWith('-') || /^--[^=]+=/.test(arg)) continue;
    if (arg.startsWith('--')) {
      const option = find(arg);
      const next = args[i + 1];
      if (option?.required || (option?.optional && next !== undefined && !/^-./.test(next))) i++;
      continue;
    }
    // -t orders, -torders, -fv (booleans), -fvt orders: a short flag taking a value takes the rest.
    for (let c = 1; c < arg.length; c++) {
      const option = find(`-${arg[c]}`);
      if (!option) break;
      if (option.required || option.optional) {
        if (c === arg.length - 1 && (option.required || !/^-./.test(args[i + 1] ?? '-'))) i++;
        break;
      }
    }
  }
  return false;
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
