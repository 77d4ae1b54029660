import { spawn } from 'node:child_process';
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../test/fixtures/run-cli.ts';
import { startBroker } from './broker.ts';
import { BrokerStartError } from './errors.ts';
import { cacheBase } from './jars.ts';
import { isAlive, packageRoot, waitForExit } from './process.ts';

describe('the embedded broker process', () => {
  it('shows the tail of the broker log when the JVM dies on start', async () => {
    const attempt = startBroker({ heapMb: 1 });
    await expect(attempt).rejects.toBeInstanceOf(BrokerStartError);
    await expect(attempt).rejects.toThrow(/heap/i);
  });

  it('stops the broker JVM when the process that started it is killed', async () => {
    const script = `
      const { startBroker } = await import(${JSON.stringify(join(packageRoot, 'lib/broker/broker.ts'))});
      const broker = await startBroker();
      console.log('pid ' + broker.pid);
      setInterval(() => {}, 1000);
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const jvmPid = await new Promise<number>((resolve, reject) => {
      child.stdout.on('data', (c: Buffer) => {
        const match = /pid (\d+)/.exec(c.toString());
        if (match) resolve(Number(match[1]));
      });
      child.on('exit', (code) => reject(new Error(`starter exited early (${code})`)));
    });
    expect(isAlive(jvmPid)).toBe(true);
    child.kill('SIGKILL');
    expect(await waitForExit(jvmPid, 30_000)).toBe(true);
  });

  describe('kafka-lambda broker start | status | stop', () => {
    let cache: string;
    let env: Record<string, string>;
    beforeAll(async () => {
      // A private state folder, sharing the already resolved jars.
      cache = await mkdtemp(join(tmpdir(), 'kafka-lambda-cache-'));
      await symlink(join(cacheBase(), 'kafka'), join(cache, 'kafka'));
      env = { KAFKA_LAMBDA_CACHE: cache };
    });
    afterAll(async () => {
      await runCli(['broker', 'stop'], { env });
      await rm(cache, { recursive: true, force: true });
    });

    it('starts a broker that outlives the CLI, reports it, and stops it without leaving a JVM', async () => {
      const started = await runCli(['broker', 'start'], { env });
      expect(started.code).toBe(0);
      const bootstrap = started.stdout.trim();
      expect(bootstrap).toMatch(/^127\.0\.0\.1:\d+$/);
      const pid = Number(/pid (\d+)/.exec(started.stderr)?.[1]);
      expect(isAlive(pid)).toBe(true);

      const status = await runCli(['broker', 'status'], { env });
      expect(status).toMatchObject({ code: 0 });
      expect(status.stdout).toContain(`running ${bootstrap}`);

      const again = await runCli(['broker', 'start'], { env });
      expect(again.stdout.trim()).toBe(bootstrap);
      expect(again.stderr).toContain('already running');

      const stopped = await runCli(['broker', 'stop'], { env });
      expect(stopped.stdout).toContain(`stopped (pid ${pid})`);
      expect(isAlive(pid)).toBe(false);

      const after = await runCli(['broker', 'status'], { env });
      expect(after).toMatchObject({ code: 3, stdout: 'stopped\n' });
    });
  });
});
