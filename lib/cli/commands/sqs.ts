import { type Command, InvalidArgumentError } from 'commander';
import {
  backgroundSqsStatus,
  createQueues,
  type ElasticMq,
  queueNameProblem,
  resolveElasticMqJars,
  startBackgroundSqs,
  startElasticMq,
  stopBackgroundSqs,
} from '../../elasticmq/index.ts';

/**
 * `kafka-lambda sqs start|stop|status|install`: a local SQS-compatible server (ElasticMQ) for SQS
 * on-failure destinations.
 *
 * @example
 * ```ts
 * registerSqsCommand(program); // kafka-lambda sqs start --queue orders-dlq
 * ```
 */
export function registerSqsCommand(program: Command): void {
  const sqs = program
    .command('sqs')
    .description(
      'run a local SQS-compatible server (ElasticMQ) on 127.0.0.1 for SQS on-failure destinations (Java 17+ and Maven needed)',
    );

  sqs
    .command('start')
    .description('start the server in the background and print its endpoint')
    .option(
      '--queue <name...>',
      'standard queues to create (on the running server too, if there is one)',
      queueOption,
    )
    .action(async (options: { queue?: string[] }) => {
      const queues = options.queue ?? [];
      const { server, alreadyRunning } = await startBackgroundSqs(queues, {
        onWaiting: (pid) =>
          console.error(
            `another kafka-lambda process (pid ${pid}) is starting the SQS server: waiting for it…`,
          ),
      });
      const created = queues.length > 0 ? `; queues ${queues.join(', ')} created unless they existed` : '';
      console.error(
        alreadyRunning
          ? `SQS server already running (pid ${server.pid})${created}`
          : `SQS server started (ElasticMQ, pid ${server.pid}; queue ARNs arn:aws:sqs:${server.region}:${server.accountId}:<name>)`,
      );
      console.log(server.endpoint);
    });

  sqs
    .command('status')
    .description('say whether the background server is running (exit 0) or not (exit 3)')
    .action(async () => {
      const status = await backgroundSqsStatus();
      if (status.state === 'running') {
        console.log(`running ${status.server.endpoint} (pid ${status.server.pid})`);
        return;
      }
      console.log(status.state === 'stopped' ? 'stopped' : `not serving (pid ${status.server.pid} alive)`);
      process.exitCode = 3;
    });

  sqs
    .command('stop')
    .description('stop the background server (SIGTERM, then SIGKILL); its messages are lost')
    .action(async () => {
      const { stopped } = await stopBackgroundSqs();
      console.log(stopped ? `stopped (pid ${stopped.pid})` : 'no SQS server was running');
    });

  sqs
    .command('install')
    .description("resolve ElasticMQ's jars from Maven Central into the cache (done on first start anyway)")
    .action(async () => {
      console.log(await resolveElasticMqJars());
    });
}

/**
 * Where `dev` sends an `arn:aws:sqs:…` on-failure destination: `--sqs-endpoint`, `AWS_ENDPOINT_URL_SQS`
 * (the AWS SDKs' own variable), the background server, or a server started for this run. On a server
 * of this tool the queue is created when missing, as `dev` creates topics on a broker it owns.
 *
 * @example
 * ```ts
 * const sqs = await resolveSqsEndpoint(options.sqsEndpoint, 'orders-dlq');
 * createLocalEventSourceMapping({ ...settings, destinations: { sqsEndpoint: sqs.endpoint } });
 * await sqs.server?.stop();
 * ```
 */
export async function resolveSqsEndpoint(
  option: string | undefined,
  queueName: string,
): Promise<{ endpoint: string; origin: string; server?: ElasticMq }> {
  const given = option ?? process.env.AWS_ENDPOINT_URL_SQS;
  if (given) return { endpoint: given, origin: option ? '--sqs-endpoint' : 'AWS_ENDPOINT_URL_SQS' };
  const status = await backgroundSqsStatus();
  if (status.state === 'running') {
    await createQueues(status.server.endpoint, [queueName]);
    return { endpoint: status.server.endpoint, origin: 'the background SQS server' };
  }
  process.stderr.write('starting a local SQS server (ElasticMQ, stopped when dev exits)…\n');
  const server = await startElasticMq({ queues: [queueName] });
  return { endpoint: server.endpoint, origin: 'a local SQS server', server };
}

/**
 * A commander parser for `--queue <name...>`: a name SQS would refuse (or a FIFO queue's, which the local
 * server does not create) is a usage error naming it, before any JVM starts; ElasticMQ only said so in
 * its log, and the start then timed out.
 */
function queueOption(value: string, previous: string[] | undefined): string[] {
  const problem = queueNameProblem(value);
  if (problem) throw new InvalidArgumentError(problem);
  return [...(previous ?? []), value];
}
