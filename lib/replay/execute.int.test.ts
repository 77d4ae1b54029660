import type { Consumer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { committedOffsetsByKafkaTool, testBrokers, testKafka, uniqueName } from '../../test/support/kafka.ts';
import { racedAtHold } from '../../test/support/replay-race.ts';
import { seedTopic } from '../../test/support/seed-topic.ts';
import { connectReplayKafka, type ReplayKafka } from './connection.ts';
import { GroupNotEmptyError, ReplayConflictError, ReplayInputError } from './errors.ts';
import { executeReplay } from './execute.ts';
import { describeGroup } from './group.ts';
import { formatReplayMetadata, parseReplayMetadata } from './metadata.ts';
import { pollUntil } from './wait.ts';

let kafka: ReplayKafka;
const topic = uniqueName('replay-exec');
beforeAll(async () => {
  kafka = await connectReplayKafka({ brokers: testBrokers() });
  await seedTopic(testKafka(), { topic, partitions: 3, records: 10 });
});
afterAll(async () => {
  await kafka?.disconnect();
});

/** A fresh group on the shared topic with the given committed offsets (checked by Kafka's own tool). */
async function seeded(committed: number[]) {
  const groupId = uniqueName('replay-exec-group');
  await kafka.commitOffsets({
    groupId,
    topic,
    offsets: committed.map((offset, partition) => ({ partition, offset, metadata: '' })),
  });
  expect((await committedOffsetsByKafkaTool(groupId)).map((r) => r.currentOffset)).toEqual(committed);
  return { topic, groupId };
}

async function startMember(groupId: string, topic: string): Promise<Consumer> {
  const consumer = testKafka().consumer({ groupId, sessionTimeout: 6_000, heartbeatInterval: 500 });
  await consumer.connect();
  await consumer.subscribe({ topic });
  await consumer.run({ autoCommit: false, eachMessage: async () => {} });
  await pollUntil('group Stable', { timeoutMs: 30_000, intervalMs: 200 }, async () => {
    const group = await describeGroup(kafka.admin, groupId);
    return { done: group.state === 'Stable', seen: group.state };
  });
  return consumer;
}

describe('executeReplay without a mapping, on a real broker', () => {
  it('moves every committed offset in one commit with audit metadata; Kafka’s own tool agrees', async () => {
    const { topic, groupId } = await seeded([7, 8, 9]);
    const before = kafka.requestCount();
    const result = await executeReplay({
      kafka,
      groupId,
      topic,
      target: { kind: 'offset', offset: 2 },
      reason: 'INC-7: re-deliver after the fix',
    });
    expect(result.mapping).toBeNull();
    expect(result.steps.map((s) => s.step)).toEqual([
      'plan',
      'hold-group',
      'commit-offsets',
      'verify-offsets',
    ]);
    expect(result.plan.totals).toEqual({
      partitions: 3,
      changed: 3,
      redeliver: 5 + 6 + 7,
      skip: 0,
      unknown: 0,
    });
    expect(kafka.requestCount()).toBeGreaterThan(before);

    expect(
      (await committedOffsetsByKafkaTool(groupId)).map((r) => [r.topic, r.partition, r.currentOffset]),
    ).toEqual([
      [topic, 0, 2],
      [topic, 1, 2],
      [topic, 2, 2],
    ]);
    const [fetched] = await kafka.admin.fetchOffsets({ groupId, topics: [topic] });
    const byKafkajs = fetched!.partitions.sort((a, b) => a.partition - b.partition);
    expect(byKafkajs.map((p) => p.offset)).toEqual(['2', '2', '2']);
    expect(byKafkajs.map((p) => parseReplayMetadata(p.metadata))).toEqual([
      {
        at: expect.any(String),
        previous: 7,
        reason: 'INC-7: re-deliver after the fix',
        run: expect.any(String),
      },
      {
        at: expect.any(String),
        previous: 8,
        reason: 'INC-7: re-deliver after the fix',
        run: expect.any(String),
      },
      {
        at: expect.any(String),
        previous: 9,
        reason: 'INC-7: re-deliver after the fix',
        run: expect.any(String),
      },
    ]);
  });

  it('two relative replays at once: the one that planned before the other committed gives way, the shift applies once', async () => {
    const { topic, groupId } = await seeded([2, 2, 2]);
    const racing = racedAtHold(kafka, { groupId, topic, by: 3 });
    const error = await executeReplay({
      kafka: racing.kafka,
      groupId,
      topic,
      target: { kind: 'shift', by: 3 },
      reason: 'this',
      onProgress: racing.onProgress,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ReplayConflictError);
    expect((error as Error).message).toMatch(/changed after this replay planned/);
    expect((await committedOffsetsByKafkaTool(groupId)).map((r) => r.currentOffset)).toEqual([5, 5, 5]);
  });

  it('a partition subset moves only those partitions', async () => {
    const { topic, groupId } = await seeded([7, 8, 9]);
    await executeReplay({ kafka, groupId, topic, partitions: [1], target: { kind: 'earliest' } });
    expect((await committedOffsetsByKafkaTool(groupId)).map((r) => r.currentOffset)).toEqual([7, 0, 9]);
  });

  it('refuses a group with members and leaves its offsets unchanged', async () => {
    const { topic, groupId } = await seeded([7, 8, 9]);
    const member = await startMember(groupId, topic);
    try {
      const error = await executeReplay({ kafka, groupId, topic, target: { kind: 'earliest' } }).catch(
        (e) => e,
      );
      expect(error).toBeInstanceOf(GroupNotEmptyError);
      expect(error).toMatchObject({ state: 'Stable', members: 1 });
      expect((await committedOffsetsByKafkaTool(groupId)).map((r) => r.currentOffset)).toEqual([7, 8, 9]);
    } finally {
      await member.disconnect();
    }
  });

  it('Kafka itself refuses a member-less commit while the group has members (no race with a rejoining poller)', async () => {
    const { topic, groupId } = await seeded([7, 8, 9]);
    const member = await startMember(groupId, topic);
    try {
      const metadata = formatReplayMetadata({ at: new Date().toISOString(), previous: 7, reason: 'race' });
      await expect(
        kafka.commitOffsets({ groupId, topic, offsets: [{ partition: 0, offset: 1, metadata }] }),
      ).rejects.toBeInstanceOf(GroupNotEmptyError);
      expect((await committedOffsetsByKafkaTool(groupId)).map((r) => r.currentOffset)).toEqual([7, 8, 9]);
    } finally {
      await member.disconnect();
    }
  });

  it('refuses a reason with control characters before anything changes', async () => {
    const { topic, groupId } = await seeded([7, 8, 9]);
    const replay = executeReplay({
      kafka,
      groupId,
      topic,
      target: { kind: 'earliest' },
      reason: 'INC-8\u001b]0;pwned\u0007',
    });
    await expect(replay).rejects.toBeInstanceOf(ReplayInputError);
    await expect(replay).rejects.toThrow(
      'reason: must not contain control characters (found U+001B at character 6)',
    );
    expect((await committedOffsetsByKafkaTool(groupId)).map((r) => r.currentOffset)).toEqual([7, 8, 9]);
  });

  it('needs a group and a topic when there is no mapping', async () => {
    await expect(executeReplay({ kafka, target: { kind: 'earliest' } })).rejects.toBeInstanceOf(
      ReplayInputError,
    );
  });
});
