import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { startBroker, stopPid, waitUntilServing } from './broker.ts';
import { cacheBase } from './jars.ts';
import { removeStaleRunDirs, runJvmPid } from './run-dir.ts';

/** What `kafka-lambda broker start` records so that `status` and `stop` find the broker again. */
export interface BrokerRecord {
  bootstrapServers: string;
  pid: number;
  /** The broker's data folder: only deleted when this tool created it, only its JVM is ever stopped. */
  runDir: string;
  version: string;
  startedAt: string;
}

/** State of the broker started by `kafka-lambda broker start`. */
export type BrokerStatus =
  | { state: 'stopped' }
  | { state: 'running'; broker: BrokerRecord }
  | { state: 'not-serving'; broker: BrokerRecord };

/**
 * What {@link stopBackgroundBroker} did.
 *
 * @example
 * ```ts
 * const { stopped, leftAlone } = await stopBackgroundBroker();
 * if (leftAlone) console.error(`${leftAlone} is not a data folder of this tool: left alone`);
 * ```
 */
export interface BrokerStopResult {
  /** The broker stopped; undefined when none was running. */
  stopped?: BrokerRecord;
  /** The data folder the state file named, when it is still there: not one this tool created, or in use. */
  leftAlone?: string;
  /** Data folders of brokers no longer running (the one stopped among them), deleted. */
  removedStale: string[];
}

/** Per user, beside the jars: one background broker serves every project, even a read-only install. */
function stateFile(): string {
  return join(cacheBase(), 'broker.json');
}

async function readRecord(): Promise<BrokerRecord | undefined> {
  try {
    const record = JSON.parse(await readFile(stateFile(), 'utf8')) as Partial<BrokerRecord> | null;
    const valid =
      typeof record === 'object' &&
      record !== null &&
      typeof record.bootstrapServers === 'string' &&
      Number.isSafeInteger(record.pid) &&
      typeof record.runDir === 'string' &&
      typeof record.version === 'string' &&
      typeof record.startedAt === 'string';
    return valid ? (record as BrokerRecord) : undefined;
  } catch {
    return undefined;
  }
}

/** True when the recorded pid is the JVM of the recorded run (never a process that merely looks like one). */
async function isRecordedBrokerRunning(record: BrokerRecord): Promise<boolean> {
  return (await runJvmPid(record.runDir)) === record.pid;
}

/**
 * Starts a broker that outlives this process and records it, or returns the one already running.
 * The broker stays tied to this process until it is recorded: interrupted before, it stops too.
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
  const broker = await startBroker();
  const record: BrokerRecord = {
    bootstrapServers: broker.bootstrapServers,
    pid: broker.pid,
    runDir: broker.runDir,
    version: broker.version,
    startedAt: new Date().toISOString(),
  };
  try {
    await mkdir(dirname(stateFile()), { recursive: true });
    await writeFile(stateFile(), `${JSON.stringify(record, null, 2)}\n`);
  } catch (error) {
    await broker.stop(5_000);
    throw error;
  }
  await broker.detach();
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
  if (!broker || !(await isRecordedBrokerRunning(broker))) return { state: 'stopped' };
  try {
    await waitUntilServing(broker.bootstrapServers, 5_000);
    return { state: 'running', broker };
  } catch {
    return { state: 'not-serving', broker };
  }
}

/**
 * Stops the recorded background broker (SIGTERM, then SIGKILL) and removes its data. Only the JVM and the
 * folder this tool started and created for that record are touched, whatever the state file says; data
 * folders of brokers whose processes died are removed too.
 *
 * @example
 * ```ts
 * const { stopped } = await stopBackgroundBroker(); // stopped is undefined when none was running
 * ```
 */
export async function stopBackgroundBroker(timeoutMs = 20_000): Promise<BrokerStopResult> {
  const record = await readRecord();
  const stopped = record && (await isRecordedBrokerRunning(record)) ? record : undefined;
  if (stopped) await stopPid(stopped.pid, timeoutMs);
  await rm(stateFile(), { force: true });
  // The stopped broker's folder is stale now, like those of brokers whose processes were killed.
  const removedStale = await removeStaleRunDirs();
  const leftAlone = record && existsSync(record.runDir) ? record.runDir : undefined;
  return { stopped, leftAlone, removedStale };
}
