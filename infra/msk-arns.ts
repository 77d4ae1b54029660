import { Fn, Token } from 'aws-cdk-lib';
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
  if (typeof clusterArn !== 'string' || !CLUSTER_ARN.test(clusterArn))
    throw new InvalidClusterArnError(clusterArn);
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
