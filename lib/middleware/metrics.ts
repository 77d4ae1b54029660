import { describeError, type KafkaBatchLogger, type KafkaBatchMetrics } from './log.ts';
import type { BatchSummary } from './summary.ts';

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
  try {
    metrics.addMetric('KafkaRecords', 'Count', summary.records);
    metrics.addMetric('KafkaRecordsProcessed', 'Count', summary.processed);
    metrics.addMetric('KafkaRecordsFailed', 'Count', summary.failed);
    metrics.addMetric('KafkaRecordsSkipped', 'Count', summary.skipped);
    metrics.addMetric('KafkaRecordsReported', 'Count', summary.reported);
    if (summary.oldestRecordAgeMs !== null)
      metrics.addMetric('KafkaOldestRecordAge', 'Milliseconds', summary.oldestRecordAgeMs);
    metrics.addMetric('KafkaBatchDuration', 'Milliseconds', summary.durationMs);
  } catch (error) {
    logger.warn('Kafka batch metrics not added', describeError(error));
  }
}
