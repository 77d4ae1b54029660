import { App, Stack, Token } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import {
  assertClusterInStackEnvironment,
  ClusterOutsideStackEnvironmentError,
  InvalidClusterArnError,
  mskGroupArn,
  mskTopicArn,
} from './msk-arns.ts';

const CLUSTER = 'arn:aws:kafka:eu-west-1:111122223333:cluster/orders/0f3c-uuid-1';

describe('MSK ARNs', () => {
  it('derives topic and group ARNs from a literal cluster ARN', () => {
    expect(mskTopicArn(CLUSTER, 'order-events')).toBe(
      'arn:aws:kafka:eu-west-1:111122223333:topic/orders/0f3c-uuid-1/order-events',
    );
    expect(mskGroupArn(CLUSTER, 'order-processor')).toBe(
      'arn:aws:kafka:eu-west-1:111122223333:group/orders/0f3c-uuid-1/order-processor',
    );
  });

  it('keeps other partitions', () => {
    expect(mskTopicArn('arn:aws-cn:kafka:cn-north-1:111122223333:cluster/c/u', 't')).toBe(
      'arn:aws-cn:kafka:cn-north-1:111122223333:topic/c/u/t',
    );
  });

  it('splits a cluster ARN token in CloudFormation', () => {
    const stack = new Stack(new App(), 'S');
    const arn = stack.formatArn({ service: 'kafka', resource: 'cluster', resourceName: 'orders/u' });
    const split = { 'Fn::Split': [':cluster/', stack.resolve(arn)] };
    expect(stack.resolve(mskGroupArn(arn, 'g'))).toEqual({
      'Fn::Join': ['', [{ 'Fn::Select': [0, split] }, ':group/', { 'Fn::Select': [1, split] }, '/g']],
    });
  });

  it.each([
    'arn:aws:kafka:eu-west-1:111122223333:topic/orders/u/t',
    'arn:aws:kafka:eu-west-1:111122223333:cluster/orders',
    'orders',
  ])('rejects %s with a typed error', (arn) => {
    expect(() => mskTopicArn(arn, 't')).toThrow(InvalidClusterArnError);
    expect(() => mskGroupArn(arn, 'g')).toThrow(
      expect.objectContaining({ name: 'InvalidClusterArnError', clusterArn: arn }),
    );
  });

  // Each Region is in one partition, the ARN's second field (https://docs.aws.amazon.com/general/latest/gr/aws-arns-and-namespaces.html);
  // which one, by the Region's name as the AWS SDKs' partition metadata matches it (regionRegex).
  describe.each([
    ['eu-west-1', 'aws'],
    ['il-central-1', 'aws'],
    ['mx-central-1', 'aws'],
    ['cn-north-1', 'aws-cn'],
    ['cn-northwest-1', 'aws-cn'],
    ['us-gov-west-1', 'aws-us-gov'],
    ['us-gov-east-1', 'aws-us-gov'],
    ['us-iso-east-1', 'aws-iso'],
    ['us-isob-east-1', 'aws-iso-b'],
    ['eu-isoe-west-1', 'aws-iso-e'],
    ['us-isof-south-1', 'aws-iso-f'],
    ['eusc-de-east-1', 'aws-eusc'],
  ])('a cluster in %s (partition %s)', (region, partition) => {
    const arnIn = (p: string) => `arn:${p}:kafka:${region}:111122223333:cluster/shop/u-1`;
    const stackIn = (env: { region?: string }) => new Stack(new App(), 'S', { env });

    it('is accepted with its partition, in a stack of that Region or of none', () => {
      expect(() => assertClusterInStackEnvironment(stackIn({ region }), arnIn(partition))).not.toThrow();
      expect(() => assertClusterInStackEnvironment(stackIn({}), arnIn(partition))).not.toThrow();
    });

    it.each([['aws'], ['aws-cn'], ['aws-us-gov']].filter(([other]) => other !== partition))(
      'is refused with partition %s, naming the ARN it has there',
      (other) => {
        for (const stack of [stackIn({ region }), stackIn({})]) {
          expect(Token.isUnresolved(stack.region)).toBe(stack.region !== region);
          const build = () => assertClusterInStackEnvironment(stack, arnIn(other!));
          expect(build).toThrow(ClusterOutsideStackEnvironmentError);
          expect(build).toThrow(
            `source.clusterArn "${arnIn(other!)}" names partition ${other}, but ${region} is in partition ${partition}: an MSK cluster there is "${arnIn(partition)}"`,
          );
        }
      },
    );
  });

  it('leaves the partition of a Region it cannot place unchecked', () => {
    const stack = new Stack(new App(), 'S', { env: { region: 'xx-future-1' } });
    expect(() =>
      assertClusterInStackEnvironment(stack, 'arn:aws-new:kafka:xx-future-1:111122223333:cluster/c/u'),
    ).not.toThrow();
  });
});
