import { isThenable } from './thenable.ts';
import { withheldMessage } from './withheld.ts';

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

/**
 * Name and message of anything thrown, for a log line, without ever throwing itself: handlers may
 * throw `undefined`, symbols, null-prototype objects, proxies, or errors whose getters throw. Never
 * calls a thrown object's own `toString`, and never reads `cause` or `stack`: a library's error kept
 * as a cause may quote the payload it choked on. The messages of `JSON.parse`'s `SyntaxError` and of
 * schema libraries' errors, which quote the data, are replaced with where the problem is
 * (`withheldMessage`).
 *
 * @example
 * ```ts
 * describeError(Object.create(null)); // { errorName: 'object', errorMessage: '[object Object]' }
 * ```
 */
export function describeError(error: unknown): { errorName: string; errorMessage: string } {
  if (error === null) return { errorName: 'null', errorMessage: 'null' };
  if (typeof error !== 'object' && typeof error !== 'function')
    return { errorName: typeof error, errorMessage: String(error) };
  const errorName = stringField(error, 'name') || typeof error;
  const errorMessage = stringField(error, 'message') ?? objectTag(error);
  return { errorName, errorMessage: withheldMessage(error, errorName, errorMessage) ?? errorMessage };
}

function stringField(error: object, field: 'name' | 'message'): string | undefined {
  try {
    const value: unknown = (error as Record<string, unknown>)[field];
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

function objectTag(error: object): string {
  try {
    return Object.prototype.toString.call(error);
  } catch {
    return 'unprintable';
  }
}

/**
 * Wraps a logger so that logging can never fail a record or the batch: a method that throws (or
 * returns a rejected promise) is reported on the console instead, as one JSON line naming the
 * message it could not log.
 *
 * @example
 * ```ts
 * const logger = safeLogger(options.logger ?? jsonLogger);
 * ```
 */
export function safeLogger(logger: KafkaBatchLogger): KafkaBatchLogger {
  const guarded =
    (level: 'info' | 'warn' | 'error') =>
    (message: string, attributes: Record<string, unknown>): void => {
      try {
        const result: unknown = logger[level](message, attributes);
        if (isThenable(result))
          Promise.resolve(result).catch((error: unknown) => loggerFailed(message, error));
      } catch (error) {
        loggerFailed(message, error);
      }
    };
  return { info: guarded('info'), warn: guarded('warn'), error: guarded('error') };
}

function loggerFailed(loggedMessage: string, error: unknown): void {
  try {
    console.error(line('ERROR', 'Kafka batch logger failed', { loggedMessage, ...describeError(error) }));
  } catch {
    // The console was the last place left to report to.
  }
}
