import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import {
  decodeValue,
  eventRecords,
  produceSequence,
  recordId,
  seededTopic,
} from '../../test/support/emulator.ts';
import {
  committedOffsetsByKafkaTool,
  createTopic,
  createTopicWith,
  testBrokers,
  testKafka,
  uniqueName,
} from '../../test/support/kafka.ts';
import { testProducer } from '../../test/support/producer.ts';
import type { KafkaBatchResponse, KafkaEvent } from '../kafka-event/types.ts';
import type { FailureEnvelope } from './destination.ts';
import {
  createLocalEventSourceMapping,
  type LocalEventSourceMappingOptions,
  type MappingEvent,
  type Redelivery,
} from './index.ts';

const kafka = testKafka('emulator-int');

function mapping(options: Omit<LocalEventSourceMappingOptions, 'brokers'>) {
  return createLocalEventSourceMapping({
    brokers: testBrokers(),
    maximumBatchingWindowInSeconds: 0,
    retryBackoff: { initialMs: 5, maxMs: 50 },
    ...options,
  });
}

/**
 * Runs a mapping until it is idle, with a handler that records the offsets it is given and a callback
 * on-failure destination that records its envelopes.
 */
async function offsetsAndEnvelopes(
  options: Omit<LocalEventSourceMappingOptions, 'brokers' | 'function' | 'onFailure'>,
): Promise<{ invoked: number[]; envelopes: FailureEnvelope[] }> {
  const envelopes: FailureEnvelope[] = [];
  const invoked: number[] = [];
  const esm = mapping({
    ...options,
    onFailure: (envelope) => {
      envelopes.push(envelope);
    },
    function: {
      handler: async (event: KafkaEvent) => void invoked.push(...eventRecords(event).map((r) => r.offset)),
    },
  });
  await esm.start();
  await esm.idle();
  await esm.stop();
  return { invoked, envelopes };
}

async function readTopic(topic: string, count: number) {
  const consumer = kafka.consumer({ groupId: uniqueName('reader') });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const messages: Array<{ key: string | null; value: string }> = [];
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`only ${messages.length} of ${count} messages`)), 30_000);
    void consumer.run({
      eachMessage: async ({ message }) => {
        messages.push({ key: message.key?.toString() ?? null, value: message.value?.toString() ?? '' });
        if (messages.length >= count) {
          clearTimeout(timer);
          resolve();
        }
      },
    });
  });
  await consumer.disconnect();
  return messages;
}

