import { ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { eventRecords, partialResponseMapping as mapping, seededTopic } from '../../test/support/emulator.ts';
import {
  committedOffsetsByKafkaTool,
  createTopicWith,
  testKafka,
  uniqueName,
} from '../../test/support/kafka.ts';
import { type ElasticMq, startElasticMq } from '../elasticmq/index.ts';
import type { KafkaBatchResponse, KafkaEvent } from '../kafka-event/types.ts';
import type { BatchFailureEnvelope } from './destination.ts';
import { InvalidMappingSettingError } from './errors.ts';

// The SQS on-failure destination end to end: the emulator sends to a real SQS-compatible server
// (ElasticMQ) through the AWS SDK, and the test reads the queue back with the SDK like any consumer.

const kafka = testKafka('emulator-sqs-destination');
const queues = {
  partial: uniqueName('dlq-partial'),
  whole: uniqueName('dlq-whole'),
  mixed: uniqueName('dlq-mixed'),
  aged: uniqueName('dlq-aged'),
  filtered: uniqueName('dlq-filtered'),
};
let sqs: ElasticMq;
let client: SQSClient;

beforeAll(async () => {
  sqs = await startElasticMq({ queues: Object.values(queues), region: 'eu-west-1' });
  client = new SQSClient({ endpoint: sqs.endpoint, region: sqs.region, credentials: sqs.credentials });
});

afterAll(async () => {
  client?.destroy();
  await sqs?.stop();
});

/** Every message on the queue: receives until one long poll comes back empty (bounded). */
async function drain(queue: string): Promise<BatchFailureEnvelope[]> {
  const queueUrl = `${sqs.endpoint}/${sqs.accountId}/${queue}`;
  const bodies: string[] = [];
  for (let poll = 0; poll < 50; poll++) {
    const { Messages = [] } = await client.send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
    );
    if (Messages.length === 0) break;
    bodies.push(...Messages.map((message) => message.Body ?? ''));
  }
  return bodies.map((body) => JSON.parse(body) as BatchFailureEnvelope);
}

it('an exhausted partial failure sends one SQS message for the failed record: the documented envelope, no payload', async () => {
  const { topic, group } = await seededTopic(kafka, 'sqs-partial', 1, 6);
  const esm = mapping({
    topic,
    consumerGroupId: group,
    maximumRetryAttempts: 2,
    onFailure: sqs.queueArn(queues.partial),
    destinations: { sqsEndpoint: sqs.endpoint },
    function: {
      functionName: 'orders',
      handler: async (event: KafkaEvent): Promise<KafkaBatchResponse> => ({
        batchItemFailures: eventRecords(event)
          .filter((r) => r.offset === 2)
          .map((r) => ({ itemIdentifier: { partition: `${r.topic}-${r.partition}`, offset: r.offset } })),
      }),
    },
  });
  await esm.start();
  await esm.idle();
  await esm.stop();

  const [envelope, ...others] = await drain(queues.partial);
  expect(others).toEqual([]);
  expect(envelope!.requestContext).toEqual({
    requestId: expect.any(String),
    // The SQS page shows the unqualified ARN and the RetryAttemptsExhausted spelling (kafka-on-failure.html).
    functionArn: expect.stringMatching(/^arn:aws:lambda:[^:]+:\d{12}:function:orders$/),
    condition: 'RetryAttemptsExhausted',
    approximateInvokeCount: 3,
  });
  expect(envelope!.responseContext).toEqual({ statusCode: 200, executedVersion: '$LATEST' });
  expect(envelope!.version).toBe('1.0');
  expect(Date.parse(envelope!.timestamp)).not.toBeNaN();
  expect(envelope!.KafkaBatchInfo).toEqual({
    batchSize: 1,
    eventSourceArn: expect.stringMatching(/^arn:aws:kafka:/),
    bootstrapServers: expect.any(String),
    payloadSize: expect.any(Number),
    recordsInfo: {
      [`${topic}-0`]: {
        firstRecordOffset: '2',
        lastRecordOffset: '2',
        firstRecordTimestamp: expect.any(String),
        lastRecordTimestamp: expect.any(String),
      },
    },
  });
  expect(envelope).not.toHaveProperty('payload');
  expect(await committedOffsetsByKafkaTool(group)).toEqual([
    { topic, partition: 0, currentOffset: 6, logEndOffset: 6 },
  ]);
});

