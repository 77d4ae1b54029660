import { afterEach, describe, expect, it, vi } from 'vitest';
import { ReplayInputError } from './errors.ts';
import { KAFKA_AUTH_TYPES, kafkaClientConfig } from './kafka-config.ts';

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('kafkaClientConfig', () => {
  it('none (plaintext) by default, silent, with trimmed brokers', () => {
    const config = kafkaClientConfig({ brokers: [' 127.0.0.1:9092 ', ''] });
    expect(config).toMatchObject({
      brokers: ['127.0.0.1:9092'],
      clientId: 'kafka-lambda-replay',
      logLevel: 0,
    });
    expect(config.ssl).toBeUndefined();
    expect(config.sasl).toBeUndefined();
  });

  it('mTLS with a private CA and a client certificate; TLS with or without a private CA', () => {
    const config = kafkaClientConfig({
      brokers: ['b:9094'],
      auth: { type: 'mtls', ca: 'CA', cert: 'CERT', key: 'KEY', passphrase: 'pw' },
    });
    expect(config.ssl).toEqual({ ca: 'CA', cert: 'CERT', key: 'KEY', passphrase: 'pw' });
    expect(config.sasl).toBeUndefined();
    expect(kafkaClientConfig({ brokers: ['b:9094'], auth: { type: 'tls' } }).ssl).toBe(true);
    expect(kafkaClientConfig({ brokers: ['b:9094'], auth: { type: 'tls', ca: 'CA' } }).ssl).toEqual({
      ca: 'CA',
    });
  });

  it("SASL/SCRAM and SASL/PLAIN over TLS, by the names of Lambda's triggers", () => {
    for (const [type, mechanism] of [
      ['sasl-scram-512', 'scram-sha-512'],
      ['sasl-scram-256', 'scram-sha-256'],
      ['basic', 'plain'],
    ] as const) {
      const config = kafkaClientConfig({
        brokers: ['b:9096'],
        auth: { type, username: 'u', password: 'p' },
      });
      expect(config.ssl).toBe(true);
      expect(config.sasl).toEqual({ mechanism, username: 'u', password: 'p' });
    }
  });

  it('names every authentication type with what Lambda calls it and what goes over the wire', () => {
    expect(Object.keys(KAFKA_AUTH_TYPES).sort()).toEqual(
      ['basic', 'iam', 'mtls', 'none', 'sasl-scram-256', 'sasl-scram-512', 'tls'].sort(),
    );
    expect(KAFKA_AUTH_TYPES.basic).toEqual({ lambda: 'BASIC_AUTH', wire: 'SASL/PLAIN over TLS' });
    expect(KAFKA_AUTH_TYPES.iam.wire).toMatch(/OAUTHBEARER.*AWS_MSK_IAM/);
  });

  it('MSK IAM: OAUTHBEARER with a token signed for kafka-cluster:Connect in the region', async () => {
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDEXAMPLE');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY');
    vi.stubEnv('AWS_SESSION_TOKEN', '');
    const config = kafkaClientConfig({
      brokers: ['b-1:9098'],
      auth: { type: 'iam', region: 'eu-west-1' },
    });
    expect(config.ssl).toBe(true);
    const sasl = config.sasl as { mechanism: string; oauthBearerProvider: () => Promise<{ value: string }> };
    expect(sasl.mechanism).toBe('oauthbearer');
    const { value } = await sasl.oauthBearerProvider();
    const url = new URL(Buffer.from(value, 'base64url').toString());
    expect(url.host).toBe('kafka.eu-west-1.amazonaws.com');
    expect(url.searchParams.get('Action')).toBe('kafka-cluster:Connect');
    expect(url.searchParams.get('X-Amz-Credential')).toMatch(
      /^AKIDEXAMPLE\/\d{8}\/eu-west-1\/kafka-cluster\//,
    );
  });

  it('refuses an empty broker list', () => {
    expect(() => kafkaClientConfig({ brokers: [' '] })).toThrow(ReplayInputError);
  });
});