describe.each<Redelivery>(['from-lowest', 'listed'])('emulator (redelivery: %s)', (redelivery) => {
  it('sends a poison record to the kafka:// destination with Lambda envelope after the retries; the partition moves on', async () => {
    const { topic, group } = await seededTopic(kafka, 'esm', 2, 30, (p, seq) => ({
      seq,
      poison: p === 0 && seq === 7,
    }));
    const dlq = `${topic}-dlq`;
    await createTopic(kafka, dlq, 1);
    const attemptsOfPoison: number[] = [];
    const succeeded = new Set<string>();
    const handler = async (event: KafkaEvent): Promise<KafkaBatchResponse> => {
      const batchItemFailures = [];
      for (const record of eventRecords(event)) {
        if (decodeValue<{ poison: boolean }>(record).poison) {
          attemptsOfPoison.push(record.offset);
          batchItemFailures.push({
            itemIdentifier: { partition: `${record.topic}-${record.partition}`, offset: record.offset },
          });
        } else {
          succeeded.add(recordId(record));
        }
      }
      return { batchItemFailures };
    };
    const esm = mapping({
      topic,
      consumerGroupId: group,
      batchSize: 10,
      reportBatchItemFailures: true,
      maximumRetryAttempts: 2,
      onFailure: `kafka://${dlq}`,
      redelivery,
      function: { handler, functionName: 'orders' },
    });
    await esm.start();
    await esm.idle();
    await esm.stop();

    expect(attemptsOfPoison).toEqual([7, 7, 7]); // first attempt + 2 retries
    expect(succeeded.size).toBe(59);
    expect(succeeded.has('0:7')).toBe(false);
    const [message, ...others] = await readTopic(dlq, 1);
    expect(others).toEqual([]);
    expect(message?.key).toBe('k-0-7');
    const envelope = JSON.parse(message!.value) as FailureEnvelope;
    // The Kafka-destination page's spelling and qualified ARN (kafka-on-failure-destination.html).
    expect(envelope.requestContext).toMatchObject({
      condition: 'RetriesExhausted',
      approximateInvokeCount: 3,
      functionArn: expect.stringMatching(/^arn:aws:lambda:[^:]+:\d{12}:function:orders:\$LATEST$/),
    });
    expect(envelope.responseContext).toEqual({ statusCode: 200, executedVersion: '$LATEST' });
    expect(envelope.KafkaBatchInfo).toMatchObject({ batchSize: 1, recordInfo: { offset: '7' } });
    expect(envelope.payload.eventSource).toBe('aws:kafka');
    const [poison] = envelope.payload.records[`${topic}-0`] ?? [];
    expect(poison).toMatchObject({
      topic,
      partition: 0,
      offset: 7,
      key: Buffer.from('k-0-7').toString('base64'),
    });
    expect(decodeValue<{ poison: boolean }>(poison!).poison).toBe(true);
    expect(await committedOffsetsByKafkaTool(group)).toEqual([
      { topic, partition: 0, currentOffset: 30, logEndOffset: 30 },
      { topic, partition: 1, currentOffset: 30, logEndOffset: 30 },
    ]);
  });

  it('retries the whole batch after invalid partial responses and commits nothing meanwhile', async () => {
    const { topic, group } = await seededTopic(kafka, 'esm', 1, 5);
    const invalid: unknown[] = [
      { batchItemFailures: [{ itemIdentifier: `${topic}-0-2` }] }, // Kinesis/SQS-style string
      { batchItemFailures: [{ itemIdentifier: { partition: `${topic}-0`, offset: 99 } }] }, // not in the batch
      { batchItemFailures: [{ itemIdentifier: { partition: `${topic}-7`, offset: 1 } }] }, // partition not in the batch
      { batchItemFailures: [{ itemIdentifier: { partition: `${topic}-0`, offset: '1' } }] }, // string offset
      { batchItemFailures: [{ identifier: { partition: `${topic}-0`, offset: 1 } }] }, // wrong key name
      { batchItemFailures: 'none' },
    ];
    const batches: number[][] = [];
    const events: MappingEvent[] = [];
    const esm = mapping({
      topic,
      consumerGroupId: group,
      reportBatchItemFailures: true,
      redelivery,
      onEvent: (event) => events.push(event),
      function: {
        handler: async (event: KafkaEvent) => {
          batches.push(eventRecords(event).map((r) => r.offset));
          return batches.length <= invalid.length ? invalid[batches.length - 1] : { batchItemFailures: [] };
        },
      },
    });
    await esm.start();
    await esm.idle();
    await esm.stop();
    expect(batches).toEqual(Array.from({ length: invalid.length + 1 }, () => [0, 1, 2, 3, 4]));
    expect(esm.stats().invalidResponses).toBe(invalid.length);
    const commits = events.filter((e) => e.type === 'commit');
    expect(commits).toEqual([{ type: 'commit', offsets: { [`${topic}-0`]: 5 } }]);
    const lastInvoke = events.findLastIndex((e) => e.type === 'invoke');
    expect(events.findIndex((e) => e.type === 'commit')).toBeGreaterThan(lastInvoke);
  });

  it('keeps per-partition order of first successful processing with a partition-mode handler, one batch in flight per partition', async () => {
    const partitions = 4;
    const perPartition = 1_500;
    const { topic, group } = await seededTopic(kafka, 'esm', partitions, perPartition);
    const firstSuccess = new Map<number, number[]>();
    const seen = new Set<string>();
    const active = new Set<number>();
    let overlaps = 0;
    let failures = 0;
    const handler = async (event: KafkaEvent, context: Context): Promise<KafkaBatchResponse> => {
      const batchItemFailures = [];
      const mine = Object.values(event.records).map((records) => records[0]!.partition);
      for (const p of mine) {
        if (active.has(p)) overlaps++;
        active.add(p);
      }
      await new Promise((r) => setTimeout(r, 1));
      for (const records of Object.values(event.records)) {
        let failed = false;
        for (const record of records) {
          // Partition mode: after a failure, later records of the partition are not processed.
          if (failed || Math.random() < 0.03) {
            failed = true;
            failures++;
            batchItemFailures.push({
              itemIdentifier: { partition: `${record.topic}-${record.partition}`, offset: record.offset },
            });
            continue;
          }
          if (!seen.has(recordId(record))) {
            seen.add(recordId(record));
            firstSuccess.set(record.partition, [
              ...(firstSuccess.get(record.partition) ?? []),
              record.offset,
            ]);
          }
        }
      }
      for (const p of mine) active.delete(p);
      expect(context.getRemainingTimeInMillis()).toBeGreaterThan(0);
      return { batchItemFailures };
    };
    const esm = mapping({
      topic,
      consumerGroupId: group,
      batchSize: 50,
      reportBatchItemFailures: true,
      redelivery,
      function: { handler },
    });
    await esm.start();
    await esm.idle();
    await esm.stop();
    expect(failures).toBeGreaterThan(0);
    expect(overlaps).toBe(0);
    for (let p = 0; p < partitions; p++) {
      expect(firstSuccess.get(p)).toEqual(Array.from({ length: perPartition }, (_, i) => i));
    }
    expect(esm.stats().partialFailures).toBeGreaterThan(0);
  });

  it('bisects a failing batch down to the poison record and sends only it to the destination', async () => {
    const { topic, group } = await seededTopic(kafka, 'esm', 1, 16, (_p, seq) => ({
      seq,
      poison: seq === 11,
    }));
    const envelopes: FailureEnvelope[] = [];
    const processed: number[] = [];
    const esm = mapping({
      topic,
      consumerGroupId: group,
      batchSize: 16,
      bisectBatchOnFunctionError: true,
      maximumRetryAttempts: 6,
      onFailure: (envelope) => {
        envelopes.push(envelope);
      },
      redelivery,
      function: {
        handler: async (event: KafkaEvent) => {
          const records = eventRecords(event);
          if (records.some((r) => decodeValue<{ poison: boolean }>(r).poison))
            throw new TypeError('bad order');
          processed.push(...records.map((r) => r.offset));
        },
      },
    });
    await esm.start();
    await esm.idle();
    await esm.stop();
    expect(envelopes.map((e) => e.KafkaBatchInfo.recordInfo.offset)).toEqual(['11']);
    expect(envelopes[0]?.responseContext).toEqual({
      statusCode: 200,
      executedVersion: '$LATEST',
      functionError: 'Unhandled',
    });
    expect([...new Set(processed)].sort((a, b) => a - b)).toEqual(
      [...Array(16).keys()].filter((o) => o !== 11),
    );
    expect(await committedOffsetsByKafkaTool(group)).toEqual([
      { topic, partition: 0, currentOffset: 16, logEndOffset: 16 },
    ]);
  });
});

