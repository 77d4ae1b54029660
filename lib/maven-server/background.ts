import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { cacheBase } from './jars.ts';
import { isAlive, stopPid } from './process.ts';
import { type RunDir, type RunDirKind, recordRunJvm, removeStaleRunDirs, runJvmPid } from './run-dir.ts';
import { acquireStartLock } from './start-lock.ts';
import { spawnWatched } from './watchdog.ts';

/**
 * A server JVM started by {@link startJvmInRunDir}: tied to this process until detached.
 *
 * @example
 * ```ts
 * const jvm: RunDirJvm = await startJvmInRunDir(run, javaArgs, logFile);
 * if (jvm.exited()) console.error('died during start-up');
 * ```
 */
export interface RunDirJvm {
  readonly pid: number;
  readonly runDir: string;
  exited(): boolean;
  /**
   * SIGTERM, SIGKILL after `timeoutMs`, then deletes the run folder. Once detached, the JVM is only
   * signalled while the run folder's marker still names it (its pid may have been reused since).
   */
  stop(timeoutMs: number): Promise<void>;
  /**
   * Lets the JVM, and its run folder, outlive this process. Until then, if this process exits or is
   * killed, the JVM is stopped and then its folder deleted (see {@link RunDir}).
   */
  detach(): Promise<void>;
}

/**
 * Starts `java javaArgs` under the watchdog (see `spawnWatched`) and records it in the run folder's
 * marker, so that only this JVM is ever signalled for that folder. The arguments must hold
 * `run.kind.jvmArgument(run.path)`. Stopping the JVM removes the folder, detaching it releases it.
 *
 * @example
 * ```ts
 * const run = await createRunDir(elasticMqRuns);
 * const jvm = await startJvmInRunDir(run, ['-cp', classpath, 'org.elasticmq.server.Main'], join(run.path, 'log'));
 * ```
 */
export async function startJvmInRunDir(run: RunDir, javaArgs: string[], logFile: string): Promise<RunDirJvm> {
  const jvm = await spawnWatched('java', javaArgs, logFile);
  let detached = false;
  const started: RunDirJvm = {
    pid: jvm.pid,
    runDir: run.path,
    exited: jvm.exited,
    async stop(timeoutMs) {
      if (!detached || (await runJvmPid(run.kind, run.path)) === jvm.pid) await jvm.stop(timeoutMs);
      await run.remove();
    },
    async detach() {
      await jvm.detach();
      await run.release();
      detached = true;
    },
  };
  try {
    await recordRunJvm(run, jvm.pid);
  } catch (error) {
    await started.stop(5_000);
    throw error;
  }
  return started;
}

/**
 * What a background server's state file holds at the least.
 *
 * @example
 * ```ts
 * const record: ServerRecord = { pid: 4242, runDir, startedAt: new Date().toISOString() };
 * ```
 */
export interface ServerRecord {
  pid: number;
  /** The server's run folder: only deleted when this tool created it, only its JVM is ever stopped. */
  runDir: string;
  startedAt: string;
}

/**
 * One kind of background server: where it is recorded and how it is recognised and checked.
 *
 * @example
 * ```ts
 * const sqs: BackgroundServerKind<SqsServerRecord> = {
 *   stateFileName: 'elasticmq.json', runDirs: elasticMqRuns,
 *   hasFields: (r) => typeof r.endpoint === 'string', isServing: (r) => answers(r.endpoint),
 * };
 * ```
 */
export interface BackgroundServerKind<R extends ServerRecord> {
  /** The state file's name in the cache folder, e.g. `broker.json`. */
  readonly stateFileName: string;
  readonly runDirs: RunDirKind;
  /** True when a parsed state file has this kind's own fields (pid, runDir and startedAt are checked already). */
  hasFields(record: Partial<R>): boolean;
  /** True when the recorded (and running) server answers requests. */
  isServing(record: R): Promise<boolean>;
}

/**
 * State of a background server.
 *
 * @example
 * ```ts
 * if (status.state !== 'stopped') console.log(status.server.pid);
 * ```
 */
export type BackgroundServerStatus<R extends ServerRecord> =
  | { state: 'stopped' }
  | { state: 'running'; server: R }
  | { state: 'not-serving'; server: R };

/**
 * What {@link BackgroundServer.stop} did.
 *
 * @example
 * ```ts
 * const { stopped, leftAlone } = await server.stop(10_000);
 * ```
 */
export interface BackgroundServerStopResult<R extends ServerRecord> {
  /** The server stopped; undefined when none was running. */
  stopped?: R;
  /** The run folder the state file named, when it is still there: not one this tool created, or in use. */
  leftAlone?: string;
  /** Run folders of servers no longer running (the one stopped among them), deleted. */
  removedStale: string[];
}

/**
 * A server started by {@link BackgroundServer.start}'s `launch`, still tied to this process.
 *
 * @example
 * ```ts
 * const launched: LaunchedServer<SqsServerRecord> = { record: { endpoint, region, accountId, pid, runDir }, stop, detach };
 * ```
 */
export interface LaunchedServer<R extends ServerRecord> {
  readonly record: Omit<R, 'startedAt'>;
  stop(timeoutMs: number): Promise<void>;
  detach(): Promise<void>;
}

/**
 * Options of {@link BackgroundServer.start}.
 *
 * @example
 * ```ts
 * const options: BackgroundStartOptions = { onWaiting: (pid) => console.error(`waiting for pid ${pid}…`) };
 * ```
 */
