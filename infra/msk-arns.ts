import { Fn, Stack, Token } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import { KafkaLambdaCdkError } from './errors.ts';

/**
 * An MSK cluster ARN that is not `arn:<partition>:kafka:<region>:<account>:cluster/<name>/<uuid>`.
 *
 * @example
 * try { mskTopicArn('nope', 'orders'); } catch (e) { if (e instanceof InvalidClusterArnError) console.error(e.message); }
 */
export class InvalidClusterArnError extends KafkaLambdaCdkError {
  /** Always `'InvalidClusterArnError'`. */
  override readonly name = 'InvalidClusterArnError';
  /** The ARN as given. */
  readonly clusterArn: string;
  /** @param clusterArn - The ARN that is not an MSK cluster's; the message quotes it. */
  constructor(clusterArn: string) {
    super(
      `source.clusterArn "${clusterArn}" is not an MSK cluster ARN (arn:<partition>:kafka:<region>:<account>:cluster/<name>/<uuid>)`,
    );
    this.clusterArn = clusterArn;
  }
}

/**
 * An MSK `source.clusterArn` the stack's trigger cannot read: a cluster of another account or Region than
 * the stack's (when both are known at synth), an ARN whose partition is not its Region's (such as
 * `arn:aws:kafka:cn-north-1:…` for `arn:aws-cn:…`), or an MSK managed VPC connection ARN (a cluster of
 * another account). Lambda reads a cluster of its own Region, and another account's only through a managed VPC
 * connection with `kafka:DescribeVpcConnection` and the owner's cluster policy
 * (https://docs.aws.amazon.com/lambda/latest/dg/msk-cross-account.html), which these constructs do not
 * support.
 *
 * @example
 * try { new KafkaConsumerFunction(stack, 'Orders', props); } catch (e) { if (e instanceof ClusterOutsideStackEnvironmentError) console.error(e.clusterArn); }
 */
export class ClusterOutsideStackEnvironmentError extends KafkaLambdaCdkError {
  /** Always `'ClusterOutsideStackEnvironmentError'`. */
  override readonly name = 'ClusterOutsideStackEnvironmentError';
  /** The ARN as given. */
  readonly clusterArn: string;
  /**
   * @param clusterArn - The ARN as given.
   * @param message - Where the cluster is, where the stack deploys, and what to do instead.
   */
  constructor(clusterArn: string, message: string) {
    super(message);
    this.clusterArn = clusterArn;
  }
}

const CROSS_ACCOUNT_GUIDE = 'https://docs.aws.amazon.com/lambda/latest/dg/msk-cross-account.html';
// arn:<partition>:kafka:<region>:<client account>:vpc-connection/<cluster owner account>/<cluster>/<uuid>
const VPC_CONNECTION_ARN = /^arn:[a-z-]+:kafka:[a-z0-9-]+:\d{12}:vpc-connection\/(\d{12})\/[^/]+\/[^/]+$/;

const CLUSTER_ARN = /^arn:[a-z-]+:kafka:[a-z0-9-]+:\d{12}:cluster\/[^/]+\/[^/]+$/;

/**
 * Refuses a literal cluster ARN that is not an MSK cluster's, whatever the source's authentication: it is
 * the trigger's `EventSourceArn` and the resource of the roles' `kafka:*` grants. A token (a cluster
 * created in the same app) passes.
 *
 * @example
 * if (source.kind === 'msk') assertMskClusterArn(source.clusterArn);
 * @throws InvalidClusterArnError quoting the ARN.
 */
export function assertMskClusterArn(clusterArn: string): void {
  if (Token.isUnresolved(clusterArn)) return;
  const owner = typeof clusterArn === 'string' ? VPC_CONNECTION_ARN.exec(clusterArn)?.[1] : undefined;
  if (owner !== undefined)
    throw new ClusterOutsideStackEnvironmentError(
      clusterArn,
      `source.clusterArn "${clusterArn}" is an MSK managed VPC connection, for a cluster of another account: ` +
        'these constructs do not support cross-account clusters (Lambda needs kafka:DescribeVpcConnection on the ' +
        `connection and the cluster owner's policy, ${CROSS_ACCOUNT_GUIDE}). ` +
        `Deploy the stack to account ${owner} and give the cluster ARN`,
    );
  if (typeof clusterArn !== 'string' || !CLUSTER_ARN.test(clusterArn))
    throw new InvalidClusterArnError(clusterArn);
}

/**
 * Refuses a literal MSK cluster ARN of another account or Region than `scope`'s stack, where the stack
 * names them (a Token on either side passes: CloudFormation only knows at deploy time), and one whose
 * partition is not its Region's (`arn:aws:kafka:cn-north-1:…`; see {@link partitionOfRegion}). An event source
 * mapping reads a cluster of its own Region, and a cluster of its own account by cluster ARN; another
 * account's takes a managed VPC connection ARN and `kafka:DescribeVpcConnection`, which these constructs
 * do not grant (https://docs.aws.amazon.com/lambda/latest/dg/msk-cross-account.html). Without this
 * check such a stack synthesizes and deploys a trigger that cannot work.
 *
 * @example
 * if (source.kind === 'msk') assertClusterInStackEnvironment(this, source.clusterArn);
 * @throws ClusterOutsideStackEnvironmentError saying where the cluster and the stack are, or the ARN the
 *   cluster has in its Region's partition.
 */
