import { describe, expect, it } from 'vitest';
import { committedOffsetsByKafkaTool, createTopic, testKafka, uniqueName } from './support/kafka.ts';
import { testProducer } from './support/producer.ts';

describe('the test broker is a real Apache Kafka broker', () => {
  it('commits consumer-group offsets that Kafka’s own ConsumerGroupCommand reads back', async () => {
    const kafka = testKafka();
    const topic = uniqueName('smoke');
    const group = uniqueName('smoke-group');
    await createTopic(kafka, topic, 3);

    const producer = testProducer(kafka);
    await producer.connect();
    const perPartition = [5, 7, 11];
    await producer.send({
      topic,
      messages: perPartition.flatMap((count, partition) =>
        Array.from({ length: count }, (_, i) => ({ partition, key: `k${i}`, value: `p${partition}-${i}` })),
      ),
    });
    await producer.disconnect();

    // Commit up to (not including) the last record of every partition, so the committed offsets
    // differ from the log-end offsets and a tool that only reads the log could not fake them.
    const consumer = kafka.consumer({ groupId: group, sessionTimeout: 6_000, heartbeatInterval: 500 });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    const seen = new Map<number, string[]>();
    const expectedCommits = perPartition.map((count) => count - 1);
    await new Promise<void>((resolve, reject) => {
      consumer
        .run({
          autoCommit: false,
          eachMessage: async ({ partition, message }) => {
            const values = seen.get(partition) ?? [];
            values.push(message.value?.toString() ?? '');
            seen.set(partition, values);
            if (Number(message.offset) === expectedCommits[partition]! - 1) {
              await consumer.commitOffsets([
                { topic, partition, offset: String(expectedCommits[partition]) },
              ]);
            }
            if ([...seen.values()].reduce((n, v) => n + v.length, 0) === 23) resolve();
          },
        })
        .catch(reject);
    });
    await consumer.disconnect();

    expect(seen.get(1)).toEqual(Array.from({ length: 7 }, (_, i) => `p1-${i}`));

    const admin = kafka.admin();
    await admin.connect();
    const [byKafkajs] = await admin.fetchOffsets({ groupId: group, topics: [topic] });
    await admin.disconnect();
    expect(
      byKafkajs?.partitions
        .map((p) => ({ partition: p.partition, offset: Number(p.offset) }))
        .sort((a, b) => a.partition - b.partition),
    ).toEqual(expectedCommits.map((offset, partition) => ({ partition, offset })));

    const byKafkaTool = await committedOffsetsByKafkaTool(group);
    expect(byKafkaTool).toEqual(
      expectedCommits.map((offset, partition) => ({
        topic,
        partition,
        currentOffset: offset,
        logEndOffset: perPartition[partition],
      })),
    );
  });
});
