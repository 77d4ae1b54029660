import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import {
  createRunDir,
  damagedJarsHint,
  freePort,
  type RunDirKind,
  removeStaleRunDirs,
  retryWhilePortTaken,
  startJvmInRunDir,
} from '../maven-server/index.ts';
import { ElasticMqError, ElasticMqStartError } from './errors.ts';
import { assertElasticMqJava, DEFAULT_ELASTICMQ_VERSION, resolveElasticMqJars } from './jars.ts';
import { assertQueueNames } from './queues.ts';

/**
 * Options of {@link startElasticMq}.
 *
 * @example
 * ```ts
 * const options: StartElasticMqOptions = { queues: ['orders-dlq'], region: 'eu-west-1' };
 * ```
 */
export interface StartElasticMqOptions {
  /** Queues that exist from the start (standard queues, default attributes). More can be created through the API. */
  queues?: string[];
  /** Region put in queue ARNs (default `us-east-1`). */
  region?: string;
  /** Account id put in queue URLs and ARNs (default `000000000000`). */
  accountId?: string;
  /** How long to wait for the server to answer (default 60 s). */
  startTimeoutMs?: number;
}

/**
 * A running ElasticMQ server: a real SQS-compatible endpoint on 127.0.0.1, messages in memory.
 *
 * @example
 * ```ts
 * await using sqs = await startElasticMq({ queues: ['orders-dlq'] });
 * const client = new SQSClient({ endpoint: sqs.endpoint, region: sqs.region, credentials: sqs.credentials });
 * ```
 */
