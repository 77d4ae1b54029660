import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../test/support/run-cli.ts';
import { cacheBase, isAlive, packageRoot, waitForExit } from '../maven-server/index.ts';
import { startBroker } from './broker.ts';
import { BrokerStartError } from './errors.ts';
import { DEFAULT_KAFKA_VERSION } from './jars.ts';

const cli = join(packageRoot, 'bin', 'kafka-lambda.js');

/**
 * Pids of broker JVMs whose command line names a run folder inside `folder`. Only `java` processes: the
 * watchdog's shell (and its subshell) carry the JVM's arguments too.
 */
async function brokerJvmsUnder(folder: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const args = (await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '')).split('\0');
    if (!/(^|\/)java$/.test(args[0] ?? '')) continue;
    const main = args.indexOf('kafka.Kafka');
    if (main >= 0 && args[main + 1]?.startsWith(`${folder}/`)) pids.push(Number(entry));
  }
  return pids;
}

/** Polls `check` every 200 ms until it returns a value other than undefined, or fails after `timeoutMs`. */
async function waitFor<T>(what: string, timeoutMs: number, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn('true', { stdio: 'ignore' });
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid ?? 0;
}

describe('the embedded broker process', () => {
  // A private temporary folder: the run folders these tests create, and leave behind on purpose, are
  // told apart from those of any other broker on the machine.
  let root: string;
  let tmp: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'kafka-lambda-broker-test-'));
    tmp = join(root, 'tmp');
    await mkdir(tmp);
    // A private state folder, sharing the already resolved jars.
    await mkdir(join(root, 'cache'));
    await symlink(join(cacheBase(), 'kafka'), join(root, 'cache', 'kafka'));
    env = { KAFKA_LAMBDA_CACHE: join(root, 'cache'), TMPDIR: tmp };
  });
  afterAll(async () => {
    await runCli(['broker', 'stop'], { env });
    for (const pid of await brokerJvmsUnder(tmp)) process.kill(pid, 'SIGKILL');
    await rm(root, { recursive: true, force: true });
  });

  it('shows the tail of the broker log when the JVM dies on start', async () => {
    const attempt = startBroker({ heapMb: 1 });
    await expect(attempt).rejects.toBeInstanceOf(BrokerStartError);
    await expect(attempt).rejects.toThrow(/heap/i);
  });

  it('stops the broker JVM when the process that started it is killed; the next `broker stop` deletes its folder', async () => {
    const script = `
      const { startBroker } = await import(${JSON.stringify(join(packageRoot, 'lib/broker/broker.ts'))});
      const broker = await startBroker();
      console.log('pid ' + broker.pid + ' in ' + broker.runDir);
      setInterval(() => {}, 1000);
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    const [jvmPid, runDir] = await new Promise<[number, string]>((resolve, reject) => {
      child.stdout.on('data', (c: Buffer) => {
        const match = /pid (\d+) in (\S+)/.exec(c.toString());
        if (match) resolve([Number(match[1]), match[2] ?? '']);
      });
      child.on('exit', (code) => reject(new Error(`starter exited early (${code})`)));
    });
    expect(isAlive(jvmPid)).toBe(true);
    child.kill('SIGKILL');
    expect(await waitForExit(jvmPid, 30_000)).toBe(true);
    // Like `dev` killed with SIGKILL: the JVM is gone, its data folder is left behind...
    expect(existsSync(runDir)).toBe(true);
    // ...until the tool runs next.
    const stop = await runCli(['broker', 'stop'], { env });
    expect(stop.stderr).toContain(`deleted broker data folder ${runDir}`);
    expect(existsSync(runDir)).toBe(false);
  });

  it('`broker start` killed with SIGKILL during start-up leaves no broker JVM running', async () => {
    const start = spawn(process.execPath, [cli, 'broker', 'start'], {
      cwd: packageRoot,
      stdio: 'ignore',
      env: { ...process.env, ...env },
    });
    const exited = new Promise((resolve) => start.once('exit', resolve));
    // As soon as its JVM runs (the broker takes seconds more to serve requests).
    const [jvmPid] = await waitFor('the broker JVM', 90_000, async () => {
      const pids = await brokerJvmsUnder(tmp);
      return pids.length > 0 ? pids : undefined;
    });
    start.kill('SIGKILL');
    await exited;
    expect(await waitForExit(jvmPid ?? 0, 60_000)).toBe(true);
    expect(await brokerJvmsUnder(tmp)).toEqual([]);
    expect(await runCli(['broker', 'status'], { env })).toMatchObject({ code: 3 });
  });

  describe('kafka-lambda broker start | status | stop', () => {
    it('starts a broker that outlives the CLI, reports it, and stops it without leaving a JVM', async () => {
      // A data folder left by a broker whose processes were killed: the next start deletes it.
      const stale = join(tmp, 'kafka-lambda-broker-stale');
      await mkdir(stale);
      const dead = { pid: await deadPid(), startTime: '1' };
      await writeFile(
        join(stale, 'kafka-lambda-run.json'),
        JSON.stringify({ tool: 'kafka-lambda', creator: dead, jvm: dead }),
      );

      const started = await runCli(['broker', 'start'], { env });
      expect(started).toMatchObject({ code: 0 }); // on failure, shows the CLI's stderr
      expect(existsSync(stale)).toBe(false);
      const bootstrap = started.stdout.trim();
      expect(bootstrap).toMatch(/^127\.0\.0\.1:\d+$/);
      const pid = Number(/pid (\d+)/.exec(started.stderr)?.[1]);
      expect(isAlive(pid)).toBe(true);

      const status = await runCli(['broker', 'status'], { env });
      expect(status).toMatchObject({
        code: 0,
        stdout: `running ${bootstrap} (Kafka ${process.env.KAFKA_VERSION ?? DEFAULT_KAFKA_VERSION}, pid ${pid})\ncache ${join(root, 'cache')}\n`,
      });

      const again = await runCli(['broker', 'start'], { env });
      expect(again.stdout.trim()).toBe(bootstrap);
      expect(again.stderr).toContain('already running');

      const stopped = await runCli(['broker', 'stop'], { env });
      expect(stopped.stdout).toBe(`stopped (pid ${pid})\n`);
      expect(isAlive(pid)).toBe(false);
      // Each folder left with its marker, so that a failure says whose it was.
      const left = await readdir(tmp);
      const markers = await Promise.all(
        left.map((name) =>
          readFile(join(tmp, name, 'kafka-lambda-run.json'), 'utf8').catch(() => 'no marker'),
        ),
      );
      expect(left.map((name, i) => `${name}: ${markers[i]}`)).toEqual([]);

      const after = await runCli(['broker', 'status'], { env });
      expect(after).toMatchObject({ code: 3, stdout: `stopped\ncache ${join(root, 'cache')}\n` });
    });
  });
});
