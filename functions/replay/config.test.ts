import { GetBootstrapBrokersCommand, KafkaClient } from '@aws-sdk/client-kafka';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { ReplayConfigError, replayConfigFromEnv } from './config.ts';

describe('replayConfigFromEnv', () => {
  it('reads the allow-lists, brokers and timeouts', async () => {
    const config = replayConfigFromEnv({
      REPLAY_MAPPING_UUID: 'esm-1, esm-2',
      REPLAY_ALLOWED_TOPICS: 'orders',
      KAFKA_BOOTSTRAP_SERVERS: 'b-1:9092,b-2:9092',
      REPLAY_GROUP_TIMEOUT_MS: '60000',
    });
    expect(config).toMatchObject({ mappings: ['esm-1', 'esm-2'], groups: [], topics: ['orders'] });
    expect(config.timeouts).toEqual({ groupMs: 60_000 });
    expect(await config.connection()).toEqual({
      brokers: ['b-1:9092', 'b-2:9092'],
      auth: { type: 'none' },
      clientId: 'kafka-lambda-replay-function',
    });
  });

  it('MSK IAM uses the function’s region', async () => {
    const config = replayConfigFromEnv({
      REPLAY_MAPPING_UUID: 'esm-1',
      KAFKA_BOOTSTRAP_SERVERS: 'b-1:9098',
      KAFKA_AUTH: 'iam',
      AWS_REGION: 'eu-west-1',
    });
    expect((await config.connection()).auth).toEqual({ type: 'iam', region: 'eu-west-1' });
  });

  it('refuses a configuration that allows nothing or cannot connect', () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ KAFKA_BOOTSTRAP_SERVERS: 'b:9092' }, /nothing may be replayed/],
      [{ KAFKA_BOOTSTRAP_SERVERS: 'b:9092', REPLAY_CONSUMER_GROUP_ID: 'g' }, /nothing may be replayed/],
      [{ REPLAY_MAPPING_UUID: 'esm-1' }, /KAFKA_BOOTSTRAP_SERVERS or KAFKA_CLUSTER_ARN/],
      [
        { REPLAY_MAPPING_UUID: 'esm-1', KAFKA_BOOTSTRAP_SERVERS: 'b:9092', KAFKA_AUTH: 'kerberos' },
        /KAFKA_AUTH/,
      ],
      [
        { REPLAY_MAPPING_UUID: 'esm-1', KAFKA_BOOTSTRAP_SERVERS: 'b:9092', KAFKA_AUTH: 'sasl-scram-512' },
        /needs KAFKA_SECRET_ARN/,
      ],
      [
        { REPLAY_MAPPING_UUID: 'esm-1', KAFKA_CLUSTER_ARN: 'arn:aws:kafka:…', KAFKA_AUTH: 'iam' },
        /AWS_REGION/,
      ],
      [
        { REPLAY_MAPPING_UUID: 'esm-1', KAFKA_BOOTSTRAP_SERVERS: 'b:9092', REPLAY_MAPPING_TIMEOUT_MS: '-1' },
        /REPLAY_MAPPING_TIMEOUT_MS/,
      ],
    ];
    for (const [env, message] of cases) {
      expect(() => replayConfigFromEnv(env)).toThrow(ReplayConfigError);
      expect(() => replayConfigFromEnv(env)).toThrow(message);
    }
  });
});

