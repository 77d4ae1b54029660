import type { Command } from 'commander';
import {
  backgroundBrokerStatus,
  resolveBrokerJars,
  startBackgroundBroker,
  stopBackgroundBroker,
} from '../../broker/index.ts';
import { cacheBase } from '../../maven-server/index.ts';

/** `kafka-lambda broker start|stop|status|install`: the embedded Apache Kafka broker. */
export function registerBrokerCommand(program: Command): void {
  const broker = program
    .command('broker')
    .description('run a real single-node Apache Kafka broker on 127.0.0.1 (Java 17+ and Maven needed)');

  broker
    .command('start')
    .description('start the broker in the background and print its bootstrap address')
    .action(async () => {
      const { broker: running, alreadyRunning } = await startBackgroundBroker({
        onWaiting: (pid) =>
          console.error(`another kafka-lambda process (pid ${pid}) is starting the broker: waiting for it…`),
      });
      console.error(
        alreadyRunning
          ? `broker already running (Kafka ${running.version}, pid ${running.pid})`
          : `broker started (Kafka ${running.version}, pid ${running.pid}, data in ${running.runDir})`,
      );
      console.log(running.bootstrapServers);
    });

  broker
    .command('status')
    .description(
      'say whether the background broker is running (exit 0) or not (exit 3), and where the jar cache is',
    )
    .action(async () => {
      const status = await backgroundBrokerStatus();
      if (status.state === 'running') {
        console.log(
          `running ${status.broker.bootstrapServers} (Kafka ${status.broker.version}, pid ${status.broker.pid})`,
        );
      } else {
        console.log(status.state === 'stopped' ? 'stopped' : `not serving (pid ${status.broker.pid} alive)`);
        process.exitCode = 3;
      }
      console.log(`cache ${cacheBase()}`);
    });

  broker
    .command('stop')
    .description('stop the background broker (SIGTERM, then SIGKILL) and delete its data')
    .action(async () => {
      const { stopped, leftAlone, removedStale } = await stopBackgroundBroker();
      console.log(stopped ? `stopped (pid ${stopped.pid})` : 'no broker was running');
      if (leftAlone)
        console.error(`left ${leftAlone} alone: not a broker data folder this tool created, or still in use`);
      for (const folder of removedStale) console.error(`deleted broker data folder ${folder}`);
    });

  broker
    .command('install')
    .description("resolve the broker's jars from Maven Central into the cache (done on first start anyway)")
    .action(async () => {
      console.log(await resolveBrokerJars(process.env.KAFKA_VERSION));
    });
}
