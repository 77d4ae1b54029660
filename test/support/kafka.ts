import { randomBytes } from 'node:crypto';
import { Kafka, logLevel, type Message } from 'kafkajs';
import { inject } from 'vitest';
import { testProducer } from './producer.ts';

/** Bootstrap servers of the run's shared broker (see test/global-setup.ts). */
export function testBrokers(): string[] {
  return inject('kafkaBrokers').split(',');
}

/** A name no other test uses, so tests can share one broker. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${randomBytes(4).toString('hex')}`;
}

/** A kafkajs client for the shared broker, quiet unless something is wrong. */
export function testKafka(clientId = 'kafka-lambda-test'): Kafka {
  return new Kafka({ clientId, brokers: testBrokers(), logLevel: logLevel.ERROR });
}

/** Creates a topic and waits until every partition has a leader. */
export async function createTopic(kafka: Kafka, topic: string, numPartitions: number): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    await admin.createTopics({ topics: [{ topic, numPartitions }], waitForLeaders: true });
  } finally {
    await admin.disconnect();
  }
}

/**
 * Creates `topic` (`numPartitions` partitions, each with a leader) and produces `messages` to it, each
 * stored once ({@link testProducer}).
 */
export async function createTopicWith(
  kafka: Kafka,
  topic: string,
  messages: Message[],
  numPartitions = 1,
): Promise<void> {
  await createTopic(kafka, topic, numPartitions);
  const producer = testProducer(kafka);
  await producer.connect();
  try {
    await producer.send({ topic, messages });
  } finally {
    await producer.disconnect();
  }
}

/** One row of `kafka-consumer-groups --describe`, as Kafka's own tool prints it. */
export interface KafkaToolOffsetRow {
  topic: string;
  partition: number;
  /** null when the group has no committed offset for the partition (the tool prints `-`). */
  currentOffset: number | null;
  logEndOffset: number;
}

/**
 * The group's committed offsets as Kafka's own ConsumerGroupCommand reports them: an independent
 * check of what kafkajs (or our code) committed.
 */
export async function committedOffsetsByKafkaTool(group: string): Promise<KafkaToolOffsetRow[]> {
  const { runKafkaTool } = await import('../../lib/broker/broker.ts');
  const describe = () =>
    runKafkaTool('org.apache.kafka.tools.consumer.group.ConsumerGroupCommand', [
      '--bootstrap-server',
      testBrokers().join(','),
      '--describe',
      '--offsets',
      '--group',
      group,
      // The tool's default (5 s) is too short on a loaded machine.
      '--timeout',
      '30000',
    ]);
  let result = await describe();
  // On a timeout the tool prints "Error: … TimeoutException" and still exits 0 with no rows: ask again
  // rather than read that as "no offsets".
  for (let attempt = 1; attempt < 3 && /TimeoutException/.test(result.stdout + result.stderr); attempt++) {
    result = await describe();
  }
  if (result.code !== 0 || /TimeoutException/.test(result.stdout + result.stderr)) {
    throw new Error(`ConsumerGroupCommand failed (${result.code}): ${result.stdout}${result.stderr}`);
  }
  const rows: KafkaToolOffsetRow[] = [];
  for (const line of result.stdout.split('\n')) {
    const cells = line.trim().split(/\s+/);
    // GROUP TOPIC PARTITION CURRENT-OFFSET LOG-END-OFFSET LAG CONSUMER-ID HOST CLIENT-ID
    if (cells.length < 6 || cells[0] !== group) continue;
    rows.push({
      topic: cells[1]!,
      partition: Number(cells[2]),
      currentOffset: cells[3] === '-' ? null : Number(cells[3]),
      logEndOffset: Number(cells[4]),
    });
  }
  return rows.sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition);
}
