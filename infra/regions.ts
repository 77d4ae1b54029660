import { Token } from 'aws-cdk-lib';
import { KafkaLambdaCdkError } from './errors.ts';

/** A Region synth can check: an environment-agnostic stack's Region is a token, and is never refused. */
function isKnown(region: string): boolean {
  return !Token.isUnresolved(region);
}

/**
 * The Regions where MSK Serverless (`AWS::MSK::ServerlessCluster`) exists, as the MSK Developer Guide
 * lists them (https://docs.aws.amazon.com/msk/latest/developerguide/serverless.html). Elsewhere (for
 * example us-west-1, me-south-1, the China and GovCloud Regions) CloudFormation has no such resource type.
 *
 * @example
 * MSK_SERVERLESS_REGIONS.includes('eu-west-1'); // true
 */
export const MSK_SERVERLESS_REGIONS: readonly string[] = [
  'us-east-1',
  'us-east-2',
  'us-west-2',
  'ca-central-1',
  'ap-south-1',
  'ap-southeast-1',
  'ap-southeast-2',
  'ap-northeast-1',
  'ap-northeast-2',
  'eu-central-1',
  'eu-north-1',
  'eu-west-1',
  'eu-west-2',
  'eu-west-3',
];

/**
 * The stack's Region cannot host what a construct was given: its CloudFormation schema for the mapping
 * lacks a property the props need (a `kafka://` destination, a poller group, metrics beyond `EventCount`,
 * `logLevel`), or the service does not exist there. The message names the prop and the alternative.
 *
 * @example
 * try { new KafkaConsumerFunction(stack, 'Orders', props); } catch (e) { if (e instanceof UnsupportedRegionError) console.error(e.region, e.message); }
 */
export class UnsupportedRegionError extends KafkaLambdaCdkError {
  /** Always `'UnsupportedRegionError'`. */
  override readonly name = 'UnsupportedRegionError';
  /** The stack's Region, as synth resolved it (for example `cn-north-1`). */
  readonly region: string;
  /**
   * @param region - The stack's Region, as synth resolved it.
   * @param message - What the Region cannot host, and the alternative.
   * @param options - `cause`: the error this one restates, if any (the app adds its own wording).
   */
  constructor(region: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.region = region;
  }
}

/**
 * Refuses an MSK Serverless cluster in a Region known at synth time where the service does not exist;
 * an environment-agnostic stack (Region a token) is not checked.
 *
 * @example
 * assertMskServerlessRegion(Stack.of(this).region);
 * @throws UnsupportedRegionError naming `-c cluster=provisioned` as the alternative.
 */
export function assertMskServerlessRegion(region: string): void {
  if (!isKnown(region) || MSK_SERVERLESS_REGIONS.includes(region)) return;
  throw new UnsupportedRegionError(
    region,
    `MSK Serverless is not available in ${region} (it is in ${MSK_SERVERLESS_REGIONS.join(', ')}): ` +
      'deploy an MSK provisioned cluster with -c cluster=provisioned, or use your own cluster with -c cluster=existing',
  );
}

// CloudFormation validates a resource's properties against the schema registered in the stack's Region, and
// for AWS::Lambda::EventSourceMapping three Regions still have an older revision of it. Source: cfn-lint
// release v1.51.0 (git tag v1.51.0 of aws-cloudformation/cfn-lint: src/cfnlint/data/schemas/providers/<region>.py
// names each Region's schema, src/cfnlint/data/schemas/resources/<hash>.json holds it; older commits kept one
// providers/<region>/aws-lambda-eventsourcemapping.json per Region and predate `kafka://`). Every commercial,
// China and GovCloud Region has the schema of us-east-1 (or one differing only in FunctionName's pattern)
// except cn-north-1, cn-northwest-1 and il-central-1, whose schema has: an ARN-only pattern for
// DestinationConfig.OnFailure.Destination (no `kafka://`), only `EventCount` in MetricsConfig.Metrics, no
// ProvisionedPollerConfig.PollerGroupName and no LoggingConfig (each object with additionalProperties: false).
// Each gap has its own list below, so that a schema update in a Region takes it out of the right lists only.
// The app's templates avoiding these gaps pass that cfn-lint's schema checks in every one of those Regions.
// Kafka on-failure destinations: https://docs.aws.amazon.com/lambda/latest/dg/kafka-on-failure-destination.html

/**
 * The Regions whose CloudFormation schema for `AWS::Lambda::EventSourceMapping` accepts only ARNs as
 * `DestinationConfig.OnFailure.Destination`: a `kafka://<topic>` on-failure destination fails validation
 * there, so synth refuses it and an SQS destination is the alternative.
 *
 * @example
 * KAFKA_DESTINATION_REFUSED_REGIONS.includes('il-central-1'); // true
 */
export const KAFKA_DESTINATION_REFUSED_REGIONS: readonly string[] = [
  'cn-north-1',
  'cn-northwest-1',
  'il-central-1',
];

/**
 * The Regions whose CloudFormation schema for `AWS::Lambda::EventSourceMapping` accepts only `EventCount`
 * in `MetricsConfig.Metrics` (not `ErrorCount` nor `KafkaMetrics`).
 *
 * @example
 * EXTRA_METRICS_REFUSED_REGIONS.includes('cn-north-1'); // true
 */
export const EXTRA_METRICS_REFUSED_REGIONS: readonly string[] = [
  'cn-north-1',
  'cn-northwest-1',
  'il-central-1',
];

/**
 * The Regions whose CloudFormation schema for `AWS::Lambda::EventSourceMapping` has no
 * `ProvisionedPollerConfig.PollerGroupName`.
 *
 * @example
 * POLLER_GROUP_REFUSED_REGIONS.includes('cn-northwest-1'); // true
 */