it('function errors: one SQS message per failed batch, whose offset ranges cover every record exactly once', async () => {
  const { topic, group } = await seededTopic(kafka, 'sqs-whole', 2, 15);
  const batches: Array<Record<string, number[]>> = [];
  const esm = mapping({
    topic,
    consumerGroupId: group,
    batchSize: 4,
    maximumRetryAttempts: 0,
    onFailure: sqs.queueArn(queues.whole),
    destinations: { sqsEndpoint: sqs.endpoint },
    function: {
      functionName: 'orders',
      handler: async (event: KafkaEvent) => {
        batches.push(
          Object.fromEntries(
            Object.entries(event.records).map(([key, rs]) => [key, rs.map((r) => r.offset)]),
          ),
        );
        throw new Error('downstream unavailable');
      },
    },
  });
  await esm.start();
  await esm.idle();
  await esm.stop();

  const envelopes = await drain(queues.whole);
  expect(envelopes).toHaveLength(batches.length);
  const covered: Record<string, number[]> = {};
  for (const envelope of envelopes) {
    expect(envelope.requestContext).toMatchObject({
      condition: 'RetryAttemptsExhausted',
      approximateInvokeCount: 1,
    });
    expect(envelope.responseContext).toEqual({
      statusCode: 200,
      executedVersion: '$LATEST',
      functionError: 'Unhandled',
    });
    let size = 0;
    for (const [key, info] of Object.entries(envelope.KafkaBatchInfo.recordsInfo)) {
      const first = Number(info.firstRecordOffset);
      const last = Number(info.lastRecordOffset);
      size += last - first + 1;
      const offsets = covered[key] ?? [];
      for (let offset = first; offset <= last; offset++) offsets.push(offset);
      covered[key] = offsets;
      expect(Date.parse(info.lastRecordTimestamp)).toBeGreaterThanOrEqual(
        Date.parse(info.firstRecordTimestamp),
      );
    }
    expect(envelope.KafkaBatchInfo.batchSize).toBe(size);
  }
  const everyOffset = Array.from({ length: 15 }, (_, i) => i);
  expect(Object.fromEntries(Object.entries(covered).map(([k, v]) => [k, v.sort((a, b) => a - b)]))).toEqual({
    [`${topic}-0`]: everyOffset,
    [`${topic}-1`]: everyOffset,
  });
  expect(await committedOffsetsByKafkaTool(group)).toEqual([
    { topic, partition: 0, currentOffset: 15, logEndOffset: 15 },
    { topic, partition: 1, currentOffset: 15, logEndOffset: 15 },
  ]);
});

it("records too old and records whose retries ran out: the SQS messages follow each partition's offsets, no two covering the same record", async () => {
  const topic = uniqueName('sqs-mixed');
  const group = uniqueName('sqs-mixed-group');
  const old = String(Date.now() - 120_000);
  await createTopicWith(
    kafka,
    topic,
    [
      { partition: 0, value: '{"n":0}' },
      { partition: 0, value: '{"n":1}', timestamp: old },
      { partition: 0, value: '{"n":2}' },
      { partition: 1, value: '{"n":0}' },
    ],
    2,
  );
  const invoked: string[][] = [];
  const esm = mapping({
    topic,
    consumerGroupId: group,
    // One batch of the four records, once both partitions are fetched.
    batchSize: 4,
    maximumBatchingWindowInSeconds: 5,
    maximumRecordAgeInSeconds: 60,
    maximumRetryAttempts: 0,
    onFailure: sqs.queueArn(queues.mixed),
    destinations: { sqsEndpoint: sqs.endpoint },
    function: {
      handler: async (event: KafkaEvent) => {
        invoked.push(eventRecords(event).map((r) => `${r.partition}@${r.offset}`));
        throw new Error('downstream unavailable');
      },
    },
  });
  await esm.start();
  await esm.idle();
  await esm.stop();

  expect(invoked.map((records) => records.sort())).toEqual([['0@0', '0@2', '1@0']]);
  // p0@1 was too old before the invocation whose failure sent p0@0 and p0@2: it goes between them.
  const messages = (await drain(queues.mixed)).map((envelope) => ({
    condition: envelope.requestContext.condition,
    batchSize: envelope.KafkaBatchInfo.batchSize,
    ranges: Object.fromEntries(
      Object.entries(envelope.KafkaBatchInfo.recordsInfo).map(([key, info]) => [
        key.slice(topic.length + 1),
        `${info.firstRecordOffset}-${info.lastRecordOffset}`,
      ]),
    ),
  }));
  expect(messages).toEqual([
    { condition: 'RetryAttemptsExhausted', batchSize: 2, ranges: { 0: '0-0', 1: '0-0' } },
    { condition: 'RecordAgeExceeded', batchSize: 1, ranges: { 0: '1-1' } },
    { condition: 'RetryAttemptsExhausted', batchSize: 1, ranges: { 0: '2-2' } },
  ]);
  expect(esm.stats()).toMatchObject({ destinationRecords: 4, droppedRecords: 0 });
  expect(await committedOffsetsByKafkaTool(group)).toEqual([
    { topic, partition: 0, currentOffset: 3, logEndOffset: 3 },
    { topic, partition: 1, currentOffset: 1, logEndOffset: 1 },
  ]);
});