describe('emulator', () => {
  it('from the lowest offset: only the record the partition is held at goes to the destination; later reported records get a fresh batch', async () => {
    const { topic, group } = await seededTopic(kafka, 'esm', 1, 12, (_p, seq) => ({
      seq,
      poison: seq === 4,
    }));
    const envelopes: FailureEnvelope[] = [];
    const succeeded: number[] = [];
    const esm = mapping({
      topic,
      consumerGroupId: group,
      reportBatchItemFailures: true,
      maximumRetryAttempts: 1,
      onFailure: (envelope) => {
        envelopes.push(envelope);
      },
      function: {
        // Partition mode: once a record fails, the later ones are reported too.
        handler: async (event: KafkaEvent): Promise<KafkaBatchResponse> => {
          const records = eventRecords(event);
          const poison = records.findIndex((r) => decodeValue<{ poison: boolean }>(r).poison);
          const done = poison === -1 ? records : records.slice(0, poison);
          succeeded.push(...done.map((r) => r.offset));
          const failed = poison === -1 ? [] : records.slice(poison);
          return {
            batchItemFailures: failed.map((r) => ({
              itemIdentifier: { partition: `${topic}-0`, offset: r.offset },
            })),
          };
        },
      },
    });
    await esm.start();
    await esm.idle();
    await esm.stop();
    expect(envelopes.map((e) => e.KafkaBatchInfo.recordInfo.offset)).toEqual(['4']);
    expect(succeeded).toEqual([0, 1, 2, 3, 5, 6, 7, 8, 9, 10, 11]);
  });

  it('sends records older than maximumRecordAgeInSeconds to the destination without invoking them', async () => {
    const topic = uniqueName('esm-age');
    const old = String(Date.now() - 120_000);
    await createTopicWith(kafka, topic, [
      { key: 'a', value: '{"n":0}', timestamp: old },
      { key: 'b', value: '{"n":1}', timestamp: old },
      { key: 'c', value: '{"n":2}' },
    ]);
    const { invoked, envelopes } = await offsetsAndEnvelopes({
      topic,
      consumerGroupId: uniqueName('esm-age-group'),
      maximumRecordAgeInSeconds: 60,
    });
    expect(invoked).toEqual([2]);
    expect(
      envelopes.map((e) => [
        e.KafkaBatchInfo.recordInfo.offset,
        e.requestContext.condition,
        e.responseContext,
      ]),
    ).toEqual([
      ['0', 'RecordAgeExceeded', null],
      ['1', 'RecordAgeExceeded', null],
    ]);
    expect(envelopes[0]?.KafkaBatchInfo.recordInfo.timestamp).toBe(new Date(Number(old)).toISOString());
  });

  it('treats a handler running past its timeout as a function error and retries the batch', async () => {
    const { topic, group } = await seededTopic(kafka, 'esm', 1, 3);
    let calls = 0;
    const events: MappingEvent[] = [];
    const esm = mapping({
      topic,
      consumerGroupId: group,
      onEvent: (event) => events.push(event),
      function: {
        timeoutSeconds: 0.3,
        handler: async () => {
          if (++calls === 1) await new Promise((r) => setTimeout(r, 600));
        },
      },
    });
    await esm.start();
    await esm.idle();
    await esm.stop();
    const invokes = events.filter((e) => e.type === 'invoke');
    expect(invokes.map((e) => e.outcome)).toEqual(['function-error', 'success']);
    expect(invokes[0]?.detail).toBe('Sandbox.Timedout');
    expect(invokes[0]?.errorMessage).toMatch(/^Task timed out after 0\.30 seconds/);
  });

  it('resumes from the committed offsets, using the starting position only for a group without them', async () => {
    const { topic, group } = await seededTopic(kafka, 'esm', 1, 10);
    const seen: number[] = [];
    const handler = async (event: KafkaEvent) => {
      seen.push(...eventRecords(event).map((r) => r.offset));
    };
    const first = mapping({ topic, consumerGroupId: group, batchSize: 4, function: { handler } });
    await first.start();
    await first.idle();
    await first.stop();
    await produceSequence(kafka, topic, 1, 3);
    const second = mapping({
      topic,
      consumerGroupId: group,
      startingPosition: 'LATEST',
      function: { handler },
    });
    await second.start();
    await second.idle();
    await second.stop();
    expect(seen).toEqual([...Array(13).keys()]);
  });

  it('starts AT_TIMESTAMP for a new group and builds self-managed events', async () => {
    const { topic, group } = await seededTopic(kafka, 'esm', 1, 4);
    await new Promise((r) => setTimeout(r, 1_100));
    const since = Math.floor(Date.now() / 1000);
    await new Promise((r) => setTimeout(r, 1_100));
    await produceSequence(kafka, topic, 1, 2);
    const events: KafkaEvent[] = [];
    const esm = mapping({
      topic,
      consumerGroupId: group,
      startingPosition: 'AT_TIMESTAMP',
      startingPositionTimestamp: since,
      eventSource: 'self-managed',
      function: { handler: async (event: KafkaEvent) => void events.push(event) },
    });
    await esm.start();
    await esm.idle();
    await esm.stop();
    expect(events.flatMap(eventRecords).map((r) => r.offset)).toEqual([4, 5]);
    expect(events[0]).toEqual({
      eventSource: 'SelfManagedKafka',
      bootstrapServers: testBrokers().join(','),
      records: { [`${topic}-0`]: expect.any(Array) },
    });
  });
});

