import { describe, expect, it } from 'vitest';
import { eventRecords } from '../../test/support/emulator.ts';
import { createTopic, testBrokers, testKafka, uniqueName } from '../../test/support/kafka.ts';
import { testProducer } from '../../test/support/producer.ts';
import type { KafkaEvent } from '../kafka-event/types.ts';
import { createLocalEventSourceMapping, type LocalEventSourceMappingOptions } from './index.ts';

const kafka = testKafka('starting-position-int');

/** Records 0–5, one minute apart, the last five minutes ago; `at(i)` is record i's time in Unix seconds. */
async function timedTopic(): Promise<{ topic: string; group: string; at: (offset: number) => number }> {
  const topic = uniqueName('start');
  await createTopic(kafka, topic, 1);
  const first = Date.now() - 10 * 60_000;
  const producer = testProducer(kafka);
  await producer.connect();
  await producer.send({
    topic,
    messages: [0, 1, 2, 3, 4, 5].map((i) => ({ value: `r${i}`, timestamp: String(first + i * 60_000) })),
  });
  await producer.disconnect();
  return { topic, group: uniqueName('start-group'), at: (i) => Math.floor((first + i * 60_000) / 1000) };
}

/** Commits `offset` for the group (the next record to read), and moves the log start to `logStart`. */
async function groupAt(topic: string, group: string, offset: number, logStart?: number): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    await admin.setOffsets({ groupId: group, topic, partitions: [{ partition: 0, offset: String(offset) }] });
    if (logStart !== undefined)
      await admin.deleteTopicRecords({ topic, partitions: [{ partition: 0, offset: String(logStart) }] });
  } finally {
    await admin.disconnect();
  }
}

async function committed(topic: string, group: string): Promise<number> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const [offsets] = await admin.fetchOffsets({ groupId: group, topics: [topic] });
    return Number(offsets?.partitions[0]?.offset);
  } finally {
    await admin.disconnect();
  }
}

/** Starts a mapping, lets `whileRunning` act, and returns the offsets the handler was given once idle. */
async function invokedOffsets(
  options: Omit<LocalEventSourceMappingOptions, 'brokers' | 'function'>,
  whileRunning?: () => Promise<void>,
): Promise<number[]> {
  const seen: number[] = [];
  const esm = createLocalEventSourceMapping({
    brokers: testBrokers(),
    maximumBatchingWindowInSeconds: 0,
    retryBackoff: { initialMs: 5, maxMs: 50 },
    ...options,
    function: {
      handler: async (event: KafkaEvent) => void seen.push(...eventRecords(event).map((r) => r.offset)),
    },
  });
  await esm.start();
  try {
    await whileRunning?.();
    await esm.idle();
  } finally {
    await esm.stop();
  }
  return seen;
}

// StartingPosition applies to a group with no valid committed offset: Lambda ignores it only "if Kafka finds
// a valid existing consumer group" (https://docs.aws.amazon.com/lambda/latest/dg/kafka-consumer-group-id.html).
// A committed offset below the log start (retention, deleteRecords) or past the log end is not valid: Kafka
// itself refuses to fetch from it (OFFSET_OUT_OF_RANGE).
describe('a committed offset outside the log: the starting position applies', () => {
  it('AT_TIMESTAMP, committed offset below the log start: from the timestamp, not from the log start', async () => {
    const { topic, group, at } = await timedTopic();
    await groupAt(topic, group, 1, 3);
    const seen = await invokedOffsets({
      topic,
      consumerGroupId: group,
      startingPosition: 'AT_TIMESTAMP',
      startingPositionTimestamp: at(5),
    });
    expect(seen).toEqual([5]);
    expect(await committed(topic, group)).toBe(6);
  });

  it('AT_TIMESTAMP, committed offset past the log end: from the timestamp', async () => {
    const { topic, group, at } = await timedTopic();
    await groupAt(topic, group, 100);
    const seen = await invokedOffsets({
      topic,
      consumerGroupId: group,
      startingPosition: 'AT_TIMESTAMP',
      startingPositionTimestamp: at(4),
    });
    expect(seen).toEqual([4, 5]);
    expect(await committed(topic, group)).toBe(6);
  });

  it('AT_TIMESTAMP, a valid committed offset wins over the timestamp', async () => {
    const { topic, group, at } = await timedTopic();
    await groupAt(topic, group, 3, 2);
    const seen = await invokedOffsets({
      topic,
      consumerGroupId: group,
      startingPosition: 'AT_TIMESTAMP',
      startingPositionTimestamp: at(5),
    });
    expect(seen).toEqual([3, 4, 5]);
  });

  it('TRIM_HORIZON, committed offset below the log start: from the log start', async () => {
    const { topic, group } = await timedTopic();
    await groupAt(topic, group, 1, 3);
    expect(await invokedOffsets({ topic, consumerGroupId: group, startingPosition: 'TRIM_HORIZON' })).toEqual(
      [3, 4, 5],
    );
  });

  it('TRIM_HORIZON, committed offset past the log end: from the log start', async () => {
    const { topic, group } = await timedTopic();
    await groupAt(topic, group, 100, 2);
    expect(await invokedOffsets({ topic, consumerGroupId: group, startingPosition: 'TRIM_HORIZON' })).toEqual(
      [2, 3, 4, 5],
    );
  });

  it('LATEST, committed offset below the log start or past the log end: only records produced after the start', async () => {
    for (const [offset, logStart] of [
      [1, 3],
      [100, undefined],
    ] as const) {
      const { topic, group } = await timedTopic();
      await groupAt(topic, group, offset, logStart);
      const seen = await invokedOffsets(
        { topic, consumerGroupId: group, startingPosition: 'LATEST' },
        async () => {
          const producer = testProducer(kafka);
          await producer.connect();
          await producer.send({ topic, messages: [{ value: 'new' }] });
          await producer.disconnect();
        },
      );
      expect(seen).toEqual([6]);
    }
  });
});
