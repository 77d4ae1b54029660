import { Annotations, Fn } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';

/**
 * Where clients of the cluster run: the VPC, subnets and security groups that reach the brokers.
 *
 * @example
 * const network: KafkaNetwork = { vpc, subnets: { subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS }, securityGroups: [clientSg] };
 */
export interface KafkaNetwork {
  /** The VPC the brokers are in (or one routed to them). */
  readonly vpc: ec2.IVpc;
  /**
   * Subnets of `vpc` with a route to the brokers: where the replay function runs, and a self-managed
   * trigger's pollers (one per subnet in Lambda's SourceAccessConfigurations, which take 22 entries at most).
   */
  readonly subnets: ec2.SubnetSelection;
  /** Security groups the brokers admit (at least one for a self-managed trigger in a VPC). */
  readonly securityGroups: readonly ec2.ISecurityGroup[];
}

/**
 * An Amazon MSK cluster (provisioned or Serverless). The trigger reaches it through the cluster's own VPC
 * configuration; `network` is where other clients (the replay function) run.
 *
 * @example
 * const source: MskSource = { kind: 'msk', clusterArn, auth: { type: 'iam' }, network };
 */
export interface MskSource {
  /** Always `'msk'`. */
  readonly kind: 'msk';
  /**
   * The cluster's ARN (`arn:<partition>:kafka:<region>:<account>:cluster/<name>/<uuid>`), or a Token such
   * as `new msk.CfnServerlessCluster(…).attrArn`. A literal ARN must be of the stack's account, Region and
   * the Region's partition (cross-account clusters are not supported).
   */
  readonly clusterArn: string;
  /**
   * IAM (port 9098); SASL/SCRAM-SHA-512 with an `AmazonMSK_`-prefixed secret under a customer managed key
   * (port 9096); or mutual TLS (`mtls`, port 9094) with a secret of the client certificate the cluster's
   * AWS Private CA signed, as Lambda's `CLIENT_CERTIFICATE_TLS_AUTH` takes it (`certificate`, PEM chain;
   * `privateKey`, PKCS #8 PEM; `privateKeyPassword` for an encrypted key). MSK Serverless takes IAM only.
   * https://docs.aws.amazon.com/lambda/latest/dg/msk-cluster-auth.html
   */
  readonly auth:
    | { readonly type: 'iam' }
    | { readonly type: 'sasl-scram-512' | 'mtls'; readonly secret: secretsmanager.ISecret };
  /** Required by the replay function; the trigger itself does not need it. */
  readonly network?: KafkaNetwork | undefined;
}

/**
 * How the trigger and the replay function authenticate to self-managed brokers.
 *
 * @example
 * const auth: SelfManagedAuth = { type: 'sasl-scram-512', secret };
 */
export type SelfManagedAuth =
  | { readonly type: 'sasl-scram-512' | 'sasl-scram-256' | 'basic'; readonly secret: secretsmanager.ISecret }
  | { readonly type: 'mtls'; readonly secret: secretsmanager.ISecret }
  /** TLS without client authentication (`tls`) or plaintext (`none`): only inside a VPC. */
  | { readonly type: 'tls' | 'none' };

/**
 * A self-managed Apache Kafka cluster. Without `network` the brokers must be reachable from the internet
 * and `auth` must carry a secret (Lambda refuses unauthenticated public brokers).
 *
 * @example
 * const source: SelfManagedSource = {
 *   kind: 'self-managed',
 *   bootstrapServers: ['b-1.example.com:9096'],
 *   auth: { type: 'sasl-scram-512', secret },
 * };
 */
export interface SelfManagedSource {
  /** Always `'self-managed'`. */
  readonly kind: 'self-managed';
  /** 1–10 brokers as `host:port` (no scheme such as `SASL_SSL://`), each once; Lambda finds the others. */
  readonly bootstrapServers: readonly string[];
  /** How the trigger and the replay function authenticate (see {@link SelfManagedAuth}). */
  readonly auth: SelfManagedAuth;
  /** Root CA of brokers whose certificates a private CA signed. */
  readonly rootCaCertificate?: secretsmanager.ISecret | undefined;
  /**
   * Brokers inside a VPC: the trigger's pollers run in these subnets with these security groups.
   * @default none: public brokers, reached over the internet (with an authentication secret)
   */
  readonly network?: KafkaNetwork | undefined;
}

/**
 * The Kafka cluster a consumer reads from and the replay function rewinds.
 *
 * @example
 * function describe(source: KafkaSource): string {
 *   return source.kind === 'msk' ? source.clusterArn : source.bootstrapServers.join(',');
 * }
 */
export type KafkaSource = MskSource | SelfManagedSource;

/**
 * The source's credentials secret, if its authentication uses one.
 *
 * @example
 * const secret = sourceSecret(source); // undefined for MSK IAM auth
 */
export function sourceSecret(source: KafkaSource): secretsmanager.ISecret | undefined {
  return 'secret' in source.auth ? source.auth.secret : undefined;
}

/**
 * Every secret a client of the source reads: its credentials and, for self-managed brokers, the root CA.
 *
 * @example
 * grantSecretsRead(role, sourceSecrets(source));
 */
export function sourceSecrets(source: KafkaSource): secretsmanager.ISecret[] {
  const credentials = sourceSecret(source);
  return [
    ...(credentials ? [credentials] : []),
    ...(source.kind === 'self-managed' && source.rootCaCertificate ? [source.rootCaCertificate] : []),
  ];
}

/**
 * An existing network by ids. No `Vpc.fromLookup`: synth needs no credentials and no cdk.context.json.
 * The subnets carry no route table (reading `routeTable.routeTableId` of one gives `undefined`), and the
 * VPC lists no subnets of its own: what the constructs use are the subnet and security group ids, which
 * is all a Lambda function or trigger in a VPC takes. CDK's warnings about both are acknowledged, so that
 * `cdk synth --strict` passes; import the network yourself for constructs that need route tables.
 *
 * @example
 * const network = importKafkaNetwork(this, { vpcId: 'vpc-1', subnetIds: ['subnet-a'], securityGroupIds: ['sg-1'] });
 */
export function importKafkaNetwork(
  scope: Construct,
  ids: {
    readonly vpcId: string;
    readonly subnetIds: readonly string[];
    readonly securityGroupIds: readonly string[];
  },
): KafkaNetwork {
  // Subnets are given explicitly, so the AZ list is never consulted; the region's AZs keep it truthful. It
  // is a list token, which CDK warns cannot give subnets at synth time: the VPC is asked for none.
  const vpc = ec2.Vpc.fromVpcAttributes(scope, 'Vpc', { vpcId: ids.vpcId, availabilityZones: Fn.getAzs() });
  Annotations.of(vpc).acknowledgeWarning(
    '@aws-cdk/aws-ec2:vpcAttributeIsListTokenavailabilityZones',
    'The subnets are imported by id and given to the constructs directly; no construct asks this VPC for its subnets.',
  );
  const subnets = ids.subnetIds.map((id) => {
    const subnet = ec2.Subnet.fromSubnetId(scope, `Subnet-${id}`, id);
    Annotations.of(subnet).acknowledgeWarning(
      '@aws-cdk/aws-ec2:noSubnetRouteTableId',
      'Lambda functions and Kafka triggers in a VPC take subnet ids alone; no construct of this network reads a route table.',
    );
    return subnet;
  });
  return {
    vpc,
    subnets: { subnets },
    securityGroups: ids.securityGroupIds.map((id) =>
      ec2.SecurityGroup.fromSecurityGroupId(scope, `SecurityGroup-${id}`, id, { mutable: false }),
    ),
  };
}
