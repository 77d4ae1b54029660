import { describe, expect, it } from 'vitest';
import type { KafkaBatchLogger } from './log.ts';
import { addBatchMetrics } from './metrics.ts';
import type { BatchSummary } from './summary.ts';

const summary: BatchSummary = {
  records: 5,
  processed: 2,
  failed: 1,
  skipped: 1,
  reported: 2,
  partitions: 2,
  oldestRecordAgeMs: 60_250,
  durationMs: 1_250,
  timedOut: false,
  ordering: 'partition',
};

function capture() {
  const lines: [string, string, Record<string, unknown>][] = [];
  const logger: KafkaBatchLogger = {
    info: (message, attributes) => lines.push(['info', message, attributes]),
    warn: (message, attributes) => lines.push(['warn', message, attributes]),
    error: (message, attributes) => lines.push(['error', message, attributes]),
  };
  return { lines, logger };
}

describe('addBatchMetrics', () => {
  it('adds the record counts, the oldest record age and the duration', () => {
    const added: [string, string, number][] = [];
    const { lines, logger } = capture();
    addBatchMetrics({ addMetric: (name, unit, value) => added.push([name, unit, value]) }, summary, logger);
    expect(added).toEqual([
      ['KafkaRecords', 'Count', 5],
      ['KafkaRecordsProcessed', 'Count', 2],
      ['KafkaRecordsFailed', 'Count', 1],
      ['KafkaRecordsSkipped', 'Count', 1],
      ['KafkaRecordsReported', 'Count', 2],
      ['KafkaOldestRecordAge', 'Milliseconds', 60_250],
      ['KafkaBatchDuration', 'Milliseconds', 1_250],
    ]);
    expect(lines).toEqual([]);
  });

  it('adds no record age when none is known', () => {
    const names: string[] = [];
    addBatchMetrics(
      { addMetric: (name) => names.push(name) },
      { ...summary, oldestRecordAgeMs: null },
      capture().logger,
    );
    expect(names).not.toContain('KafkaOldestRecordAge');
    expect(names).toContain('KafkaBatchDuration');
  });

  it('never throws: a failing addMetric becomes a warning', () => {
    const { lines, logger } = capture();
    const metrics = {
      addMetric: (name: string) => {
        if (name === 'KafkaRecordsFailed') throw new RangeError('too many metrics');
      },
    };
    expect(() => addBatchMetrics(metrics, summary, logger)).not.toThrow();
    expect(lines).toEqual([
      [
        'warn',
        'Kafka batch metrics not added',
        { errorName: 'RangeError', errorMessage: 'too many metrics' },
      ],
    ]);
  });
});
