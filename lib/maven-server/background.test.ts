import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BackgroundServer, type LaunchedServer, type ServerRecord, startJvmInRunDir } from './background.ts';
import { isAlive, processOutput, waitForExit } from './process.ts';
import { createRunDir, type RunDirKind } from './run-dir.ts';

interface FakeRecord extends ServerRecord {
  name: string;
}

const runDirs: RunDirKind = { prefix: 'kafka-lambda-fake-', jvmArgument: (path) => `fake.Main ${path}` };

// A private cache, temporary folder and `java`: a shell script that becomes a sleeping process whose
// command line reads like the server JVM's, so the real watchdog, markers and signals are exercised.
describe('BackgroundServer', { timeout: 60_000 }, () => {
  const names = ['PATH', 'TMPDIR', 'KAFKA_LAMBDA_CACHE'] as const;
  const saved = Object.fromEntries(names.map((name) => [name, process.env[name]]));
  let root: string;
  let serving: boolean;
  const pids: number[] = [];
  const children: ChildProcess[] = [];
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'kafka-lambda-background-'));
    await Promise.all(['bin', 'tmp', 'cache'].map((name) => mkdir(join(root, name))));
    await writeFile(join(root, 'bin', 'java'), '#!/bin/bash\nexec -a "java $*" sleep 120\n');
    await chmod(join(root, 'bin', 'java'), 0o755);
    process.env.PATH = `${join(root, 'bin')}:${saved.PATH}`;
    process.env.TMPDIR = join(root, 'tmp');
    process.env.KAFKA_LAMBDA_CACHE = join(root, 'cache');
    serving = true;
  });
  afterEach(async () => {
    for (const pid of pids.splice(0)) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    for (const child of children.splice(0)) child.kill('SIGKILL');
    for (const name of names) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
    await rm(root, { recursive: true, force: true });
  });

  const server = () =>
    new BackgroundServer<FakeRecord>({
      stateFileName: 'fake.json',
      runDirs,
      hasFields: (record) => typeof record.name === 'string',
      isServing: async () => serving,
    });

  async function launch(): Promise<LaunchedServer<FakeRecord>> {
    const run = await createRunDir(runDirs);
    const jvm = await startJvmInRunDir(run, [runDirs.jvmArgument(run.path)], join(run.path, 'log'));
    pids.push(jvm.pid);
    return { record: { name: 'fake', pid: jvm.pid, runDir: run.path }, stop: jvm.stop, detach: jvm.detach };
  }

  it('starts, records, reports and stops one server; a second start returns the first', async () => {
    const fake = server();
    const { server: record, alreadyRunning } = await fake.start(launch);
    expect(alreadyRunning).toBe(false);
    expect(JSON.parse(await readFile(join(root, 'cache', 'fake.json'), 'utf8'))).toEqual(record);
    expect(isAlive(record.pid)).toBe(true);
    expect(await fake.status()).toEqual({ state: 'running', server: record });
    expect(await fake.start(launch)).toEqual({ server: record, alreadyRunning: true });

    const result = await fake.stop(5_000);
    expect(result).toEqual({ stopped: record, leftAlone: undefined, removedStale: [record.runDir] });
    expect(await waitForExit(record.pid, 5_000)).toBe(true);
    expect(existsSync(join(root, 'cache', 'fake.json'))).toBe(false);
    expect(await fake.status()).toEqual({ state: 'stopped' });
  });

  it('two starts at once launch one server between them: the second waits and returns the first', async () => {
    const fake = server();
    let launches = 0;
    const slowLaunch = async () => {
      launches++;
      // Long enough for the second start to find no server recorded yet.
      await new Promise((resolve) => setTimeout(resolve, 500));
      return launch();
    };
    const [a, b] = await Promise.all([fake.start(slowLaunch), fake.start(slowLaunch)]);
    expect(launches).toBe(1);
    expect(a.server).toEqual(b.server);
    expect([a.alreadyRunning, b.alreadyRunning].sort()).toEqual([false, true]);
    expect(existsSync(join(root, 'cache', 'fake.json.lock'))).toBe(false);
    await fake.stop(5_000);
  });

  it('two CLI-like processes starting at once leave one JVM, recorded, which stop stops', async () => {
    // Each child runs the real BackgroundServer on the same cache and temporary folder.
    const background = fileURLToPath(new URL('./background.ts', import.meta.url));
    const runDirModule = fileURLToPath(new URL('./run-dir.ts', import.meta.url));
    const script = `
      const { BackgroundServer, startJvmInRunDir } = await import(${JSON.stringify(background)});
      const { createRunDir } = await import(${JSON.stringify(runDirModule)});
      const runDirs = { prefix: 'kafka-lambda-fake-', jvmArgument: (path) => 'fake.Main ' + path };
      const fake = new BackgroundServer({ stateFileName: 'fake.json', runDirs, hasFields: () => true, isServing: async () => true });
      const result = await fake.start(async () => {
        await new Promise((resolve) => setTimeout(resolve, 500));
        const run = await createRunDir(runDirs);
        const jvm = await startJvmInRunDir(run, [runDirs.jvmArgument(run.path)], run.path + '/log');
        return { record: { name: 'fake', pid: jvm.pid, runDir: run.path }, stop: jvm.stop, detach: jvm.detach };
      }, { onWaiting: (pid) => console.error('waiting for ' + pid) });
      console.log(JSON.stringify(result));
    `;
    const runs = await Promise.all(
      [1, 2].map(() => {
        const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
          env: process.env,
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        children.push(child);
        return processOutput(child);
      }),
    );
    const results = runs.map((run) => {
      expect(run).toMatchObject({ code: 0 });
      return JSON.parse(run.stdout) as { server: FakeRecord; alreadyRunning: boolean };
    });
    for (const result of results) pids.push(result.server.pid);
    expect(results[0]!.server).toEqual(results[1]!.server);
    expect(results.map((r) => r.alreadyRunning).sort()).toEqual([false, true]);
    expect(runs.map((r) => r.stderr).join('')).toMatch(/^waiting for \d+\n$/);
    const jvms = async () =>
      (
        await processOutput(
          spawn('pgrep', ['-f', `^java fake.Main ${join(root, 'tmp')}`], {
            stdio: ['ignore', 'pipe', 'pipe'],
          }),
        )
      ).stdout
        .split('\n')
        .filter(Boolean)
        .map(Number);
    expect(await jvms()).toEqual([results[0]!.server.pid]);

    const fake = server();
    expect((await fake.stop(5_000)).stopped).toEqual(results[0]!.server);
    expect(await waitForExit(results[0]!.server.pid, 5_000)).toBe(true);
    expect(await jvms()).toEqual([]);
  });

  it('replaces a recorded server that runs but does not serve', async () => {
    const fake = server();
    const first = (await fake.start(launch)).server;
    serving = false;
    expect(await fake.status()).toEqual({ state: 'not-serving', server: first });
    const second = await fake.start(launch);
    expect(second.alreadyRunning).toBe(false);
    expect(second.server.pid).not.toBe(first.pid);
    expect(await waitForExit(first.pid, 5_000)).toBe(true);
    await fake.stop(5_000);
  });

  it('a server it could not record is stopped, its run folder deleted, and the error kept', async () => {
    // The state file's name is taken by a folder: it cannot be written.
    await mkdir(join(root, 'cache', 'fake.json'));
    let launched: FakeRecord | undefined;
    const attempt = server().start(async () => {
      const server = await launch();
      launched = { ...server.record, startedAt: '' };
      return server;
    });
    await expect(attempt).rejects.toMatchObject({ code: 'EISDIR' });
    expect(await waitForExit(launched?.pid ?? 0, 5_000)).toBe(true);
    expect(existsSync(launched?.runDir ?? '')).toBe(false);
  });

  it('a state file naming a look-alike process that it did not start: not running, not signalled, folder left alone', async () => {
    const precious = join(root, 'tmp', `${runDirs.prefix}precious`);
    await mkdir(precious);
    const lookalike = spawn(
      'bash',
      ['-c', 'exec -a "$0" sleep 120', `java ${runDirs.jvmArgument(precious)}`],
      {
        stdio: 'ignore',
      },
    );
    children.push(lookalike);
    await new Promise((resolve) => lookalike.once('spawn', resolve));
    const record = {
      name: 'fake',
      pid: lookalike.pid,
      runDir: precious,
      startedAt: new Date().toISOString(),
    };
    await writeFile(join(root, 'cache', 'fake.json'), JSON.stringify(record));

    const fake = server();
    expect(await fake.status()).toEqual({ state: 'stopped' });
    expect(await fake.stop(5_000)).toEqual({ stopped: undefined, leftAlone: precious, removedStale: [] });
    expect([lookalike.signalCode, isAlive(lookalike.pid ?? 0)]).toEqual([null, true]);
    expect(existsSync(precious)).toBe(true);
  });
});
