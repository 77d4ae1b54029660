import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { type EmbeddedBroker, startBroker, stopPid, waitUntilServing } from './broker.ts';
import { cacheBase } from './jars.ts';
import { isAlive } from './process.ts';

/** What `kafka-lambda broker start` records so that `status` and `stop` find the broker again. */
export interface BrokerRecord {
  bootstrapServers: string;
  pid: number;
  runDir: string;
  version: string;
  startedAt: string;
}

/** State of the broker started by `kafka-lambda broker start`. */
export type BrokerStatus =
  | { state: 'stopped' }
  | { state: 'running'; broker: BrokerRecord }
  | { state: 'not-serving'; broker: BrokerRecord };

function stateFile(): string {
  return join(cacheBase(), 'broker.json');
}

async function readRecord(): Promise<BrokerRecord | undefined> {
  try {
    return JSON.parse(await readFile(stateFile(), 'utf8')) as BrokerRecord;
  } catch {
    return undefined;
  }
}

/** The recorded pid is still our broker JVM (not a process that reused the pid after a reboot). */
async function isBrokerProcess(pid: number): Promise<boolean> {
  if (!isAlive(pid)) return false;
  const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => undefined);
  return cmdline === undefined || cmdline.includes('kafka.Kafka');
}

/**
 * Starts a broker that outlives this process and records it, or returns the one already running.
 *
 * @example
 * ```ts
 * const { broker, alreadyRunning } = await startBackgroundBroker();
 * console.log(broker.bootstrapServers);
 * ```
 */
export async function startBackgroundBroker(): Promise<{ broker: BrokerRecord; alreadyRunning: boolean }> {
  const status = await backgroundBrokerStatus();
  if (status.state === 'running') return { broker: status.broker, alreadyRunning: true };
  if (status.state === 'not-serving') await stopBackgroundBroker();
  const broker: EmbeddedBroker = await startBroker({ detached: true });
  const record: BrokerRecord = {
    bootstrapServers: broker.bootstrapServers,
    pid: broker.pid,
    runDir: broker.runDir,
    version: broker.version,
    startedAt: new Date().toISOString(),
  };
  await mkdir(dirname(stateFile()), { recursive: true });
  await writeFile(stateFile(), `${JSON.stringify(record, null, 2)}\n`);
  return { broker: record, alreadyRunning: false };
}

/**
 * Whether the recorded background broker is running and serving requests.
 *
 * @example
 * ```ts
 * if ((await backgroundBrokerStatus()).state === 'running') { ... }
 * ```
 */
export async function backgroundBrokerStatus(): Promise<BrokerStatus> {
  const broker = await readRecord();
  if (!broker || !(await isBrokerProcess(broker.pid))) return { state: 'stopped' };
  try {
    await waitUntilServing(broker.bootstrapServers, 5_000);
    return { state: 'running', broker };
  } catch {
    return { state: 'not-serving', broker };
  }
}

/**
 * Stops the recorded background broker (SIGTERM, then SIGKILL) and removes its data.
 *
 * @example
 * ```ts
 * const stopped = await stopBackgroundBroker(); // undefined when none was running
 * ```
 */
export async function stopBackgroundBroker(timeoutMs = 20_000): Promise<BrokerRecord | undefined> {
  const broker = await readRecord();
  if (!broker) return undefined;
  if (await isBrokerProcess(broker.pid)) await stopPid(broker.pid, timeoutMs);
  await rm(broker.runDir, { recursive: true, force: true });
  await rm(stateFile(), { force: true });
  return broker;
}
