import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { partialResponseMapping as mapping, seededTopic } from '../../test/support/emulator.ts';
import { committedOffsetsByKafkaTool, testKafka } from '../../test/support/kafka.ts';
import type { SandboxEvent } from '../lambda-runtime/sandbox.ts';
import type { MappingEvent } from './index.ts';

const kafka = testKafka('emulator-sandbox');
const fixtures = 'test/support/handlers/sandbox-handlers.ts';
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kafka-lambda-sandbox-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

it.each([
  ['spinsOnce', 'Sandbox.Timedout'],
  ['exitsOnce', 'Runtime.ExitError'],
])(
  'a handler module that %s is ended (%s), the batch retried in a fresh environment, and everything committed',
  async (name, errorType) => {
    const marker = join(dir, name);
    const { topic, group } = await seededTopic(kafka, `sandbox-${name}`, 1, 5, () => ({ marker }));
    const events: MappingEvent[] = [];
    const lifecycle: SandboxEvent[] = [];
    const esm = mapping({
      topic,
      consumerGroupId: group,
      maximumRetryAttempts: 2,
      onEvent: (event) => events.push(event),
      function: {
        handler: `${fixtures}#${name}`,
        timeoutSeconds: 1,
        onSandboxEvent: (event) => lifecycle.push(event),
      },
    });
    await esm.start();
    await esm.idle();
    await esm.stop();

    const invocations = events.filter((e) => e.type === 'invoke');
    expect(invocations.map((e) => [e.offsets, e.outcome, e.detail])).toEqual([
      [{ [`${topic}-0`]: [0, 4] }, 'function-error', errorType],
      [{ [`${topic}-0`]: [0, 4] }, 'success', undefined],
    ]);
    expect(events).toContainEqual(expect.objectContaining({ type: 'retry', reason: 'function-error' }));
    // The first environment ended; the retry started a second one (a cold start).
    expect(lifecycle.filter((e) => e.type !== 'init' || e.status === 'success')).toEqual([
      expect.objectContaining({ type: 'init', environment: 1 }),
      { type: 'shutdown', environment: 1, reason: errorType },
      expect.objectContaining({ type: 'init', environment: 2 }),
      { type: 'shutdown', environment: 2, reason: 'close' },
    ]);
    expect(await committedOffsetsByKafkaTool(group)).toEqual([
      { topic, partition: 0, currentOffset: 5, logEndOffset: 5 },
    ]);
  },
);
