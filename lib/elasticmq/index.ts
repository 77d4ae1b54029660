/**
 * A real SQS-compatible server for tests and local work, without Docker: ElasticMQ's jars from
 * Maven Central, on 127.0.0.1, messages in memory. The emulator sends `arn:aws:sqs:…` on-failure
 * destinations to it; `kafka-lambda sqs start` runs it in the background.
 *
 * @example
 * ```ts
 * await using sqs = await startElasticMq({ queues: ['orders-dlq'] });
 * createLocalEventSourceMapping({ ...options, onFailure: sqs.queueArn('orders-dlq'), destinations: { sqsEndpoint: sqs.endpoint } });
 * ```
 */
export { ElasticMqError, ElasticMqPrerequisiteError, ElasticMqStartError } from './errors.ts';
export { DEFAULT_ELASTICMQ_VERSION, resolveElasticMqJars } from './jars.ts';
export { assertQueueNames, createQueues, InvalidQueueNameError, queueNameProblem } from './queues.ts';
export { type ElasticMq, type StartElasticMqOptions, startElasticMq } from './server.ts';
export {
  backgroundSqsStatus,
  type SqsServerRecord,
  type SqsServerStatus,
  type StartBackgroundSqsOptions,
  startBackgroundSqs,
  stopBackgroundSqs,
} from './state.ts';
