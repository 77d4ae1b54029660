import { Duration, Fn, Token } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, type NodejsFunctionProps } from 'aws-cdk-lib/aws-lambda-nodejs';
import { Construct } from 'constructs';
import { defineOptions, unchecked } from '../lib/options/options.ts';
import { lambdaBundling } from './bundling.ts';
import { KafkaLambdaCdkError } from './errors.ts';
import {
  grantSecretsRead,
  mappingControlStatement,
  mskReplayStatements,
  networkInterfaceStatements,
} from './iam.ts';
import {
  consumerGroupIdProblem,
  functionLogGroup,
  KafkaConsumerFunction,
  kafkaSourceOptions,
  logRetentionProblem,
  networkSubnetIds,
  topicNameProblem,
} from './kafka-consumer-function.ts';
import { type KafkaSource, sourceSecret, sourceSecrets } from './kafka-source.ts';
import { assertClusterInStackEnvironment } from './msk-arns.ts';
import { acknowledgeNetworkInterfaceWildcards } from './nag.ts';
import { packagedReplayHandler } from './packaged-replay-handler.ts';
import type { KafkaVpcEndpointService } from './vpc-endpoints.ts';

/**
 * A replay function that could not reach its cluster, whose cluster is not its target's, or whose
 * allow-list is empty or leaves out its target's topic.
 *
 * @example
 * try { new KafkaReplayFunction(stack, 'Replay', props); } catch (e) { if (e instanceof KafkaReplayConfigError) console.error(e.message); }
 */
export class KafkaReplayConfigError extends KafkaLambdaCdkError {
  /** Always `'KafkaReplayConfigError'`. */
  override readonly name = 'KafkaReplayConfigError';
}

/**
 * The trigger a replay rewinds; a {@link KafkaConsumerFunction} is one.
 *
 * @example
 * const target: ReplayTarget = consumer; // or { mappingUuid, mappingArn, consumerGroupId, topic }
 */
export interface ReplayTarget {
  /** The event source mapping's UUID: the function's default mapping (`REPLAY_MAPPING_UUID`). */
  readonly mappingUuid: string;
  /** The mapping's ARN: the one mapping the role may get and update (pause, resume). */
  readonly mappingArn: string;
  /** The mapping's consumer group: the only group the function may move (and, with MSK IAM, is granted). */
  readonly consumerGroupId: string;
  /** The mapping's topic: what `allowedTopics` defaults to, and must include. */
  readonly topic: string;
}

/**
 * Props of {@link KafkaReplayFunction}.
 *
 * @example
 * const props: KafkaReplayFunctionProps = { entry: 'functions/replay/handler.ts', source, target: consumer };
 */
export interface KafkaReplayFunctionProps {
  /**
   * The replay handler's source file, bundled with esbuild.
   * @default the replay handler shipped in this package, already bundled (no esbuild or Docker needed)
   */
  readonly entry?: string | undefined;
  /** The export of `entry` Lambda calls. @default 'handler' */
  readonly handler?: string | undefined;
  /**
   * The cluster the function connects to, with a `network` for an MSK cluster (its brokers are reachable
   * only from their VPC). The target's own cluster: with a {@link KafkaConsumerFunction} as `target`,
   * another cluster ARN or other brokers are refused; `consumer.source` is the usual value.
   */
  readonly source: KafkaSource;
  /**
   * The trigger whose consumer group the function moves: a {@link KafkaConsumerFunction}, or the
   * mapping's UUID, ARN, group and topic of a trigger made elsewhere.
   */
  readonly target: ReplayTarget;
  /**
   * Topics whose offsets the function may move: names a Kafka trigger accepts (`a-z A-Z 0-9 . _ -`, so no
   * `*` or `?`, which IAM would read as wildcards in the granted topic ARNs), `target.topic` among them (a
   * replay of the target's mapping moves its group on that topic; a list without it is refused).
   * @default [target.topic]
   */
  readonly allowedTopics?: readonly string[] | undefined;
  /** Overrides for the function; applied over this construct's defaults. */
  readonly functionProps?: Omit<NodejsFunctionProps, 'entry' | 'handler' | 'role'> | undefined;
}

