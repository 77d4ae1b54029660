// Its types name Node's (Buffer…): declared here, so that a project without @types/node is told so.
/// <reference types="node" preserve="true" />
/**
 * `kafka-lambda/cdk`: the CDK constructs for a Kafka-triggered function and its replay function, and the
 * types a stack needs to describe the cluster. Only these are public; the IAM, bundling and ARN helpers
 * behind them are not. Needs the `aws-cdk-lib` and `constructs` peer dependencies.
 *
 * @example
 * ```ts
 * import { KafkaConsumerFunction, KafkaReplayFunction, type KafkaSource } from 'kafka-lambda/cdk';
 *
 * const source: KafkaSource = { kind: 'msk', clusterArn, auth: { type: 'iam' }, network };
 * const consumer = new KafkaConsumerFunction(stack, 'Orders', {
 *   entry: 'src/handler.ts',
 *   source,
 *   topic: 'orders',
 *   consumerGroupId: 'orders-consumer',
 * });
 * new KafkaReplayFunction(stack, 'OrdersReplay', { source, target: consumer });
 * ```
 *
 * @packageDocumentation
 */

// The filter rules of `KafkaConsumerFunctionProps.filters`: the same shape the emulator checks.
export type { FilterCriteria } from '../lib/emulator/filter.ts';
export { KafkaLambdaCdkError } from './errors.ts';
export {
  type FailureDestination,
  KafkaConsumerConfigError,
  KafkaConsumerFunction,
  type KafkaConsumerFunctionProps,
} from './kafka-consumer-function.ts';
export {
  importKafkaNetwork,
  type KafkaNetwork,
  type KafkaSource,
  type MskSource,
  type SelfManagedAuth,
  type SelfManagedSource,
} from './kafka-source.ts';
export { ClusterOutsideStackEnvironmentError, InvalidClusterArnError } from './msk-arns.ts';
export { UnsupportedRegionError } from './regions.ts';
export {
  KafkaReplayConfigError,
  KafkaReplayFunction,
  type KafkaReplayFunctionProps,
  type ReplayTarget,
} from './replay-function.ts';
export {
  type SchemaRegistry,
  SchemaRegistryConfigError,
  type SchemaRegistryLocation,
  type SchemaValidationAttribute,
} from './schema-registry.ts';
export {
  type KafkaVpcEndpointService,
  KafkaVpcEndpoints,
  type KafkaVpcEndpointsProps,
} from './vpc-endpoints.ts';
