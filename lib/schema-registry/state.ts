/**
 * The background registry of `kafka-lambda registry start`: recorded in the per-user cache so that
 * `status` and `stop` find it again, and identified by its own run folder before any signal.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { stopPid } from '../broker/broker.ts';
import { cacheBase } from '../broker/jars.ts';
import { isAlive } from '../broker/process.ts';
import { isReady, REGISTRY_RUN_DIR_PREFIX, RUN_DIR_PROPERTY, startRegistry } from './server.ts';

/**
 * What `kafka-lambda registry start` records.
 *
 * @example
 * ```ts
 * const record: RegistryServerRecord = { url: 'http://127.0.0.1:8081/apis/ccompat/v7', pid: 4242, runDir, startedAt };
 * ```
 */
export interface RegistryServerRecord {
  url: string;
  pid: number;
  runDir: string;
  startedAt: string;
}

/**
 * State of the background registry.
 *
 * @example
 * ```ts
 * if ((await backgroundRegistryStatus()).state === 'running') { … }
 * ```
 */
export type RegistryServerStatus =
  | { state: 'stopped' }
  | { state: 'running'; server: RegistryServerRecord }
  | { state: 'not-serving'; server: RegistryServerRecord };

function stateFile(): string {
  return join(cacheBase(), 'schema-registry.json');
}

async function readRecord(): Promise<RegistryServerRecord | undefined> {
  try {
    const record = JSON.parse(await readFile(stateFile(), 'utf8')) as Partial<RegistryServerRecord> | null;
    const valid =
      typeof record?.url === 'string' &&
      Number.isSafeInteger(record.pid) &&
      typeof record.runDir === 'string' &&
      typeof record.startedAt === 'string';
    return valid ? (record as RegistryServerRecord) : undefined;
  } catch {
    return undefined;
  }
}

function isOurRunDir(runDir: string): boolean {
  return dirname(runDir) === tmpdir() && basename(runDir).startsWith(REGISTRY_RUN_DIR_PREFIX);
}

/** The recorded pid is the JVM started on the recorded run folder, not a reused pid. */
async function isRecordedServer(record: RegistryServerRecord): Promise<boolean> {
  if (!isOurRunDir(record.runDir) || !isAlive(record.pid)) return false;
  const cmdline = await readFile(`/proc/${record.pid}/cmdline`, 'utf8').catch(() => '');
  return cmdline.split('\0').includes(`${RUN_DIR_PROPERTY}${record.runDir}`);
}

/**
 * Starts a registry that outlives this process and records it, or returns the one already running.
 *
 * @example
 * ```ts
 * const { server } = await startBackgroundRegistry();
 * console.log(server.url);
 * ```
 */
export async function startBackgroundRegistry(): Promise<{
  server: RegistryServerRecord;
  alreadyRunning: boolean;
}> {
  const status = await backgroundRegistryStatus();
  if (status.state === 'running') return { server: status.server, alreadyRunning: true };
  if (status.state === 'not-serving') await stopBackgroundRegistry();
  const started = await startRegistry({ detached: true });
  const server: RegistryServerRecord = {
    url: started.url,
    pid: started.pid,
    runDir: started.runDir,
    startedAt: new Date().toISOString(),
  };
  await mkdir(dirname(stateFile()), { recursive: true });
  await writeFile(stateFile(), `${JSON.stringify(server, null, 2)}\n`);
  return { server, alreadyRunning: false };
}

/**
 * Whether the recorded background registry is running and ready.
 *
 * @example
 * ```ts
 * const status = await backgroundRegistryStatus();
 * ```
 */
export async function backgroundRegistryStatus(): Promise<RegistryServerStatus> {
  const server = await readRecord();
  if (!server || !(await isRecordedServer(server))) return { state: 'stopped' };
  return (await isReady(new URL(server.url).origin))
    ? { state: 'running', server }
    : { state: 'not-serving', server };
}

/**
 * Stops the recorded background registry (SIGTERM, then SIGKILL) and removes its run folder.
 *
 * @example
 * ```ts
 * const stopped = await stopBackgroundRegistry(); // undefined when none was recorded
 * ```
 */
export async function stopBackgroundRegistry(timeoutMs = 10_000): Promise<RegistryServerRecord | undefined> {
  const server = await readRecord();
  if (!server) return undefined;
  if (await isRecordedServer(server)) await stopPid(server.pid, timeoutMs);
  if (isOurRunDir(server.runDir) && !isAlive(server.pid))
    await rm(server.runDir, { recursive: true, force: true });
  await rm(stateFile(), { force: true });
  return server;
}
