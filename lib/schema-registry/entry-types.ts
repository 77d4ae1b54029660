/**
 * The types that the signatures of each decoder entry (`kafka-lambda/avro`, `/protobuf`, `/json-schema`)
 * name, re-exported by each of them so that a user can name them too without importing a second entry.
 */
export type {
  KafkaEventHeader,
  KafkaEventRecord,
  KafkaSchemaMetadata,
} from '../kafka-event/types.ts';
export type {
  KafkaBatchError,
  KafkaPoisonRecordError,
  KafkaRecordDecodeError,
  RecordPosition,
} from '../middleware/errors.ts';
export type { KafkaDecoder } from '../middleware/options.ts';
export type { KafkaHeader, KafkaRecord } from '../middleware/record.ts';
export type { SchemaRegistryDecoderOptions } from './decoder.ts';
export type { RegisteredSchema, SchemaRegistryClient, SchemaRegistryStats } from './registry.ts';
export type { RegistryFraming } from './wire.ts';
