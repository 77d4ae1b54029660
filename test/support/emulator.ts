import type { Kafka } from 'kafkajs';
import type { FailureEnvelope } from '../../lib/emulator/destination.ts';
import {
  createLocalEventSourceMapping,
  type LocalEventSourceMapping,
  type LocalEventSourceMappingOptions,
} from '../../lib/emulator/index.ts';
import type { KafkaBatchResponse, KafkaEvent, KafkaEventRecord } from '../../lib/kafka-event/types.ts';
import { createTopic, testBrokers, uniqueName } from './kafka.ts';
import { testProducer } from './producer.ts';

/** Produces `perPartition` JSON records `{ seq }` to each partition, keys `k-<partition>-<seq>`. */
export async function produceSequence(
  kafka: Kafka,
  topic: string,
  partitions: number,
  perPartition: number,
  value: (partition: number, seq: number) => object = (_p, seq) => ({ seq }),
): Promise<void> {
  const producer = testProducer(kafka, { allowAutoTopicCreation: false });
  await producer.connect();
  try {
    const chunk = 2_000;
    for (let from = 0; from < perPartition; from += chunk) {
      const topicMessages = [];
      for (let partition = 0; partition < partitions; partition++) {
        const messages = [];
        for (let seq = from; seq < Math.min(from + chunk, perPartition); seq++) {
          messages.push({
            partition,
            key: `k-${partition}-${seq}`,
            value: JSON.stringify(value(partition, seq)),
          });
        }
        topicMessages.push({ topic, messages });
      }
      await producer.sendBatch({ topicMessages });
    }
  } finally {
    await producer.disconnect();
  }
}

/**
 * A new topic `<prefix>-…` of `partitions` partitions holding {@link produceSequence}'s records, and a
 * fresh consumer group name `<prefix>-group-…` to read it with.
 */
export async function seededTopic(
  kafka: Kafka,
  prefix: string,
  partitions: number,
  perPartition: number,
  value?: (partition: number, seq: number) => object,
): Promise<{ topic: string; group: string }> {
  const topic = uniqueName(prefix);
  await createTopic(kafka, topic, partitions);
  await produceSequence(kafka, topic, partitions, perPartition, value);
  return { topic, group: uniqueName(`${prefix}-group`) };
}

/** Every record of an event, in event order. */
export function eventRecords(event: KafkaEvent): KafkaEventRecord[] {
  return Object.values(event.records).flat();
}

/** `<partition>:<offset>`, a compact record identity for sets. */
export function recordId(record: { partition: number; offset: number }): string {
  return `${record.partition}:${record.offset}`;
}

/** Decodes a record's base64 JSON value. */
export function decodeValue<T>(record: KafkaEventRecord): T {
  return JSON.parse(Buffer.from(record.value ?? '', 'base64').toString('utf8')) as T;
}

/**
 * A mapping on the test broker with partial batch responses on, no batching window and quick retries:
 * what the retry, exhaustion and rebalance tests start from.
 */
export function partialResponseMapping(options: Omit<LocalEventSourceMappingOptions, 'brokers'>) {
  return createLocalEventSourceMapping({
    brokers: testBrokers(),
    maximumBatchingWindowInSeconds: 0,
    reportBatchItemFailures: true,
    retryBackoff: { initialMs: 5, maxMs: 20 },
    ...options,
  });
}

/** What {@link runToIdle} recorded. */
export interface IdleRun {
  readonly esm: LocalEventSourceMapping;
  /** Each invocation's offsets, in event order. */
  readonly invoked: number[][];
  /** What the mapping sent to its on-failure destination, in order (none when `onFailure` was given). */
  readonly envelopes: FailureEnvelope[];
}

/**
 * Starts a {@link partialResponseMapping} with `options`, waits until it is idle and stops it, recording
 * each invocation's offsets and (unless `options.onFailure` names another destination) each record sent to
 * the on-failure destination. `handler` is the function's: it gets the event, its offsets and the
 * invocation's number (1 for the first).
 *
 * @example
 * ```ts
 * const { invoked, envelopes } = await runToIdle({ topic, consumerGroupId: group }, async () => {});
 * ```
 */
export async function runToIdle(
  options: Omit<LocalEventSourceMappingOptions, 'brokers' | 'function'> & {
    /** The function's timeout (the emulator's default without it). */
    readonly timeoutSeconds?: number;
  },
  handler: (
    event: KafkaEvent,
    offsets: number[],
    invocation: number,
  ) => Promise<KafkaBatchResponse | undefined>,
): Promise<IdleRun> {
  const { timeoutSeconds, ...settings } = options;
  const invoked: number[][] = [];
  const envelopes: FailureEnvelope[] = [];
  const esm = partialResponseMapping({
    onFailure: (envelope) => void envelopes.push(envelope),
    ...settings,
    function: {
      ...(timeoutSeconds !== undefined && { timeoutSeconds }),
      handler: async (event: KafkaEvent) => {
        const offsets = eventRecords(event).map((r) => r.offset);
        invoked.push(offsets);
        return handler(event, offsets, invoked.length);
      },
    },
  });
  await esm.start();
  await esm.idle();
  await esm.stop();
  return { esm, invoked, envelopes };
}

/** The offsets of the records in `envelopes` (as the envelopes write them: strings), in order. */
export function envelopeOffsets(envelopes: readonly FailureEnvelope[]): string[] {
  return envelopes.map((envelope) => envelope.KafkaBatchInfo.recordInfo.offset);
}
