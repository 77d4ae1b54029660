import { describe, expect, it } from 'vitest';
import { batchSummary } from './summary.ts';

const input = {
  recordCount: 5,
  tally: { processed: 2, failed: 1, skipped: 1 },
  reported: 2,
  partitionCount: 2,
  oldestTimestamp: 1_000,
  startedAt: 60_000,
  finishedAt: 61_250,
  timedOut: false,
  ordering: 'key' as const,
};

describe('batchSummary', () => {
  it('lists the counts, the oldest record age and the duration, in the log line order', () => {
    const summary = batchSummary(input);
    expect(summary).toEqual({
      records: 5,
      processed: 2,
      failed: 1,
      skipped: 1,
      reported: 2,
      partitions: 2,
      oldestRecordAgeMs: 60_250,
      durationMs: 1_250,
      timedOut: false,
      ordering: 'key',
    });
    // The line's field order is part of what people read in CloudWatch.
    expect(Object.keys(summary)).toEqual([
      'records',
      'processed',
      'failed',
      'skipped',
      'reported',
      'partitions',
      'oldestRecordAgeMs',
      'durationMs',
      'timedOut',
      'ordering',
    ]);
  });

  it('has no record age when no record has a timestamp', () => {
    expect(batchSummary({ ...input, oldestTimestamp: Number.NaN }).oldestRecordAgeMs).toBeNull();
  });

  it('passes the timeout flag and the partition-run ordering through', () => {
    const summary = batchSummary({ ...input, timedOut: true, ordering: 'partition-run' });
    expect(summary.timedOut).toBe(true);
    expect(summary.ordering).toBe('partition-run');
  });
});
