// How dev ends when nobody presses Ctrl-C (its parent gone, npx killed), when stopped while its embedded
// broker starts, or by a signal before --exit-when-idle saw it idle (exit 128 + the signal's number).
// Real process trees, a real broker.
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { devFixture } from '../../../test/support/dev-fixture.ts';
import { testBrokers, testKafka, uniqueName } from '../../../test/support/kafka.ts';
import { watchCli } from '../../../test/support/run-cli.ts';
import { cacheBase, isAlive, packageRoot, waitForExit } from '../../maven-server/index.ts';
import { pollUntil } from '../../replay/wait.ts';

const kafka = testKafka('dev-lifecycle-cli');
const cli = join(packageRoot, 'bin/kafka-lambda.js');

it('dev whose parent is killed (npx killed, dev left with parent pid 1) stops as on Ctrl-C: commits, leaves its group, exits', async () => {
  const { dir, topic, handler } = await devFixture(
    kafka,
    'dev-orphan',
    [0, 1, 2].map((i) => ({ value: `{"i":${i}}` })),
    'handler.mjs',
    "export const handler = async (event) => {\n  for (const records of Object.values(event.records)) for (const r of records) console.log('handled');\n};\n",
  );
  const group = uniqueName('dev-orphan');
  const log = join(dir, 'dev.log');
  // As `npx kafka-lambda dev … > log 2>&1 &`: a parent (npm's place) running dev with its output in a file.
  const parentScript = `const { spawn } = require('node:child_process');
const { openSync } = require('node:fs');
const out = openSync(${JSON.stringify(log)}, 'a');
const dev = spawn(process.execPath, ${JSON.stringify([cli, 'dev', handler, '--topic', topic, '--group', group, '--brokers', testBrokers().join(','), '--window', '0'])}, { cwd: ${JSON.stringify(packageRoot)}, stdio: ['ignore', out, out] });
console.log(dev.pid);
setInterval(() => {}, 1000);`;
  const parent = spawn(process.execPath, ['-e', parentScript], { stdio: ['ignore', 'pipe', 'inherit'] });
  const devPid = await new Promise<number>((resolve, reject) => {
    parent.once('error', reject);
    parent.stdout.once('data', (chunk: Buffer) => resolve(Number.parseInt(chunk.toString(), 10)));
  });
  const output = () => readFile(log, 'utf8').catch(() => '');
  try {
    await pollUntil('dev handled the records', { timeoutMs: 60_000, intervalMs: 100 }, async () => {
      const text = await output();
      return { done: text.split('handled').length - 1 === 3, seen: text.slice(-300) };
    });
    parent.kill('SIGKILL');
    // It notices within about a second, finishes, commits and leaves: well within 20 s.
    expect(await waitForExit(devPid, 20_000)).toBe(true);
    const text = await output();
    expect(text).toMatch(/dev: the process that started it \(pid \d+\) is gone/);
    expect(text).toContain('stopping: finishing in-flight batches');
    expect(text).toContain(`offsets committed by this run: ${topic}-0=3`);
    const admin = kafka.admin();
    await admin.connect();
    try {
      const { groups } = await admin.describeGroups([group]);
      expect(groups[0]).toMatchObject({ groupId: group, state: 'Empty', members: [] });
      expect(await admin.fetchOffsets({ groupId: group, topics: [topic] })).toEqual([
        { topic, partitions: [expect.objectContaining({ partition: 0, offset: '3' })] },
      ]);
    } finally {
      await admin.disconnect();
    }
  } finally {
    parent.kill('SIGKILL');
    if (isAlive(devPid)) process.kill(devPid, 'SIGKILL');
    await rm(dir, { recursive: true, force: true });
  }
}, 120_000);

it('Ctrl-C while dev starts its embedded broker quits at once and leaves no JVM', async () => {
  const work = await mkdtemp(join(tmpdir(), 'kafka-lambda-dev-cancel-'));
  // A private temporary folder (where run folders go) and broker state (no background broker),
  // sharing the resolved jars.
  await mkdir(join(work, 'tmp'));
  await mkdir(join(work, 'cache'));
  await symlink(join(cacheBase(), 'kafka'), join(work, 'cache/kafka'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TMPDIR: join(work, 'tmp'),
    KAFKA_LAMBDA_CACHE: join(work, 'cache'),
  };
  delete env.KAFKA_BROKERS;
  const runFolders = async () =>
    (await readdir(join(work, 'tmp'))).filter((name) => name.startsWith('kafka-lambda-broker-'));
  const dev = spawn(
    process.execPath,
    [cli, 'dev', 'test/support/handlers/handlers.ts', '--topic', 'orders'],
    { cwd: packageRoot, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  for (const stream of [dev.stdout, dev.stderr])
    stream.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
  const exited = new Promise<number | null>((resolve) => dev.once('exit', resolve));
  let jvm: number | undefined;
  try {
    // The state the review found: the folder's marker names the broker's JVM, which is starting.
    await pollUntil(
      'the broker JVM recorded in its run folder',
      { timeoutMs: 60_000, intervalMs: 50 },
      async () => {
        for (const name of await runFolders()) {
          const marker = await readFile(join(work, 'tmp', name, 'kafka-lambda-run.json'), 'utf8').catch(
            () => '',
          );
          const recorded = /"jvm":\s*\{\s*"pid":\s*(\d+)/.exec(marker)?.[1];
          if (recorded) jvm = Number(recorded);
        }
        return { done: jvm !== undefined, seen: output.slice(-300) };
      },
    );
    expect(output).toContain('starting the embedded Apache Kafka broker');
    dev.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(await waitForExit(jvm!, 30_000)).toBe(true);
  } finally {
    dev.kill('SIGKILL');
    if (jvm !== undefined && isAlive(jvm)) process.kill(jvm, 'SIGKILL');
    await rm(work, { recursive: true, force: true });
  }
}, 120_000);

it.each([
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const)(
  'a %s before --exit-when-idle saw the run idle stops it cleanly (no error after the summary, offsets committed), exiting %i: not drained',
  async (signal, code) => {
    // Slow enough that the signal comes while the first batch runs, long before the run is idle.
    const { dir, topic, handler } = await devFixture(
      kafka,
      'dev-idle-signal',
      [0, 1].map((i) => ({ value: `{"i":${i}}` })),
      'slow.mjs',
      "export const handler = async () => {\n  console.log('handling');\n  await new Promise((resolve) => setTimeout(resolve, 2_000));\n};\n",
    );
    const dev = watchCli([
      'dev',
      handler,
      '--topic',
      topic,
      '--brokers',
      testBrokers().join(','),
      '--batch-size',
      '1',
      '--window',
      '0',
      '--exit-when-idle',
    ]);
    dev.child.stdin.end();
    try {
      // The first invocation.
      await dev.seen('handling', 60_000);
      dev.child.kill(signal);
      // The exit status of a process the signal interrupted, as a shell reports it: 0 would read as drained.
      expect(await dev.exited).toEqual([code, null]);
      expect(dev.output()).toContain('stopping: finishing in-flight batches');
      // The summary is the last line: the emulator's refusal to wait for idle once stopping is not an error.
      expect(dev.output().trimEnd().split('\n').at(-1)).toBe(`offsets committed by this run: ${topic}-0=1`);
      expect(dev.output()).not.toContain('will not become idle');
    } finally {
      dev.child.kill('SIGKILL');
      await rm(dir, { recursive: true, force: true });
    }
  },
  120_000,
);
