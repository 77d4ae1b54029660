import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { createTopic, testBrokers, testKafka, uniqueName } from '../../../test/support/kafka.ts';
import { runCli } from '../../../test/support/run-cli.ts';

const kafka = testKafka('dev-sandbox-cli');
const fixtures = 'test/support/handlers/sandbox-handlers.ts';

it('dev runs the handler in the sandbox: cold starts shown, a stuck handler ended and its batch retried', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'kafka-lambda-dev-sandbox-'));
  try {
    const topic = uniqueName('dev-sandbox');
    await createTopic(kafka, topic, 1);
    const producer = kafka.producer();
    await producer.connect();
    const marker = join(dir, 'spun');
    await producer.send({ topic, messages: [0, 1, 2].map(() => ({ value: JSON.stringify({ marker }) })) });
    await producer.disconnect();

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
