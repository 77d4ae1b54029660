import { Kafka, type KafkaConfig, logLevel } from 'kafkajs';
import { TopicMissingError } from './errors.ts';

/**
 * A topic that must exist, with the partition count to create it with when it does not.
 *
 * @example
 * ```ts
 * const orders: TopicSpec = { topic: 'orders', partitions: 3 };
 * ```
 */
export interface TopicSpec {
  topic: string;
  /** Partitions of the topic if {@link ensureTopics} creates it; an existing topic is left as it is. */
  partitions: number;
}

/**
 * Options of {@link ensureTopics}.
 *
 * @example
 * ```ts
 * const options: EnsureTopicsOptions = { brokers: ['127.0.0.1:9092'], topics: [{ topic: 'orders', partitions: 3 }] };
 * ```
 */
export interface EnsureTopicsOptions {
  /** Bootstrap servers, `host:port`. */
  brokers: string[];
  /** Further kafkajs client settings (TLS, SASL, client id…). */
  kafka?: Omit<KafkaConfig, 'brokers'>;
  topics: readonly TopicSpec[];
  /**
   * Create the topics that do not exist (default), or, for a cluster you do not own, throw
   * {@link TopicMissingError} naming them and create nothing.
   */
  createMissing?: boolean;
}

/**
 * Makes sure the topics exist: lists the cluster's topics and creates the missing ones, waiting until every
 * partition has a leader (so a producer or consumer can use them at once). Returns the topics it created;
 * existing topics are never changed.
 *
 * @example
 * ```ts
 * import { ensureTopics, startBroker } from 'kafka-lambda/broker';
 *
 * await using broker = await startBroker();
 * const created = await ensureTopics({
 *   brokers: [broker.bootstrapServers],
 *   topics: [{ topic: 'orders', partitions: 3 }, { topic: 'orders-dlq', partitions: 1 }],
 * });
 * ```
 * @throws TopicMissingError when `createMissing` is false and a topic does not exist.
 */
export async function ensureTopics(options: EnsureTopicsOptions): Promise<string[]> {
  const { brokers, kafka, topics, createMissing = true } = options;
  const admin = new Kafka({
    clientId: 'kafka-lambda-topics',
    logLevel: logLevel.NOTHING,
    ...kafka,
    brokers,
  }).admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const missing = topics.filter((spec) => !existing.has(spec.topic));
    const names = missing.map((spec) => spec.topic);
    if (missing.length > 0 && !createMissing) {
      throw new TopicMissingError(`topic ${names.join(', ')} does not exist on ${brokers.join(',')}`, names);
    }
    if (missing.length > 0) {
      await admin.createTopics({
        topics: missing.map((spec) => ({ topic: spec.topic, numPartitions: spec.partitions })),
        waitForLeaders: true,
      });
    }
    return names;
  } finally {
    await admin.disconnect();
  }
}
