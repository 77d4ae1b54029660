/**
 * Schema-registry support shared by the decoders of `kafka-lambda/avro`, `kafka-lambda/protobuf` and
 * `kafka-lambda/json-schema`: the Confluent-compatible registry client, the wire framings (Confluent,
 * AWS Glue) and the errors. No decoding library is imported here; the Glue client lives in
 * `kafka-lambda/schema-registry/glue` so that only functions using Glue load the AWS SDK's Glue client.
 *
 * @example
 * ```ts
 * import { confluentSchemaRegistry } from 'kafka-lambda/schema-registry';
 * const registry = confluentSchemaRegistry({ url: process.env.SCHEMA_REGISTRY_URL! });
 * ```
 */
// Types named by this entry's signatures, so that a user can name them too.
export type {
  KafkaEventHeader,
  KafkaEventRecord,
  KafkaSchemaMetadata,
} from '../kafka-event/types.ts';
export type {
  KafkaPoisonRecordError,
  KafkaRecordDecodeError,
  RecordPosition,
} from '../middleware/errors.ts';
export type { KafkaDecoder } from '../middleware/options.ts';
export type { KafkaHeader, KafkaRecord } from '../middleware/record.ts';
export { BoundedCache } from './cache.ts';
export {
  createSchemaRegistryDecoder,
  type FormatCodec,
  type PayloadReader,
  type PayloadStart,
  type SchemaRegistryDecoderOptions,
} from './decoder.ts';
export {
  KafkaSchemaRegistryDecodeError,
  SchemaNotFoundError,
  type SchemaRegistryFailureReason,
  SchemaRegistryRequestError,
} from './errors.ts';
export {
  CachingSchemaRegistry,
  type ConfluentRegistryAuth,
  type ConfluentSchemaRegistryOptions,
  confluentSchemaRegistry,
  type RegisteredSchema,
  type SchemaRegistryCacheOptions,
  type SchemaRegistryClient,
  type SchemaRegistryStats,
} from './registry.ts';
export {
  CONFLUENT_MAGIC_BYTE,
  GLUE_HEADER_VERSION,
  type RegistryFrame,
  type RegistryFraming,
  readConfluentMessageIndexes,
  readFrame,
  readGlueMessageIndex,
} from './wire.ts';
