import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectReplayKafka, type ReplayKafka } from '../../lib/replay/index.ts';
import { type EsmModelOptions, modelEventSourceMapping } from '../../test/support/esm-model.ts';
import { committedOffsetsByKafkaTool, testBrokers, testKafka, uniqueName } from '../../test/support/kafka.ts';
import { seedTopic } from '../../test/support/seed-topic.ts';
import type { ReplayFunctionConfig } from './config.ts';
import { createReplayHandler } from './handler.ts';

let kafka: ReplayKafka;
const topic = uniqueName('replay-fn');
const groupId = uniqueName('replay-fn-group');
const otherGroup = uniqueName('replay-fn-other');

beforeAll(async () => {
  await seedTopic(testKafka(), { topic, partitions: 2, records: 10 });
  kafka = await connectReplayKafka({ brokers: testBrokers() });
});
afterAll(async () => {
  await kafka?.disconnect();
});

async function commit(group: string, offsets: number[]) {
  await kafka.commitOffsets({
    groupId: group,
    topic,
    offsets: offsets.map((offset, partition) => ({ partition, offset, metadata: '' })),
  });
}

function setup(
  overrides: Partial<ReplayFunctionConfig> = {},
  state = 'Enabled',
  mapping: Partial<EsmModelOptions> = {},
) {
  const model = modelEventSourceMapping({
    uuid: 'esm-1',
    topic,
    groupId,
    state,
    transitionPolls: 2,
    ...mapping,
  });
  const config: ReplayFunctionConfig = {
    mappings: ['esm-1'],
    groups: [],
    topics: [topic],
    timeouts: { pollIntervalMs: 10, mappingMs: 2_000, groupMs: 5_000, restoreMs: 2_000 },
    connection: async () => ({ brokers: testBrokers() }),
    ...overrides,
  };
  const logs: Record<string, unknown>[] = [];
  return {
    model,
    logs,
    handle: createReplayHandler({ config, lambda: model.lambda, log: (line) => logs.push(line) }),
  };
}

const current = async (group: string) =>
  (await committedOffsetsByKafkaTool(group)).map((r) => r.currentOffset);
const context = { getRemainingTimeInMillis: () => 600_000 };

