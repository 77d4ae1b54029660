import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
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
  const run = await createRunDir(BROKER_RUN_DIRS);
  const runDir = run.path;
  // From here until this process stops the broker or lets it go, its folder goes with this process.
  const reaper = removeWhenOwnerGone(runDir);
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
    await rm(runDir, { recursive: true, force: true });
    await reaper.dismiss();
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
    async stop(timeoutMs = 20_000) {
      await jvm.stop(timeoutMs); // deletes the folder
      await reaper.dismiss();
    },
    async detach() {
      await jvm.detach();
      await reaper.dismiss();
    },
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

/**
 * Deletes the broker's run folder `runDir` once this process (its owner) is gone and nothing runs in the
 * folder any more, until dismissed. The JVM's watchdog stops the JVM when its owner is gone, but cannot
 * tell that from an ordinary stop or from the JVM dying by itself (its pipe closes in all three), where
 * the folder must stay: the owner deletes it on stop after reading the log tail a failed start quotes,
 * and a broker relaunched after a crash runs on its data. So a second small process holds a pipe of its
 * own, which closes without a line only when this process exits or is killed (even with SIGKILL, even
 * while the broker formats its storage). It then waits while any process's command line names the
 * folder (the JVM, its watchdog, the storage formatter; at most 2 min) and deletes it. A line on the pipe
 * (`dismiss`) ends it: this process stopped the broker or let it outlive it.
 */
function removeWhenOwnerGone(runDir: string): { dismiss(): Promise<void> } {
  // Linux: /proc (grep's own command line, the only one holding the pattern, is not among the files the
  // glob listed before it started); elsewhere ps, whose output is searched by the shell itself.
  const script = `
read -r _ && exit 0
dir=$KAFKA_LAMBDA_RUN_DIR
in_use() {
  if [ -r /proc/self/cmdline ]; then
    grep -qsaF -e "$dir/" /proc/[0-9]*/cmdline
  else
    local args
    args=$(ps -A -ww -o args=) || return 0
    [[ $args == *"$dir/"* ]]
  fi
}
deadline=$((SECONDS + 120))
while (( SECONDS < deadline )); do
  if ! in_use; then
    if [ -d "$dir" ] && [ ! -L "$dir" ] && [ -O "$dir" ]; then rm -rf -- "$dir"; fi
    exit 0
  fi
  sleep 0.5
done
`;
  const reaper = spawn('bash', ['-c', script, 'kafka-lambda-run-dir-reaper'], {
    // A session of its own: the terminal's Ctrl-C, which ends its owner, must not end it too.
    detached: true,
    stdio: ['pipe', 'ignore', 'ignore'],
    env: { ...process.env, KAFKA_LAMBDA_RUN_DIR: runDir },
  });
  // Without bash the broker cannot start either (its watchdog is a bash script): that error is reported.
  reaper.on('error', () => {});
  reaper.stdin.on('error', () => {});
  // It must not keep this process alive; its pipe still closes when this process exits.
  reaper.unref();
  (reaper.stdin as unknown as { unref?: () => void }).unref?.();
  let dismissed: Promise<void> | undefined;
  return {
    dismiss() {
      // Resolves once the line is in the pipe (or the reaper is gone already).
      dismissed ??= new Promise<void>((resolve) => {
        if (reaper.stdin.writable) reaper.stdin.end('dismiss\n', () => resolve());
        else resolve();
      });
      return dismissed;
    },
  };
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
