import { KafkaLambdaCdkError } from './errors.ts';

/**
 * A context value (`-c key=value` or cdk.json) that is missing, unknown or malformed.
 *
 * @example
 * try { appConfigFromContext((k) => app.node.tryGetContext(k)); } catch (e) { if (e instanceof InvalidContextError) console.error(e.message); }
 */
export class InvalidContextError extends KafkaLambdaCdkError {
  override readonly name = 'InvalidContextError';
  readonly key: string;
  constructor(key: string, problem: string) {
    super(`context "${key}": ${problem}`);
    this.key = key;
  }
}

/**
 * An existing VPC, by ids (no lookup: synth stays offline).
 *
 * @example
 * const network: ImportedNetworkConfig = { vpcId: 'vpc-0a1b2c3d', subnetIds: ['subnet-0a1b2c3d'], securityGroupIds: ['sg-0a1b2c3d'] };
 */
export interface ImportedNetworkConfig {
  readonly vpcId: string;
  readonly subnetIds: readonly string[];
  readonly securityGroupIds: readonly string[];
}

/**
 * `-c auth=…` of a self-managed cluster: SASL (secret with `username`/`password`), mTLS (secret with
 * `certificate`/`privateKey`), or TLS / plaintext without client authentication (VPC only).
 *
 * @example
 * const auth: SelfManagedAuthType = 'sasl-scram-512';
 */
export type SelfManagedAuthType = 'sasl-scram-512' | 'sasl-scram-256' | 'basic' | 'mtls' | 'tls' | 'none';

/**
 * Which Kafka cluster the app uses; see {@link appConfigFromContext}.
 *
 * @example
 * const cluster: ClusterConfig = { kind: 'serverless', natGateways: 1 };
 */
export type ClusterConfig =
  | { readonly kind: 'serverless'; readonly natGateways: number }
  | {
      readonly kind: 'provisioned';
      readonly natGateways: number;
      readonly kafkaVersion: string;
      readonly brokerInstanceType: string;
    }
  | {
      readonly kind: 'existing';
      readonly clusterArn: string;
      readonly auth: 'iam' | 'sasl-scram-512';
      readonly secretArn?: string;
      readonly network: ImportedNetworkConfig;
    }
  | {
      readonly kind: 'self-managed';
      readonly bootstrapServers: readonly string[];
      readonly auth: SelfManagedAuthType;
      readonly secretArn?: string;
      readonly rootCaSecretArn?: string;
      readonly network?: ImportedNetworkConfig;
    };

/**
 * Everything infra/app.ts builds, as plain data.
 *
 * @example
 * const config: AppConfig = appConfigFromContext((key) => app.node.tryGetContext(key));
 */
export interface AppConfig {
  readonly prefix: string;
  readonly cluster: ClusterConfig;
  readonly topic: string;
  readonly consumerGroupId: string;
  readonly failureTopic?: string;
  readonly offsetLagThreshold: number;
  readonly alarmTopicArn?: string;
  /** Share of orders the example consumer's simulated downstream rejects (0..1), to see retries and the DLQ. */
  readonly failureRate?: number;
  /** The Region to deploy to, so that synth can refuse what the Region lacks. @default environment-agnostic stacks */
  readonly region?: string;
  /** Provisioned pollers shared with other mappings of the same group name. @default the mapping's own pollers */
  readonly pollerGroupName?: string;
}

type Lookup = (key: string) => unknown;

function text(lookup: Lookup, key: string): string | undefined {
  const value = lookup(key);
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string' && typeof value !== 'number')
    throw new InvalidContextError(key, 'expected a string');
  return String(value);
}

function required(lookup: Lookup, key: string, why: string): string {
  const value = text(lookup, key);
  if (value === undefined) throw new InvalidContextError(key, `required ${why}`);
  return value;
}

function list(lookup: Lookup, key: string): string[] | undefined {
  const value = lookup(key);
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value;
  const raw = text(lookup, key);
  return raw
    ?.split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

function integer(lookup: Lookup, key: string, fallback: number, min: number): number {
  const raw = text(lookup, key);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min)
    throw new InvalidContextError(key, `expected an integer ≥ ${min}, got "${raw}"`);
  return value;
}

function fraction(lookup: Lookup, key: string): number | undefined {
  const raw = text(lookup, key);
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!(value >= 0 && value <= 1))
    throw new InvalidContextError(key, `expected a number in 0..1, got "${raw}"`);
  return value;
}

function oneOf<T extends string>(lookup: Lookup, key: string, allowed: readonly T[], fallback: T): T {
  const value = text(lookup, key) ?? fallback;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new InvalidContextError(key, `expected one of ${allowed.join(', ')}, got "${value}"`);
  }
  return value as T;
}

