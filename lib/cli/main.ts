import { Command, CommanderError } from 'commander';
import { registerBrokerCommand } from './commands/broker.ts';
import { registerConsumeCommand } from './commands/consume.ts';
import { registerDevCommand } from './commands/dev.ts';
import { registerEventCommand } from './commands/event.ts';
import { registerInitCommand } from './commands/init.ts';
import { registerInvokeCommand } from './commands/invoke.ts';
import { registerProduceCommand } from './commands/produce.ts';
import { registerRegistryCommand } from './commands/registry.ts';
import { registerReplayCommand } from './commands/replay.ts';
import { registerSqsCommand } from './commands/sqs.ts';
import { exitWithUsageCode } from './usage.ts';
import { silenceKafkajsTimerWarning } from './warnings.ts';

silenceKafkajsTimerWarning();

const program = new Command('kafka-lambda')
  .description('Kafka-triggered AWS Lambda toolkit: test, run locally, replay')
  .showHelpAfterError()
  // Inherited by every command registered below: an unknown command or option exits 2 like any usage error.
  .exitOverride(exitWithUsageCode);

registerBrokerCommand(program);
registerConsumeCommand(program);
registerDevCommand(program);
registerEventCommand(program);
registerInitCommand(program);
registerInvokeCommand(program);
registerProduceCommand(program);
registerRegistryCommand(program);
registerReplayCommand(program);
registerSqsCommand(program);

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
