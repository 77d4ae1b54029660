/**
 * What a local server (broker, ElasticMQ, registry) leaves of its run folder: the processes of /proc that
 * name the folder, what removes it once its owner is gone, and an owner process to kill. Linux only.
 */
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { expect } from 'vitest';
import { waitForExit } from '../../lib/maven-server/index.ts';

/** The command lines of /proc (but this process's), by pid, as argument lists. */
export async function commandLines(): Promise<{ pid: number; args: string[] }[]> {
  const found: { pid: number; args: string[] }[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const args = (await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '')).split('\0');
    found.push({ pid: Number(entry), args });
  }
  return found;
}

/** True when an argument names the run folder `runDir` or a file in it. */
function names(arg: string, runDir: string): boolean {
  return arg.includes(`${runDir}/`) || arg.endsWith(runDir);
}

async function environment(pid: number): Promise<string[]> {
  return (await readFile(`/proc/${pid}/environ`, 'utf8').catch(() => '')).split('\0');
}

/** The processes told of the run folder `runDir` in their environment: what removes it when its owner is gone. */
export async function removersOf(runDir: string): Promise<number[]> {
  const found: number[] = [];
  for (const { pid } of await commandLines()) {
    if ((await environment(pid)).some((variable) => variable.endsWith(`=${runDir}`))) found.push(pid);
  }
  return found;
}

/** The processes this one started that remove a run folder when this one is gone. */
export async function ownRemovers(): Promise<number[]> {
  const found: number[] = [];
  for (const { pid } of await commandLines()) {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (parent === process.pid && (await environment(pid)).some((v) => v.startsWith('KAFKA_LAMBDA_RUN_DIR=')))
      found.push(pid);
  }
  return found;
}

/**
 * The processes still about the run folder `runDir`: those whose command line names it (a JVM, its
 * watchdog, a tool run on it) and what removes it.
 */
export async function processesNaming(runDir: string): Promise<string[]> {
  const removers = await removersOf(runDir);
  return (await commandLines())
    .filter(({ pid, args }) => removers.includes(pid) || args.some((arg) => names(arg, runDir)))
    .map(({ pid, args }) => `${pid}: ${args.join(' ').slice(0, 200)}`);
}

/** The `java` processes whose command line names the run folder `runDir` (arguments joined by spaces). */
export async function javaProcessesNaming(runDir: string): Promise<{ pid: number; args: string }[]> {
  return (await commandLines())
    .filter(({ args }) => /(^|\/)java$/.test(args[0] ?? '') && args.some((arg) => names(arg, runDir)))
    .map(({ pid, args }) => ({ pid, args: args.join(' ') }));
}

/** Polls `check` every 200 ms until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  timeoutMs: number,
  check: () => Promise<T | undefined>,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * Waits (at most `timeoutMs`) until the folder is gone and no process names it, and says what is left:
 * `{ folder: false, processes: [] }` once all is done.
 */
export async function leftOf(
  runDir: string,
  timeoutMs = 90_000,
): Promise<{ folder: boolean; processes: string[] }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = { folder: existsSync(runDir), processes: await processesNaming(runDir) };
    if ((!left.folder && left.processes.length === 0) || Date.now() > deadline) return left;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** A process that starts a server and then waits: see {@link spawnOwner}. */
export interface Owner {
  readonly child: ChildProcessByStdio<null, Readable, Readable>;
  /** Resolves with the server JVM's pid and run folder once the server serves; rejects if the owner exits first. */
  readonly served: Promise<{ pid: number; runDir: string }>;
  /** What the owner wrote so far, for a failure's message. */
  output(): string;
}

/**
 * Spawns an owner: a Node process that imports `module`, awaits `start()` (one of its exports, returning a
 * server with `pid` and `runDir`), says so, and then waits to be killed. `env` is added to this process's
 * environment (a private `TMPDIR` keeps its run folders apart).
 *
 * @example
 * ```ts
 * const owner = spawnOwner(join(packageRoot, 'lib/elasticmq/server.ts'), 'startElasticMq', { TMPDIR: own });
 * const { pid, runDir } = await owner.served;
 * ```
 */
