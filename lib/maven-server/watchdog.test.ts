import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pollUntil } from '../replay/wait.ts';
import { isAlive, waitForExit } from './process.ts';
import { spawnWatched } from './watchdog.ts';

const watchdog = new URL('./watchdog.ts', import.meta.url).href;
let folder: string | undefined;

afterEach(async () => {
  if (folder) await rm(folder, { recursive: true, force: true });
  folder = undefined;
});

describe('spawnWatched', () => {
  it('stop() ends the server', async () => {
    folder = await mkdtemp(join(tmpdir(), 'kafka-lambda-watchdog-'));
    const server = await spawnWatched('sleep', ['300'], join(folder, 'log'));
    expect(isAlive(server.pid)).toBe(true);
    await server.stop(5_000);
    expect(isAlive(server.pid)).toBe(false);
    expect(server.exited()).toBe(true);
  });

  it('the server does not outlive its owner killed with SIGKILL', async () => {
    folder = await mkdtemp(join(tmpdir(), 'kafka-lambda-watchdog-'));
    // An owner process that starts a server, says its pid, and then waits to be killed.
    const script = `const { spawnWatched } = await import(${JSON.stringify(watchdog)});
const server = await spawnWatched('sleep', ['300'], ${JSON.stringify(join(folder, 'log'))});
console.log(server.pid);
setInterval(() => {}, 1000);`;
    const owner = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const pid = await new Promise<number>((resolve, reject) => {
      owner.once('error', reject);
      owner.stdout.once('data', (chunk: Buffer) => resolve(Number.parseInt(chunk.toString(), 10)));
    });
    expect(isAlive(pid)).toBe(true);
    owner.kill('SIGKILL');
    expect(await waitForExit(pid, 15_000)).toBe(true);
  });

  /** An owner that starts `sleep` in the run folder `run` (marker path given), says its pid, then waits. */
  async function ownerOf(run: string, marker: string, detach = false) {
    const script = `const { spawnWatched } = await import(${JSON.stringify(watchdog)});
const server = await spawnWatched('sleep', ['300'], ${JSON.stringify(join(run, 'log'))}, { removeWithMarker: ${JSON.stringify(marker)} });
${detach ? 'await server.detach();' : ''}
console.log(server.pid);
setInterval(() => {}, 1000);`;
    const owner = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const pid = await new Promise<number>((resolve, reject) => {
      owner.once('error', reject);
      owner.stdout.once('data', (chunk: Buffer) => resolve(Number.parseInt(chunk.toString(), 10)));
    });
    return { owner, pid };
  }

  it("deletes the server's run folder once the server is gone after its owner was killed (a dev ended mid-start)", async () => {
    folder = await mkdtemp(join(tmpdir(), 'kafka-lambda-watchdog-'));
    const run = join(folder, 'kafka-lambda-fake-run');
    await mkdir(join(run, 'data'), { recursive: true });
    const marker = join(run, 'kafka-lambda-run.json');
    await writeFile(marker, '{}');
    await writeFile(join(run, 'data', 'segment'), 'x');
    const { owner, pid } = await ownerOf(run, marker);
    owner.kill('SIGKILL');
    expect(await waitForExit(pid, 15_000)).toBe(true);
    await pollUntil('the run folder deleted', { timeoutMs: 10_000, intervalMs: 50 }, async () => ({
      done: !existsSync(run),
      seen: existsSync(run) ? 'still there' : 'gone',
    }));
    expect(existsSync(folder)).toBe(true);
  });

  it('leaves a folder without its marker, and the folder of a detached server, alone', async () => {
    folder = await mkdtemp(join(tmpdir(), 'kafka-lambda-watchdog-'));
    const unmarked = join(folder, 'unmarked');
    await mkdir(unmarked);
    const first = await ownerOf(unmarked, join(unmarked, 'kafka-lambda-run.json'));
    first.owner.kill('SIGKILL');
    expect(await waitForExit(first.pid, 15_000)).toBe(true);

    const detached = join(folder, 'detached');
    await mkdir(detached);
    await writeFile(join(detached, 'kafka-lambda-run.json'), '{}');
    const second = await ownerOf(detached, join(detached, 'kafka-lambda-run.json'), true);
    second.owner.kill('SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(isAlive(second.pid)).toBe(true);
    process.kill(second.pid, 'SIGKILL');
    // The unmarked folder's watchdog has long finished: the folder stays, as the detached one does.
    expect(existsSync(unmarked)).toBe(true);
    expect(existsSync(detached)).toBe(true);
  });
});