/** Each message as condition, batch size and per-partition `first-last` range (partition number as key). */
function summary(topic: string, envelope: BatchFailureEnvelope) {
  return {
    condition: envelope.requestContext.condition,
    batchSize: envelope.KafkaBatchInfo.batchSize,
    ranges: Object.fromEntries(
      Object.entries(envelope.KafkaBatchInfo.recordsInfo).map(([key, info]) => [
        key.slice(topic.length + 1),
        `${info.firstRecordOffset}-${info.lastRecordOffset}`,
      ]),
    ),
  };
}

it('records too old on both sides of one that succeeded: two SQS messages, neither range covering the record that succeeded', async () => {
  const topic = uniqueName('sqs-aged');
  const group = uniqueName('sqs-aged-group');
  const old = String(Date.now() - 3_600_000);
  await createTopicWith(kafka, topic, [
    { value: '{"n":0}', timestamp: old },
    { value: '{"n":1}', timestamp: old },
    { value: '{"n":2}' },
    { value: '{"n":3}', timestamp: old },
  ]);
  const invoked: number[][] = [];
  const esm = mapping({
    topic,
    consumerGroupId: group,
    batchSize: 4,
    maximumBatchingWindowInSeconds: 1,
    maximumRecordAgeInSeconds: 60,
    maximumRetryAttempts: 1,
    onFailure: sqs.queueArn(queues.aged),
    destinations: { sqsEndpoint: sqs.endpoint },
    function: {
      handler: async (event: KafkaEvent) => {
        invoked.push(eventRecords(event).map((r) => r.offset));
      },
    },
  });
  await esm.start();
  await esm.idle();
  await esm.stop();

  expect(invoked).toEqual([[2]]);
  expect((await drain(queues.aged)).map((envelope) => summary(topic, envelope))).toEqual([
    { condition: 'RecordAgeExceeded', batchSize: 2, ranges: { 0: '0-1' } },
    { condition: 'RecordAgeExceeded', batchSize: 1, ranges: { 0: '3-3' } },
  ]);
  expect(await committedOffsetsByKafkaTool(group)).toEqual([
    { topic, partition: 0, currentOffset: 4, logEndOffset: 4 },
  ]);
});

it('a record that matched no filter between records whose retries ran out: no SQS message range covers it', async () => {
  const topic = uniqueName('sqs-filtered');
  const group = uniqueName('sqs-filtered-group');
  await createTopicWith(kafka, topic, [
    { value: '{"keep":true,"n":0}' },
    { value: '{"keep":true,"n":1}' },
    { value: '{"keep":false,"n":2}' },
    { value: '{"keep":true,"n":3}' },
  ]);
  const invoked: number[][] = [];
  const esm = mapping({
    topic,
    consumerGroupId: group,
    batchSize: 4,
    maximumBatchingWindowInSeconds: 1,
    maximumRetryAttempts: 0,
    filterCriteria: { Filters: [{ Pattern: JSON.stringify({ value: { keep: [true] } }) }] },
    onFailure: sqs.queueArn(queues.filtered),
    destinations: { sqsEndpoint: sqs.endpoint },
    function: {
      handler: async (event: KafkaEvent) => {
        invoked.push(eventRecords(event).map((r) => r.offset));
        throw new Error('downstream unavailable');
      },
    },
  });
  await esm.start();
  await esm.idle();
  await esm.stop();

  expect(invoked).toEqual([[0, 1, 3]]);
  expect((await drain(queues.filtered)).map((envelope) => summary(topic, envelope))).toEqual([
    { condition: 'RetryAttemptsExhausted', batchSize: 2, ranges: { 0: '0-1' } },
    { condition: 'RetryAttemptsExhausted', batchSize: 1, ranges: { 0: '3-3' } },
  ]);
  expect(await committedOffsetsByKafkaTool(group)).toEqual([
    { topic, partition: 0, currentOffset: 4, logEndOffset: 4 },
  ]);
});

it('a queue that does not exist is said at start, before any record is read', async () => {
  const { topic, group } = await seededTopic(kafka, 'sqs-missing', 1, 2);
  const missing = uniqueName('dlq-missing');
  const esm = mapping({
    topic,
    consumerGroupId: group,
    onFailure: sqs.queueArn(missing),
    destinations: { sqsEndpoint: sqs.endpoint },
    function: { handler: async () => ({ batchItemFailures: [] }) },
  });
  const error = await esm.start().catch((thrown: unknown) => thrown);
  expect(error).toBeInstanceOf(InvalidMappingSettingError);
  expect((error as InvalidMappingSettingError).setting).toBe('onFailure');
  expect((error as Error).message).toBe(
    `onFailure: the SQS queue ${missing} does not exist on the SQS server at ${new URL(sqs.endpoint).host}: create it first (kafka-lambda sqs start --queue ${missing})`,
  );
  // Nothing was read or committed.
  expect(await committedOffsetsByKafkaTool(group)).toEqual([]);
});