describe('the Kafka secret (never quoted back)', () => {
  const secrets = mockClient(SecretsManagerClient);
  afterEach(() => secrets.reset());
  const ARN = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:AmazonMSK_orders';
  const env = (auth: string) => ({
    AWS_REGION: 'eu-west-1',
    KAFKA_AUTH: auth,
    KAFKA_BOOTSTRAP_SERVERS: 'b-1:9096',
    KAFKA_SECRET_ARN: ARN,
    REPLAY_MAPPING_UUID: 'esm-1',
  });
  const SECRET = 'S3cr3t-Passw0rd!';
  const cases: [string, string, { SecretString?: string; SecretBinary?: Uint8Array }, RegExp][] = [
    ['a plain password', 'sasl-scram-512', { SecretString: SECRET }, /is not JSON/],
    ['a JSON string', 'basic', { SecretString: JSON.stringify(SECRET) }, /is not a JSON object/],
    [
      'a password that is not a string',
      'sasl-scram-256',
      { SecretString: JSON.stringify({ username: SECRET, password: 42 }) },
      /needs "username" and "password"/,
    ],
    [
      'an mTLS secret without its key',
      'mtls',
      { SecretString: JSON.stringify({ certificate: SECRET, privateKey: '' }) },
      /needs "certificate" and "privateKey"/,
    ],
    ['a binary secret', 'mtls', { SecretBinary: new TextEncoder().encode(SECRET) }, /has no SecretString/],
  ];
  for (const [what, auth, value, message] of cases) {
    it(`${what}: a ReplayConfigError naming the secret, without its value`, async () => {
      secrets.on(GetSecretValueCommand, { SecretId: ARN }).resolves(value);
      const error = await replayConfigFromEnv(env(auth))
        .connection()
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ReplayConfigError);
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).toContain(ARN);
      expect(JSON.stringify(error, Object.getOwnPropertyNames(error))).not.toContain('S3cr3t');
      expect((error as Error).cause).toBeUndefined();
    });
  }

  // What KafkaReplayFunction sets for an MSK source with mutual TLS: the cluster ARN, not brokers. MSK's
  // mTLS clients use its TLS listener (9094), whose server certificates public CAs sign (no root CA secret).
  it('finds the TLS brokers of an MSK cluster with mTLS and reads the certificate secret', async () => {
    const kafka = mockClient(KafkaClient);
    const clusterArn = 'arn:aws:kafka:eu-west-1:111122223333:cluster/shop/0f3c-uuid-1';
    kafka.on(GetBootstrapBrokersCommand, { ClusterArn: clusterArn }).resolves({
      BootstrapBrokerStringTls:
        'b-1.shop.kafka.eu-west-1.amazonaws.com:9094,b-2.shop.kafka.eu-west-1.amazonaws.com:9094',
      BootstrapBrokerStringSaslScram: 'b-1.shop.kafka.eu-west-1.amazonaws.com:9096',
      BootstrapBrokerStringSaslIam: 'b-1.shop.kafka.eu-west-1.amazonaws.com:9098',
    });
    secrets.on(GetSecretValueCommand, { SecretId: ARN }).resolves({
      SecretString: JSON.stringify({ certificate: 'CERT', privateKey: 'KEY' }),
    });
    try {
      const { KAFKA_BOOTSTRAP_SERVERS: _, ...mskEnv } = env('mtls');
      const connection = await replayConfigFromEnv({ ...mskEnv, KAFKA_CLUSTER_ARN: clusterArn }).connection();
      expect(connection.brokers).toEqual([
        'b-1.shop.kafka.eu-west-1.amazonaws.com:9094',
        'b-2.shop.kafka.eu-west-1.amazonaws.com:9094',
      ]);
      expect(connection.auth).toEqual({
        type: 'mtls',
        cert: 'CERT',
        key: 'KEY',
        passphrase: undefined,
        ca: undefined,
      });
    } finally {
      kafka.restore();
    }
  });

  it('reads the mTLS secret in the trigger’s format, with the root CA of a self-managed cluster', async () => {
    const caArn = `${ARN}-ca`;
    secrets.on(GetSecretValueCommand, { SecretId: ARN }).resolves({
      SecretString: JSON.stringify({ certificate: 'CERT', privateKey: 'KEY', privateKeyPassword: 'PW' }),
    });
    secrets.on(GetSecretValueCommand, { SecretId: caArn }).resolves({ SecretString: '{"certificate":"CA"}' });
    const config = replayConfigFromEnv({ ...env('mtls'), KAFKA_ROOT_CA_SECRET_ARN: caArn });
    expect((await config.connection()).auth).toEqual({
      type: 'mtls',
      cert: 'CERT',
      key: 'KEY',
      passphrase: 'PW',
      ca: 'CA',
    });
  });
});
