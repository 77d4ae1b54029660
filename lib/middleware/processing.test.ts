import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { parseKafkaEvent } from '../kafka-event/parse.ts';
import { createLambdaContext, kafkaEvent } from '../testing/index.ts';
import type { KafkaBatchLogger } from './log.ts';
import type { KafkaRecordHandler } from './options.ts';
import { type BatchConfig, BatchProcessing } from './processing.ts';

// kafkaBatch() hands BatchProcessing a logger that cannot throw; given a raw one that does, it meets
// the only kind of failure left to it: a bug of its own surfacing in a worker.
const failure = new Error('logger down');
const throwingLogger: KafkaBatchLogger = {
  info() {},
  warn() {},
  error() {
    throw failure;
  },
};

function batchProcessing(
  onRecord: KafkaRecordHandler<unknown, unknown>,
  timeoutMs: number,
  timeoutReserveMs = 0,
) {
  const records = [];
  for (let i = 0; i < 10; i++) for (let p = 0; p < 3; p++) records.push({ partition: p, value: { i } });
  const config: BatchConfig = {
    ordering: 'partition',
    concurrency: 16,
    onRecord,
    onPartition: undefined,
    valueSchema: undefined,
    keySchema: undefined,
    onPoison: 'report',
    timeoutReserveMs,
    throwOnBatchFailure: false,
    logger: throwingLogger,
    metrics: undefined,
  };
  const event = parseKafkaEvent(kafkaEvent({ topic: 't', partitions: 3, records }));
  return new BatchProcessing(config, event, createLambdaContext({ timeoutMs }), {
    eventSource: 'aws:kafka',
    eventSourceArn: undefined,
    bootstrapServers: [],
  });
}

describe('BatchProcessing: a worker failing unexpectedly', () => {
  it('stops the processing and aborts the signal; execute() rejects once the records in flight settled', async () => {
    const started: string[] = [];
    let inFlight = 0;
    let signal: AbortSignal | undefined;
    const processing = batchProcessing(async (record, batch) => {
      signal = batch.signal;
      started.push(`${record.partition}@${record.offset}`);
      inFlight++;
      try {
        // Partition 0's records end well before the others' first ones, however loaded the machine.
        await sleep(record.partition === 0 ? 1 : 500);
        if (record.partition === 0 && record.offset === 1) throw new Error('record failed');
      } finally {
        inFlight--;
      }
    }, 10_000);
    await expect(processing.execute()).rejects.toBe(failure);
    expect(inFlight).toBe(0);
    expect(signal?.aborted).toBe(true);
    expect((signal!.reason as DOMException).name).toBe('AbortError');
    const startedWhenFailed = [...started];
    // Partitions 1 and 2 were in the middle of their first record: it completed, nothing followed.
    expect(startedWhenFailed).toEqual(['0@0', '1@0', '2@0', '0@1']);
    await sleep(100);
    expect(started).toEqual(startedWhenFailed);
  });

  it('abandons a record that never settles at the deadline, and starts nothing after', async () => {
    const started: string[] = [];
    const processing = batchProcessing(
      async (record) => {
        started.push(`${record.partition}@${record.offset}`);
        if (record.partition === 1) return new Promise(() => {});
        await sleep(5);
        if (record.offset === 1) throw new Error('record failed');
      },
      600,
      300,
    );
    const begin = Date.now();
    await expect(processing.execute()).rejects.toBe(failure);
    const elapsed = Date.now() - begin;
    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(elapsed).toBeLessThan(600);
    const startedWhenFailed = started.length;
    await sleep(50);
    expect(started).toHaveLength(startedWhenFailed);
    expect(started).not.toContain('0@2');
  });
});
