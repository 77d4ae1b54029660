import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  commandLines,
  expectCrashKeepsFolderWhileOwnerLives,
  expectOwnerKilledLeavesNothing,
  jvmStartingIn,
  leftOf,
  ownRemovers,
  removersOf,
  spawnOwner,
  waitFor,
  withOwner,
} from '../../test/support/run-dir-processes.ts';
import { isAlive, packageRoot } from '../maven-server/index.ts';
import { startElasticMq } from './server.ts';

const MAIN = 'org.elasticmq.server.Main';
const STARTED = /=== ElasticMQ server \(.*\) started in/;

describe("an ElasticMQ server's run folder", () => {
  // A private temporary folder: the run folders these tests create are told apart from any other's.
  const savedTmpdir = process.env.TMPDIR;
  let tmp: string;
  beforeAll(async () => {
    tmp = await mkdtemp(join(tmpdir(), 'kafka-lambda-elasticmq-test-'));
    process.env.TMPDIR = tmp;
  });
  afterAll(async () => {
    if (savedTmpdir === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = savedTmpdir;
    for (const { pid, args } of await commandLines())
      if (args[0]?.endsWith('java') && args.some((arg) => arg.includes(`${tmp}/`)))
        process.kill(pid, 'SIGKILL');
    await rm(tmp, { recursive: true, force: true });
  });

  /** A process that starts ElasticMQ with `own` as its temporary folder, and then waits. */
  function owner(own: string) {
    return spawnOwner(join(packageRoot, 'lib/elasticmq/server.ts'), 'startElasticMq', { TMPDIR: own });
  }

  it.each([
    ['while the server starts', 'starting'],
    ['while the server runs', 'serving'],
  ] as const)('an owner killed with SIGKILL %s leaves neither a JVM nor its folder', (_phase, when) =>
    withOwner(tmp, owner, async (started, own) => {
      const server =
        when === 'starting' ? await jvmStartingIn(own, started, MAIN, 60_000) : await started.served;
      const log = await readFile(join(server.runDir, 'elasticmq.log'), 'utf8').catch(() => '');
      expect(STARTED.test(log)).toBe(when === 'serving');
      await expectOwnerKilledLeavesNothing(started, own, server);
    }),
  );

  it('a JVM that dies by itself keeps its folder while its owner lives; once the owner is killed, the folder goes', () =>
    withOwner(tmp, owner, (started, own) =>
      // The JVM dies on its own (a crash): its log and configuration stay, for whoever looks into it.
      // Its owner killed: nothing of the server is left.
      expectCrashKeepsFolderWhileOwnerLives(started, own, async (runDir) => {
        expect(STARTED.test(await readFile(join(runDir, 'elasticmq.log'), 'utf8'))).toBe(true);
        expect(existsSync(join(runDir, 'elasticmq.conf'))).toBe(true);
      }),
    ));

  it('a stop keeps nothing; a detached server keeps its folder, with nothing waiting to delete it', async () => {
    const sqs = await startElasticMq();
    expect(await removersOf(sqs.runDir)).toHaveLength(1);
    await sqs.stop();
    expect(isAlive(sqs.pid)).toBe(false);
    // Neither the folder, nor the JVM's watchdog, nor what would have removed the folder.
    expect(await leftOf(sqs.runDir, 10_000)).toEqual({ folder: false, processes: [] });
    expect(await ownRemovers()).toEqual([]);

    const detached = await startElasticMq();
    try {
      await detached.detach();
      await waitFor('no folder remover left', 10_000, async () =>
        (await removersOf(detached.runDir)).length === 0 ? true : undefined,
      );
      expect([isAlive(detached.pid), existsSync(detached.runDir)]).toEqual([true, true]);
    } finally {
      await detached.stop();
    }
    expect(await leftOf(detached.runDir, 10_000)).toEqual({ folder: false, processes: [] });
  });
});
