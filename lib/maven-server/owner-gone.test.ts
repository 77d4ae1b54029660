import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { leftOf, processesNaming, removersOf, waitFor } from '../../test/support/run-dir-processes.ts';
import { isAlive, processIdentity, waitForExit } from './process.ts';

const runDirModule = new URL('./run-dir.ts', import.meta.url).href;

// As the registry's JVM does, this kind's JVM names its folder itself, not a file in it.
const kindSource = `{ prefix: 'kafka-lambda-fake-', jvmArgument: (path) => 'fake.Main -Dfake.run-dir=' + path }`;

// Owners: Node processes that create a run folder (the real createRunDir), do `then` with it, say its
// path and wait to be killed. The test plays the JVM with a harmless look-alike process.
describe('a run folder goes with its owner', { timeout: 60_000 }, () => {
  let root: string;
  const children: ChildProcess[] = [];
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'kafka-lambda-owner-gone-'));
  });
  afterEach(async () => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
    await rm(root, { recursive: true, force: true });
  });

  /** Starts an owner and resolves with it and its run folder's path once created (and `then` done). */
  async function owner(then = ''): Promise<{ child: ChildProcess; path: string }> {
    const script = `
      const { createRunDir } = await import(${JSON.stringify(runDirModule)});
      const run = await createRunDir(${kindSource});
      ${then}
      console.log(run.path);
      setInterval(() => {}, 1000);
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, TMPDIR: root },
    });
    children.push(child);
    const path = await new Promise<string>((resolve, reject) => {
      child.stdout?.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()));
      child.once('exit', (code) => reject(new Error(`owner exited early (${code})`)));
    });
    return { child, path };
  }

  /** Once no process names the folder nor waits to remove it: whether the folder is still there. */
  async function keptOnceAllDone(path: string): Promise<boolean> {
    await waitFor('no process about the folder', 15_000, async () =>
      (await processesNaming(path)).length === 0 ? true : undefined,
    );
    return existsSync(path);
  }

  /** A process whose command line reads like the kind's JVM launched on `path`. */
  async function lookAlikeJvm(path: string): Promise<number> {
    const child = spawn('bash', ['-c', 'exec -a "$0" sleep 120', `java fake.Main -Dfake.run-dir=${path}`], {
      stdio: 'ignore',
    });
    children.push(child);
    await new Promise((resolve) => child.once('spawn', resolve));
    const pid = child.pid ?? 0;
    while (!(await processIdentity(pid))?.commandLine.startsWith('java '))
      await new Promise((r) => setTimeout(r, 20));
    return pid;
  }

  it('an owner killed with SIGKILL: its folder is deleted, and what deleted it is gone', async () => {
    const { child, path } = await owner();
    expect(await removersOf(path)).toHaveLength(1);
    child.kill('SIGKILL');
    expect(await leftOf(path, 15_000)).toEqual({ folder: false, processes: [] });
    expect(await readdir(root)).toEqual([]);
  });

  it('the folder is kept while a process names it (the JVM stopping), then deleted', async () => {
    const { child, path } = await owner();
    const jvm = await lookAlikeJvm(path);
    child.kill('SIGKILL');
    await new Promise((r) => setTimeout(r, 2_000));
    expect(existsSync(path)).toBe(true);
    expect(isAlive(jvm)).toBe(true);
    process.kill(jvm, 'SIGKILL');
    expect(await waitForExit(jvm, 5_000)).toBe(true);
    expect(await leftOf(path, 15_000)).toEqual({ folder: false, processes: [] });
  });

  it('released (its server detached), the folder outlives its owner and nothing waits to remove it', async () => {
    const { child, path } = await owner('await run.release();');
    expect(await keptOnceAllDone(path)).toBe(true);
    child.kill('SIGKILL');
    await new Promise((r) => setTimeout(r, 1_500));
    expect(existsSync(path)).toBe(true);
  });

  it('removed by its owner (its server stopped), nothing is left while the owner lives', async () => {
    const { child, path } = await owner('await run.remove();');
    expect(await leftOf(path, 5_000)).toEqual({ folder: false, processes: [] });
    expect(child.exitCode).toBeNull();
  });

  it('a folder that lost its marker is not deleted', async () => {
    const { child, path } = await owner();
    await rm(join(path, 'kafka-lambda-run.json'));
    child.kill('SIGKILL');
    await waitForExit(child.pid ?? 0, 5_000);
    expect(await keptOnceAllDone(path)).toBe(true);
  });
});