function network(lookup: Lookup, need: 'required' | 'optional'): ImportedNetworkConfig | undefined {
  const vpcId = text(lookup, 'vpcId');
  if (vpcId === undefined) {
    if (need === 'optional') return undefined;
    throw new InvalidContextError(
      'vpcId',
      'required with cluster=existing (the replay function runs in the cluster VPC)',
    );
  }
  const subnetIds = list(lookup, 'subnetIds') ?? [];
  const securityGroupIds = list(lookup, 'securityGroupIds') ?? [];
  if (subnetIds.length === 0)
    throw new InvalidContextError('subnetIds', 'required with vpcId (comma-separated)');
  if (securityGroupIds.length === 0) {
    throw new InvalidContextError(
      'securityGroupIds',
      'required with vpcId (comma-separated, admitted by the brokers)',
    );
  }
  resourceIds('vpcId', [vpcId], 'vpc', 'a VPC id');
  resourceIds('subnetIds', subnetIds, 'subnet', 'a subnet id');
  resourceIds('securityGroupIds', securityGroupIds, 'sg', 'a security group id');
  return { vpcId, subnetIds, securityGroupIds };
}

/**
 * EC2 ids are the prefix and 8 or 17 hexadecimal digits, as CloudFormation's resource schemas spell them
 * (`AWS::EC2::SecurityGroup.Id`: `^sg-([a-fA-F0-9]{8}|[a-fA-F0-9]{17})$`): a typo fails at synth,
 * not minutes into a deployment.
 */
function resourceIds(key: string, ids: readonly string[], prefix: string, what: string): void {
  const pattern = new RegExp(`^${prefix}-([0-9a-f]{8}|[0-9a-f]{17})$`, 'i');
  const bad = ids.find((id) => !pattern.test(id));
  if (bad !== undefined) {
    throw new InvalidContextError(
      key,
      `"${bad}" is not ${what} (${prefix}- and 8 or 17 hexadecimal digits, e.g. ${prefix}-0a1b2c3d4e5f60718)`,
    );
  }
}

function cluster(lookup: Lookup): ClusterConfig {
  const kind = oneOf(
    lookup,
    'cluster',
    ['serverless', 'provisioned', 'existing', 'self-managed'],
    'serverless',
  );
  switch (kind) {
    case 'serverless':
      return { kind, natGateways: integer(lookup, 'natGateways', 1, 1) };
    case 'provisioned':
      return {
        kind,
        natGateways: integer(lookup, 'natGateways', 1, 1),
        kafkaVersion: text(lookup, 'kafkaVersion') ?? '3.9.x',
        brokerInstanceType: text(lookup, 'brokerInstanceType') ?? 'kafka.t3.small',
      };
    case 'existing': {
      const auth = oneOf(lookup, 'auth', ['iam', 'sasl-scram-512'], 'iam');
      return {
        kind,
        clusterArn: required(lookup, 'clusterArn', 'with cluster=existing'),
        auth,
        secretArn: auth === 'iam' ? undefined : required(lookup, 'secretArn', 'with auth=sasl-scram-512'),
        network: network(lookup, 'required')!,
      };
    }
    case 'self-managed': {
      const auth = oneOf(
        lookup,
        'auth',
        ['sasl-scram-512', 'sasl-scram-256', 'basic', 'mtls', 'tls', 'none'],
        'sasl-scram-512',
      );
      const withSecret = auth !== 'tls' && auth !== 'none';
      const bootstrapServers = list(lookup, 'bootstrapServers') ?? [];
      if (bootstrapServers.length === 0) {
        throw new InvalidContextError(
          'bootstrapServers',
          'required with cluster=self-managed (host:port,host:port)',
        );
      }
      const vpc = network(lookup, 'optional');
      if (!withSecret && vpc === undefined) {
        throw new InvalidContextError(
          'auth',
          `auth=${auth} needs vpcId/subnetIds/securityGroupIds: Lambda refuses unauthenticated public brokers`,
        );
      }
      return {
        kind,
        bootstrapServers,
        auth,
        secretArn: withSecret ? required(lookup, 'secretArn', `with auth=${auth}`) : undefined,
        rootCaSecretArn: text(lookup, 'rootCaSecretArn'),
        network: vpc,
      };
    }
  }
}

/**
 * Reads the app's configuration from CDK context. Keys: `cluster` (serverless | provisioned | existing |
 * self-managed), `prefix`, `topic`, `consumerGroupId`, `failureTopic`, `offsetLagThreshold`, `alarmTopicArn`, `failureRate`, `region`, `pollerGroupName`;
 * new clusters: `natGateways`, `kafkaVersion`, `brokerInstanceType`; existing: `clusterArn`, `auth`,
 * `secretArn`, `vpcId`, `subnetIds`, `securityGroupIds`; self-managed: `bootstrapServers`, `auth`,
 * `secretArn`, `rootCaSecretArn` and optionally the VPC keys.
 *
 * @example
 * const config = appConfigFromContext((key) => app.node.tryGetContext(key));
 */
export function appConfigFromContext(lookup: Lookup): AppConfig {
  return {
    prefix: text(lookup, 'prefix') ?? 'KafkaLambda',
    cluster: cluster(lookup),
    topic: text(lookup, 'topic') ?? 'orders',
    consumerGroupId: text(lookup, 'consumerGroupId') ?? 'orders-consumer',
    failureTopic: text(lookup, 'failureTopic'),
    offsetLagThreshold: integer(lookup, 'offsetLagThreshold', 1000, 1),
    alarmTopicArn: text(lookup, 'alarmTopicArn'),
    failureRate: fraction(lookup, 'failureRate'),
    region: text(lookup, 'region'),
    pollerGroupName: text(lookup, 'pollerGroupName'),
  };
}