it('becomes idle when a partition has never held a record', async () => {
  const topic = uniqueName('esm-empty');
  await createTopicWith(kafka, topic, [{ partition: 0, value: '{}' }], 2);
  const seen: number[] = [];
  const esm = mapping({
    topic,
    consumerGroupId: uniqueName('esm-empty-group'),
    function: {
      handler: async (event: KafkaEvent) => void seen.push(...eventRecords(event).map((r) => r.offset)),
    },
  });
  await esm.start();
  const idle = await Promise.race([
    esm.idle().then(() => true),
    new Promise<false>((resolve) => setTimeout(() => resolve(false), 10_000)),
  ]);
  await esm.stop();
  expect(idle).toBe(true);
  expect(seen).toEqual([0]);
});

/** A one-partition topic accepting records up to 8 MiB (the broker's default is 1 MB), holding `values` in order. */
async function topicWithLargeRecords(prefix: string, values: Buffer[]): Promise<string> {
  const topic = uniqueName(prefix);
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({
    topics: [
      {
        topic,
        numPartitions: 1,
        configEntries: [{ name: 'max.message.bytes', value: String(8 * 1024 * 1024) }],
      },
    ],
    waitForLeaders: true,
  });
  await admin.disconnect();
  const producer = testProducer(kafka);
  await producer.connect();
  // One request each, so that each record is a record batch of its own.
  for (const value of values) await producer.send({ topic, messages: [{ value }] });
  await producer.disconnect();
  return topic;
}

