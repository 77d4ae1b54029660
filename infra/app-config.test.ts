import { describe, expect, it } from 'vitest';
import { appConfigFromContext, InvalidContextError } from './app-config.ts';

const from = (context: Record<string, unknown>) => appConfigFromContext((key) => context[key]);
const CLUSTER_ARN = 'arn:aws:kafka:eu-west-1:111122223333:cluster/orders/0f3c-1';
const CERT_ARN = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:orders/client-cert-AbCdEf';
const SCRAM_ARN = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:AmazonMSK_orders-AbCdEf';
const KEY_ARN = 'arn:aws:kms:eu-west-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab';
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
      vpcEndpoints: false,
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

  it('reads an existing cluster with mutual TLS: the client certificate secret and the key it is under', () => {
    const context = {
      cluster: 'existing',
      clusterArn: CLUSTER_ARN,
      auth: 'mtls',
      secretArn: CERT_ARN,
      ...VPC,
    };
    expect(from({ ...context, secretKmsKeyArn: KEY_ARN }).cluster).toMatchObject({
      kind: 'existing',
      auth: 'mtls',
      secretArn: CERT_ARN,
      secretKmsKeyArn: KEY_ARN,
    });
    // Without the key the secret is imported alone (the roles then decrypt through Secrets Manager only).
    expect(from(context).cluster).toMatchObject({
      auth: 'mtls',
      secretArn: CERT_ARN,
      secretKmsKeyArn: undefined,
    });
    // A multi-Region key, and the SCRAM secret's key.
    const mrk = 'arn:aws:kms:eu-west-1:111122223333:key/mrk-1234abcd12ab34cd56ef1234567890ab';
    expect(
      from({ ...context, auth: 'sasl-scram-512', secretArn: SCRAM_ARN, secretKmsKeyArn: mrk }).cluster,
    ).toMatchObject({ auth: 'sasl-scram-512', secretArn: SCRAM_ARN, secretKmsKeyArn: mrk });
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
    // mTLS, and SCRAM, need a cluster the app does not make: refused, naming cluster=existing.
    [
      { auth: 'mtls', secretArn: CERT_ARN },
      'auth',
      /^context "auth": auth=mtls cannot be used with cluster=serverless: MSK Serverless takes IAM authentication only.*AWS Private CA.*-c cluster=existing .* -c auth=mtls -c secretArn=…$/,
    ],
    [
      { cluster: 'provisioned', auth: 'mtls' },
      'auth',
      /auth=mtls cannot be used with cluster=provisioned: the app's provisioned cluster has IAM authentication only.*-c cluster=existing/,
    ],
    [
      { cluster: 'provisioned', auth: 'sasl-scram-512' },
      'auth',
      /auth=sasl-scram-512 cannot be used with cluster=provisioned.*-c cluster=existing .* -c auth=sasl-scram-512/,
    ],
    [{ auth: 'kraken' }, 'auth', /expected iam with cluster=serverless .*got "kraken"/],
    [{ secretArn: CERT_ARN }, 'secretArn', /auth=iam with cluster=serverless takes no secret/],
    [
      { cluster: 'existing', clusterArn: CLUSTER_ARN, auth: 'mtls', ...VPC },
      'secretArn',
      /^context "secretArn": required with auth=mtls$/,
    ],
    [
      { cluster: 'existing', clusterArn: CLUSTER_ARN, auth: 'tls', ...VPC },
      'auth',
      /expected one of iam, sasl-scram-512, mtls, got "tls"/,
    ],
    // Forgetting -c auth=mtls would deploy IAM auth: the secret says otherwise.
    [
      { cluster: 'existing', clusterArn: CLUSTER_ARN, secretArn: CERT_ARN, ...VPC },
      'secretArn',
      /auth=iam takes no secret: leave out secretArn, or choose .*auth=sasl-scram-512 or auth=mtls/,
    ],
    [
      { cluster: 'existing', clusterArn: CLUSTER_ARN, auth: 'mtls', secretKmsKeyArn: KEY_ARN, ...VPC },
      'secretArn',
      /required with auth=mtls/,
    ],
    [
      { cluster: 'self-managed', bootstrapServers: 'b:9092', secretKmsKeyArn: KEY_ARN, auth: 'tls', ...VPC },
      'secretKmsKeyArn',
      /auth=tls takes no secret/,
    ],
    [
      { cluster: 'self-managed', bootstrapServers: 'b:9092', auth: 'none', secretArn: CERT_ARN, ...VPC },
      'secretArn',
      /auth=none takes no secret/,
    ],
    [
      {
        cluster: 'existing',
        clusterArn: CLUSTER_ARN,
        auth: 'mtls',
        secretArn: `${CERT_ARN.slice(0, -7)}`,
        ...VPC,
      },
      'secretArn',
      /^context "secretArn": expected the complete ARN of a Secrets Manager secret \(arn:<partition>:secretsmanager:<region>:<account>:secret:<name>-<6 characters>/,
    ],
    [
      {
        cluster: 'self-managed',
        bootstrapServers: 'b:9096',
        secretArn: SCRAM_ARN,
        rootCaSecretArn: 'kafka-ca',
      },
      'rootCaSecretArn',
      /expected the complete ARN of a Secrets Manager secret/,
    ],
    [
      {
        cluster: 'existing',
        clusterArn: CLUSTER_ARN,
        auth: 'sasl-scram-512',
        secretArn: 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:orders-AbCdEf',
        ...VPC,
      },
      'secretArn',
      /named "orders", but MSK associates only secrets whose name begins with AmazonMSK_/,
    ],
    [
      {
        cluster: 'existing',
        clusterArn: CLUSTER_ARN,
        auth: 'mtls',
        secretArn: CERT_ARN,
        ...VPC,
        secretKmsKeyArn: 'arn:aws:kms:eu-west-1:111122223333:alias/kafka',
      },
      'secretKmsKeyArn',
      /"arn:aws:kms:eu-west-1:111122223333:alias\/kafka" is an alias: give the ARN of the key it points to/,
    ],
    [
      {
        cluster: 'existing',
        clusterArn: CLUSTER_ARN,
        auth: 'mtls',
        secretArn: CERT_ARN,
        ...VPC,
        secretKmsKeyArn: 'alias/kafka',
      },
      'secretKmsKeyArn',
      /is an alias/,
    ],
    [
      {
        cluster: 'existing',
        clusterArn: CLUSTER_ARN,
        auth: 'mtls',
        secretArn: CERT_ARN,
        ...VPC,
        secretKmsKeyArn: '1234abcd-12ab-34cd-56ef-1234567890ab',
      },
      'secretKmsKeyArn',
      /"1234abcd-12ab-34cd-56ef-1234567890ab" is not a KMS key ARN \(arn:<partition>:kms:<region>:<account>:key\/<key id>\)/,
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

  // A value that is not an ARN may be the secret itself, pasted into the wrong option: never echoed.
  it('does not repeat a secretArn that is not an ARN', () => {
    const pasted = '{"username":"orders","password":"hunter2-AbCdEf"}';
    for (const key of ['secretArn', 'rootCaSecretArn']) {
      const context = {
        cluster: 'self-managed',
        bootstrapServers: 'b:9096',
        secretArn: SCRAM_ARN,
        [key]: pasted,
      };
      expect(() => from(context)).toThrow(expect.objectContaining({ key }));
      let message = '';
      try {
        from(context);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toMatch(/not repeated here: it may be a secret/);
      expect(message).not.toContain('hunter2');
    }
  });
});
