import { type Consumer, Kafka, logLevel } from 'kafkajs';
import { afterEach, expect, it } from 'vitest';
import {
  envelopeOffsets,
  partialResponseMapping as mapping,
  runToIdle,
  seededTopic,
} from '../../test/support/emulator.ts';
import { committedOffsetsByKafkaTool, testBrokers, testKafka } from '../../test/support/kafka.ts';

const kafka = testKafka('emulator-rebalance');
const members: Consumer[] = [];
/** Each member's partitions of its latest join. */
const assignments = new Map<Consumer, number[]>();

afterEach(async () => {
  await Promise.all(members.splice(0).map((member) => member.disconnect()));
  assignments.clear();
});

/**
 * Another member joins the group (subscribed to the same topic), so the mapping rejoins. kafkajs'
 * round-robin assignor hands partitions out in member-id order and member ids start with the client
 * id, so `clientId` decides who keeps them: one sorting after the mapping's (`kafka-lambda-esm`)
 * leaves the mapping its partitions. Resolves once both members are in the new generation.
 */
async function joinMember(topic: string, group: string, clientId: string): Promise<Consumer> {
  const member = new Kafka({ clientId, brokers: testBrokers(), logLevel: logLevel.NOTHING }).consumer({
    groupId: group,
  });
  members.push(member);
  const joined = new Promise<void>((resolve) =>
    member.on(member.events.GROUP_JOIN, (event) => {
      assignments.set(member, event.payload.memberAssignment[topic] ?? []);
      resolve();
    }),
  );
  await member.connect();
  await member.subscribe({ topic, fromBeginning: true });
  await member.run({ eachMessage: async () => {} });
  await joined;
  const admin = kafka.admin();
  await admin.connect();
  try {
    for (;;) {
      const { groups } = await admin.describeGroups([group]);
      if (groups[0]?.state === 'Stable' && groups[0].members.length === 2) break;
      await sleep(50);
    }
  } finally {
    await admin.disconnect();
  }
  return member;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A mapping of `topic` as `group` whose invocations (the first only, or every one) wait for `release()`:
 * `firstStarted` resolves once the first began.
 */
function heldMapping(topic: string, group: string, held: 'first' | 'every') {
  const { promise: released, resolve: release } = Promise.withResolvers<void>();
  const { promise: firstStarted, resolve: started } = Promise.withResolvers<void>();
  let invocations = 0;
  const esm = mapping({
    topic,
    consumerGroupId: group,
    function: {
      timeoutSeconds: 60,
      handler: async () => {
        if (++invocations > 1 && held === 'first') return;
        started();
        await released;
      },
    },
  });
  return { esm, firstStarted, release };
}

it('a rejoin while a partial failure is retried: after exhaustion the rest runs once, in order, and only the failed record goes to the destination', async () => {
  const { topic, group } = await seededTopic(kafka, 'rebalance-exhaust', 1, 10);
  const { invoked, envelopes } = await runToIdle(
    { topic, consumerGroupId: group, maximumRetryAttempts: 1, timeoutSeconds: 60 },
    async (_event, offsets, invocation) => {
      if (invocation === 2) {
        // The retry: the group rebalances meanwhile and the mapping refetches from the committed offset.
        await joinMember(topic, group, 'zz-member');
        await sleep(1_500);
      }
      // Record 5 always fails.
      return {
        batchItemFailures: offsets.includes(5)
          ? [{ itemIdentifier: { partition: `${topic}-0`, offset: 5 } }]
          : [],
      };
    },
  );
  expect(invoked).toEqual([
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    [5, 6, 7, 8, 9],
    [6, 7, 8, 9],
  ]);
  expect(envelopeOffsets(envelopes)).toEqual(['5']);
  expect(await committedOffsetsByKafkaTool(group)).toEqual([
    { topic, partition: 0, currentOffset: 10, logEndOffset: 10 },
  ]);
});

it('a partition paused for back-pressure resumes after a rejoin', { timeout: 60_000 }, async () => {
  const total = 3_000; // well past the 1,000 buffered records that pause fetching
  const { topic, group } = await seededTopic(kafka, 'rebalance-paused', 1, total);
  const { esm, firstStarted, release } = heldMapping(topic, group, 'first');
  await esm.start();
  await firstStarted;
  await sleep(1_500); // the mapping buffers what it fetched and pauses the partition
  await joinMember(topic, group, 'zz-member');
  release();
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline && esm.stats().partitions[0]?.committed !== total) await sleep(100);
  await esm.stop();
  expect(esm.stats().partitions[0]?.committed).toBe(total);
});

it('a batch that finishes after its partition moved to another member does not commit over the new owner', async () => {
  const total = 200;
  const { topic, group } = await seededTopic(kafka, 'rebalance-moved', 1, total);
  const { esm, firstStarted, release } = heldMapping(topic, group, 'every');
  await esm.start();
  await firstStarted;
  // Sorting before the mapping's client id, the new member takes the partition, reads it all and commits.
  await joinMember(topic, group, 'aa-member');
  const admin = kafka.admin();
  await admin.connect();
  const committed = async () =>
    Number((await admin.fetchOffsets({ groupId: group, topics: [topic] }))[0]?.partitions[0]?.offset);
  try {
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline && (await committed()) !== total) await sleep(100);
    expect(await committed()).toBe(total);
    release();
    await esm.stop(); // waits for the batch in flight and flushes its commits
    expect(await committed()).toBe(total);
  } finally {
    await admin.disconnect();
  }
});

it('stops retrying a batch whose partition moved to another member', async () => {
  const { topic, group } = await seededTopic(kafka, 'rebalance-retrying', 1, 10);
  let invocations = 0;
  const esm = mapping({
    topic,
    consumerGroupId: group,
    // Retries without end (Lambda's default): only losing the partition ends them.
    function: {
      handler: async () => {
        invocations++;
        throw new Error('downstream unavailable');
      },
    },
  });
  await esm.start();
  while (invocations < 3) await sleep(10);
  await joinMember(topic, group, 'aa-member');
  await sleep(500); // an invocation already running when the partition moved may finish
  const afterMove = invocations;
  await sleep(2_000);
  await esm.stop();
  expect(invocations).toBe(afterMove);
});

it('stats().partitions lists only the partitions assigned now: one taken by another member leaves, one handed back returns', async () => {
  const { topic, group } = await seededTopic(kafka, 'rebalance-stats', 2, 3);
  const esm = mapping({ topic, consumerGroupId: group, function: { handler: async () => {} } });
  await esm.start();
  try {
    await esm.idle();
    const listed = () => esm.stats().partitions.map((p) => p.partition);
    expect(listed()).toEqual([0, 1]);
    // Sorting before the mapping's client id, the new member takes one of the two partitions.
    const member = await joinMember(topic, group, 'aa-member');
    const taken = assignments.get(member)!;
    expect(taken).toHaveLength(1);
    const kept = [0, 1].filter((partition) => !taken.includes(partition));
    // Both are in the new generation (joinMember waited for it): the mapping has its join too.
    await expect.poll(listed, { timeout: 30_000 }).toEqual(kept);
    expect(esm.stats().partitions).toEqual([{ partition: kept[0], committed: 3, highWatermark: 3, lag: 0 }]);
    // The member leaves: the mapping is assigned both again.
    members.splice(members.indexOf(member), 1);
    await member.disconnect();
    await expect.poll(listed, { timeout: 30_000 }).toEqual([0, 1]);
  } finally {
    await esm.stop();
  }
});
