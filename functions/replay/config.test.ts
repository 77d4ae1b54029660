import { describe, expect, it } from 'vitest';
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
      auth: { mechanism: 'plaintext' },
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
    expect((await config.connection()).auth).toEqual({ mechanism: 'msk-iam', region: 'eu-west-1' });
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
