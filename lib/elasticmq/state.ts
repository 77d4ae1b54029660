import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { stopPid } from '../broker/broker.ts';
import { cacheBase } from '../broker/jars.ts';
import { isAlive } from '../broker/process.ts';
import { CONFIG_FILE, RUN_DIR_PREFIX, startElasticMq, waitUntilAnswering } from './server.ts';

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
export type SqsServerStatus =
  | { state: 'stopped' }
  | { state: 'running'; server: SqsServerRecord }
  | { state: 'not-serving'; server: SqsServerRecord };

function stateFile(): string {
  return join(cacheBase(), 'elasticmq.json');
}

async function readRecord(): Promise<SqsServerRecord | undefined> {
  try {
    const record = JSON.parse(await readFile(stateFile(), 'utf8')) as Partial<SqsServerRecord> | null;
    const valid =
      typeof record?.endpoint === 'string' &&
      typeof record.region === 'string' &&
      typeof record.accountId === 'string' &&
      Number.isSafeInteger(record.pid) &&
      typeof record.runDir === 'string' &&
      typeof record.startedAt === 'string';
    return valid ? (record as SqsServerRecord) : undefined;
  } catch {
    return undefined;
  }
}

/** A run folder this tool created: directly in the temporary folder, with our prefix. */
function isOurRunDir(runDir: string): boolean {
  return dirname(runDir) === tmpdir() && basename(runDir).startsWith(RUN_DIR_PREFIX);
}

/** The recorded pid is ElasticMQ started on the recorded run folder's configuration, not a reused pid. */
async function isRecordedServer(record: SqsServerRecord): Promise<boolean> {
  if (!isOurRunDir(record.runDir) || !isAlive(record.pid)) return false;
  const cmdline = await readFile(`/proc/${record.pid}/cmdline`, 'utf8').catch(() => '');
  const args = cmdline.split('\0');
  return (
    args.includes('org.elasticmq.server.Main') &&
    args.includes(`-Dconfig.file=${join(record.runDir, CONFIG_FILE)}`)
  );
}

/**
 * Starts an SQS server that outlives this process and records it, or returns the one already running.
 *
 * @example
 * ```ts
 * const { server, alreadyRunning } = await startBackgroundSqs(['orders-dlq']);
 * console.log(server.endpoint);
 * ```
 */
export async function startBackgroundSqs(
  queues: string[] = [],
): Promise<{ server: SqsServerRecord; alreadyRunning: boolean }> {
  const status = await backgroundSqsStatus();
  if (status.state === 'running') return { server: status.server, alreadyRunning: true };
  if (status.state === 'not-serving') await stopBackgroundSqs();
  // Tied to this process until recorded: a start interrupted before that leaves no server behind.
  const started = await startElasticMq({ queues });
  const server: SqsServerRecord = {
    endpoint: started.endpoint,
    region: started.region,
    accountId: started.accountId,
    pid: started.pid,
    runDir: started.runDir,
    startedAt: new Date().toISOString(),
  };
  await mkdir(dirname(stateFile()), { recursive: true });
  await writeFile(stateFile(), `${JSON.stringify(server, null, 2)}\n`);
  await started.detach();
  return { server, alreadyRunning: false };
}

/**
 * Whether the recorded background SQS server is running and answering.
 *
 * @example
 * ```ts
 * const status = await backgroundSqsStatus();
 * ```
 */
export async function backgroundSqsStatus(): Promise<SqsServerStatus> {
  const server = await readRecord();
  if (!server || !(await isRecordedServer(server))) return { state: 'stopped' };
  try {
    await waitUntilAnswering(server.endpoint, 3_000);
    return { state: 'running', server };
  } catch {
    return { state: 'not-serving', server };
  }
}

/**
 * Stops the recorded background SQS server (SIGTERM, then SIGKILL) and removes its run folder.
 *
 * @example
 * ```ts
 * const stopped = await stopBackgroundSqs(); // undefined when none was recorded
 * ```
 */
export async function stopBackgroundSqs(timeoutMs = 10_000): Promise<SqsServerRecord | undefined> {
  const server = await readRecord();
  if (!server) return undefined;
  if (await isRecordedServer(server)) await stopPid(server.pid, timeoutMs);
  if (isOurRunDir(server.runDir) && !isAlive(server.pid))
    await rm(server.runDir, { recursive: true, force: true });
  await rm(stateFile(), { force: true });
  return server;
}
