// Its types name Node's (Buffer…): declared here, so that a project without @types/node is told so.
/// <reference types="node" preserve="true" />
/**
 * Schema-registry support shared by the decoders of `kafka-lambda/avro`, `kafka-lambda/protobuf` and
 * `kafka-lambda/json-schema`: the Confluent-compatible registry client, the readers of the wire
 * framings (Confluent, AWS Glue) and the errors. The plumbing the decoders share (their common
 * factory, the bounded cache, the caching client base) is internal. No decoding library is imported
 * here; the Glue client lives in `kafka-lambda/schema-registry/glue` so that only functions using
 * Glue load the AWS SDK's Glue client.
 *
 * @example
 * ```ts
 * import { confluentSchemaRegistry } from 'kafka-lambda/schema-registry';
 * const registry = confluentSchemaRegistry({ url: process.env.SCHEMA_REGISTRY_URL! });
 * ```
 */
// Types named by this entry's signatures, so that a user can name them too.
export type {
  KafkaBatchError,
  KafkaPoisonRecordError,
  RecordPosition,
} from '../middleware/errors.ts';
export {
  KafkaSchemaRegistryDecodeError,
  SchemaNotFoundError,
  SchemaRegistryError,
  type SchemaRegistryFailureReason,
  SchemaRegistryRequestError,
} from './errors.ts';
export {
  type ConfluentRegistryAuth,
  type ConfluentSchemaRegistryOptions,
  confluentSchemaRegistry,
  type RegisteredSchema,
  type SchemaRegistryCacheOptions,
  type SchemaRegistryClient,
  type SchemaRegistryStats,
} from './registry.ts';
// Wire-format readers, for code that reads framed records outside kafkaBatch (a dead-letter tool).
export {
  type ConfluentMessageIndexEncoding,
  type RegistryFrame,
  type RegistryFraming,
  readConfluentMessageIndexes,
  readFrame,
  readGlueMessageIndex,
} from './wire.ts';
