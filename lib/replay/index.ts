// The replay core: plan and execute moving a Kafka consumer group (typically a Lambda event source
// mapping's) to an offset, a time, or a plan file, safely.
export {
  connectReplayKafka,
  type GroupHold,
  type OffsetToCommit,
  REPLAY_PROTOCOL,
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
  describeGroup,
  isGroupInactive,
  isHeldByReplay,
  refuseUnlessInactive,
  waitForEmptyGroup,
} from './group.ts';
export { type KafkaAuth, type KafkaConnection, kafkaClientConfig } from './kafka-config.ts';
export {
  checkMapping,
  type MappingInfo,
  readMapping,
  setMappingEnabled,
  waitForMappingState,
  withLambdaRetry,
} from './mapping.ts';
export { formatReplayMetadata, parseReplayMetadata, type ReplayAudit } from './metadata.ts';
export {
  describeReplayError,
  REPLAY_EXIT_CODES,
  type ReplayErrorKind,
  type ReplayOutcome,
  type SerializedReplayError,
} from './outcome.ts';
export { planReplay } from './plan.ts';
export {
  parseReplayRequest,
  type ReplayRequest,
  ReplayRequestError,
  ReplayRequestSchema,
  requestTarget,
  requestTopic,
  TARGET_FIELDS,
} from './request.ts';
export {
  type PlanFileEntry,
  parseDuration,
  parsePlanFile,
  parseTimestamp,
  parseTopicPartitions,
} from './targets.ts';
export type * from './types.ts';