export const POLLER_GROUP_REFUSED_REGIONS: readonly string[] = [
  'cn-north-1',
  'cn-northwest-1',
  'il-central-1',
];

/**
 * The Regions whose CloudFormation schema for `AWS::Lambda::EventSourceMapping` has no `LoggingConfig`
 * (the mapping's `logLevel`).
 *
 * @example
 * LOGGING_CONFIG_REFUSED_REGIONS.includes('il-central-1'); // true
 */
export const LOGGING_CONFIG_REFUSED_REGIONS: readonly string[] = [
  'cn-north-1',
  'cn-northwest-1',
  'il-central-1',
];

/**
 * Refuses a `kafka://` on-failure destination in a Region known at synth time whose CloudFormation schema
 * accepts only ARNs as the destination; an environment-agnostic stack (Region a token) is not checked.
 *
 * @example
 * if (onFailure.type === 'kafka') assertKafkaDestinationRegion(Stack.of(this).region);
 * @throws UnsupportedRegionError naming the SQS destination as the alternative.
 */
export function assertKafkaDestinationRegion(region: string): void {
  refuseWhereSchemaLacks(
    region,
    KAFKA_DESTINATION_REFUSED_REGIONS,
    'a kafka:// on-failure destination',
    'accepts only ARNs as DestinationConfig.OnFailure.Destination',
    "Send failed records to SQS instead: onFailure: { type: 'sqs' }",
  );
}

/**
 * Throws {@link UnsupportedRegionError} when the Region is known at synth time and among `regions`, whose
 * CloudFormation schema for the mapping lacks what `refused` needs; an environment-agnostic stack (Region
 * a token) is not checked.
 */
function refuseWhereSchemaLacks(
  region: string,
  regions: readonly string[],
  refused: string,
  schemaLack: string,
  alternative: string,
): void {
  if (!isKnown(region) || !regions.includes(region)) return;
  throw new UnsupportedRegionError(
    region,
    `${refused} cannot be deployed in ${region}: there (as in ${regions.join(', ')}) CloudFormation's schema for ` +
      `AWS::Lambda::EventSourceMapping ${schemaLack}. ${alternative}`,
  );
}

/**
 * Refuses a provisioned-poller group name in a Region known at synth time whose CloudFormation schema has
 * no `PollerGroupName`; an environment-agnostic stack (Region a token) is not checked.
 *
 * @example
 * if (pollers.pollerGroupName !== undefined) assertPollerGroupRegion(Stack.of(this).region);
 * @throws UnsupportedRegionError naming the alternative (the trigger's own pollers).
 */
export function assertPollerGroupRegion(region: string): void {
  refuseWhereSchemaLacks(
    region,
    POLLER_GROUP_REFUSED_REGIONS,
    'a provisioned-poller group',
    'has no ProvisionedPollerConfig.PollerGroupName',
    'Leave out provisionedPollers.pollerGroupName: the trigger then has pollers of its own',
  );
}

/**
 * Whether the mapping may ask only for `EventCount` metrics in this Region (known at synth time and in
 * {@link EXTRA_METRICS_REFUSED_REGIONS}); an environment-agnostic stack gets every metric group.
 *
 * @example
 * const metrics = acceptsOnlyEventCountMetrics(Stack.of(this).region) ? [MetricType.EVENT_COUNT] : allMetrics;
 */
export function acceptsOnlyEventCountMetrics(region: string): boolean {
  return isKnown(region) && EXTRA_METRICS_REFUSED_REGIONS.includes(region);
}

/**
 * Refuses mapping metrics other than `EventCount` (which only `mappingProps.metricsConfig` can ask for
 * there) in a Region known at synth time whose CloudFormation schema accepts nothing else; an
 * environment-agnostic stack (Region a token) is not checked.
 *
 * @example
 * assertMetricsRegion(Stack.of(this).region, mapping.metricsConfig.metrics);
 * @throws UnsupportedRegionError naming the alternative (`EventCount` alone).
 */
export function assertMetricsRegion(region: string, metrics: readonly string[]): void {
  if (!acceptsOnlyEventCountMetrics(region)) return;
  const refused = metrics.filter((metric) => metric !== 'EventCount');
  if (refused.length === 0) return;
  throw new UnsupportedRegionError(
    region,
    `mappingProps.metricsConfig.metrics asks for ${refused.join(', ')}, which cannot be deployed in ${region}: there (as in ` +
      `${EXTRA_METRICS_REFUSED_REGIONS.join(', ')}) CloudFormation's schema for AWS::Lambda::EventSourceMapping ` +
      'accepts only EventCount in MetricsConfig.Metrics. Ask for EventCount alone ' +
      '(metricsConfig: { metrics: [MetricType.EVENT_COUNT] }), or leave metricsConfig out: the construct then does so there',
  );
}

/**
 * Refuses a mapping `logLevel` (CloudFormation's `LoggingConfig`) in a Region known at synth time whose
 * CloudFormation schema has no `LoggingConfig`; an environment-agnostic stack (Region a token) is not checked.
 *
 * @example
 * if (mapping.logLevel !== undefined) assertLoggingConfigRegion(Stack.of(this).region);
 * @throws UnsupportedRegionError naming the alternative (leaving `logLevel` out).
 */
export function assertLoggingConfigRegion(region: string): void {
  refuseWhereSchemaLacks(
    region,
    LOGGING_CONFIG_REFUSED_REGIONS,
    'mappingProps.logLevel',
    'has no LoggingConfig',
    "Leave out logLevel: the mapping then sends no system logs (the function's own logs are unaffected)",
  );
}
