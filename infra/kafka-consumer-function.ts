import { Annotations, Duration, Errors, Lazy, RemovalPolicy, Stack, Token, Validations } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { KafkaDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import { NodejsFunction, type NodejsFunctionProps } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { custom, type GenericSchema } from 'valibot';
import { InvalidMappingSettingError } from '../lib/emulator/errors.ts';
import { compileFilterCriteria, type FilterCriteria } from '../lib/emulator/filter.ts';
import { LAMBDA_LIMITS } from '../lib/kafka-event/limits.ts';
import {
  defineOptions,
  firstProblem,
  nestedOptions,
  type OptionsSpec,
  unchecked,
} from '../lib/options/options.ts';
import { lambdaBundling } from './bundling.ts';
import { KafkaLambdaCdkError } from './errors.ts';
import {
  consumerGroupGrantProblem,
  grantSecretsRead,
  mskTriggerStatements,
  networkInterfaceStatements,
} from './iam.ts';
import {
  type KafkaNetwork,
  type KafkaSource,
  type MskSource,
  type SelfManagedAuth,
  type SelfManagedSource,
  sourceSecret,
  sourceSecrets,
} from './kafka-source.ts';
import { assertClusterInStackEnvironment } from './msk-arns.ts';
import {
  acknowledgeFailureBucketObjects,
  acknowledgeLogStreams,
  acknowledgeNetworkInterfaceWildcards,
} from './nag.ts';
import {
  acceptsOnlyEventCountMetrics,
  assertKafkaDestinationRegion,
  assertLoggingConfigRegion,
  assertMetricsRegion,
  assertPollerGroupRegion,
} from './regions.ts';
import {
  SCHEMA_REGISTRY_OPTIONS,
  type SchemaRegistry,
  SchemaRegistryConfigError,
  schemaRegistryConfig,
} from './schema-registry.ts';
import type { KafkaVpcEndpointService } from './vpc-endpoints.ts';

/** Lambda refuses Kafka triggers on functions whose timeout exceeds 14 minutes. */
const MAX_KAFKA_FUNCTION_TIMEOUT = Duration.seconds(LAMBDA_LIMITS.kafkaFunctionTimeoutSeconds.max);

/**
 * A configuration the Kafka trigger would reject at deploy time, or that would leave records unprotected,
 * caught at synth time instead.
 *
 * @example
 * try { new KafkaConsumerFunction(stack, 'C', props); } catch (e) { if (e instanceof KafkaConsumerConfigError) console.error(e.message); }
 */
export class KafkaConsumerConfigError extends KafkaLambdaCdkError {
  /** Always `'KafkaConsumerConfigError'`. */
  override readonly name = 'KafkaConsumerConfigError';
}

/**
 * Where the trigger sends records it gives up on (retries exhausted, too old, too large), and what the
 * role is granted for it (https://docs.aws.amazon.com/lambda/latest/dg/kafka-on-failure.html):
 * - `sqs`: a metadata record per failed batch (topic, partition, offsets) in a queue — created when none
 *   is given. `sqs:SendMessage`; `kms:GenerateDataKey` and `kms:Decrypt` on its key, if it has one.
 * - `sns`: the same metadata record, published to a topic (without the payload over SNS's 256 KB).
 *   `sns:Publish`; `kms:GenerateDataKey` and `kms:Decrypt` on its key, if it has one.
 * - `s3`: the metadata record and the whole failed batch, as an object of the bucket. `s3:ListBucket` on
 *   the bucket, `s3:PutObject` on its objects; `kms:GenerateDataKey` on its key, if it has one.
 * - `kafka`: one message per failed record, payload included, on a topic of the same cluster (not the
 *   source topic; 4 characters or more, as CloudFormation takes a `kafka://<topic>` destination of 12 or
 *   more). Provisioned mode only; with MSK IAM auth, `kafka-cluster:WriteData` on the topic.
 *
 * SQS, SNS and S3 also work in on-demand mode (they predate provisioned pollers). A trigger whose brokers
 * are in a VPC reaches SQS, SNS or S3 through a VPC endpoint (or a NAT gateway) of that VPC, which these
 * constructs do not create. A key imported by ARN gets its grant in the role's policy; its key policy must
 * trust the account (as a key's default policy does).
 *
 * @example
 * const toKafka: FailureDestination = { type: 'kafka', topic: 'orders-failed' };
 * const toBucket: FailureDestination = { type: 's3', bucket: failedBatches };
 */
export type FailureDestination =
  | { readonly type: 'sqs'; readonly queue?: sqs.IQueue | undefined }
  | { readonly type: 'sns'; readonly topic: sns.ITopic }
  | { readonly type: 's3'; readonly bucket: s3.IBucket }
  | { readonly type: 'kafka'; readonly topic: string };

/**
 * Props of {@link KafkaConsumerFunction}. Every default is chosen so that a failing record can neither
 * block its partition forever nor vanish: bounded retries, a maximum record age, an on-failure destination,
 * and partial batch responses so that only failed records are retried.
 *
 * @example
 * const props: KafkaConsumerFunctionProps = { entry: 'functions/orders/handler.ts', source, topic: 'orders', consumerGroupId: 'orders-consumer', retryAttempts: 5 };
 */
export interface KafkaConsumerFunctionProps {
  /** The handler's source file, bundled with esbuild (e.g. `functions/orders/handler.ts`). */
  readonly entry: string;
  /** The exported handler. @default 'handler' */
  readonly handler?: string | undefined;
  /**
   * The cluster the trigger reads: an MSK cluster by ARN (`{ kind: 'msk', clusterArn, auth }`) or
   * self-managed brokers (`{ kind: 'self-managed', bootstrapServers, auth }`). The role is granted this
   * cluster only; give the same object to {@link KafkaReplayFunction} (`source: consumer.source`).
   */
  readonly source: KafkaSource;
  /**
   * The one topic the trigger reads: 2–249 of `a-z A-Z 0-9 . _ -`, not starting with a dot (the trigger's
   * API; no `*` or `?`, which IAM would read as wildcards in the granted topic ARN).
   */
  readonly topic: string;
  /**
   * The consumer group the trigger commits to: explicit, because IAM policies and the replay tool name it.
   * Unique across Kafka triggers; changing it replaces the mapping (the new group starts at `startingPosition`).
   * 1–200 of `a-z A-Z 0-9 - / * : _ + = . @`, and with MSK IAM auth no `*` (a wildcard in the group ARN
   * the role is granted).
   */
  readonly consumerGroupId: string;
  /** Used only while the group has no committed offsets. @default TRIM_HORIZON (no record is skipped) */
  readonly startingPosition?: lambda.StartingPosition | undefined;
  /** Unix seconds (not milliseconds), with `startingPosition: AT_TIMESTAMP`; not in the future. */
  readonly startingPositionTimestamp?: number | undefined;
  /** Records per invocation at most, 1–10,000. @default 100 */
  readonly batchSize?: number | undefined;
  /**
   * Whole seconds, at most 5 minutes.
   * @default the platform's 500 ms (once set, 500 ms cannot be restored without recreating the mapping)
   */
  readonly maxBatchingWindow?: Duration | undefined;
  /**
   * Retries of a failed batch, after the first attempt: 0–10,000, or -1. -1 is "infinite" in Lambda's API,
   * but with an on-failure destination, which this construct always sets, Lambda caps it at 10 retries
   * (https://docs.aws.amazon.com/lambda/latest/dg/kafka-on-failure-destination.html); records older than
   * `maxRecordAge` go to the destination sooner. @default 3
   */
  readonly retryAttempts?: number | undefined;
  /**
   * Records older than this go to the failure destination unprocessed; whole seconds, 1 minute to 7 days.
   * @default 1 day — well inside the usual 7-day retention, so that a replay from the destination's
   * offsets still finds the records.
   */
  readonly maxRecordAge?: Duration | undefined;
  /** Split a failing batch in two and retry the halves, isolating a poison record. @default true */
  readonly bisectBatchOnError?: boolean | undefined;
  /** Retry only what the handler reports failed (`batchItemFailures`). @default true */
  readonly reportBatchItemFailures?: boolean | undefined;
  /**
   * Provisioned pollers: required by partial batch responses, retry and age limits and Kafka destinations.
   * A `pollerGroupName` is refused at synth time where the Region's schema lacks it (`POLLER_GROUP_REFUSED_REGIONS`).
   * @default { minimumPollers: 1, maximumPollers: 3 }
   */
  readonly provisionedPollers?:
    | {
        readonly [Key in keyof lambda.ProvisionedPollerConfig]?:
          | lambda.ProvisionedPollerConfig[Key]
          | undefined;
      }
    | undefined;
  /**
   * An SQS queue, SNS topic, S3 bucket or Kafka topic (see {@link FailureDestination}). `kafka` is refused
   * at synth time (`UnsupportedRegionError`) in a stack whose Region's CloudFormation schema accepts only
   * ARNs as the destination (`KAFKA_DESTINATION_REFUSED_REGIONS`).
   * @default { type: 'sqs' } — a new encrypted queue that keeps messages 14 days
   */
  readonly onFailure?: FailureDestination | undefined;
  /**
   * Whether the trigger polls: `false` creates it paused, reading nothing (its group's committed offsets
   * kept) until it is enabled. @default true
   */
  readonly enabled?: boolean | undefined;
  /**
   * Lambda's `FilterCriteria`, the same object the emulator's `filterCriteria` takes (patterns on the
   * record's `value`; checked at synth time with the emulator's rules). Records matching no filter are
   * never delivered and are committed past. @default no filter
   */
  readonly filterCriteria?: FilterCriteria | undefined;
  /**
   * The trigger's schema registry (Glue, or Confluent with a basic-auth or mTLS secret): Lambda resolves
   * and validates each record's key and/or value, delivers it as JSON or SOURCE, and sends records it
   * cannot resolve or decode to the on-failure destination (`SCHEMA_NOT_FOUND`, `DESERIALIZATION_ERROR`).
   * Provisioned mode only (refused at synth time otherwise). The role gets exactly the registry's read
   * permissions. @default none
   */
  readonly schemaRegistry?: SchemaRegistry | undefined;
  /**
   * Overrides for the function (memory, timeout, environment, VPC…); applied over this construct's defaults.
   * Not the role: its least-privilege policy is what this construct is for (add to `function.role` instead).
   */
  readonly functionProps?: Omit<NodejsFunctionProps, 'entry' | 'handler' | 'role'> | undefined;
  /**
   * Overrides for the mapping (metrics, logging…); applied last, and held to the same checks as this
   * construct's own props. Not the source, topic, group, destination or schema registry, which the IAM
   * policy is derived from; not `filters` (use `filterCriteria`); not the options Kafka mappings do not
   * take (`parallelizationFactor`, `tumblingWindow`, `maxConcurrency`). `provisionedPollerConfig` only
   * as `undefined`, to turn provisioned mode off (set pollers with `provisionedPollers`). Each of these
   * is refused at synth time by name, the function, source, topic, group, destination, registry and
   * `filters` even as `undefined` (which would take the construct's own value out of the mapping).
   * A key given as `undefined` takes the construct's value out (Lambda's default applies): each key
   * says `| undefined`, so that a project with `exactOptionalPropertyTypes` may write
   * `mappingProps: { provisionedPollerConfig: undefined }`.
   */
  readonly mappingProps?:
    | ({
        readonly [Key in Exclude<
          keyof lambda.EventSourceMappingOptions,
          | 'eventSourceArn'
          | 'kafkaBootstrapServers'
          | 'kafkaTopic'
          | 'kafkaConsumerGroupId'
          | 'sourceAccessConfigurations'
          | 'onFailure'
          | 'schemaRegistryConfig'
          | 'filters'
          | 'parallelizationFactor'
          | 'tumblingWindow'
          | 'maxConcurrency'
          | 'provisionedPollerConfig'
        >]?: lambda.EventSourceMappingOptions[Key] | undefined;
      } & {
        /** Only `undefined`: turns provisioned mode off (pollers are set with `provisionedPollers`). */
        readonly provisionedPollerConfig?: undefined;
      })
    | undefined;
}

// The props of the constructs, declared once (lib/options): a misspelled key is refused at synth time with
// the nearest valid name, at any depth of the project's own types. The shapes (`source.kind`,
// `source.auth.type`, `onFailure.type`) and the source's brokers are checked here; the other values by the
// constructs' own rules below (and CDK's), which see Tokens; CDK's own prop types (functionProps,
// mappingProps) are passed through as CDK defines them, except provisionedPollers' keys.

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The schema of an option that is one of several shapes told apart by one key (`kind`, `type`): its keys
 * checked by the spec of that shape. A value of the key no shape has is refused with the accepted values
 * listed, so that an untyped JavaScript caller's misspelling is named here rather than mistaken for
 * another shape (an MSK `auth.type` of `sasl-scram512` would otherwise be IAM auth) or met as a TypeError.
 */
function oneOfShapes(
  prop: string,
  key: string,
  what: string,
  shapes: Readonly<Record<string, Pick<OptionsSpec<unknown>, 'check'>>>,
  options: { readonly optional?: boolean } = {},
): GenericSchema {
  const accepted = Object.keys(shapes)
    .map((name) => `"${name}"`)
    .join(', ');
  const problemOf = (value: unknown): string | undefined => {
    if (value === undefined && options.optional) return undefined;
    if (!isRecord(value)) return `${prop} must be an object with a ${key} (one of ${accepted})`;
    const tag = value[key];
    const shape = typeof tag === 'string' && Object.hasOwn(shapes, tag) ? shapes[tag] : undefined;
    if (shape === undefined)
      return `${prop}.${key} ${JSON.stringify(tag) ?? 'undefined'} is not ${what} (one of ${accepted})`;
    return firstProblem(shape, value)?.message;
  };
  return custom(
    (value) => problemOf(value) === undefined,
    (issue) => problemOf(issue.input) ?? `${prop} is invalid`,
  );
}

/** A required construct of the destination `type`, told by the ARN attribute every such construct has. */
function destinationOption(key: string, attribute: string, what: string, type: string): GenericSchema {
  return custom(
    (value) => isRecord(value) && typeof value[attribute] === 'string',
    `onFailure.${key} must be ${what} with onFailure type "${type}"`,
  );
}

/** A required Secrets Manager secret (`ISecret`) of an auth type that carries credentials. */
function secretOption(type: string): GenericSchema {
  return custom(
    (value) => isRecord(value) && typeof value.secretArn === 'string',
    `source.auth.secret must be a Secrets Manager secret (ISecret) with auth type "${type}"`,
  );
}

function authShape(type: string, withSecret: boolean): Pick<OptionsSpec<unknown>, 'check'> {
  return withSecret
    ? defineOptions<{ type: string; secret: unknown }>(
        { type: unchecked, secret: secretOption(type) },
        'source.auth',
      )
    : defineOptions<{ type: string }>({ type: unchecked }, 'source.auth');
}

const MSK_AUTH = oneOfShapes('source.auth', 'type', 'an authentication an MSK source takes', {
  iam: authShape('iam', false),
  'sasl-scram-512': authShape('sasl-scram-512', true),
  mtls: authShape('mtls', true),
} satisfies Record<MskSource['auth']['type'], unknown>);

const SELF_MANAGED_AUTH = oneOfShapes(
  'source.auth',
  'type',
  'an authentication a self-managed source takes',
  {
    'sasl-scram-512': authShape('sasl-scram-512', true),
    'sasl-scram-256': authShape('sasl-scram-256', true),
    basic: authShape('basic', true),
    mtls: authShape('mtls', true),
    tls: authShape('tls', false),
    none: authShape('none', false),
  } satisfies Record<SelfManagedAuth['type'], unknown>,
);

// KafkaBootstrapServers items of the trigger's API: host:port (no scheme), 1–300 characters, at most 10.
// https://docs.aws.amazon.com/lambda/latest/api/API_SelfManagedEventSource.html
const BOOTSTRAP_SERVER =
  /^(([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])\.)*([A-Za-z0-9]|[A-Za-z0-9][A-Za-z0-9-]*[A-Za-z0-9]):[0-9]{1,5}$/;
const MAX_BOOTSTRAP_SERVERS = 10;

// CloudFormation's schema for AWS::Lambda::EventSourceMapping has `uniqueItems: true` on both
// SelfManagedEventSource.Endpoints.KafkaBootstrapServers and FilterCriteria.Filters: a list with the same
// item twice fails validation (cfn-lint F3037) instead of deploying. Source: cfn-lint v1.51.0's schema of
// us-east-1 and every other Region (src/cfnlint/data/schemas/resources/5dbf5e2d0596ddb3.json; see regions.ts).

function bootstrapServersProblem(servers: unknown): string | undefined {
  if (Token.isUnresolved(servers)) return undefined;
  if (!Array.isArray(servers) || servers.length === 0)
    return 'source.bootstrapServers must list at least one broker as host:port (e.g. b-1.example.com:9096)';
  if (servers.length > MAX_BOOTSTRAP_SERVERS)
    return `source.bootstrapServers lists ${servers.length} brokers: a Kafka trigger takes at most ${MAX_BOOTSTRAP_SERVERS} (Lambda finds the others from them)`;
  for (const server of servers) {
    if (typeof server === 'string' && Token.isUnresolved(server)) continue;
    if (typeof server === 'string' && server.length <= 300 && BOOTSTRAP_SERVER.test(server)) continue;
    return `source.bootstrapServers: ${JSON.stringify(server) ?? 'undefined'} is not host:port (a broker's DNS name or IPv4 address and its port, e.g. b-1.example.com:9096, with no scheme such as SASL_SSL://)`;
  }
  const twice = servers.find((server, index) => servers.indexOf(server) !== index);
  if (twice !== undefined)
    return `source.bootstrapServers lists "${twice}" twice: CloudFormation refuses duplicate KafkaBootstrapServers (uniqueItems)`;
  return undefined;
}

// aws-cdk-lib's SelfManagedKafkaEventSource refuses a VPC without security groups too: Lambda places
// the trigger's pollers in the subnets with these groups.
const SELF_MANAGED_NETWORK = custom(
  (network) =>
    !isRecord(network) || !Array.isArray(network.securityGroups) || network.securityGroups.length > 0,
  'source.network.securityGroups is empty: a self-managed trigger in a VPC needs at least one security group for its pollers',
);

const MSK_SOURCE_OPTIONS = defineOptions<MskSource>(
  { kind: unchecked, clusterArn: unchecked, auth: MSK_AUTH, network: unchecked },
  'source',
);
const SELF_MANAGED_SOURCE_OPTIONS = defineOptions<SelfManagedSource>(
  {
    kind: unchecked,
    bootstrapServers: custom(
      (servers) => bootstrapServersProblem(servers) === undefined,
      (issue) => bootstrapServersProblem(issue.input) ?? 'source.bootstrapServers is invalid',
    ),
    auth: SELF_MANAGED_AUTH,
    rootCaCertificate: unchecked,
    network: SELF_MANAGED_NETWORK,
  },
  'source',
);

/**
 * The schema of a `source` prop: its keys checked by its `kind` (an unknown kind refused), its
 * authentication by its `type`, self-managed bootstrap servers as the trigger's API takes them.
 *
 * @example
 * const REPLAY = defineOptions<{ source: KafkaSource }>({ source: kafkaSourceOptions });
 */
export const kafkaSourceOptions: GenericSchema = oneOfShapes('source', 'kind', 'a Kafka source kind', {
  msk: MSK_SOURCE_OPTIONS,
  'self-managed': SELF_MANAGED_SOURCE_OPTIONS,
} satisfies Record<KafkaSource['kind'], unknown>);

const FAILURE_DESTINATION_OPTIONS = oneOfShapes(
  'onFailure',
  'type',
  'a failure destination',
  {
    sqs: defineOptions<Extract<FailureDestination, { type: 'sqs' }>>(
      { type: unchecked, queue: unchecked },
      'onFailure',
    ),
    sns: defineOptions<Extract<FailureDestination, { type: 'sns' }>>(
      { type: unchecked, topic: destinationOption('topic', 'topicArn', 'an SNS topic (ITopic)', 'sns') },
      'onFailure',
    ),
    s3: defineOptions<Extract<FailureDestination, { type: 's3' }>>(
      { type: unchecked, bucket: destinationOption('bucket', 'bucketArn', 'an S3 bucket (IBucket)', 's3') },
      'onFailure',
    ),
    kafka: defineOptions<Extract<FailureDestination, { type: 'kafka' }>>(
      { type: unchecked, topic: unchecked },
      'onFailure',
    ),
  } satisfies Record<FailureDestination['type'], unknown>,
  { optional: true },
);

// CDK's ProvisionedPollerConfig, declared here because an unknown key would otherwise deploy
// `ProvisionedPollerConfig: {}`: provisioned mode with Lambda's default pollers, billed, and nothing said.
const PROVISIONED_POLLERS_OPTIONS = defineOptions<lambda.ProvisionedPollerConfig>(
  { minimumPollers: unchecked, maximumPollers: unchecked, pollerGroupName: unchecked },
  'provisionedPollers',
);

const CONSUMER_PROPS = defineOptions<KafkaConsumerFunctionProps>({
  entry: unchecked,
  handler: unchecked,
  source: kafkaSourceOptions,
  topic: unchecked,
  consumerGroupId: unchecked,
  startingPosition: unchecked,
  startingPositionTimestamp: unchecked,
  batchSize: unchecked,
  maxBatchingWindow: unchecked,
  retryAttempts: unchecked,
  maxRecordAge: unchecked,
  bisectBatchOnError: unchecked,
  reportBatchItemFailures: unchecked,
  provisionedPollers: nestedOptions(() => PROVISIONED_POLLERS_OPTIONS),
  onFailure: FAILURE_DESTINATION_OPTIONS,
  enabled: unchecked,
  filterCriteria: unchecked,
  schemaRegistry: SCHEMA_REGISTRY_OPTIONS,
  functionProps: unchecked,
  mappingProps: unchecked,
});

/**
 * A Node.js function (nodejs24.x, arm64, esbuild-bundled) with a Kafka trigger on MSK or self-managed Kafka,
 * its least-privilege role (including the `kafka-cluster:*` data-plane actions for MSK IAM auth) and an
 * on-failure destination.
 *
 * @example
 * const consumer = new KafkaConsumerFunction(this, 'Orders', {
 *   entry: 'functions/orders/handler.ts',
 *   source: { kind: 'msk', clusterArn, auth: { type: 'iam' } },
 *   topic: 'orders',
 *   consumerGroupId: 'orders-consumer',
 * });
 * new CfnOutput(this, 'MappingUuid', { value: consumer.mappingUuid });
 */
export class KafkaConsumerFunction extends Construct {
  /** The consumer function (bundled from `entry` with esbuild, no Docker). */
  readonly function: NodejsFunction;
  /** The Kafka trigger: the event source mapping from the topic to {@link KafkaConsumerFunction.function}. */
  readonly eventSourceMapping: lambda.EventSourceMapping;
  /** The mapping's UUID (`kafka-lambda replay --esm`, `aws lambda get-event-source-mapping --uuid`). */
  readonly mappingUuid: string;
  /** The mapping's ARN, for IAM policies (the replay function's `lambda:UpdateEventSourceMapping`). */
  readonly mappingArn: string;
  /** The trigger's consumer group: where its committed offsets are, and what a replay moves. */
  readonly consumerGroupId: string;
  /** The one topic the trigger reads. */
  readonly topic: string;
  /** The cluster the trigger reads from, as given in the props. */
  readonly source: KafkaSource;
  /** The on-failure queue, when failed records go to SQS. */
  readonly failureQueue: sqs.IQueue | undefined;
  /**
   * The AWS APIs the trigger calls from the cluster's VPC: its on-failure destination (`sqs`, `sns`) and,
   * in on-demand mode (no provisioned pollers), `lambda` and `sts` (with `secretsmanager` when it reads a
   * secret). Without a NAT gateway the VPC needs endpoints for them ({@link KafkaVpcEndpoints}). An S3
   * destination needs a gateway endpoint, which is not listed here.
   * https://docs.aws.amazon.com/lambda/latest/dg/with-msk-cluster-network.html
   */
  readonly vpcEndpointServices: readonly KafkaVpcEndpointService[];

  /**
   * @param scope - The construct (usually a stack) to add the function and its trigger to.
   * @param id - The construct's id.
   * @param props - The function, its source and topic, and the trigger's settings.
   * @throws KafkaConsumerConfigError when a prop is unknown, out of range or cannot work with the others.
   * @throws InvalidClusterArnError when an MSK `source.clusterArn` is not an MSK cluster ARN.
   * @throws ClusterOutsideStackEnvironmentError when it is a cluster of another account or Region than
   *   the stack's, or an MSK managed VPC connection (cross-account clusters are not supported).
   */
  constructor(scope: Construct, id: string, props: KafkaConsumerFunctionProps) {
    super(scope, id);
    CONSUMER_PROPS.check(props, (problem) => new KafkaConsumerConfigError(problem.message));
    refuse(logRetentionProblem(props.functionProps));
    const { source, topic, consumerGroupId } = props;
    if (source.kind === 'msk') assertClusterInStackEnvironment(this, source.clusterArn);
    const timeout = props.functionProps?.timeout ?? Duration.minutes(1);
    if (timeout.toSeconds() > MAX_KAFKA_FUNCTION_TIMEOUT.toSeconds()) {
      throw new KafkaConsumerConfigError(
        `timeout ${timeout.toHumanString()} exceeds the ${MAX_KAFKA_FUNCTION_TIMEOUT.toHumanString()} Lambda allows for Kafka-triggered functions`,
      );
    }
    if (source.kind === 'self-managed' && source.network === undefined && !('secret' in source.auth)) {
      throw new KafkaConsumerConfigError(
        'self-managed brokers outside a VPC need an authentication secret: Lambda refuses unauthenticated public brokers',
      );
    }
    const subnetIds =
      source.kind === 'self-managed' && source.network !== undefined
        ? networkSubnetIds(
            source.network,
            'a self-managed trigger in a VPC needs at least one subnet for its pollers',
            (message, options) => new KafkaConsumerConfigError(message, options),
          )
        : [];
    refuse(consumerGroupIdProblem('consumerGroupId', consumerGroupId, source));
    const onFailure = props.onFailure ?? { type: 'sqs' };
    const filters = filterProperty(props.filterCriteria);
    refuse(topicNameProblem('topic', topic));
    if (onFailure.type === 'kafka') assertFailureTopicName(onFailure.topic);
    if (onFailure.type === 'kafka' && onFailure.topic === topic) {
      throw new KafkaConsumerConfigError(`the failure topic must differ from the source topic "${topic}"`);
    }
    // Refused where the Region's CloudFormation schema lacks them (infra/regions.ts).
    const region = Stack.of(this).region;
    if (onFailure.type === 'kafka') assertKafkaDestinationRegion(region);
    assertMappingOverrides(props.mappingProps);
    const pollers = props.provisionedPollers ?? { minimumPollers: 1, maximumPollers: 3 };
    assertPollerCounts(pollers);
    if (pollers.pollerGroupName !== undefined) {
      assertPollerGroupRegion(region);
      if (
        !Token.isUnresolved(pollers.pollerGroupName) &&
        !LAMBDA_LIMITS.names.pollerGroupName.test(pollers.pollerGroupName)
      )
        throw new KafkaConsumerConfigError(
          `provisionedPollers.pollerGroupName "${pollers.pollerGroupName}" is not a poller group name Lambda accepts (at most 128 characters of a-z A-Z 0-9 - _)`,
        );
    }
    const registry = registryProperty(props);
    this.source = source;
    this.topic = topic;
    this.consumerGroupId = consumerGroupId;

    // The mapping as it will be, but for its function and on-failure destination (made below): checked
    // whole before any resource is made, so that a refused setting fails fast and before NodejsFunction
    // bundles the handler, as this construct's own error rather than aws-cdk-lib's.
    const eventCountOnly = acceptsOnlyEventCountMetrics(region);
    const options: Omit<lambda.EventSourceMappingProps, 'target' | 'onFailure'> = {
      ...this.sourceOptions(subnetIds),
      kafkaTopic: topic,
      kafkaConsumerGroupId: consumerGroupId,
      startingPosition: props.startingPosition ?? lambda.StartingPosition.TRIM_HORIZON,
      startingPositionTimestamp: props.startingPositionTimestamp,
      batchSize: props.batchSize ?? 100,
      maxBatchingWindow: props.maxBatchingWindow,
      retryAttempts: props.retryAttempts ?? 3,
      maxRecordAge: props.maxRecordAge ?? Duration.days(1),
      bisectBatchOnError: props.bisectBatchOnError ?? true,
      reportBatchItemFailures: props.reportBatchItemFailures ?? true,
      provisionedPollerConfig: pollers,
      enabled: props.enabled ?? true,
      filters,
      schemaRegistryConfig: registry?.config,
      // Every metric group a Kafka mapping offers: event counts (polled, filtered, dropped…), error counts
      // (OnFailureDestinationDeliveryErrorCount among them) and Kafka consumer metrics; event counts only
      // where the Region's CloudFormation schema accepts nothing else.
      // https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-properties-lambda-eventsourcemapping-metricsconfig.html
      metricsConfig: {
        metrics: eventCountOnly
          ? [lambda.MetricType.EVENT_COUNT]
          : [lambda.MetricType.EVENT_COUNT, lambda.MetricType.ERROR_COUNT, lambda.MetricType.KAFKA_METRICS],
      },
      ...props.mappingProps,
    };
    assertMappingNumbers(options, props);
    assertSourceAccess(source, options.sourceAccessConfigurations ?? []);
    // The construct's own metrics fit the Region's schema; mappingProps' metrics and logLevel may not.
    const metrics = options.metricsConfig?.metrics;
    if (metrics !== undefined && !Token.isUnresolved(metrics)) assertMetricsRegion(region, metrics);
    if (options.logLevel !== undefined) assertLoggingConfigRegion(region);

    const role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Kafka consumer of ${topic} (group ${consumerGroupId})`,
    });
    const logGroup = functionLogGroup(this, role, props.functionProps);

    this.function = new NodejsFunction(this, 'Function', {
      runtime: lambda.Runtime.NODEJS_24_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: 512,
      timeout,
      role,
      logGroup,
      loggingFormat: lambda.LoggingFormat.JSON,
      // Source maps ship beside the bundle but stay off: `--enable-source-maps` costs every cold start
      // (~10 ms, infra/bundle.bench.ts) and the middleware logs error names and messages, not stacks.
      // Turn them on with `functionProps: { environment: { NODE_OPTIONS: '--enable-source-maps' } }`.
      bundling: lambdaBundling(),
      ...props.functionProps,
      entry: props.entry,
      handler: props.handler ?? 'handler',
    });

    if (onFailure.type === 'sqs' && onFailure.queue === undefined) {
      const queue = new sqs.Queue(this, 'FailureQueue', {
        encryption: sqs.QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        retentionPeriod: Duration.days(14),
      });
      Validations.of(queue).acknowledge({
        id: 'AwsSolutions-SQS3',
        reason:
          'This queue is itself the dead-letter destination of the Kafka trigger; a queue behind it would only hold the same failure records.',
      });
      this.failureQueue = queue;
    } else {
      this.failureQueue = onFailure.type === 'sqs' ? onFailure.queue : undefined;
    }

    if (eventCountOnly && props.mappingProps?.metricsConfig === undefined) {
      Annotations.of(this).addWarningV2(
        'kafka-lambda:eventCountOnlyMetrics',
        `CloudFormation's schema in ${region} accepts only EventCount metrics on the mapping: ErrorCount and ` +
          'KafkaMetrics are off, so metricOnFailureDeliveryErrors() gets no data (an alarm on it would never fire): ' +
          'a failed delivery to the on-failure destination goes unnoticed',
      );
    }
    const mapping: lambda.EventSourceMappingProps = {
      ...options,
      target: this.function,
      onFailure: failureDestination(onFailure, this.failureQueue),
    };
    this.vpcEndpointServices = [
      ...(onFailure.type === 'sqs' || onFailure.type === 'sns' ? [onFailure.type] : []),
      ...(mapping.provisionedPollerConfig === undefined ? (['lambda', 'sts'] as const) : []),
      ...(mapping.provisionedPollerConfig === undefined &&
      [...sourceSecrets(source), ...(registry?.secrets ?? [])].length > 0
        ? (['secretsmanager'] as const)
        : []),
    ];
    const provisionedOnly = provisionedOnlyProperties(mapping);
    if (provisionedOnly.length > 0)
      Annotations.of(this).addWarningV2(
        'kafka-lambda:provisionedOnlyWithoutPollers',
        `provisioned pollers are off, but AWS offers ${provisionedOnly.join(', ')} only in provisioned mode: ` +
          'the deployment may be refused. Keep provisionedPollers, or set these to undefined in mappingProps',
      );
    this.eventSourceMapping = new lambda.EventSourceMapping(this, 'Trigger', {
      ...mapping,
      // CDK takes a timestamp of 0 for a missing one (a falsy check) and refuses it with AT_TIMESTAMP; 0 is
      // a time Lambda accepts (the start of every topic), so it goes in as a Token that resolves to 0.
      startingPositionTimestamp:
        mapping.startingPositionTimestamp === 0
          ? Lazy.number({ produce: () => 0 })
          : mapping.startingPositionTimestamp,
    });
    this.mappingUuid = this.eventSourceMapping.eventSourceMappingId;
    this.mappingArn = this.eventSourceMapping.eventSourceMappingArn;

    this.grantSourceAccess(role, onFailure, registry?.secrets ?? []);
    if (onFailure.type === 's3') acknowledgeFailureBucketObjects(role, onFailure.bucket);
    for (const statement of registry?.statements ?? []) role.addToPrincipalPolicy(statement);
    registry?.acknowledge(role);
  }

  /**
   * The trigger's `OffsetLag`: records written to the topic that the group has not processed yet.
   *
   * @example
   * consumer.metricOffsetLag().createAlarm(this, 'Lag', { threshold: 1000, evaluationPeriods: 3 });
   */
  metricOffsetLag(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    // OffsetLag is published per function (`FunctionName`), not per mapping: with several mappings on one
    // function the Maximum is the largest lag of any of them. This construct gives each mapping its own
    // function, so here the function's lag is this mapping's.
    return this.function.metric('OffsetLag', {
      statistic: cloudwatch.Stats.MAXIMUM,
      period: Duration.minutes(1),
      ...props,
    });
  }

  /**
   * Failed deliveries to the on-failure destination (ErrorCount metrics, on by default here except where the
   * Region's CloudFormation schema accepts only EventCount: `EXTRA_METRICS_REFUSED_REGIONS`): each one is
   * a record Lambda gave up on and could not park, so it is lost unless replayed from Kafka. Per mapping
   * (`EventSourceMappingUUID`).
   * https://docs.aws.amazon.com/lambda/latest/dg/monitoring-metrics-types.html#event-source-mapping-metrics
   *
   * @example
   * consumer.metricOnFailureDeliveryErrors().createAlarm(this, 'DlqDelivery', {
   *   threshold: 0,
   *   evaluationPeriods: 1,
   *   // Not the default GreaterThanOrEqualToThreshold, under which a minute of 0 errors alarms.
   *   comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
   *   treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
   * });
   */
  metricOnFailureDeliveryErrors(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return new cloudwatch.Metric({
      namespace: 'AWS/Lambda',
      metricName: 'OnFailureDestinationDeliveryErrorCount',
      dimensionsMap: { EventSourceMappingUUID: this.mappingUuid },
      statistic: cloudwatch.Stats.SUM,
      period: Duration.minutes(1),
      ...props,
    });
  }

  /**
   * The mapping's cluster and its SourceAccessConfigurations: the MSK cluster ARN with its secret, or the
   * self-managed brokers with their secrets, subnets and security groups.
   */
  private sourceOptions(
    subnetIds: readonly string[],
  ): Pick<
    lambda.EventSourceMappingOptions,
    'eventSourceArn' | 'kafkaBootstrapServers' | 'sourceAccessConfigurations'
  > {
    const source = this.source;
    const access: lambda.SourceAccessConfiguration[] = [];
    if (source.kind === 'msk') {
      if (source.auth.type !== 'iam') {
        access.push({
          type:
            source.auth.type === 'mtls'
              ? lambda.SourceAccessConfigurationType.CLIENT_CERTIFICATE_TLS_AUTH
              : lambda.SourceAccessConfigurationType.SASL_SCRAM_512_AUTH,
          uri: source.auth.secret.secretArn,
        });
      }
      return {
        eventSourceArn: source.clusterArn,
        sourceAccessConfigurations: access.length > 0 ? access : undefined,
      };
    }
    const authTypes = {
      'sasl-scram-512': lambda.SourceAccessConfigurationType.SASL_SCRAM_512_AUTH,
      'sasl-scram-256': lambda.SourceAccessConfigurationType.SASL_SCRAM_256_AUTH,
      basic: lambda.SourceAccessConfigurationType.BASIC_AUTH,
      mtls: lambda.SourceAccessConfigurationType.CLIENT_CERTIFICATE_TLS_AUTH,
    } as const;
    if ('secret' in source.auth)
      access.push({ type: authTypes[source.auth.type], uri: source.auth.secret.secretArn });
    if (source.rootCaCertificate) {
      access.push({
        type: lambda.SourceAccessConfigurationType.SERVER_ROOT_CA_CERTIFICATE,
        uri: source.rootCaCertificate.secretArn,
      });
    }
    if (source.network) {
      for (const subnetId of subnetIds) {
        access.push({ type: lambda.SourceAccessConfigurationType.VPC_SUBNET, uri: subnetId });
      }
      for (const securityGroup of source.network.securityGroups) {
        access.push({
          type: lambda.SourceAccessConfigurationType.VPC_SECURITY_GROUP,
          uri: securityGroup.securityGroupId,
        });
      }
    }
    return { kafkaBootstrapServers: [...source.bootstrapServers], sourceAccessConfigurations: access };
  }

  /** Grants the source, the failure topic, and the source's and the schema registry's secrets. */
  private grantSourceAccess(
    role: iam.IRole,
    onFailure: FailureDestination,
    registrySecrets: readonly secretsmanager.ISecret[],
  ): void {
    const source = this.source;
    if (source.kind === 'msk') {
      const statements = mskTriggerStatements({
        clusterArn: source.clusterArn,
        topic: this.topic,
        consumerGroupId: this.consumerGroupId,
        auth: source.auth.type,
        failureTopic: onFailure.type === 'kafka' ? onFailure.topic : undefined,
      });
      for (const statement of statements) role.addToPrincipalPolicy(statement);
    }
    // The registry's secrets are read by the same pollers, and imported the same ways: one grant for both.
    grantSecretsRead(role, [...sourceSecrets(source), ...registrySecrets]);
    // The pollers of an MSK trigger, or of a self-managed one in a VPC, run in ENIs Lambda creates with this role.
    if (source.kind === 'msk' || source.network !== undefined) {
      for (const statement of networkInterfaceStatements(this, 'trigger'))
        role.addToPrincipalPolicy(statement);
      acknowledgeNetworkInterfaceWildcards(role);
    }
  }
}

