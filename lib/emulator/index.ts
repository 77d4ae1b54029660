// Its types name Node's (Buffer…): declared here, so that a project without @types/node is told so.
/// <reference types="node" preserve="true" />
/**
 * A local emulator of Lambda's Kafka event source mapping.
 *
 * @example
 * ```ts
 * import { createLocalEventSourceMapping } from 'kafka-lambda/emulator';
 *
 * await using mapping = createLocalEventSourceMapping({
 *   brokers: ['127.0.0.1:9092'],
 *   topic: 'orders',
 *   consumerGroupId: 'orders-processor',
 *   reportBatchItemFailures: true,
 *   function: { handler },
 * });
 * await mapping.start();
 * await mapping.idle();
 * ```
 */

export { LAMBDA_LIMITS } from '../kafka-event/limits.ts';
export type {
  KafkaEvent,
  KafkaEventHeader,
  KafkaEventRecord,
  KafkaSchemaMetadata,
  LambdaClientContext,
  LambdaContext,
  MskEventSource,
  MskKafkaEvent,
  SelfManagedEventSource,
  SelfManagedKafkaEvent,
} from '../kafka-event/types.ts';
export type { AsyncHandler } from '../lambda-runtime/load-handler.ts';
export type { SandboxEvent, SandboxOptions } from '../lambda-runtime/sandbox.ts';
export type { EventHeader, TombstoneValue } from './batch.ts';
export type {
  BatchFailureEnvelope,
  FailedRecordsInfo,
  FailureCondition,
  FailureEnvelope,
  FailureRequestContext,
  FailureResponseContext,
  KafkaFailureCondition,
  S3FailureEnvelope,
  SchemaFailureCondition,
} from './destination.ts';
export { type Destination, type DestinationTargets, parseDestination } from './destination-sender.ts';
export {
  createLocalEventSourceMapping,
  type LocalEventSourceMapping,
  type LocalEventSourceMappingOptions,
  type MappingEvent,
  type MappingStats,
  type PartitionStats,
  type StopOptions,
} from './emulator.ts';
export {
  EmulatorError,
  EmulatorStateError,
  FunctionLoadError,
  InvalidMappingSettingError,
  InvokeRequestError,
  RecordTooLargeError,
} from './errors.ts';
export type { FilterCriteria } from './filter.ts';
export type { LambdaApiFunction, LocalFunction, MappingFunction } from './invoke.ts';
export { describeEvent, formatProgress, type ProgressSample } from './progress.ts';
export type { BatchOutcome } from './response.ts';
export type { Redelivery } from './retry-policy.ts';
export type { SchemaRegistryConfig } from './schema-registry.ts';
export type {
  EventSourceMappingSettings,
  FailureCallback,
  ProvisionedPollerConfig,
  StartingPosition,
} from './settings.ts';
export { provisionedOnlySettings } from './settings.ts';
