import { lstat, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { MavenServerError } from './errors.ts';
import { type OwnerGoneCleanup, removeWhenOwnerGone } from './owner-gone.ts';
import { isAlive, processIdentity } from './process.ts';

/**
 * Every server runs in a folder of its own, `<prefix>*` in the system temporary folder, holding a marker
 * file that names the processes owning it. Only a folder with that marker is ever deleted, and only the
 * JVM the marker names (same pid, same start time, launched on that folder) is ever signalled: a stale or
 * edited state file cannot make this tool delete or kill anything else.
 */
const MARKER_FILE = 'kafka-lambda-run.json';

/**
 * One kind of server's run folders: how they are named and how its JVM's command line names the folder
 * it was launched on.
 *
 * @example
 * ```ts
 * const brokerRuns: RunDirKind = {
 *   prefix: 'kafka-lambda-broker-',
 *   jvmArgument: (path) => `kafka.Kafka ${join(path, 'server.properties')}`,
 * };
 * ```
 */
export interface RunDirKind {
  /** The start of the folder's name, e.g. `kafka-lambda-broker-`; kinds must not share a prefix. */
  readonly prefix: string;
  /** Text the JVM's command line (arguments joined by single spaces) holds when launched on the folder `path`. */
  jvmArgument(path: string): string;
}

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
  /** The server's JVM, once started; the folder is in use while it lives. */
  jvm?: ProcessRef;
}

/**
 * A run folder created by {@link createRunDir}: it goes with this process (its owner) until removed or
 * released. If this process is gone first (exit, Ctrl-C, SIGKILL, even before its server runs), the folder
 * is deleted once no process names it any more (the server's JVM, its watchdog, a tool run on it); a JVM
 * that dies by itself while this process lives leaves it in place (its log, its data for a relaunch).
 *
 * @example
 * ```ts
 * const run: RunDir = await createRunDir(brokerRuns);
 * await writeFile(join(run.path, 'server.properties'), properties);
 * ```
 */
export interface RunDir {
  readonly path: string;
  readonly kind: RunDirKind;
  /** Deletes the folder now (its server stopped, or never started). */
  remove(): Promise<void>;
  /** Lets the folder outlive this process: its server was detached, and a later stop deletes the folder. */
  release(): Promise<void>;
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
 * Creates a fresh run folder of `kind` owned by this process, deleted once this process is gone unless
 * removed or released before (see {@link RunDir}).
 *
 * @example
 * ```ts
 * const run = await createRunDir(brokerRuns);
 * ```
 */
export async function createRunDir(kind: RunDirKind): Promise<RunDir> {
  const path = await mkdtemp(join(tmpdir(), kind.prefix));
  let cleanup: OwnerGoneCleanup;
  try {
    await writeMarker(path, { tool: 'kafka-lambda', creator: await processRef(process.pid) });
    cleanup = removeWhenOwnerGone(path, { namedBy: namingArgument(kind, path), requiredFile: MARKER_FILE });
  } catch (error) {
    await rm(path, { recursive: true, force: true });
    throw error;
  }
  return {
    path,
    kind,
    async remove() {
      await rm(path, { recursive: true, force: true });
      await cleanup.dismiss();
    },
    release: () => cleanup.dismiss(),
  };
}

/**
 * The argument of `kind`'s JVM command line that names the folder `path` itself rather than a file in it
 * (`-Dsome.dir=<path>`), if any: the folder's cleanup must know that this JVM uses the folder too.
 */
function namingArgument(kind: RunDirKind, path: string): string | undefined {
  return kind
    .jvmArgument(path)
    .split(' ')
    .find((argument) => argument.endsWith(path));
}

/**
 * Records the JVM started in `run`, so that it can be told apart from any other process later.
 *
 * @example
 * ```ts
 * await recordRunJvm(run, jvm.pid);
 * ```
 * @throws MavenServerError when the folder is no longer a run folder of this tool.
 */
export async function recordRunJvm(run: RunDir, pid: number): Promise<void> {
  const marker = await readOwnMarker(run.kind, run.path);
  if (!marker) throw new MavenServerError(`the run folder ${run.path} lost its marker`);
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
 * The marker of `path` if it is a run folder of `kind` this tool created for this user: directly in the
 * temporary folder, named with the kind's prefix, a real folder (not a symbolic link) owned by this user,
 * holding a regular marker file. Undefined for anything else.
 */
async function readOwnMarker(kind: RunDirKind, path: string): Promise<RunMarker | undefined> {
  if (dirname(path) !== tmpdir() || !basename(path).startsWith(kind.prefix)) return undefined;
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
 * The pid of the JVM running in the run folder `path` of `kind`, or undefined when that folder is not one
 * this tool created or its JVM is not running. A pid from anywhere else (a state file, say) is only to be
 * signalled when it equals this.
 *
 * @example
 * ```ts
 * if ((await runJvmPid(brokerRuns, record.runDir)) === record.pid) await stopPid(record.pid, 20_000);
 * ```
 */
export async function runJvmPid(kind: RunDirKind, path: string): Promise<number | undefined> {
  const marker = await readOwnMarker(kind, path);
  if (!marker?.jvm || marker.jvm.startTime === '') return undefined;
  const identity = await processIdentity(marker.jvm.pid);
  const launchedOnThisRun = identity?.commandLine.includes(kind.jvmArgument(path));
  return identity?.startTime === marker.jvm.startTime && launchedOnThisRun ? marker.jvm.pid : undefined;
}

/**
 * Deletes the run folders of `kind` this tool left behind for this user: those whose creator and JVM have
 * both died (a `dev` or test run killed with SIGKILL, a server that crashed). Folders without this tool's
 * marker, of another user, or still in use are left alone.
 *
 * @example
 * ```ts
 * const removed = await removeStaleRunDirs(brokerRuns);
 * ```
 * @returns the folders deleted.
 */
export async function removeStaleRunDirs(kind: RunDirKind): Promise<string[]> {
  const names = await readdir(tmpdir()).catch(() => []);
  const removed: string[] = [];
  for (const name of names.filter((n) => n.startsWith(kind.prefix))) {
    const path = join(tmpdir(), name);
    const marker = await readOwnMarker(kind, path);
    if (!marker || !(await isGone(marker.creator)) || (marker.jvm && !(await isGone(marker.jvm)))) continue;
    await rm(path, { recursive: true, force: true }).catch(() => {});
    removed.push(path);
  }
  return removed;
}