describe('the replay function', () => {
  it('plans by default (dry run): the mapping’s group, nothing changed', async () => {
    await commit(groupId, [7, 8]);
    const { model, handle } = setup();
    const result = await handle({ toEarliest: true }, context);
    expect(result).toMatchObject({
      ok: true,
      executed: false,
      groupId,
      topic,
      mapping: { uuid: 'esm-1', stateBefore: 'Enabled', stateAfter: 'Enabled' },
    });
    if (!result.ok) throw new Error('expected a plan');
    expect(result.plan.partitions.map((p) => [p.committed, p.target, p.redeliver])).toEqual([
      [7, 0, 7],
      [8, 0, 8],
    ]);
    expect(model.updates).toEqual([]);
    expect(await current(groupId)).toEqual([7, 8]);
  });

  it('execute: true applies it through the mapping', async () => {
    await commit(groupId, [7, 8]);
    const { model, logs, handle } = setup();
    const result = await handle({ shiftBy: -3, partitions: [1], execute: true, reason: 'INC-9' }, context);
    expect(logs.map((l) => l.replay)).toEqual(
      expect.arrayContaining(['disable-mapping', 'commit-offsets', 'done']),
    );
    expect(result).toMatchObject({ ok: true, executed: true });
    if (!result.ok) throw new Error('expected success');
    expect(result.steps?.map((s) => s.step)).toContain('commit-offsets');
    expect(model.history).toEqual(['Enabled', 'Disabling', 'Disabled', 'Enabling', 'Enabled']);
    expect(await current(groupId)).toEqual([7, 5]);
  });

  it('a group without a mapping, when the group and topic are allowed', async () => {
    await commit(otherGroup, [9, 9]);
    const { handle } = setup({ groups: [otherGroup] });
    const result = await handle({ group: otherGroup, topic, toOffset: 4, execute: true }, context);
    expect(result).toMatchObject({ ok: true, executed: true, mapping: null });
    expect(await current(otherGroup)).toEqual([4, 4]);
  });

  const invalid: [string, unknown, string, RegExp][] = [
    ['unknown fields', { toEarliest: true, dry_run: true }, 'invalid', /dry_run: unknown field/],
    ['negative offsets', { toOffset: -5, execute: true }, 'invalid', /toOffset: must not be negative/],
    ['two targets', { toEarliest: true, toLatest: true, execute: true }, 'invalid', /exactly one target/],
    [
      'a mapping not in the allow-list',
      { mapping: 'esm-2', toEarliest: true, execute: true },
      'refused',
      /esm-2/,
    ],
    [
      'a group not in the allow-list',
      { group: 'payments', topic: 'x', toEarliest: true, execute: true },
      'refused',
      /consumer group "payments" is not allowed/,
    ],
    [
      'a group other than the mapping’s',
      { mapping: 'esm-1', group: otherGroup, toEarliest: true, execute: true },
      'refused',
      /uses consumer group "replay-fn-group-\w+", not "replay-fn-other-\w+"/,
    ],
    [
      'a partition the topic does not have',
      { toOffset: 1, partitions: [5], execute: true },
      'invalid',
      /has no partition 5/,
    ],
    [
      'a plan file for another topic',
      { fromFile: 'payments,0,1', execute: true },
      'refused',
      /reads topic "replay-fn-\w+", not "payments"/,
    ],
    ['a string', 'toEarliest', 'invalid', /the request must be a JSON object \(got a string\)/],
    ['null', null, 'invalid', /the request must be a JSON object \(got null\)/],
    ['a number', 42, 'invalid', /the request must be a JSON object \(got a number\)/],
    ['an array', [], 'invalid', /the request must be a JSON object \(got an array\)/],
    [
      'a plan file naming two topics',
      { fromFile: 'orders,0,1\npayments,0,1', execute: true },
      'invalid',
      /plan file names 2 topics \(orders, payments\)/,
    ],
    [
      'a plan of 400,000 lines',
      { fromFile: Array.from({ length: 400_000 }, (_, i) => `orders,${i},1`).join('\n'), execute: true },
      'invalid',
      /fromFile: must be at most 4000000 characters|plan file has more than 10000 entries/,
    ],
  ];
  for (const [what, input, kind, message] of invalid) {
    it(`refuses ${what} with a clear error, changing nothing`, async () => {
      await commit(groupId, [7, 8]);
      const { model, handle } = setup();
      const result = await handle(input, context);
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.error.kind).toBe(kind);
      expect(result.error.message).toMatch(message);
      // The answer (and the log line that repeats it) stays small whatever the request.
      expect(JSON.stringify(result).length).toBeLessThan(2_000);
      expect(model.updates).toEqual([]);
      expect(await current(groupId)).toEqual([7, 8]);
    });
  }

  it('plans while the mapping is in transition, but does not execute then', async () => {
    await commit(groupId, [7, 8]);
    const { model, handle } = setup({}, 'Updating');
    expect(await handle({ toLatest: true }, context)).toMatchObject({ ok: true, executed: false });
    const refused = await handle({ toLatest: true, execute: true }, context);
    expect(refused).toMatchObject({ ok: false, error: { name: 'MappingRefusedError', kind: 'refused' } });
    expect(model.updates).toEqual([]);
    expect(await current(groupId)).toEqual([7, 8]);
  });

  it('refuses a mapping whose topic is not allowed', async () => {
    const { model, handle } = setup({ topics: ['payments'] });
    const result = await handle({ toEarliest: true, execute: true }, context);
    expect(result).toMatchObject({ ok: false, error: { name: 'ReplayNotAllowedError', kind: 'refused' } });
    expect(model.updates).toEqual([]);
  });

  describe('a mapping whose GetEventSourceMapping returns no ConsumerGroupId', () => {
    for (const execute of [false, true]) {
      it(`refuses another application’s group unless allowed (${execute ? 'execute' : 'dry run'}), changing nothing`, async () => {
        await commit(otherGroup, [9, 9]);
        const { model, handle } = setup({}, 'Enabled', { groupId: undefined });
        const result = await handle(
          { group: otherGroup, mapping: 'esm-1', toEarliest: true, execute },
          context,
        );
        expect(result).toMatchObject({
          ok: false,
          error: {
            name: 'ReplayNotAllowedError',
            kind: 'refused',
            message: expect.stringContaining(`consumer group "${otherGroup}" is not allowed`),
          },
        });
        expect(model.updates).toEqual([]);
        expect(await current(otherGroup)).toEqual([9, 9]);
      });
    }

    it('needs the group in the request', async () => {
      const { model, handle } = setup({ groups: [otherGroup] }, 'Enabled', { groupId: undefined });
      const result = await handle({ toEarliest: true, execute: true }, context);
      expect(result).toMatchObject({ ok: false, error: { name: 'MappingRefusedError', kind: 'refused' } });
      expect(model.updates).toEqual([]);
    });

    it('replays a group on REPLAY_CONSUMER_GROUP_ID', async () => {
      await commit(otherGroup, [9, 9]);
      const { model, handle } = setup({ groups: [otherGroup] }, 'Enabled', { groupId: undefined });
      const result = await handle(
        { mapping: 'esm-1', group: otherGroup, toOffset: 3, execute: true },
        context,
      );
      expect(result).toMatchObject({ ok: true, executed: true, groupId: otherGroup });
      expect(model.history).toEqual(['Enabled', 'Disabling', 'Disabled', 'Enabling', 'Enabled']);
      expect(await current(otherGroup)).toEqual([3, 3]);
    });
  });

  it('refuses, touching nothing, when the function’s remaining time cannot fit the waits and the restore', async () => {
    await commit(groupId, [7, 8]);
    // A 5-minute function timeout with the default bounds (REPLAY_RESTORE_TIMEOUT_MS 300000).
    const { model, handle } = setup({ timeouts: { pollIntervalMs: 10 } });
    const started = Date.now();
    const result = await handle(
      { toEarliest: true, execute: true },
      { getRemainingTimeInMillis: () => 300_000 - (Date.now() - started) },
    );
    expect(result).toMatchObject({ ok: false, error: { name: 'NotEnoughTimeError', kind: 'refused' } });
    expect(model.updates).toEqual([]);
    expect(await current(groupId)).toEqual([7, 8]);
  });
});