// Declared once (lib/options): a misspelled prop is refused at synth time with the nearest valid name.
// `target` is usually a KafkaConsumerFunction, whose other members are not props: not checked.
const REPLAY_PROPS = defineOptions<KafkaReplayFunctionProps>({
  entry: unchecked,
  handler: unchecked,
  source: kafkaSourceOptions,
  target: unchecked,
  allowedTopics: unchecked,
  functionProps: unchecked,
});

/**
 * The replay function: pauses one Kafka trigger, moves its consumer group's offsets and resumes it. It runs
 * next to the brokers (VPC) and may touch nothing else: `lambda:Get/UpdateEventSourceMapping` on that one
 * mapping, and with MSK IAM auth `kafka-cluster:*` on that cluster, group and the allowed topics.
 *
 * @example
 * const replay = new KafkaReplayFunction(this, 'Replay', {
 *   entry: 'functions/replay/handler.ts',
 *   source,
 *   target: consumer, // a KafkaConsumerFunction
 * });
 * new CfnOutput(this, 'ReplayFunctionName', { value: replay.function.functionName });
 */
export class KafkaReplayFunction extends Construct {
  /** The replay function: `kafka-lambda replay --function <its name>` invokes it. */
  readonly function: NodejsFunction;
  /** The topics it may move the group on (`allowedTopics`, or the target's one topic). */
  readonly allowedTopics: readonly string[];
  /**
   * The AWS APIs the function calls: `lambda` (it pauses and resumes the trigger), `secretsmanager` when
   * the source has a secret, `kafka` for an MSK cluster's brokers. In a VPC without a NAT gateway it needs
   * endpoints for them ({@link KafkaVpcEndpoints}); without, each call ends in `AwsApiTimeoutError`.
   */
  readonly vpcEndpointServices: readonly KafkaVpcEndpointService[];