// CreateEventSourceMapping takes at most 22 SourceAccessConfigurations, each URI of 1–200 characters
// (https://docs.aws.amazon.com/lambda/latest/api/API_CreateEventSourceMapping.html,
// https://docs.aws.amazon.com/lambda/latest/api/API_SourceAccessConfiguration.html); CloudFormation's schema
// for AWS::Lambda::EventSourceMapping has the same maxItems and maxLength (cfn-lint v1.51.0, see regions.ts).
const MAX_SOURCE_ACCESS_CONFIGURATIONS = 22;
const MAX_SOURCE_ACCESS_URI_LENGTH = 200;

/**
 * The trigger's source access configurations as Lambda takes them: a secret ARN (the URI) of 200
 * characters at most, and 22 entries at most, or the message names what they are and how many to leave
 * out (only subnets and security groups can go). Tokens pass.
 */
function assertSourceAccess(source: KafkaSource, access: readonly lambda.SourceAccessConfiguration[]): void {
  const secrets: [string, secretsmanager.ISecret | undefined][] = [
    ['source.auth.secret', sourceSecret(source)],
    ['source.rootCaCertificate', source.kind === 'self-managed' ? source.rootCaCertificate : undefined],
  ];
  for (const [prop, secret] of secrets) {
    const arn = secret?.secretArn;
    if (arn === undefined || Token.isUnresolved(arn) || arn.length <= MAX_SOURCE_ACCESS_URI_LENGTH) continue;
    throw new KafkaConsumerConfigError(
      `${prop} has an ARN of ${arn.length} characters: Lambda takes a SourceAccessConfiguration URI of at most ${MAX_SOURCE_ACCESS_URI_LENGTH} (give a secret with a shorter name)`,
    );
  }
  if (Token.isUnresolved(access) || access.length <= MAX_SOURCE_ACCESS_CONFIGURATIONS) return;
  const count = (type: lambda.SourceAccessConfigurationType) =>
    access.filter((entry) => entry.type === type).length;
  const parts = [
    `${count(lambda.SourceAccessConfigurationType.VPC_SUBNET)} subnets of source.network.subnets`,
    `${count(lambda.SourceAccessConfigurationType.VPC_SECURITY_GROUP)} source.network.securityGroups`,
    ...secrets.filter(([, secret]) => secret !== undefined).map(([prop]) => prop),
  ];
  const excess = access.length - MAX_SOURCE_ACCESS_CONFIGURATIONS;
  throw new KafkaConsumerConfigError(
    `source gives the trigger ${access.length} SourceAccessConfigurations (${parts.join(', ')}): Lambda takes at most ${MAX_SOURCE_ACCESS_CONFIGURATIONS}. ` +
      `Select ${excess} fewer ${excess === 1 ? 'subnet or security group' : 'subnets or security groups'}`,
  );
}

