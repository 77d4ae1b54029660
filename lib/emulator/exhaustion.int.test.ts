import { expect, it } from 'vitest';
import {
  envelopeOffsets,
  eventRecords,
  partialResponseMapping as mapping,
  runToIdle,
  seededTopic,
} from '../../test/support/emulator.ts';
import { committedOffsetsByKafkaTool, testKafka } from '../../test/support/kafka.ts';
import type { KafkaBatchResponse, KafkaEvent } from '../kafka-event/types.ts';
import { describeEvent } from './progress.ts';

const kafka = testKafka('emulator-exhaustion');

function failures(topic: string, offsets: number[]): KafkaBatchResponse {
  return {
    batchItemFailures: offsets.map((offset) => ({ itemIdentifier: { partition: `${topic}-0`, offset } })),
  };
}

it('a retry that fails as a whole after a partial failure sends every record it held to the destination', async () => {
  const { topic, group } = await seededTopic(kafka, 'exhaust-partial', 1, 10);
  const { invoked, envelopes } = await runToIdle(
    { topic, consumerGroupId: group, maximumRetryAttempts: 1 },
    async (_event, _offsets, invocation) => {
      if (invocation === 1) return failures(topic, [5]);
      throw new Error('downstream unavailable');
    },
  );
  expect(invoked).toEqual([
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    [5, 6, 7, 8, 9],
  ]);
  expect(envelopeOffsets(envelopes)).toEqual(['5', '6', '7', '8', '9']);
  expect(envelopes[0]?.responseContext?.functionError).toBe('Unhandled');
  expect(await committedOffsetsByKafkaTool(group)).toEqual([
    { topic, partition: 0, currentOffset: 10, logEndOffset: 10 },
  ]);
});

it('bisect: records left after the first half exhausts its retries run before the second half, and no commit passes them', async () => {
  const { topic, group } = await seededTopic(kafka, 'exhaust-bisect', 1, 10);
  const timeline: Array<{ invoked: number[] } | { committed: number }> = [];
  const { invoked, envelopes } = await runToIdle(
    {
      topic,
      consumerGroupId: group,
      maximumRetryAttempts: 3,
      bisectBatchOnFunctionError: true,
      onEvent: (event) => {
        if (event.type === 'commit') timeline.push({ committed: event.offsets[`${topic}-0`]! });
      },
    },
    async (_event, offsets) => {
      timeline.push({ invoked: offsets });
      if (offsets.length > 5) throw new Error('batch too large');
      return failures(topic, offsets.includes(2) ? [2] : []);
    },
  );
  expect(invoked).toEqual([
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    [0, 1, 2, 3, 4],
    // The split used none of the 3 retries: the first attempt of [0..4] and 3 retries of [2, 3, 4].
    [2, 3, 4],
    [2, 3, 4],
    [2, 3, 4],
    [3, 4],
    [5, 6, 7, 8, 9],
  ]);
  let committed = 0;
  for (const entry of timeline) {
    if ('committed' in entry) committed = entry.committed;
    else expect(committed).toBeLessThanOrEqual(entry.invoked[0]!);
  }
  expect(envelopeOffsets(envelopes)).toEqual(['2']);
  expect(await committedOffsetsByKafkaTool(group)).toEqual([
    { topic, partition: 0, currentOffset: 10, logEndOffset: 10 },
  ]);
});

it('bisect does not use up retries: one poison record in a batch of 100 reaches the destination alone (3 retries)', async () => {
  const poison = 37;
  const { topic, group } = await seededTopic(kafka, 'exhaust-poison', 1, 100, (_p, seq) => ({ seq }));
  const poisonAttempts: number[] = [];
  const { envelopes } = await runToIdle(
    {
      topic,
      consumerGroupId: group,
      batchSize: 100,
      // Wait for the whole batch: the first invocation holds all 100 records.
      maximumBatchingWindowInSeconds: 5,
      maximumRetryAttempts: 3,
      bisectBatchOnFunctionError: true,
      // The handler fails the whole batch (no partial response), as a crash or timeout does.
      reportBatchItemFailures: false,
    },
    async (_event, offsets) => {
      if (!offsets.includes(poison)) return;
      if (offsets.length === 1) poisonAttempts.push(poison);
      throw new Error('cannot process the batch');
    },
  );
  expect(envelopeOffsets(envelopes)).toEqual([String(poison)]);
  // Isolated, then the first attempt and 3 retries of the record alone.
  expect(poisonAttempts).toHaveLength(4);
  expect(envelopes[0]?.requestContext.approximateInvokeCount).toBe(4);
  expect(await committedOffsetsByKafkaTool(group)).toEqual([
    { topic, partition: 0, currentOffset: 100, logEndOffset: 100 },
  ]);
});

