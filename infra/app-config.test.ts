import { describe, expect, it } from 'vitest';
import { appConfigFromContext, InvalidContextError } from './app-config.ts';

const from = (context: Record<string, unknown>) => appConfigFromContext((key) => context[key]);
const CLUSTER_ARN = 'arn:aws:kafka:eu-west-1:111122223333:cluster/orders/0f3c-1';
const VPC = {
  vpcId: 'vpc-0a1b2c3d',
  subnetIds: 'subnet-0a1b2c3d, subnet-0a1b2c3d4e5f60718',
  securityGroupIds: 'sg-0a1b2c3d4e5f60718',
};

describe('appConfigFromContext', () => {
  it('defaults to a new MSK Serverless cluster and the orders consumer', () => {
    expect(from({})).toEqual({
      prefix: 'KafkaLambda',
      cluster: { kind: 'serverless', natGateways: 1 },
      topic: 'orders',
      consumerGroupId: 'orders-consumer',
      failureTopic: undefined,
      offsetLagThreshold: 1000,
      alarmTopicArn: undefined,
      failureRate: undefined,
      region: undefined,
      pollerGroupName: undefined,
    });
  });

  it('reads the Region and the poller group', () => {
    expect(from({ region: 'us-west-1', pollerGroupName: 'shop' })).toMatchObject({
      region: 'us-west-1',
      pollerGroupName: 'shop',
    });
  });

  it('reads a provisioned cluster', () => {
    expect(from({ cluster: 'provisioned', natGateways: '2', kafkaVersion: '3.8.x' }).cluster).toEqual({
      kind: 'provisioned',
      natGateways: 2,
      kafkaVersion: '3.8.x',
      brokerInstanceType: 'kafka.t3.small',
    });
  });

  it('reads an existing cluster with its VPC from comma-separated ids', () => {
    expect(from({ cluster: 'existing', clusterArn: CLUSTER_ARN, ...VPC }).cluster).toEqual({
      kind: 'existing',
      clusterArn: CLUSTER_ARN,
      auth: 'iam',
      secretArn: undefined,
      network: {
        vpcId: 'vpc-0a1b2c3d',
        subnetIds: ['subnet-0a1b2c3d', 'subnet-0a1b2c3d4e5f60718'],
        securityGroupIds: ['sg-0a1b2c3d4e5f60718'],
      },
    });
  });

  it('reads self-managed brokers with a secret, without a VPC', () => {
    const secretArn = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:kafka-AbCdEf';
    expect(from({ cluster: 'self-managed', bootstrapServers: 'b1:9096,b2:9096', secretArn }).cluster).toEqual(
      {
        kind: 'self-managed',
        bootstrapServers: ['b1:9096', 'b2:9096'],
        auth: 'sasl-scram-512',
        secretArn,
        rootCaSecretArn: undefined,
        network: undefined,
      },
    );
  });

  it.each([
    [{ cluster: 'kraken' }, 'cluster', /one of serverless, provisioned, existing, self-managed/],
    [{ cluster: 'existing', ...VPC }, 'clusterArn', /required with cluster=existing/],
    [{ cluster: 'existing', clusterArn: CLUSTER_ARN }, 'vpcId', /required with cluster=existing/],
    [
      { cluster: 'existing', clusterArn: CLUSTER_ARN, vpcId: VPC.vpcId, securityGroupIds: 'sg' },
      'subnetIds',
      /required/,
    ],
    [
      { cluster: 'existing', clusterArn: CLUSTER_ARN, auth: 'sasl-scram-512', ...VPC },
      'secretArn',
      /auth=sasl-scram-512/,
    ],
    [{ cluster: 'self-managed' }, 'bootstrapServers', /host:port/],
    [{ cluster: 'self-managed', bootstrapServers: 'b:9092' }, 'secretArn', /auth=sasl-scram-512/],
    [
      { cluster: 'self-managed', bootstrapServers: 'b:9092', auth: 'none' },
      'auth',
      /unauthenticated public brokers/,
    ],
    [
      { cluster: 'existing', clusterArn: CLUSTER_ARN, ...VPC, securityGroupIds: 'sg-0e3f' },
      'securityGroupIds',
      /"sg-0e3f" is not a security group id \(sg- and 8 or 17 hexadecimal digits/,
    ],
    [
      { cluster: 'existing', clusterArn: CLUSTER_ARN, ...VPC, subnetIds: 'subnet-0a1b2c3d,subnet-x' },
      'subnetIds',
      /"subnet-x" is not a subnet id/,
    ],
    [
      { cluster: 'existing', clusterArn: CLUSTER_ARN, ...VPC, vpcId: 'vpc-0a1b' },
      'vpcId',
      /"vpc-0a1b" is not a VPC id/,
    ],
    [{ natGateways: '0' }, 'natGateways', /integer ≥ 1, got "0"/],
    [{ offsetLagThreshold: 'lots' }, 'offsetLagThreshold', /integer ≥ 1/],
    [{ failureRate: '2' }, 'failureRate', /0\.\.1/],
  ])('rejects %o naming %s', (context, key, message) => {
    expect(() => from(context)).toThrow(InvalidContextError);
    expect(() => from(context)).toThrow(
      expect.objectContaining({ name: 'InvalidContextError', key, message: expect.stringMatching(message) }),
    );
  });
});
