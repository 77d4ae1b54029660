import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, it } from 'vitest';
import { devFixture } from '../../../test/support/dev-fixture.ts';
import {
  createTopic,
  createTopicWith,
  testBrokers,
  testKafka,
  uniqueName,
} from '../../../test/support/kafka.ts';
import { testProducer } from '../../../test/support/producer.ts';
import { runCli, watchCli } from '../../../test/support/run-cli.ts';

const kafka = testKafka('dev-sandbox-cli');
const fixtures = 'test/support/handlers/sandbox-handlers.ts';

it('dev runs the handler in the sandbox: cold starts shown, a stuck handler ended and its batch retried', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'kafka-lambda-dev-sandbox-'));
  try {
    const topic = uniqueName('dev-sandbox');
    const marker = join(dir, 'spun');
    await createTopicWith(
      kafka,
      topic,
      [0, 1, 2].map(() => ({ value: JSON.stringify({ marker }) })),
    );

    const run = await runCli([
      'dev',
      `${fixtures}#spinsOnce`,
      '--topic',
      topic,
      '--brokers',
      testBrokers().join(','),
      '--timeout',
      '1',
      '--window',
      '0',
      '--exit-when-idle',
    ]);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/cold start: environment 1, init [\d.]+ ms/);
    expect(run.stderr).toContain('environment 1 ended: Sandbox.Timedout');
    expect(run.stderr).toMatch(/cold start: environment 2, init [\d.]+ ms/);
    expect(run.stderr).toContain(`offsets committed by this run: ${topic}-0=3`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

it.each([
  [
    `${fixtures}#nope`,
    'kafka-lambda dev: test/support/handlers/sandbox-handlers.ts#nope is undefined or not exported',
  ],
  // Lambda would fail every invocation in its init phase: said before any record is read.
  ['test/support/handlers/init-throws.ts', 'kafka-lambda dev: Error: ORDERS_TABLE is not set'],
])(
  'dev refuses %s, a handler that cannot load, before reading any record (exit 2)',
  async (reference, message) => {
    const run = await runCli(['dev', reference, '--topic', 'unused', '--brokers', testBrokers().join(',')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
  },
);

it('dev --watch: after a change to a file the function loaded, its next invocations run the new code in new environments', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'kafka-lambda-dev-watch-'));
  const topic = uniqueName('dev-watch');
  await createTopic(kafka, topic, 1);
  const producer = testProducer(kafka);
  await producer.connect();
  const handler = join(dir, 'handler.ts');
  const version = join(dir, 'version.ts');
  await writeFile(version, 'export const version = 1;\n');
  await writeFile(
    handler,
    "import { version } from './version.ts';\nexport const handler = async () => {\n  console.log('handled by version', version);\n};\n",
  );
  const dev = watchCli([
    'dev',
    handler,
    '--topic',
    topic,
    '--brokers',
    testBrokers().join(','),
    '--window',
    '0',
    '--watch',
  ]);
  const { seen } = dev;
  try {
    await seen("dev: --watch: watching the 2 file(s) the function's init phase loaded");
    await producer.send({ topic, messages: [{ value: '{}' }] });
    await seen('handled by version 1');
    await writeFile(version, 'export const version = 2;\n');
    await seen('version.ts: the next invocations start new environments (cold starts)');
    await producer.send({ topic, messages: [{ value: '{}' }] });
    await seen('handled by version 2');
    expect(dev.output()).toMatch(/cold start: environment 2, init [\d.]+ ms/);
    expect(dev.output()).not.toContain('ended: update');
  } finally {
    dev.child.kill('SIGINT');
    await dev.exited;
    await producer.disconnect();
    await rm(dir, { recursive: true, force: true });
  }
  expect(dev.child.exitCode).toBe(0);
});

