// Its types name Node's (Buffer…): declared here, so that a project without @types/node is told so.
/// <reference types="node" preserve="true" />
// The replay core: plan and execute moving a Kafka consumer group (typically a Lambda event source
// mapping's) to an offset, a time, or a plan file, safely; `runReplay` (pipeline.ts) runs a whole request
// end to end. This is the public surface of `kafka-lambda/replay`; the building blocks behind it (group
// and mapping steps, retries, client configuration, waits) are imported by their own modules inside the
// package, never from here.
export {
  connectReplayKafka,
  type GroupHold,
  type OffsetToCommit,
  type ReplayKafka,
} from './connection.ts';
export * from './errors.ts';
export {
  DEFAULT_REPLAY_TIMEOUTS,
  type ExecuteRequest,
  executeReplay,
  type ReplayResult,
  type ReplayTimeouts,
} from './execute.ts';
export {
  KAFKA_AUTH_TYPES,
  type KafkaAuth,
  type KafkaAuthType,
  type KafkaConnection,
} from './kafka-config.ts';
export { parseReplayMetadata, type ReplayAudit } from './metadata.ts';
export {
  describeReplayError,
  REPLAY_EXIT_CODES,
  type ReplayErrorKind,
  type ReplayOutcome,
  type SerializedReplayError,
} from './outcome.ts';
export { type ReplayScope, type RunReplayOptions, runReplay } from './pipeline.ts';
export { planReplay } from './plan.ts';
export {
  parseReplayRequest,
  type ReplayRequest,
  ReplayRequestError,
  ReplayRequestSchema,
  requestTarget,
  requestTopic,
} from './request.ts';
export type * from './types.ts';
