import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import {
  createRunDir,
  damagedJarsHint,
  freePort,
  packageRoot,
  processOutput,
  type RunDirKind,
  removeStaleRunDirs,
  retryWhilePortTaken,
  startJvmInRunDir,
} from '../maven-server/index.ts';
import { BrokerError, BrokerStartError } from './errors.ts';
import { assertBrokerJava, DEFAULT_KAFKA_VERSION, resolveBrokerJars, usesLog4j2 } from './jars.ts';

/** The broker's configuration in its run folder, which its JVM gets as its last argument. */
function propertiesFileOf(runDir: string): string {
  return join(runDir, 'server.properties');
}

/** Broker run folders: `kafka-lambda-broker-*`, the JVM launched on the folder's `server.properties`. */
export const BROKER_RUN_DIRS: RunDirKind = {
  prefix: 'kafka-lambda-broker-',
  jvmArgument: (runDir) => `kafka.Kafka ${propertiesFileOf(runDir)}`,
};

/**
 * Options of {@link startBroker}.
 *
 * @example
 * ```ts
 * await using broker = await startBroker({ version: '4.1.1', heapMb: 1024, startTimeoutMs: 120_000 });
 * ```
 */
export interface StartBrokerOptions {
  /** Apache Kafka version; defaults to `KAFKA_VERSION` or {@link DEFAULT_KAFKA_VERSION}. */
  version?: string;
  /** Maximum JVM heap in MiB (default 512). */
  heapMb?: number;
  /** How long to wait for the broker to serve requests (default 90 s). */
  startTimeoutMs?: number;
}

/**
 * A running single-node KRaft broker on 127.0.0.1.
 *
 * @example
 * ```ts
 * await using broker = await startBroker(); // stopped, and its data folder removed, at the end of the scope
 * console.log(`Kafka ${broker.version} at ${broker.bootstrapServers} (pid ${broker.pid})`);
 * ```
 */
