import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../test/support/run-cli.ts';
import {
  expectCrashKeepsFolderWhileOwnerLives,
  expectOwnerKilledLeavesNothing,
  jvmStartingIn,
  ownRemovers,
  removersOf,
  spawnOwner,
  waitFor,
  withOwner,
} from '../../test/support/run-dir-processes.ts';
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
    // The folder deleted by this process (after its log was read), what would have removed it is gone too.
    expect(
      await waitFor('no folder remover left', 10_000, async () =>
        (await ownRemovers()).length === 0 ? true : undefined,
      ),
    ).toBe(true);
  });

  /**
   * A process (the owner) that starts a broker in `own` (its temporary folder), says `pid <jvm> in <folder>`
   * once it serves, and then waits.
   */
  function owner(own: string) {
    return spawnOwner(join(packageRoot, 'lib/broker/broker.ts'), 'startBroker', { ...env, TMPDIR: own });
  }

  it('a broker JVM that dies by itself keeps its folder while its owner lives; once the owner is killed, the folder goes', () =>
    withOwner(tmp, owner, (started, own) =>
      // The JVM dies on its own (a crash): its data stays, for a broker relaunched on it and for its log.
      // Its owner killed (as `dev` killed with SIGKILL): nothing of the broker is left.
      expectCrashKeepsFolderWhileOwnerLives(started, own, async (runDir) => {
        expect(existsSync(join(runDir, 'logs', 'server.log'))).toBe(true);
        expect(existsSync(join(runDir, 'data'))).toBe(true);
      }),
    ));

  it.each([
    ['while the broker storage is formatted', 'kafka.tools.StorageTool'],
    ['while the broker JVM starts', 'kafka.Kafka'],
  ])(
    'an owner killed %s leaves neither a JVM nor the broker folder once the watchdog has acted',
    (_phase, mainClass) =>
      withOwner(tmp, owner, async (started, own) => {
        // The first moment a JVM of that class runs on the folder (the broker takes seconds more to serve).
        const server = await jvmStartingIn(own, started, mainClass, 90_000);
        const log = await readFile(join(server.runDir, 'logs', 'server.log'), 'utf8').catch(() => '');
        expect(log).not.toContain('Kafka Server started');
        await expectOwnerKilledLeavesNothing(started, own, server);
      }),
  );

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
      // Let go by its owner (the CLI, gone now), its folder is no longer removed when the owner is gone.
      const { runDir } = JSON.parse(await readFile(join(root, 'cache', 'broker.json'), 'utf8')) as {
        runDir: string;
      };
      expect(existsSync(runDir)).toBe(true);
      expect(await removersOf(runDir)).toEqual([]);

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
