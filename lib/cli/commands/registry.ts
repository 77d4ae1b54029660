import type { Command } from 'commander';
// Not through the module's index.ts: that is the package entry `kafka-lambda/schema-registry`, which runs in
// Lambda functions; the local server (processes, files) stays out of it.
import { installRegistry } from '../../schema-registry/server.ts';
import {
  backgroundRegistryStatus,
  startBackgroundRegistry,
  stopBackgroundRegistry,
} from '../../schema-registry/state.ts';

/**
 * `kafka-lambda registry start|stop|status|install`: a local schema registry (Apicurio Registry,
 * Confluent-compatible API) for Avro, Protobuf and JSON Schema records.
 *
 * @example
 * ```ts
 * registerRegistryCommand(program); // kafka-lambda registry start
 * ```
 */
export function registerRegistryCommand(program: Command): void {
  const registry = program
    .command('registry')
    .description(
      'run a local schema registry (Apicurio Registry, Confluent-compatible API) on 127.0.0.1 (Java 17+ and Maven needed)',
    );

  registry
    .command('start')
    .description('start the registry in the background and print its Confluent-compatible URL')
    .action(async () => {
      const { server, alreadyRunning } = await startBackgroundRegistry({
        onWaiting: (pid) =>
          console.error(
            `another kafka-lambda process (pid ${pid}) is starting the schema registry: waiting for it…`,
          ),
      });
      console.error(
        alreadyRunning
          ? `Schema registry already running (pid ${server.pid})`
          : `Schema registry started (Apicurio Registry, pid ${server.pid}); export SCHEMA_REGISTRY_URL=${server.url}`,
      );
      console.log(server.url);
    });

  registry
    .command('status')
    .description('say whether the background registry is running (exit 0) or not (exit 3)')
    .action(async () => {
      const status = await backgroundRegistryStatus();
      if (status.state === 'running') {
        console.log(`running ${status.server.url} (pid ${status.server.pid})`);
        return;
      }
      console.log(status.state === 'stopped' ? 'stopped' : `not serving (pid ${status.server.pid} alive)`);
      process.exitCode = 3;
    });

  registry
    .command('stop')
    .description('stop the background registry (SIGTERM, then SIGKILL); its schemas are lost')
    .action(async () => {
      const { stopped } = await stopBackgroundRegistry();
      console.log(stopped ? `stopped (pid ${stopped.pid})` : 'no schema registry was running');
    });

  registry
    .command('install')
    .description(
      'build the registry from Maven Central into the cache (first time: about 80 s; done on first start anyway)',
    )
    .action(async () => {
      console.log(await installRegistry());
    });
}
