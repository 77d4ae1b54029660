// `npm start`: the demo of this repository. Starts an embedded Apache Kafka broker (or uses
// KAFKA_BROKERS), runs the example orders function behind the trigger emulator, then replays part of a
// partition. Run it with the `kafka-lambda-source` condition (package.json's `start` script does), so
// that `kafka-lambda/*` imports, the example function's included, resolve to this repository's sources.
import { startBroker } from 'kafka-lambda/broker';
import { runDemo } from './demo.ts';
import { runReplayDemo } from './replay-step.ts';

const out = (line = '') => process.stdout.write(`${line}\n`);

out("kafka-lambda demo: Lambda's Kafka trigger, locally, against a real broker");
out();
const external = process.env.KAFKA_BROKERS;
if (!external) out('starting the embedded Apache Kafka broker…');
try {
  const broker = external ? undefined : await startBroker();
  const brokers = external?.split(',') ?? [broker!.bootstrapServers];
  out(
    broker
      ? `① broker       embedded Apache Kafka ${broker.version} at ${broker.bootstrapServers}`
      : `① broker       ${external} (KAFKA_BROKERS)`,
  );
  try {
    await runReplayDemo(await runDemo(brokers, out), out);
  } finally {
    await broker?.stop();
  }
} catch (error) {
  console.error(`demo: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
