import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
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
});
