import type { MiddlewareObj, Request } from '@middy/core';
import type { StandardSchemaV1 } from '@standard-schema/spec';
import { KafkaEventError } from '../kafka-event/errors.ts';
import { parseKafkaEvent } from '../kafka-event/parse.ts';
import type { LambdaContext as Context, KafkaBatchResponse, KafkaEvent } from '../kafka-event/types.ts';
import { KafkaBatchOptionsError } from './errors.ts';
import { jsonLogger, safeLogger } from './log.ts';
import {
  isKafkaDecoder,
  KAFKA_BATCH_OPTIONS,
  type KafkaBatchOptions,
  type KafkaBatchSource,
  type KafkaDecoder,
  type KafkaPartitionHandler,
  type KafkaRecordHandler,
} from './options.ts';
import { type BatchConfig, BatchProcessing } from './processing.ts';

/**
 * Middy middleware for functions triggered by Amazon MSK or self-managed Kafka. You write the logic
 * for one record (`onRecord`) or for one partition's run of records (`onPartition`); the middleware
 * validates the event, runs your handler under the chosen ordering and concurrency bound, stops
 * before the Lambda deadline, and returns Lambda's partial batch response by offset: for each
 * partition, the failed record and every later record that did not complete.
 *
 * It produces the response in its `after` phase: `.use()` it last (innermost), once per chain, and
 * give `middy()` no handler. Enable `ReportBatchItemFailures` on the trigger, or Lambda ignores the
 * response. A middleware that replaces the event before it (a parser middleware: give kafkaBatch the
 * schema as its `value` option instead) makes the event one kafkaBatch refuses.
 *
 * @throws {KafkaEventError} (when invoked) if the payload is not a Kafka event (or was replaced by a
 * parser middleware before kafkaBatch) or a record lacks topic, partition or offset: Lambda then
 * retries the batch.
 * @throws {KafkaBatchOptionsError} (when invoked) if the chain has two kafkaBatch, before any record
 * runs.
 * @example
 * ```ts
 * import middy from '@middy/core';
 * import * as v from 'valibot';
 *
 * export const handler = middy().use(
 *   kafkaBatch({
 *     value: v.object({ id: v.string(), total: v.number() }),
 *     onRecord: async (record, { signal }) => {
 *       await billing.charge(record.data.id, record.data.total, { signal });
 *     },
 *   }),
 * );
 * ```
 */
export function kafkaBatch<TValue = unknown, TKey = string | null>(
  options: KafkaBatchOptions<TValue, TKey>,
): MiddlewareObj<KafkaEvent, KafkaBatchResponse, Error, Context> {
  const config = configure(options as KafkaBatchOptions<unknown, unknown>);
  // Named functions: Middy's plugin hooks (a profiler, a tracer) identify middlewares by them.
  // Two kafkaBatch in one chain (a shared chain extended with another) would each run every record,
  // the outer one then finding the inner one's response and failing the invocation: Lambda would
  // retry the batch and repeat every side effect, forever. Every `before` runs before any `after`,
  // so the second one is found before a record starts.
  function kafkaBatchBefore(request: Request<KafkaEvent, KafkaBatchResponse, Error, Context>): void {
    const marked = request as { [IN_CHAIN]?: true };
    if (marked[IN_CHAIN] === true)
      throw new KafkaBatchOptionsError(
        'kafkaBatch is used twice in one Middy chain (a shared chain extended with another .use(kafkaBatch(…))?): each would run every record, so give the chain one kafkaBatch',
      );
    marked[IN_CHAIN] = true;
  }
  async function kafkaBatchAfter(request: Request<KafkaEvent, KafkaBatchResponse, Error, Context>) {
    if (request.response != null)
      throw new KafkaBatchOptionsError(
        "The Middy handler returned a value (or something else set the response, such as Middy's timeoutEarlyResponse), but kafkaBatch produces the response: use middy() without a handler",
      );
    let event: ReturnType<typeof parseKafkaEvent>;
    try {
      event = parseKafkaEvent(request.event);
    } catch (error) {
      if (error instanceof KafkaEventError)
        config.logger.error('Invalid Kafka event', { errorName: error.name, errorMessage: error.message });
      throw error;
    }
    for (const { partition, path, message } of event.warnings)
      config.logger.warn('Kafka event not as Lambda sends it', {
        partition,
        field: path,
        problem: message,
      });
    const processing = new BatchProcessing(config, event, request.context, batchSource(request.event));
    await processing.execute();
    request.response = processing.finish();
  }
  return { name: 'kafkaBatch', before: kafkaBatchBefore, after: kafkaBatchAfter };
}

/**
 * Marks an invocation's Middy request once a kafkaBatch of its chain has run `before`. On the request
 * itself, which every Middy version makes afresh per invocation, rather than on `request.internal`:
 * older Middy versions give every invocation the same `internal` object when the chain was made with
 * `middy({ internal })`. A registered symbol, so that another copy of this package (bundled twice)
 * finds the same one.
 */
const IN_CHAIN: unique symbol = Symbol.for('kafka-lambda.kafkaBatch');

/** The event's trigger fields, read after `parseKafkaEvent` accepted its `eventSource`. */
function batchSource(event: KafkaEvent): KafkaBatchSource {
  const { eventSourceArn, bootstrapServers } = event as {
    eventSourceArn?: unknown;
    bootstrapServers?: unknown;
  };
  return {
    eventSource: event.eventSource,
    eventSourceArn: typeof eventSourceArn === 'string' ? eventSourceArn : undefined,
    bootstrapServers:
      typeof bootstrapServers === 'string'
        ? bootstrapServers
            .split(',')
            .map((server) => server.trim())
            .filter((server) => server !== '')
        : [],
  };
}

function configure(options: KafkaBatchOptions<unknown, unknown>): BatchConfig {
  KAFKA_BATCH_OPTIONS.check(
    options,
    (problem) =>
      new KafkaBatchOptionsError(
        problem.key === undefined ? 'kafkaBatch needs an options object' : problem.message,
      ),
  );
  const onRecord: unknown = options.onRecord;
  const onPartition: unknown = options.onPartition;
  if ((typeof onRecord === 'function') === (typeof onPartition === 'function'))
    throw new KafkaBatchOptionsError('kafkaBatch needs exactly one of onRecord and onPartition (a function)');
  const ordering = options.ordering ?? 'partition';
  if (onPartition !== undefined && ordering !== 'partition')
    throw new KafkaBatchOptionsError("onPartition runs whole partitions: ordering must be 'partition'");
  const decoders: { key?: KafkaDecoder<unknown>; value?: KafkaDecoder<unknown> } = {};
  const schemas: { key?: StandardSchemaV1; value?: StandardSchemaV1 } = {};
  for (const field of ['key', 'value'] as const) {
    const schema = options[field];
    if (schema === undefined) continue;
    if (isKafkaDecoder(schema)) decoders[field] = schema;
    else schemas[field] = schema;
  }
  return {
    ordering,
    concurrency: options.concurrency ?? 16,
    onRecord: onRecord as KafkaRecordHandler<unknown, unknown> | undefined,
    onPartition: onPartition as KafkaPartitionHandler<unknown, unknown> | undefined,
    valueSchema: schemas.value,
    keySchema: schemas.key,
    valueDecoder: decoders.value,
    keyDecoder: decoders.key,
    onPoison: options.onPoison ?? 'report',
    timeoutReserveMs: options.timeoutReserveMs ?? 1000,
    throwOnBatchFailure: options.throwOnBatchFailure ?? false,
    logger: safeLogger(options.logger ?? jsonLogger),
    metrics: options.metrics,
  };
}
