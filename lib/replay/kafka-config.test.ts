import { afterEach, describe, expect, it, vi } from 'vitest';
import { ReplayInputError } from './errors.ts';
import { kafkaClientConfig } from './kafka-config.ts';

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('kafkaClientConfig', () => {
  it('plaintext by default, silent, with trimmed brokers', () => {
    const config = kafkaClientConfig({ brokers: [' 127.0.0.1:9092 ', ''] });
    expect(config).toMatchObject({
      brokers: ['127.0.0.1:9092'],
      clientId: 'kafka-lambda-replay',
      logLevel: 0,
    });
    expect(config.ssl).toBeUndefined();
    expect(config.sasl).toBeUndefined();
  });

  it('TLS with a private CA and a client certificate', () => {
    const config = kafkaClientConfig({
      brokers: ['b:9094'],
      auth: { mechanism: 'tls', ca: 'CA', cert: 'CERT', key: 'KEY', passphrase: 'pw' },
    });
    expect(config.ssl).toEqual({ ca: 'CA', cert: 'CERT', key: 'KEY', passphrase: 'pw' });
    expect(kafkaClientConfig({ brokers: ['b:9094'], auth: { mechanism: 'tls' } }).ssl).toBe(true);
  });

  it('SASL/SCRAM and PLAIN over TLS', () => {
    for (const mechanism of ['scram-sha-512', 'scram-sha-256', 'plain'] as const) {
      const config = kafkaClientConfig({
        brokers: ['b:9096'],
        auth: { mechanism, username: 'u', password: 'p' },
      });
      expect(config.ssl).toBe(true);
      expect(config.sasl).toEqual({ mechanism, username: 'u', password: 'p' });
    }
  });

  it('MSK IAM: OAUTHBEARER with a token signed for kafka-cluster:Connect in the region', async () => {
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDEXAMPLE');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY');
    vi.stubEnv('AWS_SESSION_TOKEN', '');
    const config = kafkaClientConfig({
      brokers: ['b-1:9098'],
      auth: { mechanism: 'msk-iam', region: 'eu-west-1' },
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
