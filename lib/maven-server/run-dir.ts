import { lstat, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { isAlive, processIdentity } from './process.ts';

/**
 * Every broker runs in a folder of its own, `kafka-lambda-broker-*` in the system temporary folder, holding a
 * marker file that names the processes owning it. Only a folder with that marker is ever deleted, and only
 * the JVM the marker names (same pid, same start time, launched on that folder's configuration) is ever
 * signalled: a stale or edited state file cannot make this tool delete or kill anything else.
 */
const RUN_DIR_PREFIX = 'kafka-lambda-broker-';
const MARKER_FILE = 'kafka-lambda-run.json';

/** A process as recorded in a marker: its pid is only trusted together with its start time. */
interface ProcessRef {
  pid: number;
  startTime: string;
}

/** The marker file of a run folder. */
interface RunMarker {
  tool: 'kafka-lambda';
  /** The process that created the folder (and started the JVM); the folder is in use while it lives. */
  creator: ProcessRef;
  /** The broker JVM, once started; the folder is in use while it lives. */
  jvm?: ProcessRef;
}

/** A broker run folder created by {@link createRunDir}. */
export interface RunDir {
  readonly path: string;
  /** The broker's configuration, which its JVM gets as its last argument. */
  readonly propertiesFile: string;
}

function runDirAt(path: string): RunDir {
  return { path, propertiesFile: join(path, 'server.properties') };
}

async function processRef(pid: number): Promise<ProcessRef> {
  return { pid, startTime: (await processIdentity(pid))?.startTime ?? '' };
}

/** Written to a temporary name, then renamed: a reader sees the old marker or the new one, never half. */
async function writeMarker(path: string, marker: RunMarker): Promise<void> {
  const temporary = join(path, `${MARKER_FILE}.${process.pid}.tmp`);
  await writeFile(temporary, `${JSON.stringify(marker, null, 2)}\n`);
  await rename(temporary, join(path, MARKER_FILE));
}

/**
 * Creates a fresh run folder owned by this process.
 *
 * @example
 * ```ts
 * const run = await createRunDir();
 * await writeFile(run.propertiesFile, properties);
 * ```
 */
export async function createRunDir(): Promise<RunDir> {
  const path = await mkdtemp(join(tmpdir(), RUN_DIR_PREFIX));
  await writeMarker(path, { tool: 'kafka-lambda', creator: await processRef(process.pid) });
  return runDirAt(path);
}

/**
 * Records the broker JVM started in `run`, so that it can be told apart from any other process later.
 *
 * @example
 * ```ts
 * await recordRunJvm(run, jvm.pid);
 * ```
 */
export async function recordRunJvm(run: RunDir, pid: number): Promise<void> {
  const marker = await readOwnMarker(run.path);
  if (!marker) throw new Error(`the broker run folder ${run.path} lost its marker`);
  await writeMarker(run.path, { ...marker, jvm: await processRef(pid) });
}

function isRunMarker(value: unknown): value is RunMarker {
  const marker = value as Partial<RunMarker> | null;
  const isRef = (ref: unknown) =>
    typeof ref === 'object' &&
    ref !== null &&
    Number.isSafeInteger((ref as ProcessRef).pid) &&
    typeof (ref as ProcessRef).startTime === 'string';
  return (
    typeof marker === 'object' &&
    marker !== null &&
    marker.tool === 'kafka-lambda' &&
    isRef(marker.creator) &&
    (marker.jvm === undefined || isRef(marker.jvm))
  );
}

/**
 * The marker of `path` if it is a run folder this tool created for this user: directly in the temporary
 * folder, named with the prefix, a real folder (not a symbolic link) owned by this user, holding a regular
 * marker file. Undefined for anything else.
 */
async function readOwnMarker(path: string): Promise<RunMarker | undefined> {
  if (dirname(path) !== tmpdir() || !basename(path).startsWith(RUN_DIR_PREFIX)) return undefined;
  try {
    const folder = await lstat(path);
    if (!folder.isDirectory() || (process.getuid && folder.uid !== process.getuid())) return undefined;
    const markerPath = join(path, MARKER_FILE);
    if (!(await lstat(markerPath)).isFile()) return undefined;
    const marker: unknown = JSON.parse(await readFile(markerPath, 'utf8'));
    return isRunMarker(marker) ? marker : undefined;
  } catch {
    return undefined;
  }
}

/** True once the process is gone: not alive, or alive with another start time (its pid was reused). */
async function isGone(ref: ProcessRef): Promise<boolean> {
  if (!isAlive(ref.pid)) return true;
  const identity = await processIdentity(ref.pid);
  return identity !== undefined && ref.startTime !== '' && identity.startTime !== ref.startTime;
}

/**
 * The pid of the broker JVM running in the run folder `path`, or undefined when that folder is not one this
 * tool created or its JVM is not running. A pid from anywhere else (a state file, say) is only to be
 * signalled when it equals this.
 *
 * @example
 * ```ts
 * if ((await runJvmPid(record.runDir)) === record.pid) process.kill(record.pid, 'SIGTERM');
 * ```
 */
export async function runJvmPid(path: string): Promise<number | undefined> {
  const marker = await readOwnMarker(path);
  if (!marker?.jvm || marker.jvm.startTime === '') return undefined;
  const identity = await processIdentity(marker.jvm.pid);
  const launchedOnThisRun = identity?.commandLine.includes(`kafka.Kafka ${runDirAt(path).propertiesFile}`);
  return identity?.startTime === marker.jvm.startTime && launchedOnThisRun ? marker.jvm.pid : undefined;
}

/**
 * Deletes the run folders this tool left behind for this user: those whose creator and JVM have both died
 * (a `dev` or test run killed with SIGKILL, a broker that crashed). Folders without this tool's marker,
 * of another user, or still in use are left alone.
 *
 * @example
 * ```ts
 * const removed = await removeStaleRunDirs();
 * ```
 * @returns the folders deleted.
 */
export async function removeStaleRunDirs(): Promise<string[]> {
  const names = await readdir(tmpdir()).catch(() => []);
  const removed: string[] = [];
  for (const name of names.filter((n) => n.startsWith(RUN_DIR_PREFIX))) {
    const path = join(tmpdir(), name);
    const marker = await readOwnMarker(path);
    if (!marker || !(await isGone(marker.creator)) || (marker.jvm && !(await isGone(marker.jvm)))) continue;
    await rm(path, { recursive: true, force: true }).catch(() => {});
    removed.push(path);
  }
  return removed;
}
