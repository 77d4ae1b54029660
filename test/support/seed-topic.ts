// Test fixture shared by the replay integration tests and bench: a topic with known records, timestamps
// and committed offsets on the real broker.
import type { Kafka } from 'kafkajs';
import { testProducer } from './producer.ts';

/**
 * Records per partition are produced with timestamps BASE_TIME + i * 1000 (i = offset). An hour ago, so
 * the broker's retention (7 days by record time) never deletes them during a run.
 */
export const BASE_TIME = Math.floor(Date.now() / 1000) * 1000 - 3_600_000;

/**
 * Creates `topic` with `partitions` partitions of `records` records each (record i of every partition has
 * timestamp BASE_TIME + i s), optionally deletes the first `truncate` records of partition 0, and commits
 * `committed` (partition → offset) for `groupId` with kafkajs' own admin.setOffsets.
 */
export async function seedTopic(
  kafka: Kafka,
  options: {
    topic: string;
    partitions: number;
    records: number;
    truncate?: number;
    groupId?: string;
    committed?: number[];
  },
): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    await admin.createTopics({
      topics: [{ topic: options.topic, numPartitions: options.partitions }],
      waitForLeaders: true,
    });
    const producer = testProducer(kafka); // a plan once saw a log end of 20, not 10, from a retried send
    await producer.connect();
    await producer.send({
      topic: options.topic,
      messages: Array.from({ length: options.partitions }, (_, partition) =>
        Array.from({ length: options.records }, (_, i) => ({
          partition,
          value: `p${partition}-${i}`,
          timestamp: String(BASE_TIME + i * 1000),
        })),
      ).flat(),
    });
    await producer.disconnect();
    if (options.truncate) {
      await admin.fetchTopicOffsets(options.topic); // deleteTopicRecords needs the topic's metadata loaded
      await admin.deleteTopicRecords({
        topic: options.topic,
        partitions: [{ partition: 0, offset: String(options.truncate) }],
      });
    }
    if (options.groupId && options.committed) {
      await admin.setOffsets({
        groupId: options.groupId,
        topic: options.topic,
        partitions: options.committed.map((offset, partition) => ({ partition, offset: String(offset) })),
      });
    }
  } finally {
    await admin.disconnect();
  }
}
