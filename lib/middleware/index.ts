// Its types name Node's (Buffer…): declared here, so that a project without @types/node is told so.
/// <reference types="node" preserve="true" />
/**
 * Public entry of the Kafka batch middleware: `kafkaBatch()` plus the types and errors its users
 * touch.
 */

export type {
  KafkaBatchItemFailure,
  KafkaBatchResponse,
  KafkaEvent,
  KafkaEventHeader,
  KafkaEventRecord,
  KafkaItemIdentifier,
  KafkaSchemaMetadata,
  LambdaClientContext,
  LambdaContext,
  MskEventSource,
  MskKafkaEvent,
  SelfManagedEventSource,
  SelfManagedKafkaEvent,
} from '../kafka-event/types.ts';
export {
  KafkaBatchError,
  KafkaBatchFailedError,
  KafkaBatchOptionsError,
  KafkaEventError,
  KafkaPoisonRecordError,
  KafkaRecordDecodeError,
  KafkaRecordEncodingError,
  KafkaSchemaError,
  KafkaSchemaThrewError,
  type RecordPosition,
} from './errors.ts';
export { jsonLogger, type KafkaBatchLogger, type KafkaBatchMetrics } from './log.ts';
export { kafkaBatch } from './middleware.ts';
export type {
  KafkaBatchCommonOptions,
  KafkaBatchContext,
  KafkaBatchOptions,
  KafkaBatchSource,
  KafkaDecoder,
  KafkaOrdering,
  KafkaPartitionHandler,
  KafkaPartitionOptions,
  KafkaPoisonPolicy,
  KafkaRecordHandler,
  KafkaRecordOptions,
} from './options.ts';
export { type KafkaHeader, KafkaRecord } from './record.ts';
