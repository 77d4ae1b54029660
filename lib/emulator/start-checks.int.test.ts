import { describe, expect, it } from 'vitest';
import {
  partialResponseMapping as mapping,
  produceSequence,
  seededTopic,
} from '../../test/support/emulator.ts';
import { createTopic, testBrokers, testKafka, uniqueName } from '../../test/support/kafka.ts';
import { testProducer } from '../../test/support/producer.ts';
import { ensureTopics } from '../broker/index.ts';
import { HandlerInitError, HandlerNotFoundError } from '../lambda-runtime/load-handler.ts';
import { FunctionLoadError, InvalidMappingSettingError, type MappingEvent } from './index.ts';

const kafka = testKafka('emulator-start-checks');
const handlers = 'test/support/handlers';

/** What the group left in the cluster: its state, members and committed offsets. */
async function groupTrace(group: string, topic: string) {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const { groups } = await admin.describeGroups([group]);
    // Every topic the group has offsets for: naming the topic would fail when it does not exist.
    const offsets = (await admin.fetchOffsets({ groupId: group })).find((t) => t.topic === topic);
    return {
      state: groups[0]?.state,
      members: groups[0]?.members.length,
      committed: offsets?.partitions.filter((p) => p.offset !== '-1') ?? [],
    };
  } finally {
    await admin.disconnect();
  }
}

const untouched = { state: 'Dead', members: 0, committed: [] };

/** What `start()` of the mapping rejected with; undefined when it started. */
function startError(esm: { start(): Promise<void> }): Promise<unknown> {
  return esm.start().then(
    () => undefined,
    (caught: unknown) => caught,
  );
}

/**
 * `start()` of a mapping of `options` refuses it at once (within `withinMs`) with an
 * InvalidMappingSettingError of `setting` whose message matches `message`, and before anything is
 * invoked, joined or committed. The check creates no topic, although the test broker creates topics on
 * demand: `missing` still does not exist after it.
 */
async function expectRefusedForMissingTopic(
  options: Parameters<typeof mapping>[0] & { consumerGroupId: string },
  refusal: { setting: string; message: RegExp; withinMs: number; missing: string; invocations: () => number },
): Promise<void> {
  const started = Date.now();
  const error = await startError(mapping(options));
  expect(error).toBeInstanceOf(InvalidMappingSettingError);
  expect(error).toMatchObject({ setting: refusal.setting });
  expect((error as Error).message).toMatch(refusal.message);
  expect(Date.now() - started).toBeLessThan(refusal.withinMs);
  expect(refusal.invocations()).toBe(0);
  expect(await groupTrace(options.consumerGroupId, options.topic)).toEqual(untouched);
  const admin = kafka.admin();
  await admin.connect();
  expect(await admin.listTopics()).not.toContain(refusal.missing);
  await admin.disconnect();
}

describe('start() checks the source topic exists', () => {
  it('rejects a missing topic, naming topic and the topic, at once and before anything is read, committed or created', async () => {
    const topic = uniqueName('missing-source');
    const group = uniqueName('missing-source-group');
    let invocations = 0;
    const options = {
      topic,
      consumerGroupId: group,
      function: {
        handler: async () => {
          invocations++;
        },
      },
    };
    await expectRefusedForMissingTopic(options, {
      setting: 'topic',
      message: new RegExp(
        `^topic: the topic ${topic} does not exist on ${testBrokers().join(',').replace(/\./g, '\\.')}: create it first \\(.*ensureTopics from kafka-lambda/broker\\)`,
      ),
      // Said at once: before, the admin client's retries took about 10 s to end in kafkajs's own message.
      withinMs: 5_000,
      missing: topic,
      invocations: () => invocations,
    });

    // Created as the message says, the same mapping runs and reads what is produced to it.
    await ensureTopics({ brokers: testBrokers(), topics: [{ topic, partitions: 1 }] });
    await produceSequence(kafka, topic, 1, 2);
    const esm = mapping(options);
    await esm.start();
    await esm.idle();
    await esm.stop();
    expect(invocations).toBe(1);
    expect(esm.stats()).toMatchObject({ recordsCommitted: 2 });
  });
});