export function spawnOwner(module: string, start: string, env: Record<string, string>): Owner {
  const script = `
    const { ${start}: start } = await import(${JSON.stringify(module)});
    const server = await start();
    console.log('pid ' + server.pid + ' in ' + server.runDir);
    setInterval(() => {}, 1000);
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let output = '';
  for (const stream of [child.stdout, child.stderr])
    stream.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
  const served = new Promise<{ pid: number; runDir: string }>((resolve, reject) => {
    child.stdout.on('data', () => {
      const match = /pid (\d+) in (\S+)/.exec(output);
      if (match) resolve({ pid: Number(match[1]), runDir: match[2] ?? '' });
    });
    child.on('exit', (code, signal) =>
      reject(new Error(`owner exited early (${code ?? signal}): ${output}`)),
    );
  });
  // A test that kills its owner before it serves never awaits this.
  served.catch(() => {});
  return { child, served, output: () => output };
}

/**
 * The first JVM whose command line holds `argument` (a main class) and names a run folder in `own` (the
 * owner's temporary folder), with that folder: the moment the owner's server starts. Fails if the owner
 * exits first, or after `timeoutMs`.
 */
export async function jvmStartingIn(
  own: string,
  owner: Owner,
  argument: string,
  timeoutMs = 90_000,
): Promise<{ pid: number; runDir: string }> {
  return waitFor(`a ${argument} JVM`, timeoutMs, async () => {
    if (owner.child.exitCode !== null)
      throw new Error(`the owner exited (${owner.child.exitCode}): ${owner.output()}`);
    for (const name of await readdir(own)) {
      const runDir = join(own, name);
      const jvm = (await javaProcessesNaming(runDir)).find((p) => p.args.includes(argument));
      if (jvm) return { pid: jvm.pid, runDir };
    }
    return undefined;
  });
}

/**
 * Runs `body` with an owner that `spawn` starts in a new temporary folder (`own`, made in `parent`). The
 * owner is killed with SIGKILL, and `own` removed, however `body` ends.
 */
export async function withOwner(
  parent: string,
  spawn: (own: string) => Owner,
  body: (owner: Owner, own: string) => Promise<void>,
): Promise<void> {
  const own = await mkdtemp(join(parent, 'owner-'));
  const owner = spawn(own);
  try {
    await body(owner, own);
  } finally {
    owner.child.kill('SIGKILL');
    await rm(own, { recursive: true, force: true });
  }
}

/**
 * Kills `owner` with SIGKILL and expects nothing of its server to be left: the JVM `server.pid` exits
 * (within 60 s), neither its run folder nor a process naming it stays, and the owner's temporary folder
 * `own` is empty.
 */
export async function expectOwnerKilledLeavesNothing(
  owner: Owner,
  own: string,
  server: { pid: number; runDir: string },
): Promise<void> {
  owner.child.kill('SIGKILL');
  expect(await waitForExit(server.pid, 60_000)).toBe(true);
  expect(await leftOf(server.runDir)).toEqual({ folder: false, processes: [] });
  expect(await readdir(own)).toEqual([]);
}

/**
 * Once `owner` serves, its server JVM dies by itself (a crash, SIGKILL): `expectKept` checks, 3 s later,
 * what of the run folder stays while the owner lives; then the owner is killed and nothing may be left
 * ({@link expectOwnerKilledLeavesNothing}).
 */
export async function expectCrashKeepsFolderWhileOwnerLives(
  owner: Owner,
  own: string,
  expectKept: (runDir: string) => Promise<void>,
): Promise<void> {
  const server = await owner.served;
  process.kill(server.pid, 'SIGKILL');
  expect(await waitForExit(server.pid, 30_000)).toBe(true);
  await new Promise((r) => setTimeout(r, 3_000));
  await expectKept(server.runDir);
  await expectOwnerKilledLeavesNothing(owner, own, server);
}