it('delivers a record larger than one fetch response (1 MB) whole, in order with the records around it', async () => {
  // The emulator fetches at most 1 MB per response; Kafka still returns a larger record batch whole
  // (KIP-74), so a 2 MB record must reach the handler, not stall its partition.
  const large = Buffer.alloc(2 * 1024 * 1024, 'x');
  const topic = await topicWithLargeRecords('esm-large', [
    Buffer.from('before'),
    large,
    Buffer.from('after'),
  ]);
  const seen: Array<{ offset: number; bytes: number }> = [];
  const esm = mapping({
    topic,
    consumerGroupId: uniqueName('esm-large-group'),
    function: {
      handler: async (event: KafkaEvent) => {
        for (const record of eventRecords(event))
          seen.push({ offset: record.offset, bytes: Buffer.from(record.value ?? '', 'base64').length });
      },
    },
  });
  await esm.start();
  await esm.idle();
  await esm.stop();
  expect(seen).toEqual([
    { offset: 0, bytes: 6 },
    { offset: 1, bytes: large.length },
    { offset: 2, bytes: 5 },
  ]);
});

it('sends a record too large for any event to the destination (MaximumPayloadSizeExceeded) without invoking it, and moves on', async () => {
  // 4.8 MB of bytes is 6.4 MB as base64, over the 6 MB (6,291,456 bytes) of an event: Lambda cannot invoke with it, and sends it to the
  // on-failure destination. Kafka delivers it in a fetch of its own (larger than the emulator's 1 MB).
  const topic = await topicWithLargeRecords('esm-oversized', [
    Buffer.from('before'),
    Buffer.alloc(4_800_000, 'x'),
    Buffer.from('after'),
  ]);
  const group = uniqueName('esm-oversized-group');
  const { invoked, envelopes } = await offsetsAndEnvelopes({ topic, consumerGroupId: group });
  expect(invoked).toEqual([0, 2]);
  expect(envelopes.map((e) => [e.KafkaBatchInfo.recordInfo.offset, e.requestContext.condition])).toEqual([
    ['1', 'MaximumPayloadSizeExceeded'],
  ]);
  const offsets = kafka.admin();
  await offsets.connect();
  const [committed] = await offsets.fetchOffsets({ groupId: group, topics: [topic] });
  await offsets.disconnect();
  expect(committed?.partitions).toEqual([expect.objectContaining({ partition: 0, offset: '3' })]);
});

