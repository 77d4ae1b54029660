import type { TestProject } from 'vitest/node';
import { type EmbeddedBroker, startBroker } from '../lib/broker/broker.ts';
import { silenceKafkajsTimerWarning } from '../lib/cli/warnings.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Bootstrap servers of the broker every integration test uses. */
    kafkaBrokers: string;
  }
}

let broker: EmbeddedBroker | undefined;

/** One real broker per test run: the embedded one, or the user's own when KAFKA_BROKERS is set. */
export async function setup(project: TestProject): Promise<void> {
  silenceKafkajsTimerWarning();
  const external = process.env.KAFKA_BROKERS;
  if (external) {
    console.log(`integration tests use KAFKA_BROKERS=${external}`);
    project.provide('kafkaBrokers', external);
    return;
  }
  const started = Date.now();
  broker = await startBroker();
  console.log(
    `embedded Apache Kafka ${broker.version} broker at ${broker.bootstrapServers} (pid ${broker.pid}), ready in ${Date.now() - started} ms`,
  );
  project.provide('kafkaBrokers', broker.bootstrapServers);
}

export async function teardown(): Promise<void> {
  await broker?.stop();
}
