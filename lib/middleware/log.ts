/**
 * Where the middleware writes its summary line and record errors. Console-compatible in spirit and
 * shape-compatible with the Powertools `Logger` (`logger.info(message, attributes)`): pass either.
 *
 * @example
 * ```ts
 * import { Logger } from '@aws-lambda-powertools/logger';
 * kafkaBatch({ onRecord, logger: new Logger({ serviceName: 'orders' }) });
 * ```
 */
export interface KafkaBatchLogger {
  info(message: string, attributes: Record<string, unknown>): void;
  warn(message: string, attributes: Record<string, unknown>): void;
  error(message: string, attributes: Record<string, unknown>): void;
}

/**
 * The part of a Powertools `Metrics` instance the middleware uses; pass the instance itself. The
 * middleware only adds metrics: publish them as usual (the `logMetrics` middleware, `.use()`d before
 * this one, or `metrics.publishStoredMetrics()`).
 *
 * @example
 * ```ts
 * import { Metrics } from '@aws-lambda-powertools/metrics';
 * const metrics = new Metrics({ namespace: 'orders', serviceName: 'orders' });
 * kafkaBatch({ onRecord, metrics });
 * ```
 */
export interface KafkaBatchMetrics {
  addMetric(name: string, unit: 'Count' | 'Milliseconds', value: number): unknown;
}

/**
 * The default logger: one JSON object per line on the console (what CloudWatch Logs Insights
 * parses), level in `level`.
 *
 * @example
 * ```ts
 * jsonLogger.info('kafka batch', { records: 10 }); // {"level":"INFO","message":"kafka batch","records":10}
 * ```
 */
export const jsonLogger: KafkaBatchLogger = {
  info: (message, attributes) => console.info(line('INFO', message, attributes)),
  warn: (message, attributes) => console.warn(line('WARN', message, attributes)),
  error: (message, attributes) => console.error(line('ERROR', message, attributes)),
};

function line(level: string, message: string, attributes: Record<string, unknown>): string {
  return JSON.stringify({ level, message, ...attributes });
}