/** The mapping's on-failure destination, granting the role what Lambda needs of it. */
function failureDestination(
  onFailure: FailureDestination,
  queue: sqs.IQueue | undefined,
): lambda.IEventSourceDlq {
  switch (onFailure.type) {
    case 'kafka':
      return new KafkaDlq(onFailure.topic);
    case 'sns':
      return snsFailureDestination(onFailure.topic);
    case 's3':
      return s3FailureDestination(onFailure.bucket);
    case 'sqs':
      return sqsFailureDestination(queue!);
  }
}

/**
 * An SQS on-failure destination whose grant is what Lambda asks for: `sqs:SendMessage` on the queue
 * (https://docs.aws.amazon.com/lambda/latest/dg/kafka-on-failure.html), and for a queue under a customer
 * managed key what a producer needs of it, `kms:GenerateDataKey` and `kms:Decrypt`
 * (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-key-management.html).
 * aws-cdk-lib's SqsDlq grants `grantSendMessages`, which adds `sqs:GetQueueAttributes`, `sqs:GetQueueUrl`
 * and `kms:Encrypt`/`kms:ReEncrypt*`.
 */
function sqsFailureDestination(queue: sqs.IQueue): lambda.IEventSourceDlq {
  return {
    bind: (_mapping, target) => {
      queue.grant(target, 'sqs:SendMessage');
      queue.encryptionMasterKey?.grant(target, 'kms:GenerateDataKey', 'kms:Decrypt');
      return { destination: queue.queueArn };
    },
  };
}

