import { Command, CommanderError } from 'commander';
import { exitWithUsageCode } from './usage.ts';
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

const program = new Command('kafka-lambda')
  .description('Kafka-triggered AWS Lambda toolkit: test, run locally, replay')
  // The error and where the usage is, not the whole usage: the error stays the last thing on screen.
  .showHelpAfterError('(see --help for usage)')
  // Inherited by every command registered below: an unknown command or option exits 2 like any usage error.
  .exitOverride(exitWithUsageCode);

// The program has no options of its own, so the first argument names the command. Anything else (--help,
// `help <command>`, an unknown command, none) registers them all: the help lists every command and an
// unknown one gets commander's suggestion.
const named = process.argv[2];
const wanted =
  named !== undefined && Object.hasOwn(COMMANDS, named) ? [COMMANDS[named]!] : Object.values(COMMANDS);
for (const register of await Promise.all(wanted.map((load) => load()))) register(program);

try {
  await program.parseAsync();
} catch (error) {
  if (error instanceof CommanderError) {
    process.exitCode = error.exitCode;
  } else {
    console.error(`kafka-lambda: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  }
}
