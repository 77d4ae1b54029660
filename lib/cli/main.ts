import { Command, CommanderError } from 'commander';
import { escapeControlCharacters } from '../text/control-characters.ts';
import { ownPackage } from './own-package.ts';
import { checkRequiredOptionsLast, exitWithUsageCode, printableErrorMessage } from './usage.ts';
import { silenceKafkajsTimerWarning } from './warnings.ts';

type Register = (program: Command) => void;

/**
 * Each command's module, imported only when needed: `kafka-lambda invoke` or `event` does not load kafkajs,
 * the AWS SDK or the broker's modules. The order is the order of `--help`.
 */
const COMMANDS: Record<string, () => Promise<Register>> = {
  broker: async () => (await import('./commands/broker.ts')).registerBrokerCommand,
  consume: async () => (await import('./commands/consume.ts')).registerConsumeCommand,
  dev: async () => (await import('./commands/dev.ts')).registerDevCommand,
  event: async () => (await import('./commands/event.ts')).registerEventCommand,
  init: async () => (await import('./commands/init.ts')).registerInitCommand,
  invoke: async () => (await import('./commands/invoke.ts')).registerInvokeCommand,
  produce: async () => (await import('./commands/produce.ts')).registerProduceCommand,
  registry: async () => (await import('./commands/registry.ts')).registerRegistryCommand,
  replay: async () => (await import('./commands/replay.ts')).registerReplayCommand,
  sqs: async () => (await import('./commands/sqs.ts')).registerSqsCommand,
};

silenceKafkajsTimerWarning();

// A reader that stops early (`kafka-lambda consume … | head -1`) closes the pipe: the command ends there
// quietly, with the status it had so far, as ripgrep does, instead of dying of an unhandled EPIPE.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit();
  });
}

const program = new Command('kafka-lambda')
  .description('Kafka-triggered AWS Lambda toolkit: test, run locally, replay')
  .version(ownPackage().version)
  // The error and where the usage is, not the whole usage: the error stays the last thing on screen.
  .showHelpAfterError('(see --help for usage)')
  // Inherited by every command registered below. Errors repeat what was typed: with its control
  // characters escaped (line breaks are commander's own: `(Did you mean --topic?)` has a line).
  .configureOutput({
    outputError: (text, write) => write(escapeControlCharacters(text, { keep: '\n' })),
  })
  // Also inherited: an unknown command or option exits 2 like any usage error.
  .exitOverride(exitWithUsageCode);

// The program's only option is --version, so the first argument names the command. Anything else
// (--help, --version, `help <command>`, an unknown command, none) registers them all: the help lists
// every command and an unknown one gets commander's suggestion.
const named = process.argv[2];
const wanted =
  named !== undefined && Object.hasOwn(COMMANDS, named) ? [COMMANDS[named]!] : Object.values(COMMANDS);
for (const register of await Promise.all(wanted.map((load) => load()))) register(program);
checkRequiredOptionsLast(program);

try {
  await program.parseAsync();
} catch (error) {
  if (error instanceof CommanderError) {
    process.exitCode = error.exitCode;
  } else {
    // Multi-line messages (a server's log tail, Maven's output) keep their lines; trailing blank ones go.
    console.error(
      `kafka-lambda: ${printableErrorMessage(error instanceof Error ? error.message : String(error)).trimEnd()}`,
    );
    process.exitCode = 1;
  }
}