export function assertClusterInStackEnvironment(scope: IConstruct, clusterArn: string): void {
  if (Token.isUnresolved(clusterArn)) return;
  assertMskClusterArn(clusterArn);
  const [, partition, , region, account] = clusterArn.split(':');
  const stack = Stack.of(scope);
  if (!Token.isUnresolved(stack.account) && stack.account !== account)
    throw new ClusterOutsideStackEnvironmentError(
      clusterArn,
      `source.clusterArn "${clusterArn}" is a cluster of account ${account}, but the stack deploys to account ${stack.account}: ` +
        "a Kafka trigger reaches another account's cluster only through an MSK managed VPC connection (its ARN, and " +
        `kafka:DescribeVpcConnection), which these constructs do not support (${CROSS_ACCOUNT_GUIDE}). ` +
        `Deploy the stack to account ${account}`,
    );
  if (!Token.isUnresolved(stack.region) && stack.region !== region)
    throw new ClusterOutsideStackEnvironmentError(
      clusterArn,
      `source.clusterArn "${clusterArn}" is a cluster in ${region}, but the stack deploys to ${stack.region}: ` +
        `a Kafka trigger reads an MSK cluster of its own Region only. Deploy the stack to ${region}`,
    );
  // The Region is now the stack's, where the stack names one; the partition follows from it.
  const expected = region === undefined ? undefined : partitionOfRegion(region);
  if (expected !== undefined && partition !== expected)
    throw new ClusterOutsideStackEnvironmentError(
      clusterArn,
      `source.clusterArn "${clusterArn}" names partition ${partition}, but ${region} is in partition ${expected}: ` +
        `an MSK cluster there is "${clusterArn.replace(/^arn:[^:]+:/, `arn:${expected}:`)}"`,
    );
}

/**
 * Each Region's partition, by its name, as the AWS SDKs' partition metadata matches them (each partition's
 * `regionRegex`, e.g. packages/util-endpoints/src/lib/aws/partitions.json of aws-sdk-js-v3): the partition
 * is an ARN's second field (https://docs.aws.amazon.com/general/latest/gr/aws-arns-and-namespaces.html),
 * so that a cluster in cn-north-1 is `arn:aws-cn:kafka:cn-north-1:…` and one in us-gov-west-1
 * `arn:aws-us-gov:kafka:…`. The patterns are exclusive: `us-gov-west-1` has one more dash than the
 * commercial `us-west-1`.
 */
const PARTITIONS: readonly (readonly [partition: string, regions: RegExp])[] = [
  ['aws', /^(us|eu|ap|sa|ca|me|af|il|mx)-\w+-\d+$/],
  ['aws-cn', /^cn-\w+-\d+$/],
  ['aws-us-gov', /^us-gov-\w+-\d+$/],
  ['aws-iso', /^us-iso-\w+-\d+$/],
  ['aws-iso-b', /^us-isob-\w+-\d+$/],
  ['aws-iso-e', /^eu-isoe-\w+-\d+$/],
  ['aws-iso-f', /^us-isof-\w+-\d+$/],
  ['aws-eusc', /^eusc-de-\w+-\d+$/],
];

/**
 * The partition of `region`, or `undefined` for a name none of AWS's partitions matches (a Region newer
 * than this list's patterns), which is then not checked.
 *
 * @example
 * partitionOfRegion('cn-north-1'); // 'aws-cn'
 */
export function partitionOfRegion(region: string): string | undefined {
  return PARTITIONS.find(([, regions]) => regions.test(region))?.[0];
}

/**
 * Splits a cluster ARN into `arn:…:<account>` and `<name>/<uuid>`; works for literal ARNs and for tokens
 * (a cluster created in the same app), where the split happens in CloudFormation.
 */
function clusterParts(clusterArn: string): { prefix: string; nameAndUuid: string } {
  if (Token.isUnresolved(clusterArn)) {
    const [prefix, nameAndUuid] = Fn.split(':cluster/', clusterArn, 2);
    return { prefix: prefix!, nameAndUuid: nameAndUuid! };
  }
  assertMskClusterArn(clusterArn);
  const [prefix, nameAndUuid] = clusterArn.split(':cluster/');
  return { prefix: prefix!, nameAndUuid: nameAndUuid! };
}

function join(...parts: string[]): string {
  return parts.some((part) => Token.isUnresolved(part)) ? Fn.join('', parts) : parts.join('');
}

/**
 * The ARN IAM uses for a topic of an MSK cluster (`…:topic/<cluster>/<uuid>/<topic>`).
 *
 * @example
 * mskTopicArn('arn:aws:kafka:eu-west-1:111122223333:cluster/orders/0f3c-1', 'order-events');
 * // 'arn:aws:kafka:eu-west-1:111122223333:topic/orders/0f3c-1/order-events'
 */
export function mskTopicArn(clusterArn: string, topic: string): string {
  const { prefix, nameAndUuid } = clusterParts(clusterArn);
  return join(prefix, ':topic/', nameAndUuid, '/', topic);
}

/**
 * The ARN IAM uses for a consumer group of an MSK cluster (`…:group/<cluster>/<uuid>/<group>`).
 *
 * @example
 * mskGroupArn('arn:aws:kafka:eu-west-1:111122223333:cluster/orders/0f3c-1', 'order-processor');
 * // 'arn:aws:kafka:eu-west-1:111122223333:group/orders/0f3c-1/order-processor'
 */
export function mskGroupArn(clusterArn: string, groupId: string): string {
  const { prefix, nameAndUuid } = clusterParts(clusterArn);
  return join(prefix, ':group/', nameAndUuid, '/', groupId);
}