export interface BackgroundStartOptions {
  /** Called when another process is starting a server of this kind and this start waits for it. */
  onWaiting?: (holderPid: number) => void;
}

/**
 * A server that outlives the command that started it (`kafka-lambda broker|sqs|registry start`), recorded
 * in a state file in the per-user cache so that `status` and `stop` find it again. Whatever the state
 * file says, only the JVM its run folder's marker names is signalled, and only run folders of this tool
 * are deleted.
 *
 * @example
 * ```ts
 * const sqs = new BackgroundServer(sqsKind);
 * const { server, alreadyRunning } = await sqs.start(async () => launch());
 * ```
 */
export class BackgroundServer<R extends ServerRecord> {
  readonly #kind: BackgroundServerKind<R>;

  constructor(kind: BackgroundServerKind<R>) {
    this.#kind = kind;
  }

  /** Per user, beside the jars: one background server serves every project, even a read-only install. */
  get stateFile(): string {
    return join(cacheBase(), this.#kind.stateFileName);
  }

  async #readRecord(): Promise<R | undefined> {
    try {
      const record = JSON.parse(await readFile(this.stateFile, 'utf8')) as Partial<R> | null;
      const valid =
        typeof record === 'object' &&
        record !== null &&
        Number.isSafeInteger(record.pid) &&
        typeof record.runDir === 'string' &&
        typeof record.startedAt === 'string' &&
        this.#kind.hasFields(record);
      return valid ? (record as R) : undefined;
    } catch {
      return undefined;
    }
  }

  /** True when the recorded pid is the JVM of the recorded run (never a process that merely looks like one). */
  async #isRecordedServerRunning(record: R): Promise<boolean> {
    return (await runJvmPid(this.#kind.runDirs, record.runDir)) === record.pid;
  }

  /**
   * Whether the recorded server is running and serving requests.
   *
   * @example
   * ```ts
   * if ((await sqs.status()).state === 'running') { … }
   * ```
   */
  async status(): Promise<BackgroundServerStatus<R>> {
    const server = await this.#readRecord();
    if (!server || !(await this.#isRecordedServerRunning(server))) return { state: 'stopped' };
    return (await this.#kind.isServing(server))
      ? { state: 'running', server }
      : { state: 'not-serving', server };
  }

  /**
   * Returns the recorded server when it is serving; otherwise stops what is left of it, calls `launch`
   * and records the server it started. The server stays tied to this process until it is recorded: a
   * start interrupted before (Ctrl-C, SIGKILL, a failed write) leaves no JVM behind. Starts of the same
   * kind take turns (a lock file beside the state file): a second start waits for the first and returns
   * its server, instead of launching a JVM that one of them would leave unrecorded.
   *
   * @example
   * ```ts
   * const { server, alreadyRunning } = await sqs.start(async () => launch(), {
   *   onWaiting: (pid) => console.error(`waiting for the start under way (pid ${pid})…`),
   * });
   * ```
   */
  async start(
    launch: () => Promise<LaunchedServer<R>>,
    options: BackgroundStartOptions = {},
  ): Promise<{ server: R; alreadyRunning: boolean }> {
    const lock = await acquireStartLock(`${this.stateFile}.lock`, { onWaiting: options.onWaiting });
    try {
      return await this.#startLocked(launch);
    } finally {
      await lock.release();
    }
  }

  async #startLocked(
    launch: () => Promise<LaunchedServer<R>>,
  ): Promise<{ server: R; alreadyRunning: boolean }> {
    const status = await this.status();
    if (status.state === 'running') return { server: status.server, alreadyRunning: true };
    if (status.state === 'not-serving') await this.stop();
    const launched = await launch();
    const server = { ...launched.record, startedAt: new Date().toISOString() } as R;
    try {
      await mkdir(dirname(this.stateFile), { recursive: true });
      await writeFile(this.stateFile, `${JSON.stringify(server, null, 2)}\n`);
    } catch (error) {
      await launched.stop(5_000);
      throw error;
    }
    await launched.detach();
    return { server, alreadyRunning: false };
  }

  /**
   * Stops the recorded server (SIGTERM, then SIGKILL after `timeoutMs`), forgets it, and deletes the run
   * folders of this kind whose processes are gone (the stopped one's among them).
   *
   * @example
   * ```ts
   * const { stopped } = await sqs.stop(); // stopped is undefined when none was running
   * ```
   */
  async stop(timeoutMs = 20_000): Promise<BackgroundServerStopResult<R>> {
    const record = await this.#readRecord();
    const stopped = record && (await this.#isRecordedServerRunning(record)) ? record : undefined;
    const removedStale: string[] = [];
    if (stopped) {
      await stopPid(stopped.pid, timeoutMs);
      // Its folder was just checked to be this tool's, naming this JVM; now that the JVM is gone it is
      // stale, even while the process that created it (this one, say) still runs.
      if (!isAlive(stopped.pid)) {
        await rm(stopped.runDir, { recursive: true, force: true });
        removedStale.push(stopped.runDir);
      }
    }
    await rm(this.stateFile, { force: true });
    // Folders of servers whose processes were killed.
    removedStale.push(...(await removeStaleRunDirs(this.#kind.runDirs)));
    const leftAlone = record && existsSync(record.runDir) ? record.runDir : undefined;
    return { stopped, leftAlone, removedStale };
  }
}
