import { describeError, type KafkaBatchLogger, type KafkaBatchMetrics } from './log.ts';
import type { BatchSummary } from './summary.ts';
import { isThenable } from './thenable.ts';

/**
 * Adds an invocation's metrics (from its summary) to a Powertools-compatible `metrics`: record counts
 * and, in milliseconds, the oldest record's age (when known) and the batch's duration. Never throws:
 * the records are done, and failing the invocation now would only run them all again, so a failing
 * `addMetric` is logged as a warning instead.
 *
 * @example
 * ```ts
 * addBatchMetrics(metrics, summary, logger); // KafkaRecords, KafkaRecordsProcessed, … KafkaBatchDuration
 * ```
 */
export function addBatchMetrics(
  metrics: KafkaBatchMetrics,
  summary: BatchSummary,
  logger: KafkaBatchLogger,
): void {
  const failed = (error: unknown) => logger.warn('Kafka batch metrics not added', describeError(error));
  // An adapter may answer with a promise: its rejection, unheard, would end the process (Node's and
  // Lambda's runtime exit on an unhandled rejection) and so fail the invocation after all.
  const add = (name: string, unit: 'Count' | 'Milliseconds', value: number) => {
    const added: unknown = metrics.addMetric(name, unit, value);
    if (isThenable(added)) Promise.resolve(added).catch(failed);
  };
  try {
    add('KafkaRecords', 'Count', summary.records);
    add('KafkaRecordsProcessed', 'Count', summary.processed);
    add('KafkaRecordsFailed', 'Count', summary.failed);
    add('KafkaRecordsSkipped', 'Count', summary.skipped);
    add('KafkaRecordsReported', 'Count', summary.reported);
    if (summary.oldestRecordAgeMs !== null)
      add('KafkaOldestRecordAge', 'Milliseconds', summary.oldestRecordAgeMs);
    add('KafkaBatchDuration', 'Milliseconds', summary.durationMs);
  } catch (error) {
    failed(error);
  }
}