/**
 * An SNS on-failure destination granting what Lambda asks for: `sns:Publish` on the topic, and for a topic
 * under a customer managed key `kms:Decrypt` and `kms:GenerateDataKey`
 * (https://docs.aws.amazon.com/lambda/latest/dg/kafka-on-failure.html). aws-cdk-lib's SnsDlq grants
 * `kms:GenerateDataKey*`, an action wildcard cdk-nag's AwsSolutions-IAM5 reports.
 */
function snsFailureDestination(topic: sns.ITopic): lambda.IEventSourceDlq {
  return {
    bind: (_mapping, target) => {
      target.grantPrincipal.addToPrincipalPolicy(
        new iam.PolicyStatement({ actions: ['sns:Publish'], resources: [topic.topicArn] }),
      );
      topic.masterKey?.grant(target, 'kms:Decrypt', 'kms:GenerateDataKey');
      return { destination: topic.topicArn };
    },
  };
}

/**
 * An S3 on-failure destination granting what Lambda asks for: `s3:ListBucket` on the bucket and
 * `s3:PutObject` on its objects (the object keys are Lambda's), and for a bucket under a customer managed
 * key `kms:GenerateDataKey` (https://docs.aws.amazon.com/lambda/latest/dg/kafka-on-failure.html).
 * aws-cdk-lib's S3OnFailureDestination grants `grantReadWrite`: reading and deleting every object too.
 */