describe('invocations at once', () => {
  /** The most invocations of one run that were in the handler at the same time. */
  async function peakConcurrency(
    provisionedPollerConfig?: LocalEventSourceMappingOptions['provisionedPollerConfig'],
  ): Promise<{ peak: number; delivered: number }> {
    const { topic, group } = await seededTopic(kafka, 'esm-pollers', 12, 6);
    let running = 0;
    let peak = 0;
    let delivered = 0;
    const esm = mapping({
      topic,
      consumerGroupId: group,
      batchSize: 1,
      ...(provisionedPollerConfig ? { provisionedPollerConfig } : {}),
      function: {
        handler: async (event: KafkaEvent) => {
          peak = Math.max(peak, ++running);
          // Long enough for every partition's first batch to start before any ends, even on a busy machine.
          await new Promise((resolve) => setTimeout(resolve, 150));
          running--;
          delivered += eventRecords(event).length;
        },
      },
    });
    await esm.start();
    await esm.idle();
    await esm.stop();
    return { peak, delivered };
  }

  it('on demand: one per partition at the most, and every partition at once when all have records', async () => {
    expect(await peakConcurrency()).toEqual({ peak: 12, delivered: 72 });
  });

  it('provisioned: 5 per poller at the most (maximumPollers 1: 5 of the 12 partitions at once)', async () => {
    expect(await peakConcurrency({ minimumPollers: 1, maximumPollers: 1 })).toEqual({
      peak: 5,
      delivered: 72,
    });
    expect(await peakConcurrency({ maximumPollers: 2 })).toEqual({ peak: 10, delivered: 72 });
  });
});

describe('an onEvent callback that throws', () => {
  it('cannot make the emulator drop a batch: the failed batch is still retried, its exception reported apart', async () => {
    const topic = uniqueName('emulator-throwing-callback');
    await createTopicWith(
      kafka,
      topic,
      [0, 1, 2].map((n) => ({ value: JSON.stringify({ n }) })),
    );
    const script = fileURLToPath(
      new URL('../../test/support/emulator-throwing-callback.ts', import.meta.url),
    );
    const child = spawnSync(
      process.execPath,
      [
        '--conditions=kafka-lambda-source',
        '--disable-warning=TimeoutNegativeWarning',
        script,
        testBrokers().join(','),
        topic,
      ],
      {
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    expect(child.status, child.stderr).toBe(0);
    expect(JSON.parse(child.stdout.trim().split('\n').at(-1)!)).toEqual({
      processed: [0, 1, 2],
      committed: [3],
      uncaught: ['an assertion inside onEvent failed'],
    });
  });
});