  /**
   * @param scope - The construct (usually a stack) to add the function to.
   * @param id - The construct's id.
   * @param props - The cluster, the trigger whose group it moves, and the function's settings.
   * @throws KafkaReplayConfigError when a prop is unknown or cannot work with the others: among them a
   *   `source` other than the cluster of a `target` that is a {@link KafkaConsumerFunction} (another MSK
   *   cluster ARN or other brokers), and `allowedTopics` without `target.topic`.
   * @throws InvalidClusterArnError when an MSK `source.clusterArn` is not an MSK cluster ARN.
   * @throws ClusterOutsideStackEnvironmentError when it is a cluster of another account or Region than
   *   the stack's, or an MSK managed VPC connection (cross-account clusters are not supported).
   */
  constructor(scope: Construct, id: string, props: KafkaReplayFunctionProps) {
    super(scope, id);
    REPLAY_PROPS.check(props, (problem) => new KafkaReplayConfigError(problem.message));
    const logProblem = logRetentionProblem(props.functionProps);
    if (logProblem !== undefined) throw new KafkaReplayConfigError(logProblem);
    const { source, target } = props;
    if (source.kind === 'msk') assertClusterInStackEnvironment(this, source.clusterArn);
    this.allowedTopics = props.allowedTopics ?? [target.topic];
    if (!Array.isArray(this.allowedTopics) || this.allowedTopics.length === 0)
      throw new KafkaReplayConfigError('allowedTopics must name at least one topic');
    // The consumer's own checks: the role is granted these topics and this group by their ARNs, where IAM
    // reads * and ? as wildcards, and the handler passes them to Kafka as they are.
    const problems = [
      ...this.allowedTopics.map((topic, index) =>
        topicNameProblem(
          props.allowedTopics === undefined ? 'target.topic' : `allowedTopics[${index}]`,
          topic,
        ),
      ),
      consumerGroupIdProblem('target.consumerGroupId', target.consumerGroupId, source),
    ];
    const problem = problems.find((found) => found !== undefined);
    if (problem !== undefined) throw new KafkaReplayConfigError(problem);
    const clusterProblem =
      target instanceof KafkaConsumerFunction ? otherClusterProblem(source, target.source) : undefined;
    if (clusterProblem !== undefined) throw new KafkaReplayConfigError(clusterProblem);
    // The default request replays the target's mapping, on its one topic: the handler refuses a topic off
    // the allow-list, and the role is granted only the allowed topics.
    if (
      props.allowedTopics !== undefined &&
      !Token.isUnresolved(props.allowedTopics) &&
      !Token.isUnresolved(target.topic) &&
      !props.allowedTopics.includes(target.topic)
    )
      throw new KafkaReplayConfigError(
        `allowedTopics leaves out target.topic "${target.topic}": a replay of the target's mapping moves its group on "${target.topic}", which the function would be neither allowed (REPLAY_ALLOWED_TOPICS) nor granted. Add "${target.topic}" to allowedTopics`,
      );
    if (source.kind === 'msk' && source.network === undefined) {
      throw new KafkaReplayConfigError(
        'an MSK source needs `network` (VPC, subnets, security groups) for the replay function: MSK brokers are reachable only from their VPC',
      );
    }

    const role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Replays consumer group ${target.consumerGroupId}`,
    });
    const logGroup = functionLogGroup(this, role, props.functionProps);

    const { environment, ...functionOverrides } = props.functionProps ?? {};
    const network = source.network;
    if (network)
      networkSubnetIds(
        network,
        'the replay function in a VPC needs at least one subnet to reach the brokers',
        (message, options) => new KafkaReplayConfigError(message, options),
      );
    this.function = new NodejsFunction(this, 'Function', {
      runtime: lambda.Runtime.NODEJS_24_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: 256,
      // Disabling a mapping, waiting for its group to empty and re-enabling it each take minutes; the
      // handler bounds each wait by the time it has left.
      timeout: Duration.minutes(15),
      role,
      logGroup,
      loggingFormat: lambda.LoggingFormat.JSON,
      bundling: lambdaBundling(),
      // An asynchronous invocation that timed out or crashed is retried twice by Lambda by default; a
      // retry of a relative replay (a shift, a duration) would move the offsets again from where the
      // first left them. An operator re-runs a replay after reading what the first did, never Lambda.
      // https://docs.aws.amazon.com/lambda/latest/dg/invocation-async-error-handling.html
      retryAttempts: 0,
      ...(network && {
        vpc: network.vpc,
        vpcSubnets: network.subnets,
        securityGroups: [...network.securityGroups],
      }),
      ...functionOverrides,
      ...(props.entry === undefined
        ? packagedReplayHandler()
        : { entry: props.entry, handler: props.handler ?? 'handler' }),
      environment: {
        // Rare, operator-driven runs of minutes: readable stack traces are worth the ~0.1 s of cold start.
        // kafkajs 2.2.4 schedules a negative timer on every connection: Node 24 warns each time, which
        // would put a TimeoutNegativeWarning per run in the function's logs (harmless: Node waits 1 ms).
        NODE_OPTIONS: '--enable-source-maps --disable-warning=TimeoutNegativeWarning',
        ...replayEnvironment(source, target, this.allowedTopics),
        ...environment,
      },
    });

    role.addToPrincipalPolicy(mappingControlStatement(target.mappingArn));
    if (source.kind === 'msk') {
      const statements = mskReplayStatements({
        clusterArn: source.clusterArn,
        topics: this.allowedTopics,
        consumerGroupId: target.consumerGroupId,
        iamAuth: source.auth.type === 'iam',
      });
      for (const statement of statements) role.addToPrincipalPolicy(statement);
    }
    grantSecretsRead(role, sourceSecrets(source));
    this.vpcEndpointServices = [
      'lambda',
      ...(sourceSecrets(source).length > 0 ? (['secretsmanager'] as const) : []),
      ...(source.kind === 'msk' ? (['kafka'] as const) : []),
    ];
    if (network) {
      for (const statement of networkInterfaceStatements(this, 'function'))
        role.addToPrincipalPolicy(statement);
      acknowledgeNetworkInterfaceWildcards(role);
    }
  }
}

/**
 * Why the replay's `source` is not the cluster its target, a {@link KafkaConsumerFunction}, reads, or
 * `undefined`: another kind of source, another MSK cluster ARN, or other self-managed brokers (the same
 * ones in any order pass). Only values known at synth are compared: a Token on either side passes. The
 * network and authentication may differ (another subnet, or SCRAM where the trigger uses IAM).
 */
function otherClusterProblem(source: KafkaSource, consumer: KafkaSource): string | undefined {
  const fix =
    "the replay function would be granted, and connect to, a cluster its target's trigger does not read. " +
    "Give it the consumer's source (source: consumer.source)";
  const describe = (of: KafkaSource): string =>
    of.kind === 'msk'
      ? `MSK cluster "${of.clusterArn}"`
      : `self-managed brokers ${of.bootstrapServers.join(', ')}`;
  if (source.kind !== consumer.kind)
    return `source is ${source.kind === 'msk' ? 'an MSK cluster' : 'self-managed brokers'}, but target, a KafkaConsumerFunction, reads ${describe(consumer)}: ${fix}`;
  if (source.kind === 'msk' && consumer.kind === 'msk') {
    const [mine, theirs] = [source.clusterArn, consumer.clusterArn];
    if (Token.isUnresolved(mine) || Token.isUnresolved(theirs) || mine === theirs) return undefined;
    return `source.clusterArn "${mine}" is not the cluster of target, a KafkaConsumerFunction reading "${theirs}": ${fix}`;
  }
  if (source.kind === 'self-managed' && consumer.kind === 'self-managed') {
    const [mine, theirs] = [source.bootstrapServers, consumer.bootstrapServers];
    const known = (servers: readonly string[]) =>
      !Token.isUnresolved(servers) && servers.every((server) => !Token.isUnresolved(server));
    if (!known(mine) || !known(theirs)) return undefined;
    // Host names are case-insensitive.
    const set = (servers: readonly string[]) =>
      [...new Set(servers.map((server) => server.toLowerCase()))].sort();
    if (set(mine).join(',') === set(theirs).join(',')) return undefined;
    return `source.bootstrapServers (${mine.join(', ')}) are not the brokers of target, a KafkaConsumerFunction reading ${theirs.join(', ')}: ${fix}`;
  }
  return undefined;
}

/**
 * The replay handler's configuration as environment variables (the names functions/replay/handler.ts reads).
 *
 * @example
 * replayEnvironment(source, consumer, ['orders']).REPLAY_ALLOWED_TOPICS; // 'orders'
 */
export function replayEnvironment(
  source: KafkaSource,
  target: ReplayTarget,
  allowedTopics: readonly string[],
): Record<string, string> {
  const secret = sourceSecret(source);
  return {
    REPLAY_MAPPING_UUID: target.mappingUuid,
    REPLAY_CONSUMER_GROUP_ID: target.consumerGroupId,
    REPLAY_ALLOWED_TOPICS: commaSeparated(allowedTopics),
    KAFKA_AUTH: source.auth.type,
    ...(source.kind === 'msk'
      ? { KAFKA_CLUSTER_ARN: source.clusterArn }
      : { KAFKA_BOOTSTRAP_SERVERS: commaSeparated(source.bootstrapServers) }),
    ...(secret && { KAFKA_SECRET_ARN: secret.secretArn }),
    ...(source.kind === 'self-managed' &&
      source.rootCaCertificate && { KAFKA_ROOT_CA_SECRET_ARN: source.rootCaCertificate.secretArn }),
  };
}

/**
 * A list as one comma-separated variable. A list Token (a `CommaDelimitedList` parameter's `valueAsList`)
 * is one encoded element that `Array.join` would put in a string, which CDK refuses at synth
 * (EncodedListTokenInScalarContext): CloudFormation joins it instead.
 */
function commaSeparated(list: readonly string[]): string {
  return Token.isUnresolved(list) ? Fn.join(',', [...list]) : list.join(',');
}
