import { describe, expect, it } from 'vitest';
import { testBrokers, testKafka, uniqueName } from '../../test/support/kafka.ts';
import { testProducer } from '../../test/support/producer.ts';
import { TopicMissingError } from './errors.ts';
import { ensureTopics } from './topics.ts';

async function partitionCounts(topics: string[]): Promise<Record<string, number>> {
  const admin = testKafka().admin();
  await admin.connect();
  try {
    const { topics: metadata } = await admin.fetchTopicMetadata({ topics });
    return Object.fromEntries(metadata.map((topic) => [topic.name, topic.partitions.length]));
  } finally {
    await admin.disconnect();
  }
}

describe('ensureTopics', () => {
  it('creates the missing topics with their partition counts, leaves existing ones alone, and says which it created', async () => {
    const existing = uniqueName('topics-existing');
    const fresh = uniqueName('topics-fresh');
    expect(
      await ensureTopics({ brokers: testBrokers(), topics: [{ topic: existing, partitions: 2 }] }),
    ).toEqual([existing]);
    const created = await ensureTopics({
      brokers: testBrokers(),
      topics: [
        { topic: existing, partitions: 5 },
        { topic: fresh, partitions: 3 },
      ],
    });
    expect(created).toEqual([fresh]);
    expect(await partitionCounts([existing, fresh])).toEqual({ [existing]: 2, [fresh]: 3 });
    // Every partition has a leader on return: a producer can write to each of them at once.
    const producer = testProducer(testKafka(), { allowAutoTopicCreation: false });
    await producer.connect();
    try {
      await producer.send({
        topic: fresh,
        messages: [0, 1, 2].map((partition) => ({ partition, value: `p${partition}` })),
      });
    } finally {
      await producer.disconnect();
    }
  });

  it('without createMissing, names the missing topics in a typed error and creates none', async () => {
    const existing = uniqueName('topics-present');
    const missing = uniqueName('topics-absent');
    await ensureTopics({ brokers: testBrokers(), topics: [{ topic: existing, partitions: 1 }] });
    const error = await ensureTopics({
      brokers: testBrokers(),
      topics: [
        { topic: existing, partitions: 1 },
        { topic: missing, partitions: 1 },
      ],
      createMissing: false,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TopicMissingError);
    expect((error as TopicMissingError).topics).toEqual([missing]);
    expect((error as TopicMissingError).message).toBe(
      `topic ${missing} does not exist on ${testBrokers().join(',')}`,
    );
    const admin = testKafka().admin();
    await admin.connect();
    try {
      expect(await admin.listTopics()).not.toContain(missing);
    } finally {
      await admin.disconnect();
    }
  });
});