describe('start() checks a kafka:// on-failure destination exists', () => {
  it('rejects a missing destination topic, naming onFailure and the topic, before anything is read or committed', async () => {
    const { topic, group } = await seededTopic(kafka, 'missing-dlq', 2, 3);
    const dlq = uniqueName('orders-dlq');
    let invocations = 0;
    const options = {
      topic,
      consumerGroupId: group,
      maximumRetryAttempts: 0,
      onFailure: `kafka://${dlq}`,
      function: {
        handler: async () => {
          invocations++;
          throw new Error('always fails');
        },
      },
    };
    await expectRefusedForMissingTopic(options, {
      setting: 'onFailure',
      message: new RegExp(
        `^onFailure: the destination topic ${dlq} does not exist on .*: create it first \\(.*ensureTopics from kafka-lambda/broker\\)`,
      ),
      // Said at once, where the destination producer took about 30 s of retries per failed record.
      withinMs: 10_000,
      missing: dlq,
      invocations: () => invocations,
    });

    // Created as the message says, the same mapping runs and delivers the failed records there.
    await ensureTopics({ brokers: testBrokers(), topics: [{ topic: dlq, partitions: 1 }] });
    const esm = mapping(options);
    await esm.start();
    await esm.idle();
    await esm.stop();
    expect(esm.stats()).toMatchObject({ destinationRecords: 6, droppedRecords: 0, recordsCommitted: 6 });
  });
});

describe('start() checks the function module loads', () => {
  it.each([
    [false, 'test/support/handlers/handlr.ts', 'Runtime.ImportModuleError', HandlerNotFoundError],
    [true, 'test/support/handlers/handlr.ts', 'Runtime.ImportModuleError', HandlerNotFoundError],
    [false, `${handlers}/sandbox-handlers.ts#nope`, 'Runtime.HandlerNotFound', HandlerNotFoundError],
    [true, `${handlers}/sandbox-handlers.ts#nope`, 'Runtime.HandlerNotFound', HandlerNotFoundError],
    [false, `${handlers}/init-throws.ts`, 'Error', HandlerInitError],
    [true, `${handlers}/init-throws.ts`, 'Error', HandlerInitError],
    // An init phase that never ends is given Lambda's 10 s, in the sandbox and in this process alike.
    [false, `${handlers}/init-never-settles.ts`, 'Sandbox.Timedout', HandlerInitError],
    [true, `${handlers}/init-never-settles.ts`, 'Sandbox.Timedout', HandlerInitError],
  ])(
    '(inProcess: %s) rejects %s with FunctionLoadError (%s) before joining the group',
    async (inProcess, handler, errorType, causeType) => {
      const { topic, group } = await seededTopic(kafka, 'bad-module', 1, 2);
      const events: MappingEvent[] = [];
      const esm = mapping({
        topic,
        consumerGroupId: group,
        onEvent: (event) => events.push(event),
        function: { handler, inProcess },
      });
      const error = await startError(esm);
      expect(error).toBeInstanceOf(FunctionLoadError);
      expect(error).toMatchObject({ handler, errorType });
      expect((error as Error).cause).toBeInstanceOf(causeType);
      expect((error as Error).message).toMatch(
        new RegExp(`^function\\.handler ${handler.replace(/[.#]/g, '\\$&')} does not load: ${errorType}: `),
      );
      if (errorType === 'Runtime.ImportModuleError') {
        // A relative path is resolved from the working directory, which the message names.
        expect((error as Error).message).toContain('Cannot find module test/support/handlers/handlr.ts');
        expect((error as Error).message).toContain(`resolved from the working directory, ${process.cwd()}`);
      }
      if (errorType === 'Error') expect((error as Error).message).toContain('ORDERS_TABLE is not set');
      expect(events.filter((event) => event.type === 'invoke')).toEqual([]);
      expect(await groupTrace(group, topic)).toEqual(untouched);
    },
  );

  it('checkModule: false leaves it to the invocations, as Lambda does: each fails with Runtime.ImportModuleError', async () => {
    const { topic, group } = await seededTopic(kafka, 'unchecked-module', 1, 2);
    const events: MappingEvent[] = [];
    const esm = mapping({
      topic,
      consumerGroupId: group,
      maximumRetryAttempts: 0,
      checkModule: false,
      onEvent: (event) => events.push(event),
      function: { handler: `${handlers}/handlr.ts` },
    });
    await esm.start();
    await esm.idle();
    await esm.stop();
    expect(events.filter((event) => event.type === 'invoke').map((event) => event.detail)).toEqual([
      'Runtime.ImportModuleError',
    ]);
    expect(esm.stats()).toMatchObject({ droppedRecords: 2, recordsCommitted: 2 });
  });

  it('a module that loads starts as before, and its first invocation is still a cold start', async () => {
    const { topic, group } = await seededTopic(kafka, 'good-module', 1, 3);
    const inits: number[] = [];
    const esm = mapping({
      topic,
      consumerGroupId: group,
      function: {
        handler: `${handlers}/sandbox-handlers.ts#counts`,
        onSandboxEvent: (event) => {
          if (event.type === 'init') inits.push(event.environment);
        },
      },
    });
    await esm.start();
    await esm.idle();
    await esm.stop();
    // The check's own environment is not the function's: environment 1 is the first invocation's.
    expect(inits).toEqual([1]);
    expect(esm.stats()).toMatchObject({ invocations: 1, recordsCommitted: 3 });
  });
});

