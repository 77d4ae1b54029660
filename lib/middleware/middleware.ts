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
 * It produces the response in its `after` phase: `.use()` it last (innermost), and give `middy()` no
 * handler. Enable `ReportBatchItemFailures` on the trigger, or Lambda ignores the response.
 *
 * @throws {KafkaEventError} (when invoked) if the payload is not a Kafka event or a record lacks
 * topic, partition or offset: Lambda then retries the batch.
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
  // A named function: Middy's plugin hooks (a profiler, a tracer) identify middlewares by it.
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
  return { name: 'kafkaBatch', after: kafkaBatchAfter };
}

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