it('a destination that keeps failing: the record is dropped after three deliveries, counted, and the partition moves on', async () => {
  // AWS: "If delivery to the destination fails, […] For the DroppedEventCount metric, Lambda emits a number
  // equal to the number of events that failed delivery."
  // https://docs.aws.amazon.com/lambda/latest/dg/monitoring-metrics-types.html#event-source-mapping-metrics
  const { topic, group } = await seededTopic(kafka, 'exhaust-dlq-down', 1, 3);
  const deliveries: string[] = [];
  const lines: string[] = [];
  const esm = mapping({
    topic,
    consumerGroupId: group,
    maximumRetryAttempts: 0,
    onFailure: (envelope) => {
      deliveries.push(envelope.KafkaBatchInfo.recordInfo.offset);
      throw new Error('destination unavailable');
    },
    onEvent: (event) => {
      if (event.type === 'destination') lines.push(describeEvent(event)!);
    },
    function: {
      handler: async (event: KafkaEvent) => {
        const failed = eventRecords(event).filter((r) => r.offset === 1);
        return failures(
          topic,
          failed.map((r) => r.offset),
        );
      },
    },
  });
  await esm.start();
  await esm.idle();
  await esm.stop();
  // Lambda counts such records in DroppedEventCount and goes on; it does not hold the partition.
  expect(deliveries).toEqual(['1', '1', '1']);
  expect(lines).toEqual([
    `${topic}-0@1 dropped: delivery to the on-failure destination failed (RetryAttemptsExhausted)`,
  ]);
  expect(esm.stats()).toMatchObject({ droppedRecords: 1, destinationRecords: 0 });
  expect(await committedOffsetsByKafkaTool(group)).toEqual([
    { topic, partition: 0, currentOffset: 3, logEndOffset: 3 },
  ]);
});

it('bisect with no retries: the splits are counted as splits, not retries, and each reads as a split', async () => {
  const { topic, group } = await seededTopic(kafka, 'exhaust-splits', 1, 8);
  const lines: string[] = [];
  const { esm, invoked, envelopes } = await runToIdle(
    {
      topic,
      consumerGroupId: group,
      batchSize: 8,
      maximumBatchingWindowInSeconds: 5,
      maximumRetryAttempts: 0,
      bisectBatchOnFunctionError: true,
      reportBatchItemFailures: false,
      onEvent: (event) => {
        const line = describeEvent(event);
        if (line && (event.type === 'retry' || event.type === 'bisect')) lines.push(line);
      },
    },
    async (_event, offsets) => {
      if (offsets.includes(2)) throw new Error('cannot process the batch');
    },
  );
  expect(invoked).toEqual([[0, 1, 2, 3, 4, 5, 6, 7], [0, 1, 2, 3], [0, 1], [2, 3], [2], [3], [4, 5, 6, 7]]);
  expect(envelopeOffsets(envelopes)).toEqual(['2']);
  expect(esm.stats()).toMatchObject({ invocations: 7, functionErrors: 4, retries: 0, splits: 3 });
  expect(lines).toEqual([
    `bisect: 8 records from ${topic}-0@0 split into 4 + 4; retries used 0 of 0`,
    `bisect: 4 records from ${topic}-0@0 split into 2 + 2; retries used 0 of 0`,
    `bisect: 2 records from ${topic}-0@2 split into 1 + 1; retries used 0 of 0`,
  ]);
});