function s3FailureDestination(bucket: s3.IBucket): lambda.IEventSourceDlq {
  return {
    bind: (_mapping, target) => {
      target.grantPrincipal.addToPrincipalPolicy(
        new iam.PolicyStatement({ actions: ['s3:ListBucket'], resources: [bucket.bucketArn] }),
      );
      target.grantPrincipal.addToPrincipalPolicy(
        new iam.PolicyStatement({ actions: ['s3:PutObject'], resources: [bucket.arnForObjects('*')] }),
      );
      bucket.encryptionKey?.grant(target, 'kms:GenerateDataKey');
      return { destination: bucket.bucketArn };
    },
  };
}

/**
 * The mapping properties in effect that AWS offers for Kafka only in provisioned mode (error handling
 * controls, a Kafka on-failure topic, metrics, logging;
 * https://docs.aws.amazon.com/lambda/latest/dg/kafka-retry-configurations.html), by their
 * CloudFormation names, when the mapping has no provisioned pollers. A schema registry is refused
 * outright (see `registryProperty`).
 */
function provisionedOnlyProperties(mapping: lambda.EventSourceMappingProps): string[] {
  if (mapping.provisionedPollerConfig !== undefined) return [];
  const given: [boolean, string][] = [
    [mapping.reportBatchItemFailures === true, 'FunctionResponseTypes'],
    [mapping.retryAttempts !== undefined && mapping.retryAttempts !== -1, 'MaximumRetryAttempts'],
    [mapping.maxRecordAge !== undefined, 'MaximumRecordAgeInSeconds'],
    [mapping.bisectBatchOnError === true, 'BisectBatchOnFunctionError'],
    [mapping.onFailure instanceof KafkaDlq, 'DestinationConfig.OnFailure (a Kafka topic)'],
    [mapping.metricsConfig !== undefined, 'MetricsConfig'],
    // "only available for Kafka event source mappings, and with Provisioned mode":
    // https://docs.aws.amazon.com/lambda/latest/dg/esm-logging.html
    [mapping.logLevel !== undefined, 'LoggingConfig'],
  ];
  return given.filter(([set]) => set).map(([, name]) => name);
}