describe('stats().partitions', () => {
  const produce = async (topic: string, partition: number, count: number) => {
    const producer = testProducer(kafka);
    await producer.connect();
    await producer.send({
      topic,
      messages: Array.from({ length: count }, () => ({ partition, value: '{}' })),
    });
    await producer.disconnect();
  };
  const progress = (stats: { partitions: Array<{ highWatermark?: number; lag?: number }> }) =>
    stats.partitions.map(({ highWatermark, lag }) => ({ highWatermark, lag }));

  it('knows the high watermark and lag of every assigned partition, those that never had a record too', async () => {
    const topic = uniqueName('idle-partitions');
    const group = uniqueName('idle-partitions-group');
    await createTopic(kafka, topic, 3);
    await produce(topic, 0, 4);
    const options = { topic, consumerGroupId: group, function: { handler: async () => {} } };

    const first = mapping(options);
    await first.start();
    // Partitions 1 and 2 hold nothing: nothing is ever fetched from them.
    expect(progress(first.stats()).slice(1)).toEqual([
      { highWatermark: 0, lag: 0 },
      { highWatermark: 0, lag: 0 },
    ]);
    await first.idle();
    await first.stop();
    expect(first.stats().partitions.every((p) => p.lag === 0)).toBe(true);
    expect(first.stats().partitions.map((p) => p.highWatermark)).toEqual([4, 0, 0]);

    // The group is done with every partition: idle from the start, with nothing committed by this run.
    const second = mapping(options);
    await second.start();
    try {
      expect(second.stats().partitions).toEqual([
        { partition: 0, committed: undefined, highWatermark: 4, lag: 0 },
        { partition: 1, committed: undefined, highWatermark: 0, lag: 0 },
        { partition: 2, committed: undefined, highWatermark: 0, lag: 0 },
      ]);
      // Kept current by the fetches and commits: records produced now show up, then are done.
      await produce(topic, 2, 2);
      await expect.poll(() => second.stats().recordsCommitted, { timeout: 30_000 }).toBe(2);
      expect(second.stats().partitions[2]).toEqual({
        partition: 2,
        committed: 2,
        highWatermark: 2,
        lag: 0,
      });
    } finally {
      await second.stop();
    }

    // A new group reading from LATEST starts at the log ends: nothing to do, lag 0.
    const latest = mapping({ ...options, consumerGroupId: uniqueName('latest'), startingPosition: 'LATEST' });
    await latest.start();
    await latest.stop();
    expect(progress(latest.stats())).toEqual([
      { highWatermark: 4, lag: 0 },
      { highWatermark: 0, lag: 0 },
      { highWatermark: 2, lag: 0 },
    ]);
  });

  it('a partition handed back after another member moved it on is looked up again, not reported as it was', async () => {
    const topic = uniqueName('handed-back');
    const group = uniqueName('handed-back-group');
    await createTopic(kafka, topic, 2);
    const member = (clientId: string) =>
      mapping({ topic, consumerGroupId: group, kafka: { clientId }, function: { handler: async () => {} } });
    const a = member('a-esm');
    await a.start();
    const b = member('b-esm');
    try {
      await b.start();
      // The group's two members have a partition each: b's is moved on while b has it.
      const moved = b.stats().partitions.map((p) => p.partition);
      expect(moved).toHaveLength(1);
      await produce(topic, moved[0]!, 3);
      await expect.poll(() => b.stats().recordsCommitted, { timeout: 30_000 }).toBe(3);
      await b.stop();
      // a gets it back at its next heartbeat; nothing is fetched from it (b committed it all).
      await expect
        .poll(() => a.stats().partitions.find((p) => p.partition === moved[0]), { timeout: 30_000 })
        .toEqual({ partition: moved[0], committed: undefined, highWatermark: 3, lag: 0 });
    } finally {
      await b.stop();
      await a.stop();
    }
  });
});
