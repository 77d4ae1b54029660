import type { Context } from 'aws-lambda';
import { expect, it } from 'vitest';
import { recordId, seededTopic } from '../../test/support/emulator.ts';
import { committedOffsetsByKafkaTool, testBrokers, testKafka } from '../../test/support/kafka.ts';
import type { KafkaBatchResponse, KafkaEvent } from '../kafka-event/types.ts';
import { createLocalEventSourceMapping, type LocalEventSourceMapping, type Redelivery } from './index.ts';

const PARTITIONS = 16;
const PER_PARTITION = 6_250;
const TOTAL = PARTITIONS * PER_PARTITION; // 100,000 records
const kafka = testKafka('emulator-chaos');

/**
 * At-least-once under chaos: ~5% of records fail at random, every 25th invocation times out, and the
 * emulator is stopped without a clean commit several times. Every record must end up processed
 * successfully at least once; a record counts only if its invocation returned in time and did not
 * report it failed (Lambda ignores a timed-out invocation's result).
 */
it.each<Redelivery>(['from-lowest', 'listed'])(
  'processes every one of 100,000 records at least once across abandoned stops (redelivery: %s)',
  { timeout: 240_000 },
  async (redelivery) => {
    const { topic, group } = await seededTopic(kafka, 'chaos', PARTITIONS, PER_PARTITION);

    const processed = new Set<string>();
    let failedRecords = 0;
    let invocations = 0;
    let timeouts = 0;
    const handler = async (event: KafkaEvent, context: Context): Promise<KafkaBatchResponse> => {
      const done: string[] = [];
      const batchItemFailures = [];
      for (const records of Object.values(event.records)) {
        for (const record of records) {
          if (Math.random() < 0.05) {
            failedRecords++;
            batchItemFailures.push({
              itemIdentifier: { partition: `${record.topic}-${record.partition}`, offset: record.offset },
            });
          } else {
            done.push(recordId(record));
          }
        }
      }
      // Every 25th invocation times out: deterministic, so every run has timeouts (at least 200
      // invocations carry the 100,000 records in batches of 500).
      if (++invocations % 25 === 0) {
        timeouts++;
        await new Promise((r) => setTimeout(r, 300));
      }
      // A timed-out invocation's result never reaches the mapping: its records are not done.
      if (context.getRemainingTimeInMillis() > 0) for (const id of done) processed.add(id);
      return { batchItemFailures };
    };

    const start = async (): Promise<LocalEventSourceMapping> => {
      const esm = createLocalEventSourceMapping({
        brokers: testBrokers(),
        topic,
        consumerGroupId: group,
        batchSize: 500,
        maximumBatchingWindowInSeconds: 0,
        reportBatchItemFailures: true,
        redelivery,
        retryBackoff: { initialMs: 1, maxMs: 10 },
        function: { handler, timeoutSeconds: 0.25 },
      });
      await esm.start();
      return esm;
    };

    // Five stops without a clean commit, each as soon as another seventh of the records is done, so
    // every stop interrupts work in progress.
    const progressAtStops: number[] = [];
    for (let round = 1; round <= 5; round++) {
      const esm = await start();
      while (processed.size < (TOTAL * round) / 7) await new Promise((r) => setTimeout(r, 5));
      await esm.stop({ abandon: true });
      progressAtStops.push(processed.size);
    }
    expect(progressAtStops.at(-1)).toBeLessThan(TOTAL);
    const esm = await start();
    await esm.idle();
    await esm.stop();

    expect(failedRecords).toBeGreaterThan(1_000);
    expect(timeouts).toBeGreaterThan(0);
    const missing: string[] = [];
    for (let p = 0; p < PARTITIONS; p++) {
      for (let o = 0; o < PER_PARTITION; o++) if (!processed.has(`${p}:${o}`)) missing.push(`${p}:${o}`);
    }
    expect(missing).toEqual([]);
    const offsets = await committedOffsetsByKafkaTool(group);
    expect(offsets.map((row) => row.currentOffset)).toEqual(Array(PARTITIONS).fill(PER_PARTITION));
  },
);