/**
 * The mapping's schema registry and its role statements; refused at synth time without provisioned pollers
 * (schema registries exist only in provisioned mode:
 * https://docs.aws.amazon.com/lambda/latest/dg/services-consume-kafka-events.html).
 */
function registryProperty(
  props: KafkaConsumerFunctionProps,
): ReturnType<typeof schemaRegistryConfig> | undefined {
  if (props.schemaRegistry === undefined) return undefined;
  // The construct always sets provisioned pollers; only a mappingProps override can turn them off.
  const overrides = props.mappingProps;
  if (
    overrides &&
    'provisionedPollerConfig' in overrides &&
    overrides.provisionedPollerConfig === undefined
  ) {
    throw new KafkaConsumerConfigError(
      'a schema registry needs provisioned mode: keep provisionedPollers (Lambda supports schema registries only with provisioned pollers)',
    );
  }
  try {
    return schemaRegistryConfig(props.schemaRegistry);
  } catch (error) {
    if (error instanceof SchemaRegistryConfigError) throw new KafkaConsumerConfigError(error.message);
    throw error;
  }
}

/**
 * `mappingProps` a Kafka mapping does not take, or that would bypass this construct's own checks, with
 * what to use instead. ParallelizationFactor and TumblingWindowInSeconds are Kinesis and DynamoDB
 * Streams settings, ScalingConfig (maxConcurrency) an SQS one
 * (https://docs.aws.amazon.com/lambda/latest/api/API_CreateEventSourceMapping.html).
 */
const REFUSED_MAPPING_PROPS: Readonly<Record<string, string>> = {
  parallelizationFactor:
    'is for Kinesis and DynamoDB Streams mappings only: a Kafka trigger scales with its pollers (provisionedPollers)',
  tumblingWindow:
    'is for Kinesis and DynamoDB Streams mappings only: Kafka triggers have no tumbling windows',
  maxConcurrency:
    'is for SQS mappings only (ScalingConfig): a Kafka trigger scales with its pollers (provisionedPollers)',
  provisionedPollerConfig:
    "bypasses the construct's checks of pollers: use provisionedPollers (mappingProps takes provisionedPollerConfig: undefined only, to turn provisioned mode off)",
};

/**
 * `mappingProps` this construct sets from its own props, with the prop to use instead: the role's grants,
 * the failure queue and the replay function (`mappingUuid`, `consumerGroupId`, `topic`) are derived from
 * those props, so an override would leave them naming another function, cluster, topic, group, destination
 * or registry. The mapping props' type leaves these out; an untyped caller's are refused even when
 * `undefined`, which would replace the construct's value too (a mapping without a topic or destination).
 */
const CONSTRUCT_MAPPING_PROPS: Readonly<Record<string, string>> = {
  target: "is this construct's function: add a mapping of your own to consumer.function for another one",
  eventSourceArn:
    'is set from source.clusterArn, which the IAM policy is derived from: give the cluster as source',
  kafkaBootstrapServers:
    'is set from source.bootstrapServers, which the replay function connects to: give the brokers as source',
  sourceAccessConfigurations:
    'is set from source (auth, rootCaCertificate, network), which the IAM policy is derived from: give them in source',
  kafkaTopic: 'is set from topic, which the IAM policy and the replay function are derived from: give topic',
  kafkaConsumerGroupId:
    'is set from consumerGroupId, which the IAM policy and the replay function are derived from: give consumerGroupId',
  onFailure:
    "is set from onFailure, which the role's grant on the destination is derived from: give onFailure ({ type: 'sqs', queue? }, { type: 'sns', topic }, { type: 's3', bucket } or { type: 'kafka', topic })",
  schemaRegistryConfig:
    "is set from schemaRegistry, which the role's registry permissions are derived from: give schemaRegistry",
  filters:
    "bypasses the construct's checks of Kafka filters: use filterCriteria (Lambda's FilterCriteria, checked at synth time)",
};

function assertMappingOverrides(overrides: KafkaConsumerFunctionProps['mappingProps']): void {
  if (overrides === undefined) return;
  for (const [key, reason] of Object.entries(REFUSED_MAPPING_PROPS)) {
    if ((overrides as Readonly<Record<string, unknown>>)[key] !== undefined)
      throw new KafkaConsumerConfigError(`mappingProps.${key} ${reason}`);
  }
  for (const [key, reason] of Object.entries(CONSTRUCT_MAPPING_PROPS)) {
    if (Object.hasOwn(overrides, key)) throw new KafkaConsumerConfigError(`mappingProps.${key} ${reason}`);
  }
}

/** `value` in Lambda's range of whole numbers (or its −1 for "infinite" where it has one); Tokens pass. */
function assertIntegerIn(
  prop: string,
  value: number | undefined,
  range: { readonly min: number; readonly max: number; readonly infinite?: number },
): void {
  if (value === undefined || Token.isUnresolved(value) || value === range.infinite) return;
  if (Number.isInteger(value) && value >= range.min && value <= range.max) return;
  const infinite = range.infinite === undefined ? '' : `${range.infinite} or `;
  throw new KafkaConsumerConfigError(
    `${prop} ${String(value)} is not a value Lambda accepts: an integer ${infinite}${range.min}–${range.max}`,
  );
}

/** Provisioned pollers as the trigger's API counts them (`LAMBDA_LIMITS.provisionedPollers`). */
function assertPollerCounts(pollers: lambda.ProvisionedPollerConfig): void {
  const limits = LAMBDA_LIMITS.provisionedPollers;
  assertIntegerIn('provisionedPollers.minimumPollers', pollers.minimumPollers, limits.minimumPollers);
  assertIntegerIn('provisionedPollers.maximumPollers', pollers.maximumPollers, limits.maximumPollers);
  const minimum = pollers.minimumPollers ?? limits.minimumPollers.default;
  const maximum = pollers.maximumPollers ?? limits.maximumPollers.default;
  if (!Token.isUnresolved(minimum) && !Token.isUnresolved(maximum) && maximum < minimum)
    throw new KafkaConsumerConfigError(
      `provisionedPollers.maximumPollers (${maximum}) must be at least minimumPollers (${minimum})`,
    );
}