export interface EmbeddedBroker {
  /** `host:port` to give Kafka clients. */
  readonly bootstrapServers: string;
  /** The broker JVM's process id. */
  readonly pid: number;
  /**
   * Temporary folder with the broker's data and logs; removed by {@link EmbeddedBroker.stop}, or once this
   * process is gone and the JVM with it (unless detached). A JVM that dies by itself leaves it in place.
   */
  readonly runDir: string;
  /** The Apache Kafka version running. */
  readonly version: string;
  /** SIGTERM, SIGKILL after `timeoutMs` (default 20 s), then removes the data folder. */
  stop(timeoutMs?: number): Promise<void>;
  /**
   * Lets the broker outlive this process (what `kafka-lambda broker start` does once it has recorded the
   * broker). Until then the broker is tied to this process: if it exits, crashes or is killed, even during
   * start-up, the broker is stopped and then its folder deleted.
   */
  detach(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

const STARTED = 'Kafka Server started';
const FATAL = 'Exiting Kafka due to fatal exception';

/**
 * Starts a real Apache Kafka broker (single-node KRaft, combined broker and controller) on free
 * loopback ports, in a fresh temporary folder, and resolves once it serves requests: the cluster
 * answers metadata requests and the group coordinator answers group requests. The broker is tied to
 * this process (see {@link EmbeddedBroker.detach}). Data folders left by brokers whose processes were
 * killed are deleted first.
 *
 * @example
 * ```ts
 * await using broker = await startBroker();
 * const kafka = new Kafka({ brokers: [broker.bootstrapServers] });
 * ```
 * @throws BrokerPrerequisiteError when Java 17+ or Maven is missing.
 * @throws BrokerStartError when the broker dies or does not become ready in time (with its log tail).
 */
export async function startBroker(options: StartBrokerOptions = {}): Promise<EmbeddedBroker> {
  const version = options.version ?? process.env.KAFKA_VERSION ?? DEFAULT_KAFKA_VERSION;
  await assertBrokerJava();
  const libs = await resolveBrokerJars(version);
  await removeStaleRunDirs(BROKER_RUN_DIRS);
  return retryWhilePortTaken(
    () => startOnce(version, libs, options),
    (error) => error instanceof BrokerStartError && /Address already in use/.test(error.logTail),
  );
}

async function startOnce(
  version: string,
  libs: string,
  options: StartBrokerOptions,
): Promise<EmbeddedBroker> {
  const [port, controllerPort] = [await freePort(), await freePort()];
  // Until this process stops the broker or lets it go, its folder goes with this process (see RunDir).
  const run = await createRunDir(BROKER_RUN_DIRS);
  const runDir = run.path;
  const logsDir = join(runDir, 'logs');
  await mkdir(logsDir);
  const propertiesFile = propertiesFileOf(runDir);
  await writeFile(propertiesFile, serverProperties(port, controllerPort, join(runDir, 'data')));

  const tool = await runKafkaToolFrom(libs, version, 'kafka.tools.StorageTool', [
    'format',
    '-t',
    clusterId(),
    '-c',
    propertiesFile,
  ]);
  if (tool.code !== 0) {
    await run.remove();
    const output = `${tool.stdout}${tool.stderr}`.slice(-4000);
    throw new BrokerStartError(
      withDamagedJarsHint('Formatting the broker storage failed', output, libs),
      output,
    );
  }

  const javaArgs = [
    `-Xms128m`,
    `-Xmx${options.heapMb ?? 512}m`,
    '-XX:+UseG1GC',
    '-XX:MaxGCPauseMillis=20',
    '-Djava.awt.headless=true',
    `-Dkafka.logs.dir=${logsDir}`,
    ...loggingFlags(version, 'broker'),
    '-cp',
    join(libs, '*'),
    'kafka.Kafka',
    propertiesFile,
  ];
  const jvm = await startJvmInRunDir(run, javaArgs, join(logsDir, 'stdout.log')).catch((error: unknown) => {
    throw new BrokerStartError('The broker JVM could not be started', '', { cause: error });
  });

  const broker: EmbeddedBroker = {
    bootstrapServers: `127.0.0.1:${port}`,
    pid: jvm.pid,
    runDir,
    version,
    stop: (timeoutMs = 20_000) => jvm.stop(timeoutMs),
    detach: () => jvm.detach(),
    [Symbol.asyncDispose]() {
      return this.stop();
    },
  };

  try {
    await waitForLog(runDir, jvm.exited, options.startTimeoutMs ?? 90_000);
    await waitUntilServing(broker.bootstrapServers, 30_000);
  } catch (error) {
    const tail = await brokerLogTail(runDir);
    await broker.stop(5_000);
    const message =
      error instanceof BrokerStartError
        ? error.message
        : `The broker did not serve requests: ${(error as Error).message}`;
    throw new BrokerStartError(withDamagedJarsHint(message, tail, libs), tail, { cause: error });
  }
  return broker;
}

/** `message`, and when the log says a cached jar is damaged, which folder to delete (the one holding `libs`). */
function withDamagedJarsHint(message: string, log: string, libs: string): string {
  const hint = damagedJarsHint(log, dirname(libs));
  return hint ? `${message}; ${hint}` : message;
}

async function waitForLog(runDir: string, exited: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const log = await readFile(join(runDir, 'logs', 'server.log'), 'utf8').catch(() => '');
    if (log.includes(STARTED)) return;
    if (exited() || log.includes(FATAL))
      throw new BrokerStartError('The broker process died during start-up', '');
    if (Date.now() > deadline)
      throw new BrokerStartError(`The broker did not start within ${timeoutMs} ms`, '');
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * Resolves once a broker at `bootstrapServers` answers metadata requests and its group coordinator
 * answers; the first group request also creates `__consumer_offsets`, which would otherwise slow
 * down the first consumer.
 *
 * @example
 * ```ts
 * await waitUntilServing('127.0.0.1:9092', 30_000);
 * ```
 */
export async function waitUntilServing(bootstrapServers: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const admin = new Kafka({
    clientId: 'kafka-lambda-broker-check',
    brokers: bootstrapServers.split(','),
    logLevel: logLevel.NOTHING,
    retry: { retries: 0 },
    // A broker JVM that is alive but stopped (kill -STOP) accepts connections and never answers: with
    // kafkajs's 30 s request timeout one attempt outlasted the whole wait.
    connectionTimeout: Math.min(3_000, timeoutMs),
    requestTimeout: Math.min(10_000, timeoutMs),
  }).admin();
  let lastError: unknown;
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<'expired'>((resolve) => {
    timer = setTimeout(() => resolve('expired'), timeoutMs);
  });
  const attempts = async (): Promise<'served'> => {
    while (Date.now() < deadline) {
      try {
        await admin.connect();
        await admin.describeCluster();
        await admin.describeGroups(['kafka-lambda-warmup']);
        return 'served';
      } catch (error) {
        lastError = error;
        await new Promise((r) => setTimeout(r, 300));
      }
    }
    return new Promise<never>(() => {}); // the timer settles it
  };
  try {
    if ((await Promise.race([attempts(), expired])) === 'served') return;
    throw new BrokerError(
      `${bootstrapServers} did not answer within ${timeoutMs} ms${lastError instanceof Error ? ` (${lastError.message})` : ''}`,
      { cause: lastError },
    );
  } finally {
    clearTimeout(timer);
    // Closes the sockets, so an attempt still waiting ends too; bounded, as it waits on them.
    await Promise.race([admin.disconnect().catch(() => {}), new Promise((r) => setTimeout(r, 1_000))]);
  }
}

/** The last lines of the broker's server log (where Kafka explains a failed start). */
export async function brokerLogTail(runDir: string, lines = 40): Promise<string> {
  const read = (name: string) => readFile(join(runDir, 'logs', name), 'utf8').catch(() => '');
  const text = `${await read('server.log')}${await read('stdout.log')}`;
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}

/**
 * Output of one of Kafka's own command-line tools.
 *
 * @example
 * ```ts
 * const result: KafkaToolResult = await runKafkaTool(
 *   'org.apache.kafka.tools.consumer.group.ConsumerGroupCommand',
 *   ['--bootstrap-server', broker.bootstrapServers, '--list'],
 * );
 * if (result.code !== 0) throw new Error(result.stderr);
 * ```
 */
export interface KafkaToolResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs one of Kafka's own command-line tools (e.g. `org.apache.kafka.tools.consumer.group.ConsumerGroupCommand`)
 * from the same jars as the embedded broker: a client this project did not write, for independent checks.
 *
 * @example
 * ```ts
 * const { stdout } = await runKafkaTool('org.apache.kafka.tools.consumer.group.ConsumerGroupCommand',
 *   ['--bootstrap-server', broker.bootstrapServers, '--describe', '--group', 'orders']);
 * ```
 */
export async function runKafkaTool(
  className: string,
  args: string[],
  options: { version?: string } = {},
): Promise<KafkaToolResult> {
  const version = options.version ?? process.env.KAFKA_VERSION ?? DEFAULT_KAFKA_VERSION;
  return runKafkaToolFrom(await resolveBrokerJars(version), version, className, args);
}

/** {@link runKafkaTool} on a classpath already resolved. */
function runKafkaToolFrom(
  libs: string,
  version: string,
  className: string,
  args: string[],
): Promise<KafkaToolResult> {
  return processOutput(
    spawn('java', [...loggingFlags(version, 'tools'), '-cp', join(libs, '*'), className, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
}

function loggingFlags(version: string, kind: 'broker' | 'tools'): string[] {
  const dir = join(packageRoot, 'lib', 'broker');
  const prefix = kind === 'broker' ? '' : 'tools-';
  return usesLog4j2(version)
    ? [`-Dlog4j2.configurationFile=${join(dir, `${prefix}log4j2.properties`)}`]
    : [`-Dlog4j.configuration=file:${join(dir, `${prefix}log4j.properties`)}`];
}

/** Kafka's cluster id rule: base64url of 16 random bytes, not starting with '-'. */
function clusterId(): string {
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}

function serverProperties(port: number, controllerPort: number, dataDir: string): string {
  return `process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:${controllerPort}
listeners=PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controllerPort}
advertised.listeners=PLAINTEXT://127.0.0.1:${port}
inter.broker.listener.name=PLAINTEXT
controller.listener.names=CONTROLLER
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=${dataDir}
num.partitions=1
default.replication.factor=1
min.insync.replicas=1
auto.create.topics.enable=true
offsets.topic.replication.factor=1
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
group.min.session.timeout.ms=1000
num.network.threads=2
num.io.threads=4
background.threads=4
num.recovery.threads.per.data.dir=1
log.cleaner.dedupe.buffer.size=33554432
`;
}
