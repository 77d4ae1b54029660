import { expect, it } from 'vitest';
import { committedOffsetsByKafkaTool, testBrokers, testKafka } from '../../test/kafka.ts';
import type { KafkaBatchResponse, KafkaEvent } from '../kafka-event/types.ts';
import type { FailureEnvelope } from './destination.ts';
import { createLocalEventSourceMapping, type LocalEventSourceMappingOptions } from './index.ts';
import { eventRecords, seededTopic } from './test-support.ts';

const kafka = testKafka('emulator-exhaustion');

function mapping(options: Omit<LocalEventSourceMappingOptions, 'brokers'>) {
  return createLocalEventSourceMapping({
    brokers: testBrokers(),
    maximumBatchingWindowInSeconds: 0,
    reportBatchItemFailures: true,
    retryBackoff: { initialMs: 5, maxMs: 20 },
    ...options,
  });
}

function failures(topic: string, offsets: number[]): KafkaBatchResponse {
  return {
    batchItemFailures: offsets.map((offset) => ({ itemIdentifier: { partition: `${topic}-0`, offset } })),
  };
}

it('a retry that fails as a whole after a partial failure sends every record it held to the destination', async () => {
  const { topic, group } = await seededTopic(kafka, 'exhaust-partial', 1, 10);
  const invoked: number[][] = [];
  const envelopes: FailureEnvelope[] = [];
  const esm = mapping({
    topic,
    consumerGroupId: group,
    maximumRetryAttempts: 1,
    onFailure: (envelope) => void envelopes.push(envelope),
    function: {
      handler: async (event: KafkaEvent) => {
        invoked.push(eventRecords(event).map((r) => r.offset));
        if (invoked.length === 1) return failures(topic, [5]);
        throw new Error('downstream unavailable');
      },
    },
  });
  await esm.start();
  await esm.idle();
  await esm.stop();
  expect(invoked).toEqual([
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    [5, 6, 7, 8, 9],
  ]);
  expect(envelopes.map((e) => e.KafkaBatchInfo.recordInfo.offset)).toEqual(['5', '6', '7', '8', '9']);
  expect(envelopes[0]?.responseContext?.functionError).toBe('Unhandled');
  expect(await committedOffsetsByKafkaTool(group)).toEqual([
    { topic, partition: 0, currentOffset: 10, logEndOffset: 10 },
  ]);
});
