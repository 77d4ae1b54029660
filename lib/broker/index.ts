// Its types name Node's (Buffer…): declared here, so that a project without @types/node is told so.
/// <reference types="node" preserve="true" />
/**
 * A real Apache Kafka broker for tests and local work, without Docker: jars from Maven Central,
 * single-node KRaft on 127.0.0.1.
 *
 * @example
 * ```ts
 * import { startBroker } from 'kafka-lambda/broker';
 * await using broker = await startBroker();
 * ```
 */
export {
  type EmbeddedBroker,
  type KafkaToolResult,
  runKafkaTool,
  type StartBrokerOptions,
  startBroker,
} from './broker.ts';
export { BrokerError, BrokerPrerequisiteError, BrokerStartError, TopicMissingError } from './errors.ts';
export { DEFAULT_KAFKA_VERSION, resolveBrokerJars } from './jars.ts';
export {
  type BrokerRecord,
  type BrokerStatus,
  type BrokerStopResult,
  backgroundBrokerStatus,
  type StartBackgroundBrokerOptions,
  startBackgroundBroker,
  stopBackgroundBroker,
} from './state.ts';
export { type EnsureTopicsOptions, ensureTopics, type TopicSpec } from './topics.ts';