it.each([
  ['--in-process', 'a module imported in this process (--in-process) cannot be loaded again'],
  ['--invoke', 'a function called with --invoke is deployed'],
])('dev --watch %s is refused (exit 2): there is nothing it could reload', async (flag, message) => {
  const args = flag === '--invoke' ? ['--invoke', 'orders'] : [`${fixtures}#counts`, '--in-process'];
  const run = await runCli([
    'dev',
    ...args,
    '--watch',
    '--topic',
    'unused',
    '--brokers',
    testBrokers().join(','),
  ]);
  expect(run.code).toBe(2);
  expect(run.stderr).toContain(message);
});

it.each([
  ['SIGINT', 130],
  ['SIGTERM', 143],
  ['SIGHUP', 129],
] as const)(
  'a second %s ends the invocation in flight and exits %i at once, committing nothing (redelivered, as after a crash)',
  async (signal, code) => {
    const { dir, topic, handler } = await devFixture(
      kafka,
      'dev-abandon',
      [{ value: '{}' }],
      'hangs.ts',
      "export const handler = async () => {\n  console.log('handling');\n  await new Promise((resolve) => setTimeout(resolve, 600_000));\n};\n",
    );
    const group = uniqueName('dev-abandon');
    const dev = watchCli([
      'dev',
      handler,
      '--topic',
      topic,
      '--group',
      group,
      '--brokers',
      testBrokers().join(','),
      '--window',
      '0',
      '--timeout',
      '600',
    ]);
    const { seen } = dev;
    try {
      await seen('handling');
      dev.child.kill(signal);
      await seen('stopping: finishing in-flight batches (Ctrl-C again to abandon them)');
      const second = Date.now();
      dev.child.kill(signal);
      expect(await dev.exited).toEqual([code, null]);
      expect(Date.now() - second).toBeLessThan(10_000);
      expect(dev.output()).toContain(
        'abandoning in-flight batches: their invocations end, nothing more is committed',
      );
      expect(dev.output()).toContain(`offsets committed by this run: ${topic}-0=-`);
      // dev ended the environment: the function did not exit (no Runtime.ExitError of its own).
      expect(dev.output()).toContain('environment 1 ended: its invocation was abandoned');
      expect(dev.output()).not.toContain('Runtime.ExitError');
      const admin = kafka.admin();
      await admin.connect();
      try {
        expect(await admin.fetchOffsets({ groupId: group, topics: [topic] })).toEqual([
          { topic, partitions: [expect.objectContaining({ partition: 0, offset: '-1' })] },
        ]);
      } finally {
        await admin.disconnect();
      }
    } finally {
      dev.child.kill('SIGKILL');
      await rm(dir, { recursive: true, force: true });
    }
  },
);

it.each([
  ['in the sandbox', []],
  ['--in-process', ['--in-process']],
])(
  "dev shows a failed invocation's stack trace under its line, once per invocation, its first frame in the handler (%s)",
  async (_mode, flags) => {
    const { dir, topic, handler } = await devFixture(
      kafka,
      'dev-trace',
      [{ value: JSON.stringify({ card: '4111-1111' }) }],
      'rejects.ts',
      "export const handler = async () => {\n  throw new RangeError('amount out of range');\n};\n",
    );
    try {
      const run = await runCli([
        'dev',
        handler,
        ...flags,
        '--topic',
        topic,
        '--brokers',
        testBrokers().join(','),
        '--retries',
        '1',
        '--window',
        '0',
        '--exit-when-idle',
      ]);
      expect(run.code).toBe(0);
      const frame = `    at handler (${pathToFileURL(handler).href}:2:9)`;
      for (const attempt of [1, 2])
        expect(run.stderr).toContain(
          `function-error: RangeError: amount out of range (attempt ${attempt}; ${topic}-0@0)\n${frame}\n`,
        );
      expect(run.stderr.split(frame)).toHaveLength(3);
      // The trace's header repeats the message: not printed again. Nor is the event.
      expect(run.stderr).not.toContain('RangeError: amount out of range\n');
      expect(run.stderr).not.toContain('4111');
      expect(run.stderr).toContain(`${topic}-0@0 dropped: no on-failure destination is configured`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
);