export interface ElasticMq {
  /** `http://127.0.0.1:<port>`: give it to SQS clients as their endpoint. */
  readonly endpoint: string;
  readonly region: string;
  readonly accountId: string;
  /** ElasticMQ checks no signature; SQS clients still need some credentials to sign with. */
  readonly credentials: { accessKeyId: string; secretAccessKey: string };
  /** The server JVM's process id. */
  readonly pid: number;
  /**
   * Temporary folder with the server's configuration and log; removed by {@link ElasticMq.stop}, or once
   * this process is gone and the JVM with it (unless detached). A JVM that dies by itself leaves it in place.
   */
  readonly runDir: string;
  readonly version: string;
  /** The ARN of a queue on this server, as Lambda's `DestinationConfig.OnFailure` names it. */
  queueArn(name: string): string;
  /** SIGTERM, SIGKILL after `timeoutMs` (default 10 s), then removes the run folder. */
  stop(timeoutMs?: number): Promise<void>;
  /**
   * Lets the server outlive this process (what `kafka-lambda sqs start` does once it has recorded it).
   * Until then it is tied to this process: if it exits, crashes or is killed, even during start-up, the
   * server is stopped and then its folder deleted.
   */
  detach(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** ElasticMQ's own line once its queues from the configuration exist and the REST server is bound. */
const STARTED = /=== ElasticMQ server \(.*\) started in/;
const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };
const CONFIG_FILE = 'elasticmq.conf';
/** Run folders are `<tmp>/kafka-lambda-elasticmq-*`, holding the configuration (which the JVM is given) and the log. */
export const ELASTICMQ_RUN_DIRS: RunDirKind = {
  prefix: 'kafka-lambda-elasticmq-',
  jvmArgument: (runDir) => `-Dconfig.file=${join(runDir, CONFIG_FILE)}`,
};

/**
 * Starts ElasticMQ (jars from Maven Central, resolved once into the cache) on a free loopback port
 * and resolves once its SQS API answers.
 *
 * @example
 * ```ts
 * await using sqs = await startElasticMq({ queues: ['orders-dlq'] });
 * createLocalEventSourceMapping({ ...options, onFailure: sqs.queueArn('orders-dlq'), destinations: { sqsEndpoint: sqs.endpoint } });
 * ```
 * @throws InvalidQueueNameError for a queue name SQS would refuse, or a FIFO queue's (before anything runs).
 * @throws ElasticMqPrerequisiteError when Java 17+ or Maven is missing.
 * @throws ElasticMqStartError when the server dies or does not answer in time (with its log tail).
 */
export async function startElasticMq(options: StartElasticMqOptions = {}): Promise<ElasticMq> {
  assertQueueNames(options.queues ?? []);
  await assertElasticMqJava();
  const libs = await resolveElasticMqJars();
  await removeStaleRunDirs(ELASTICMQ_RUN_DIRS);
  return retryWhilePortTaken(
    () => startOnce(libs, options),
    (error) => error instanceof ElasticMqStartError && /already in use|BindException/.test(error.logTail),
  );
}

async function startOnce(libs: string, options: StartElasticMqOptions): Promise<ElasticMq> {
  const port = await freePort();
  const region = options.region ?? 'us-east-1';
  const accountId = options.accountId ?? '000000000000';
  const run = await createRunDir(ELASTICMQ_RUN_DIRS);
  const runDir = run.path;
  const configFile = join(runDir, CONFIG_FILE);
  const logFile = join(runDir, 'elasticmq.log');
  await writeFile(configFile, serverConfig(port, region, accountId, options.queues ?? []));
  const javaArgs = [
    '-Xms32m',
    '-Xmx256m',
    // A short-lived test server: the C1 compiler alone starts it sooner.
    '-XX:TieredStopAtLevel=1',
    '-Djava.awt.headless=true',
    `-Dconfig.file=${configFile}`,
    '-cp',
    join(libs, '*'),
    'org.elasticmq.server.Main',
  ];
  const jvm = await startJvmInRunDir(run, javaArgs, logFile).catch((error: unknown) => {
    throw new ElasticMqStartError('The ElasticMQ JVM could not be started', '', { cause: error });
  });
  const server: ElasticMq = {
    endpoint: `http://127.0.0.1:${port}`,
    region,
    accountId,
    credentials: LOCAL_CREDENTIALS,
    pid: jvm.pid,
    runDir,
    version: DEFAULT_ELASTICMQ_VERSION,
    queueArn: (name) => `arn:aws:sqs:${region}:${accountId}:${name}`,
    stop: (timeoutMs = 10_000) => jvm.stop(timeoutMs),
    detach: () => jvm.detach(),
    [Symbol.asyncDispose]() {
      return this.stop();
    },
  };
  try {
    await waitUntilStarted(logFile, jvm.exited, options.startTimeoutMs ?? 60_000);
    await waitUntilAnswering(server.endpoint, 15_000);
  } catch (error) {
    const tail = await logTail(logFile);
    await server.stop(5_000);
    const hint = damagedJarsHint(tail, dirname(libs));
    const message = (error as Error).message;
    throw new ElasticMqStartError(hint ? `${message}; ${hint}` : message, tail, { cause: error });
  }
  return server;
}

async function waitUntilStarted(logFile: string, exited: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const log = await readFile(logFile, 'utf8').catch(() => '');
    if (STARTED.test(log)) return;
    if (exited()) throw new ElasticMqError('ElasticMQ died during start-up');
    if (/BindException|already in use/.test(log))
      throw new ElasticMqError('ElasticMQ could not bind its port');
    if (Date.now() > deadline) throw new ElasticMqError(`ElasticMQ did not start within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * Resolves once the SQS API at `endpoint` answers `ListQueues` (the JSON protocol current SDKs speak).
 *
 * @example
 * ```ts
 * await waitUntilAnswering('http://127.0.0.1:9324', 5_000);
 * ```
 */
export async function waitUntilAnswering(endpoint: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError = 'no answer';
  while (Date.now() < deadline) {
    try {
      const response = await fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'AmazonSQS.ListQueues' },
        body: '{}',
        // Never past the deadline: a server that is alive but stopped accepts and never answers.
        signal: AbortSignal.timeout(Math.max(1, Math.min(2_000, deadline - Date.now()))),
      });
      await response.body?.cancel();
      if (response.ok) return;
      lastError = `HTTP ${response.status}`;
    } catch (error) {
      lastError = (error as Error).message;
    }
    await new Promise((r) => setTimeout(r, Math.max(0, Math.min(200, deadline - Date.now()))));
  }
  throw new ElasticMqError(`the SQS API at ${endpoint} did not answer within ${timeoutMs} ms (${lastError})`);
}

async function logTail(logFile: string, lines = 40): Promise<string> {
  const text = await readFile(logFile, 'utf8').catch(() => '');
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}

/**
 * HOCON read through `-Dconfig.file` (ElasticMQ's documented way to configure the server; its
 * `reference.conf` holds the defaults): SQS on 127.0.0.1 only, queue URLs naming that address, no
 * statistics endpoint.
 */
function serverConfig(port: number, region: string, accountId: string, queues: string[]): string {
  const declared = queues.map((name) => `  ${JSON.stringify(name)} {}\n`).join('');
  return `node-address {
  protocol = http
  host = "127.0.0.1"
  port = ${port}
  context-path = ""
}
rest-sqs {
  enabled = true
  bind-port = ${port}
  bind-hostname = "127.0.0.1"
  sqs-limits = strict
}
rest-stats {
  enabled = false
}
generate-node-address = false
aws {
  region = ${JSON.stringify(region)}
  accountId = ${JSON.stringify(accountId)}
}
queues {
${declared}}
`;
}
