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
 * `-c auth=…` of an existing MSK cluster: IAM, SASL/SCRAM-SHA-512 (secret with `username`/`password`,
 * named `AmazonMSK_…`), or mutual TLS (secret with the client certificate chain and its private key).
 *
 * @example
 * const auth: MskAuthType = 'mtls';
 */
export type MskAuthType = 'iam' | 'sasl-scram-512' | 'mtls';

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
      readonly auth: MskAuthType;
      readonly secretArn?: string;
      /** The KMS key the secret is under, so that the roles' `kms:Decrypt` names it. */
      readonly secretKmsKeyArn?: string;
      readonly network: ImportedNetworkConfig;
    }
  | {
      readonly kind: 'self-managed';
      readonly bootstrapServers: readonly string[];
      readonly auth: SelfManagedAuthType;
      readonly secretArn?: string;
      /** The KMS key the secret is under, so that the roles' `kms:Decrypt` names it. */
      readonly secretKmsKeyArn?: string;
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
  /**
   * Interface VPC endpoints in an imported network for the AWS APIs the functions call there (no NAT
   * gateway needed). @default false
   */
  readonly vpcEndpoints: boolean;
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

function flag(lookup: Lookup, key: string): boolean {
  const value = lookup(key);
  if (value === undefined || value === null || value === '' || value === false || value === 'false')
    return false;
  if (value === true || value === 'true') return true;
  throw new InvalidContextError(key, `expected true or false, got "${String(value)}"`);
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

// A secret's complete ARN ends in "-" and the six characters Secrets Manager adds; names take letters,
// digits and /_+=.@- (https://docs.aws.amazon.com/secretsmanager/latest/apireference/API_CreateSecret.html).
const SECRET_ARN = /^arn:[a-z-]+:secretsmanager:[a-z0-9-]+:\d{12}:secret:([\w/+=.@-]+)-[A-Za-z0-9]{6}$/;
// A KMS key ARN names the key by id: a UUID, or mrk- and 32 hexadecimal digits for a multi-Region key.
const KMS_KEY_ARN =
  /^arn:[a-z-]+:kms:[a-z0-9-]+:\d{12}:key\/(mrk-[0-9a-f]{32}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;
const KMS_ALIAS = /^(arn:[a-z-]+:kms:[a-z0-9-]+:\d{12}:)?alias\//;

/**
 * A secret the app imports by ARN (`secretArn`, `rootCaSecretArn`). It must be the complete ARN: the app
 * grants it and writes it into the trigger as given, and a partial ARN would name no secret. A value that
 * is no ARN is not quoted: it may be the secret itself, pasted by mistake.
 */
function secretArn(lookup: Lookup, key: string, why?: string): string | undefined {
  const value = why === undefined ? text(lookup, key) : required(lookup, key, why);
  if (value !== undefined && !SECRET_ARN.test(value)) {
    throw new InvalidContextError(
      key,
      'expected the complete ARN of a Secrets Manager secret ' +
        '(arn:<partition>:secretsmanager:<region>:<account>:secret:<name>-<6 characters>, as the console shows it); ' +
        'the value given is not one (not repeated here: it may be a secret)',
    );
  }
  return value;
}

/**
 * `secretKmsKeyArn`: the customer managed key of an imported secret, by key ARN. The roles' own policies
 * then grant `kms:Decrypt` on that key alone (otherwise on any key of the account and Region, through
 * Secrets Manager and for that secret only: see infra/iam.ts). An alias is refused: IAM authorises a
 * Decrypt request on the key's ARN, never on an alias's.
 */
function secretKmsKeyArn(lookup: Lookup, secret: string | undefined): string | undefined {
  const value = text(lookup, 'secretKmsKeyArn');
  if (value === undefined) return undefined;
  if (secret === undefined) {
    throw new InvalidContextError(
      'secretKmsKeyArn',
      'is the key of the secret given by secretArn: give secretArn too, or leave it out',
    );
  }
  if (KMS_ALIAS.test(value)) {
    throw new InvalidContextError(
      'secretKmsKeyArn',
      `"${value}" is an alias: give the ARN of the key it points to (arn:<partition>:kms:<region>:<account>:key/<key id>), ` +
        'which IAM matches for kms:Decrypt (an alias ARN never matches)',
    );
  }
  if (!KMS_KEY_ARN.test(value)) {
    throw new InvalidContextError(
      'secretKmsKeyArn',
      `"${value}" is not a KMS key ARN (arn:<partition>:kms:<region>:<account>:key/<key id>)`,
    );
  }
  return value;
}

/** Refuses a secret given to an authentication that takes none: it would be ignored without a word. */
function noSecret(lookup: Lookup, auth: string, alternatives: string): void {
  for (const key of ['secretArn', 'secretKmsKeyArn']) {
    if (text(lookup, key) !== undefined) {
      throw new InvalidContextError(
        key,
        `auth=${auth} takes no secret: leave out ${key}, or choose an authentication with a secret (${alternatives})`,
      );
    }
  }
}

/**
 * The app's own cluster has IAM authentication only: MSK Serverless takes nothing else
 * (https://docs.aws.amazon.com/msk/latest/developerguide/serverless.html), and the provisioned cluster
 * infra/cluster-stack.ts makes turns on IAM alone. mTLS would need the cluster's client authentication
 * configured with an AWS Private CA that signed the client certificate
 * (https://docs.aws.amazon.com/msk/latest/developerguide/msk-authentication.html), which the app does not
 * create; SCRAM, SASL/SCRAM turned on and a secret associated with the cluster. Both are refused, naming
 * cluster=existing.
 */
function newClusterAuth(lookup: Lookup, kind: 'serverless' | 'provisioned'): void {
  const auth = text(lookup, 'auth') ?? 'iam';
  const cluster =
    kind === 'serverless'
      ? 'MSK Serverless takes IAM authentication only'
      : "the app's provisioned cluster has IAM authentication only";
  const existing = '-c cluster=existing -c clusterArn=… -c vpcId=… -c subnetIds=… -c securityGroupIds=…';
  switch (auth) {
    case 'iam':
      noSecret(
        lookup,
        `iam with cluster=${kind}`,
        '-c cluster=existing with auth=sasl-scram-512 or auth=mtls',
      );
      return;
    case 'mtls':
      throw new InvalidContextError(
        'auth',
        `auth=mtls cannot be used with cluster=${kind}: ${cluster}, and mTLS needs a provisioned cluster whose ` +
          'client authentication uses the AWS Private CA that signed the client certificate, which the app does not ' +
          `create. Create such a cluster, then deploy with ${existing} -c auth=mtls -c secretArn=…`,
      );
    case 'sasl-scram-512':
      throw new InvalidContextError(
        'auth',
        `auth=sasl-scram-512 cannot be used with cluster=${kind}: ${cluster}. For SCRAM, give a cluster with ` +
          `SASL/SCRAM turned on and the secret associated: ${existing} -c auth=sasl-scram-512 -c secretArn=…`,
      );
    default:
      throw new InvalidContextError(
        'auth',
        `expected iam with cluster=${kind} (${cluster}), got "${auth}"; sasl-scram-512 and mtls need cluster=existing`,
      );
  }
}

/**
 * The secret of an existing MSK cluster's authentication. SCRAM: MSK associates only a secret whose name
 * begins with `AmazonMSK_` (https://docs.aws.amazon.com/msk/latest/developerguide/msk-password.html).
 * mTLS: Lambda's `CLIENT_CERTIFICATE_TLS_AUTH` secret, with `certificate` (the client certificate, then
 * any intermediates, then the root, PEM) and `privateKey` (PKCS #8 PEM), plus `privateKeyPassword` for an
 * encrypted key; the certificate must be signed by the cluster's AWS Private CA
 * (https://docs.aws.amazon.com/lambda/latest/dg/msk-cluster-auth.html, "Mutual TLS authentication").
 * The secret's contents are not read at synth.
 */
function mskSecretArn(lookup: Lookup, auth: 'sasl-scram-512' | 'mtls'): string {
  const arn = secretArn(lookup, 'secretArn', `with auth=${auth}`)!;
  const name = SECRET_ARN.exec(arn)![1]!;
  if (auth === 'sasl-scram-512' && !name.startsWith('AmazonMSK_')) {
    throw new InvalidContextError(
      'secretArn',
      `the secret of auth=sasl-scram-512 is named "${name}", but MSK associates only secrets whose name begins with AmazonMSK_: ` +
        'store the credentials under such a name',
    );
  }
  return arn;
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
      newClusterAuth(lookup, kind);
      return { kind, natGateways: integer(lookup, 'natGateways', 1, 1) };
    case 'provisioned':
      newClusterAuth(lookup, kind);
      return {
        kind,
        natGateways: integer(lookup, 'natGateways', 1, 1),
        kafkaVersion: text(lookup, 'kafkaVersion') ?? '3.9.x',
        brokerInstanceType: text(lookup, 'brokerInstanceType') ?? 'kafka.t3.small',
      };
    case 'existing': {
      const auth = oneOf<MskAuthType>(lookup, 'auth', ['iam', 'sasl-scram-512', 'mtls'], 'iam');
      const clusterArn = required(lookup, 'clusterArn', 'with cluster=existing');
      if (auth === 'iam') noSecret(lookup, auth, 'auth=sasl-scram-512 or auth=mtls');
      const secret = auth === 'iam' ? undefined : mskSecretArn(lookup, auth);
      return {
        kind,
        clusterArn,
        auth,
        secretArn: secret,
        secretKmsKeyArn: secretKmsKeyArn(lookup, secret),
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
      if (!withSecret) noSecret(lookup, auth, 'sasl-scram-512, sasl-scram-256, basic or mtls');
      const secret = withSecret ? secretArn(lookup, 'secretArn', `with auth=${auth}`) : undefined;
      return {
        kind,
        bootstrapServers,
        auth,
        secretArn: secret,
        secretKmsKeyArn: secretKmsKeyArn(lookup, secret),
        rootCaSecretArn: secretArn(lookup, 'rootCaSecretArn'),
        network: vpc,
      };
    }
  }
}

/**
 * Reads the app's configuration from CDK context. Keys: `cluster` (serverless | provisioned | existing |
 * self-managed), `prefix`, `topic`, `consumerGroupId`, `failureTopic`, `offsetLagThreshold`, `alarmTopicArn`, `failureRate`, `region`, `pollerGroupName`, `vpcEndpoints`;
 * new clusters: `natGateways`, `kafkaVersion`, `brokerInstanceType`; existing: `clusterArn`, `auth` (iam |
 * sasl-scram-512 | mtls), `secretArn`, `secretKmsKeyArn`, `vpcId`, `subnetIds`, `securityGroupIds`;
 * self-managed: `bootstrapServers`, `auth`, `secretArn`, `secretKmsKeyArn`, `rootCaSecretArn` and
 * optionally the VPC keys. New clusters take `auth=iam` only.
 *
 * @example
 * const config = appConfigFromContext((key) => app.node.tryGetContext(key));
 */
export function appConfigFromContext(lookup: Lookup): AppConfig {
  const clusterConfig = cluster(lookup);
  const vpcEndpoints = flag(lookup, 'vpcEndpoints');
  if (vpcEndpoints && (clusterConfig.kind === 'serverless' || clusterConfig.kind === 'provisioned')) {
    throw new InvalidContextError(
      'vpcEndpoints',
      `the app's own VPC (cluster=${clusterConfig.kind}) reaches AWS APIs through its NAT gateway and has an SQS endpoint: vpcEndpoints is for an imported network (cluster=existing, or self-managed with vpcId)`,
    );
  }
  if (vpcEndpoints && clusterConfig.kind === 'self-managed' && clusterConfig.network === undefined) {
    throw new InvalidContextError(
      'vpcEndpoints',
      'self-managed brokers without vpcId/subnetIds/securityGroupIds put no function in a VPC: there is nowhere to add endpoints',
    );
  }
  return {
    prefix: text(lookup, 'prefix') ?? 'KafkaLambda',
    cluster: clusterConfig,
    topic: text(lookup, 'topic') ?? 'orders',
    consumerGroupId: text(lookup, 'consumerGroupId') ?? 'orders-consumer',
    failureTopic: text(lookup, 'failureTopic'),
    offsetLagThreshold: integer(lookup, 'offsetLagThreshold', 1000, 1),
    alarmTopicArn: text(lookup, 'alarmTopicArn'),
    failureRate: fraction(lookup, 'failureRate'),
    region: text(lookup, 'region'),
    pollerGroupName: text(lookup, 'pollerGroupName'),
    vpcEndpoints,
  };
}