const METRIC_TYPES: readonly string[] = Object.values(lambda.MetricType);
/** A Unix-seconds value this large is past the year 3000: a timestamp in milliseconds, certainly. */
const YEAR_3000_SECONDS = Date.UTC(3000, 0, 1) / 1000;

/**
 * The mapping's numbers, once `mappingProps` is applied over the construct's props (the message names
 * whichever prop the value came from): batch size and retries as whole numbers in the API's ranges,
 * the batching window and record age in whole seconds within theirs, the starting timestamp in Unix
 * seconds, not in the future, and given exactly with `AT_TIMESTAMP`, metrics each named once. Tokens pass.
 * aws-cdk-lib's EventSourceMapping checks some of these too, but only once the function exists (bundled),
 * and with errors outside {@link KafkaLambdaCdkError}.
 */
function assertMappingNumbers(
  mapping: Omit<lambda.EventSourceMappingProps, 'target'>,
  props: Pick<KafkaConsumerFunctionProps, 'mappingProps' | 'startingPosition'>,
): void {
  const overrides = props.mappingProps;
  const named = (key: keyof lambda.EventSourceMappingOptions): string =>
    overrides !== undefined && key in overrides ? `mappingProps.${key}` : key;
  assertIntegerIn(named('batchSize'), mapping.batchSize, LAMBDA_LIMITS.batchSize);
  assertIntegerIn(named('retryAttempts'), mapping.retryAttempts, LAMBDA_LIMITS.maximumRetryAttempts);
  assertStartingPosition(named('startingPosition'), mapping.startingPosition);
  assertStartingTimestamp(named('startingPositionTimestamp'), mapping.startingPositionTimestamp);
  const positionIsDefault =
    props.startingPosition === undefined && named('startingPosition') === 'startingPosition';
  assertTimestampWithPosition(
    named('startingPositionTimestamp'),
    mapping.startingPositionTimestamp,
    `${named('startingPosition')} ${String(mapping.startingPosition)}${positionIsDefault ? ' (the default)' : ''}`,
    mapping.startingPosition,
  );
  assertWholeSeconds(named('maxBatchingWindow'), mapping.maxBatchingWindow, 'MaximumBatchingWindowInSeconds');
  assertWholeSeconds(named('maxRecordAge'), mapping.maxRecordAge, 'MaximumRecordAgeInSeconds');
  const window = LAMBDA_LIMITS.batchingWindowSeconds;
  assertSecondsIn(
    named('maxBatchingWindow'),
    mapping.maxBatchingWindow,
    window,
    `a batching window Lambda accepts: ${window.min}–${window.max} seconds (MaximumBatchingWindowInSeconds)`,
  );
  const age = LAMBDA_LIMITS.maximumRecordAgeSeconds;
  // A Duration cannot be -1 (no limit): the mapping has no limit when the property is left out.
  assertSecondsIn(
    named('maxRecordAge'),
    mapping.maxRecordAge,
    age,
    `a record age Lambda accepts: ${age.min}–${age.max} seconds, 1 minute to 7 days (MaximumRecordAgeInSeconds; for no limit, ${age.infinite}, take it out with mappingProps: { maxRecordAge: undefined })`,
  );
  const metrics = mapping.metricsConfig?.metrics;
  if (metrics === undefined || Token.isUnresolved(metrics)) return;
  const prop = 'mappingProps.metricsConfig.metrics';
  if (!Array.isArray(metrics)) throw new KafkaConsumerConfigError(`${prop} must be a list of MetricType`);
  const accepted = METRIC_TYPES.join(', ');
  for (const [index, metric] of metrics.entries()) {
    if (!METRIC_TYPES.includes(metric))
      throw new KafkaConsumerConfigError(
        `${prop}: ${JSON.stringify(metric) ?? 'undefined'} is not a metric group of a Kafka mapping (${accepted})`,
      );
    if (metrics.indexOf(metric) !== index)
      throw new KafkaConsumerConfigError(
        `${prop} names ${metric} twice: name each of ${accepted} at most once`,
      );
  }
}

/**
 * A Duration (already whole seconds) within Lambda's `range` of seconds; `accepted` says what Lambda takes.
 * Tokens pass.
 */
function assertSecondsIn(
  prop: string,
  duration: Duration | undefined,
  range: { readonly min: number; readonly max: number },
  accepted: string,
): void {
  if (duration === undefined || duration.isUnresolved()) return;
  const seconds = duration.toSeconds();
  if (seconds >= range.min && seconds <= range.max) return;
  throw new KafkaConsumerConfigError(
    `${prop} ${duration.toString()} (${seconds} seconds) is not ${accepted}`,
  );
}

/**
 * `StartingPositionTimestamp` is given exactly when `StartingPosition` is `AT_TIMESTAMP`: Lambda reads it
 * only then (https://docs.aws.amazon.com/lambda/latest/api/API_CreateEventSourceMapping.html), and
 * aws-cdk-lib refuses either without the other. `position` names the position and where it came from.
 * Tokens pass.
 */
function assertTimestampWithPosition(
  prop: string,
  timestamp: number | undefined,
  position: string,
  value: lambda.StartingPosition | undefined,
): void {
  if (Token.isUnresolved(value)) return;
  const atTimestamp = value === lambda.StartingPosition.AT_TIMESTAMP;
  if (atTimestamp && timestamp === undefined)
    throw new KafkaConsumerConfigError(
      `${position} needs startingPositionTimestamp (Unix seconds): the time a new consumer group starts reading at`,
    );
  if (!atTimestamp && timestamp !== undefined)
    throw new KafkaConsumerConfigError(
      `${prop} ${String(timestamp)} is given with ${position}: Lambda takes a timestamp only with AT_TIMESTAMP (set startingPosition: StartingPosition.AT_TIMESTAMP, or leave the timestamp out)`,
    );
}

/**
 * A Duration the mapping sends as an integer number of seconds (`property`; both are integers in
 * https://docs.aws.amazon.com/lambda/latest/api/API_CreateEventSourceMapping.html). Checked before
 * CDK converts it, whose own error ("cannot be converted into a whole number of seconds") names neither
 * the prop nor where the value came from. The same conversion as CDK's, so what passes here passes
 * there. Tokens pass.
 */
function assertWholeSeconds(prop: string, duration: Duration | undefined, property: string): void {
  if (duration === undefined) return;
  if (typeof (duration as { toSeconds?: unknown }).toSeconds !== 'function')
    throw new KafkaConsumerConfigError(
      `${prop} must be a Duration (e.g. Duration.seconds(2)), got ${JSON.stringify(duration) ?? String(duration)}`,
    );
  if (duration.isUnresolved()) return;
  const seconds = duration.toSeconds({ integral: false });
  if (Number.isInteger(seconds)) return;
  // Not toHumanString(): it leaves out the fraction ("1 minute 30 seconds" for 90.25 s).
  throw new KafkaConsumerConfigError(
    `${prop} ${duration.toString()} (${seconds} seconds) is not a whole number of seconds: Lambda takes ${property} in whole seconds`,
  );
}

const STARTING_POSITIONS: readonly string[] = Object.values(lambda.StartingPosition);

/**
 * `StartingPosition`: one of the values CloudFormation's pattern takes (an untyped caller's `EARLIEST` is
 * Kafka's name, not the trigger's); Tokens pass.
 * https://docs.aws.amazon.com/lambda/latest/api/API_CreateEventSourceMapping.html
 */
function assertStartingPosition(prop: string, position: lambda.StartingPosition | undefined): void {
  if (Token.isUnresolved(position) || (position !== undefined && STARTING_POSITIONS.includes(position)))
    return;
  throw new KafkaConsumerConfigError(
    `${prop} ${JSON.stringify(position) ?? 'undefined'} is not a starting position of a Kafka trigger (one of ${STARTING_POSITIONS.join(', ')})`,
  );
}

/**
 * `StartingPositionTimestamp`: Unix seconds, which the API says cannot be in the future
 * (https://docs.aws.amazon.com/lambda/latest/api/API_CreateEventSourceMapping.html); "the future" is
 * the synth machine's clock.
 */
function assertStartingTimestamp(prop: string, timestamp: number | undefined): void {
  if (timestamp === undefined || Token.isUnresolved(timestamp)) return;
  if (typeof timestamp !== 'number' || !Number.isFinite(timestamp) || timestamp < 0)
    throw new KafkaConsumerConfigError(
      `${prop} ${String(timestamp)} is not a time Lambda accepts: Unix seconds, 0 or more`,
    );
  if (timestamp >= YEAR_3000_SECONDS)
    throw new KafkaConsumerConfigError(
      `${prop} ${timestamp} is in milliseconds (as Unix seconds it is past the year 3000): give Unix seconds, ${Math.floor(timestamp / 1000)}`,
    );
  const now = Date.now() / 1000;
  if (timestamp > now)
    throw new KafkaConsumerConfigError(
      `${prop} ${timestamp} (${new Date(timestamp * 1000).toISOString()}) is in the future: Lambda refuses a starting timestamp later than now (${new Date(now * 1000).toISOString()} at synth)`,
    );
}

