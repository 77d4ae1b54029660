import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../test/support/run-cli.ts';
import { isAlive, processIdentity } from '../maven-server/index.ts';

/** A harmless process whose command line looks like a broker JVM of `runDir` (what a careless check would kill). */
function lookalikeJvm(runDir: string): ChildProcess {
  const argv0 = `java -Xmx512m -cp libs/* kafka.Kafka ${join(runDir, 'server.properties')}`;
  return spawn('bash', ['-c', 'exec -a "$0" sleep 120', argv0], { stdio: 'ignore' });
}

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn('true', { stdio: 'ignore' });
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid ?? 0;
}

// Each case runs the real CLI (seconds each on a loaded machine) with a private cache and temporary folder.
describe('kafka-lambda broker stop | status touch only what the tool started and created', {
  timeout: 60_000,
}, () => {
  let root: string;
  let env: Record<string, string>;
  const children: ChildProcess[] = [];
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'kafka-lambda-state-'));
    await mkdir(join(root, 'cache'));
    await mkdir(join(root, 'tmp'));
    env = { KAFKA_LAMBDA_CACHE: join(root, 'cache'), TMPDIR: join(root, 'tmp') };
  });
  afterEach(async () => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
    await rm(root, { recursive: true, force: true });
  });

  const writeState = (record: object) =>
    writeFile(
      join(root, 'cache', 'broker.json'),
      JSON.stringify({
        bootstrapServers: '127.0.0.1:1',
        version: '3.9.2',
        startedAt: new Date().toISOString(),
        ...record,
      }),
    );

  it.each([
    ['a folder elsewhere', (folder: string) => folder],
    [
      'a link named like a run folder, in the temporary folder',
      (_folder: string) => join(root, 'tmp', 'kafka-lambda-broker-link'),
    ],
  ])(
    'a state file naming %s and a look-alike process: nothing deleted, nothing killed, not "stopped"',
    async (_name, runDirOf) => {
      const precious = join(root, 'precious');
      await mkdir(precious);
      await writeFile(join(precious, 'data.txt'), 'keep me');
      await symlink(precious, join(root, 'tmp', 'kafka-lambda-broker-link'));
      const runDir = runDirOf(precious);
      const foreign = lookalikeJvm(runDir);
      children.push(foreign);
      await new Promise((resolve) => foreign.once('spawn', resolve));
      await writeState({ pid: foreign.pid, runDir });

      const status = await runCli(['broker', 'status'], { env });
      expect(status).toMatchObject({ code: 3, stdout: `stopped\ncache ${join(root, 'cache')}\n` });

      const stop = await runCli(['broker', 'stop'], { env });
      expect(stop).toMatchObject({ code: 0, stdout: 'no broker was running\n' });
      expect(stop.stderr).toContain(`left ${runDir} alone`);
      expect(await readFile(join(precious, 'data.txt'), 'utf8')).toBe('keep me');
      expect([foreign.signalCode, isAlive(foreign.pid ?? 0)]).toEqual([null, true]);
      expect(existsSync(join(root, 'cache', 'broker.json'))).toBe(false);
    },
  );

  it('a run folder of its own whose marker names a pid now used by another process: that process lives', async () => {
    const runDir = join(root, 'tmp', 'kafka-lambda-broker-reused');
    await mkdir(runDir);
    const foreign = lookalikeJvm(runDir);
    children.push(foreign);
    await new Promise((resolve) => foreign.once('spawn', resolve));
    // The JVM recorded had this pid but started at another time: the pid was reused since.
    const marker = {
      tool: 'kafka-lambda',
      creator: { pid: await deadPid(), startTime: '1' },
      jvm: { pid: foreign.pid, startTime: '1' },
    };
    await writeFile(join(runDir, 'kafka-lambda-run.json'), JSON.stringify(marker));
    await writeState({ pid: foreign.pid, runDir });

    const stop = await runCli(['broker', 'stop'], { env });
    expect(stop).toMatchObject({ code: 0, stdout: 'no broker was running\n' });
    expect([foreign.signalCode, isAlive(foreign.pid ?? 0)]).toEqual([null, true]);
    // The folder is the tool's own and nothing of it runs: deleted as stale.
    expect(existsSync(runDir)).toBe(false);
  });

  it('deletes run folders whose creator and JVM died (dev killed with SIGKILL), and only those', async () => {
    const tmp = join(root, 'tmp');
    const run = async (name: string, marker?: object) => {
      await mkdir(join(tmp, name));
      await writeFile(join(tmp, name, 'server.properties'), 'node.id=1\n');
      if (marker) await writeFile(join(tmp, name, 'kafka-lambda-run.json'), JSON.stringify(marker));
      return join(tmp, name);
    };
    const dead = { pid: await deadPid(), startTime: '1' };
    const self = { pid: process.pid, startTime: (await processIdentity(process.pid))?.startTime };
    const stale = await run('kafka-lambda-broker-stale', { tool: 'kafka-lambda', creator: dead, jvm: dead });
    const starting = await run('kafka-lambda-broker-starting', { tool: 'kafka-lambda', creator: self });
    const running = await run('kafka-lambda-broker-running', {
      tool: 'kafka-lambda',
      creator: dead,
      jvm: self,
    });
    const unmarked = await run('kafka-lambda-broker-unmarked');
    const otherTool = await run('kafka-lambda-broker-other', { tool: 'other', creator: dead });

    const stop = await runCli(['broker', 'stop'], { env });
    expect(stop).toMatchObject({ code: 0, stdout: 'no broker was running\n' });
    expect(stop.stderr).toContain(`deleted broker data folder ${stale}`);
    expect(existsSync(stale)).toBe(false);
    for (const kept of [starting, running, unmarked, otherTool]) expect(existsSync(kept)).toBe(true);
  });
});
