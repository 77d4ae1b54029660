import {
  BackgroundServer,
  type BackgroundServerStatus,
  type BackgroundServerStopResult,
  type BackgroundStartOptions,
} from '../maven-server/index.ts';
import { assertQueueNames, createQueues } from './queues.ts';
import { ELASTICMQ_RUN_DIRS, startElasticMq, waitUntilAnswering } from './server.ts';

/**
 * What `kafka-lambda sqs start` records so that `status`, `stop` and `dev` find the server again.
 *
 * @example
 * ```ts
 * const record: SqsServerRecord = { endpoint: 'http://127.0.0.1:9324', region: 'us-east-1', accountId: '000000000000', pid: 4242, runDir, startedAt };
 * ```
 */
export interface SqsServerRecord {
  endpoint: string;
  region: string;
  accountId: string;
  pid: number;
  runDir: string;
  startedAt: string;
}

/**
 * State of the server started by `kafka-lambda sqs start`.
 *
 * @example
 * ```ts
 * if ((await backgroundSqsStatus()).state === 'running') { … }
 * ```
 */
export type SqsServerStatus = BackgroundServerStatus<SqsServerRecord>;

/** Recorded in `elasticmq.json` in the cache folder. */
const background = new BackgroundServer<SqsServerRecord>({
  stateFileName: 'elasticmq.json',
  runDirs: ELASTICMQ_RUN_DIRS,
  hasFields: (record) =>
    typeof record.endpoint === 'string' &&
    typeof record.region === 'string' &&
    typeof record.accountId === 'string',
  isServing: async (record) => {
    try {
      await waitUntilAnswering(record.endpoint, 3_000);
      return true;
    } catch {
      return false;
    }
  },
});

/**
 * Options of {@link startBackgroundSqs}.
 *
 * @example
 * ```ts
 * await startBackgroundSqs(['orders-dlq'], { onWaiting: (pid) => console.error(`another start (pid ${pid})…`) });
 * ```
 */
export interface StartBackgroundSqsOptions {
  /**
   * Called when another process is starting the background server: this start waits for it, then uses
   * its server (`alreadyRunning`), so that two starts at once leave one server.
   */
  onWaiting?: (startingPid: number) => void;
}

/**
 * Starts an SQS server that outlives this process and records it, or returns the one already running,
 * with `queues` created on it (CreateQueue keeps a queue that exists). The server stays tied to this
 * process until it is recorded: a start interrupted before leaves no JVM. Starts in several processes at
 * once take turns: one server is started, the others use it.
 *
 * @example
 * ```ts
 * const { server, alreadyRunning } = await startBackgroundSqs(['orders-dlq']);
 * console.log(server.endpoint);
 * ```
 * @throws InvalidQueueNameError for a queue name SQS would refuse, or a FIFO queue's (before anything runs).
 */
export async function startBackgroundSqs(
  queues: string[] = [],
  options: StartBackgroundSqsOptions = {},
): Promise<{ server: SqsServerRecord; alreadyRunning: boolean }> {
  assertQueueNames(queues);
  const startOptions: BackgroundStartOptions = { onWaiting: options.onWaiting };
  const started = await background.start(async () => {
    const started = await startElasticMq({ queues });
    const { endpoint, region, accountId, pid, runDir } = started;
    return {
      record: { endpoint, region, accountId, pid, runDir },
      stop: started.stop,
      detach: started.detach,
    };
  }, startOptions);
  // The server's configuration only named the queues of the start that launched it.
  if (started.alreadyRunning) await createQueues(started.server.endpoint, queues);
  return started;
}

/**
 * Whether the recorded background SQS server is running and answering.
 *
 * @example
 * ```ts
 * const status = await backgroundSqsStatus();
 * ```
 */
export function backgroundSqsStatus(): Promise<SqsServerStatus> {
  return background.status();
}

/**
 * Stops the recorded background SQS server (SIGTERM, then SIGKILL) and removes its run folder. Only the
 * JVM and the folder this tool started and created are touched, whatever the state file says; run
 * folders of servers whose processes died are removed too.
 *
 * @example
 * ```ts
 * const { stopped } = await stopBackgroundSqs(); // stopped is undefined when none was running
 * ```
 */
export function stopBackgroundSqs(timeoutMs = 10_000): Promise<BackgroundServerStopResult<SqsServerRecord>> {
  return background.stop(timeoutMs);
}