/**
 * The subnets of a `source.network`: where a self-managed trigger's pollers run to reach brokers inside
 * the VPC (https://docs.aws.amazon.com/lambda/latest/dg/with-kafka-cluster-network.html), and where the
 * replay function runs. A selection of none (a subnet type or group the VPC lacks, an empty list,
 * filters nothing passes) is refused, naming the prop: CDK's own error for a missing type or group names
 * neither, and an empty selection would deploy security groups with no subnet. `needs` says who needs one.
 */
export function networkSubnetIds(
  network: KafkaNetwork,
  needs: string,
  toError: (message: string, options?: ErrorOptions) => Error,
): string[] {
  let subnetIds: string[];
  try {
    subnetIds = network.vpc.selectSubnets(network.subnets).subnetIds;
  } catch (error) {
    // CDK's message says what the VPC has instead: kept, under the prop's name.
    if (!Errors.isValidationError(error)) throw error;
    throw toError(
      `source.network.subnets selects no subnet of source.network.vpc (${error.message}): ${needs}`,
      {
        cause: error,
      },
    );
  }
  if (subnetIds.length === 0)
    throw toError(`source.network.subnets selects no subnet of source.network.vpc: ${needs}`);
  return subnetIds;
}

// Kafka's `ConsumerGroupId` of the trigger's API: 1–200 characters of this set.
// https://docs.aws.amazon.com/lambda/latest/api/API_AmazonManagedKafkaEventSourceConfig.html
const CONSUMER_GROUP_ID = /^[a-zA-Z0-9\-/*:_+=.@]{1,200}$/;

/**
 * Why a consumer group id cannot be the trigger's (`undefined` when it can): one the trigger's API
 * refuses, or, with MSK IAM auth, one the role cannot be granted by name. An empty one would be
 * dropped from the template (Lambda then makes up a group of its own, which no grant names). `prop`
 * names it in the message. Tokens pass. The replay function holds its target's group to the same rules.
 *
 * @example
 * const problem = consumerGroupIdProblem('target.consumerGroupId', 'bad group!', source); // names the allowed characters
 */
export function consumerGroupIdProblem(
  prop: string,
  groupId: string,
  source: KafkaSource,
): string | undefined {
  if (Token.isUnresolved(groupId)) return undefined;
  if (groupId === '')
    return `${prop} is empty: Lambda would consume as a group id of its own choosing, which the IAM policy and the replay function do not name`;
  if (typeof groupId !== 'string' || !CONSUMER_GROUP_ID.test(groupId))
    return `${prop} ${JSON.stringify(groupId) ?? 'undefined'} is not a consumer group id a Kafka trigger accepts (1–200 of a-z A-Z 0-9 - / * : _ + = . @)`;
  return source.kind === 'msk' && source.auth.type === 'iam'
    ? consumerGroupGrantProblem(prop, groupId)
    : undefined;
}

/**
 * Why a topic name is not one the trigger's API accepts (see `LAMBDA_LIMITS.names`), or `undefined`. Its
 * alphabet has no `*` or `?`, which IAM would read as wildcards in the topic ARNs the roles are granted.
 * `prop` names it in the message. Tokens pass.
 *
 * @example
 * const problem = topicNameProblem('allowedTopics[0]', '*'); // not a topic name
 */
export function topicNameProblem(prop: string, topic: string): string | undefined {
  if (typeof topic !== 'string') return `${prop} must be a topic name, got ${String(topic)}`;
  if (Token.isUnresolved(topic) || LAMBDA_LIMITS.names.topic.test(topic)) return undefined;
  // The destination the mapping gets is `kafka://<topic>`: the construct writes the scheme itself.
  if (topic.startsWith('kafka://'))
    return `${prop} "${topic}" starts with kafka://: give the topic name alone ("${topic.slice('kafka://'.length)}"), the construct adds the kafka:// prefix`;
  return `${prop} "${topic}" is not a topic name a Kafka trigger accepts (2–249 of a-z A-Z 0-9 . _ -, not starting with a dot)`;
}

/**
 * Why `functionProps` cannot set the function's logs as given, or `undefined`: `logRetention` makes CDK
 * create a log group of its own through a custom resource, which aws-cdk-lib refuses next to the
 * `logGroup` these constructs give the function (`LogRetentionLogGroupConflict`).
 *
 * @example
 * const problem = logRetentionProblem({ logRetention: logs.RetentionDays.ONE_WEEK }); // names functionProps.logGroup
 */
export function logRetentionProblem(
  functionProps: Pick<NodejsFunctionProps, 'logRetention'> | undefined,
): string | undefined {
  if (functionProps?.logRetention === undefined) return undefined;
  return (
    'functionProps.logRetention cannot be used: the function logs to a log group of its own (one month), and ' +
    'aws-cdk-lib refuses logRetention next to a logGroup. Give functionProps.logGroup instead ' +
    '(e.g. new logs.LogGroup(this, "Logs", { retention: logs.RetentionDays.ONE_WEEK })): the role is granted it'
  );
}

/**
 * The function's log group: `functionProps.logGroup` when given, else one of `scope`'s (one month,
 * destroyed with the stack); `role` may write to it, and to no other.
 *
 * @example
 * const logGroup = functionLogGroup(this, role, props.functionProps);
 */
export function functionLogGroup(
  scope: Construct,
  role: iam.IRole,
  functionProps: Pick<NodejsFunctionProps, 'logGroup'> | undefined,
): logs.ILogGroupRef {
  const logGroup =
    functionProps?.logGroup ??
    new logs.LogGroup(scope, 'Logs', {
      retention: logs.RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
  // What LogGroup.grantWrite grants, for any reference to a log group (functionProps takes ILogGroupRef).
  const logGroupArn = logGroup.logGroupRef.logGroupArn;
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
      resources: [logGroupArn],
    }),
  );
  if (functionProps?.logGroup !== undefined) acknowledgeLogStreams(role, logGroupArn);
  return logGroup;
}

/** Throws the problem a check found, if any, as this construct's error. */
function refuse(problem: string | undefined): void {
  if (problem !== undefined) throw new KafkaConsumerConfigError(problem);
}

// CloudFormation takes DestinationConfig.OnFailure.Destination of 12 characters or more, `kafka://` and
// the topic included: a topic the trigger's API accepts (2 characters or more) may still be too short.
// https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-properties-lambda-eventsourcemapping-onfailure.html
const MIN_DESTINATION_LENGTH = 12;
const KAFKA_SCHEME = 'kafka://';

/** A Kafka on-failure topic: a topic name the trigger's API accepts, long enough for CloudFormation. */
function assertFailureTopicName(topic: string): void {
  refuse(topicNameProblem('onFailure.topic', topic));
  const destination = `${KAFKA_SCHEME}${topic}`;
  if (Token.isUnresolved(topic) || destination.length >= MIN_DESTINATION_LENGTH) return;
  throw new KafkaConsumerConfigError(
    `onFailure.topic "${topic}" is too short for an on-failure destination: CloudFormation takes DestinationConfig.OnFailure.Destination ("${destination}") of ${MIN_DESTINATION_LENGTH} characters or more, so a topic name of ${MIN_DESTINATION_LENGTH - KAFKA_SCHEME.length} or more`,
  );
}

/**
 * What the emulator's rules check in place of a pattern given as a Token, which only Lambda sees (at deploy
 * time): one they accept, so that the other patterns keep their index in messages and every filter counts
 * towards the limit.
 */
const TOKEN_PATTERN_STAND_IN = { Pattern: '{"value":[{"exists":true}]}' };

/**
 * The mapping's `filters` from Lambda's `FilterCriteria`, refused at synth time when Lambda would refuse it;
 * a pattern given as a Token passes unchecked.
 */
function filterProperty(criteria: FilterCriteria | undefined): Array<{ pattern: string }> | undefined {
  if (criteria === undefined || criteria?.Filters?.length === 0) return undefined;
  const filters = criteria?.Filters;
  try {
    compileFilterCriteria(
      Array.isArray(filters)
        ? {
            Filters: filters.map((filter) =>
              Token.isUnresolved(filter?.Pattern) ? TOKEN_PATTERN_STAND_IN : filter,
            ),
          }
        : criteria,
    );
  } catch (error) {
    if (error instanceof InvalidMappingSettingError) throw new KafkaConsumerConfigError(error.message);
    throw error;
  }
  const patterns = criteria.Filters.map((filter) => filter.Pattern);
  for (const [index, pattern] of patterns.entries()) {
    const first = patterns.indexOf(pattern);
    if (first !== index)
      throw new KafkaConsumerConfigError(
        `filterCriteria.Filters[${index}].Pattern is the same as Filters[${first}].Pattern: CloudFormation refuses duplicate FilterCriteria.Filters (uniqueItems)`,
      );
  }
  return patterns.map((pattern) => ({ pattern }));
}
