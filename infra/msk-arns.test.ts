import { App, Stack } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { InvalidClusterArnError, mskGroupArn, mskTopicArn } from './msk-arns.ts';

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
});
