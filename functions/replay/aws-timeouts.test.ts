// The replay function against AWS API endpoints that accept connections and never answer (a function in
// a VPC with no route to the service): it answers, naming the call and what to check, within its bounds.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type LocalEndpoint, silentEndpoint } from '../../test/support/aws-endpoints.ts';
import { replayConfigFromEnv } from './config.ts';
import { createReplayHandler, handler } from './handler.ts';

let silent: LocalEndpoint;
beforeEach(async () => {
  silent = await silentEndpoint();
  vi.stubEnv('AWS_REGION', 'eu-west-1');
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'test');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'test');
  vi.stubEnv('AWS_SESSION_TOKEN', '');
  vi.stubEnv('AWS_PROFILE', '');
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await silent.close();
});

const ARN = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:AmazonMSK_orders';

describe('the replay function and an AWS API endpoint that never answers', () => {
  it('a silent Lambda API: the deployed entry point answers within REPLAY_MAPPING_TIMEOUT_MS, naming GetEventSourceMapping', async () => {
    vi.stubEnv('AWS_ENDPOINT_URL_LAMBDA', silent.url);
    vi.stubEnv('KAFKA_BOOTSTRAP_SERVERS', '127.0.0.1:1');
    vi.stubEnv('REPLAY_MAPPING_UUID', 'esm-1');
    vi.stubEnv('REPLAY_MAPPING_TIMEOUT_MS', '1500');
    const started = Date.now();
    const result = await handler({ toEarliest: true }, { getRemainingTimeInMillis: () => 900_000 });
    expect(Date.now() - started).toBeLessThan(8_000);
    expect(result).toMatchObject({ ok: false, error: { name: 'AwsApiTimeoutError', kind: 'error' } });
    const { message } = (result as { error: { message: string } }).error;
    expect(message).toMatch(/^Lambda API call GetEventSourceMapping got no answer in \d+ ms/);
    expect(message).toContain('a NAT gateway or a "lambda" interface VPC endpoint');
    expect(silent.connections()).toBeGreaterThanOrEqual(1);
  }, 20_000);

  it('a silent Secrets Manager (SCRAM): answers within the bound, naming GetSecretValue', async () => {
    vi.stubEnv('AWS_ENDPOINT_URL_SECRETS_MANAGER', silent.url);
    const config = replayConfigFromEnv(
      {
        AWS_REGION: 'eu-west-1',
        KAFKA_AUTH: 'sasl-scram-512',
        KAFKA_BOOTSTRAP_SERVERS: '127.0.0.1:1',
        KAFKA_SECRET_ARN: ARN,
        REPLAY_CONSUMER_GROUP_ID: 'orders-fn',
        REPLAY_ALLOWED_TOPICS: 'orders',
      },
      { awsCallMs: 1_500 },
    );
    const logs: Record<string, unknown>[] = [];
    const handle = createReplayHandler({
      config,
      lambda: undefined as never, // no mapping: the Lambda API is not called
      log: (line) => logs.push(line),
    });
    const started = Date.now();
    const result = await handle({ group: 'orders-fn', topic: 'orders', toEarliest: true });
    expect(Date.now() - started).toBeLessThan(8_000);
    expect(result).toMatchObject({ ok: false, error: { name: 'AwsApiTimeoutError', kind: 'error' } });
    const { message } = (result as { error: { message: string } }).error;
    expect(message).toMatch(/^Secrets Manager API call GetSecretValue got no answer in \d+ ms/);
    expect(message).toContain('a NAT gateway or a "secretsmanager" interface VPC endpoint');
    expect(logs).toEqual([{ replay: 'failed', error: (result as { error: unknown }).error }]);
    expect(silent.connections()).toBeGreaterThanOrEqual(1);
  }, 20_000);

  it('a silent MSK API (KAFKA_CLUSTER_ARN): answers within the bound, naming GetBootstrapBrokers', async () => {
    vi.stubEnv('AWS_ENDPOINT_URL_KAFKA', silent.url);
    const config = replayConfigFromEnv(
      {
        AWS_REGION: 'eu-west-1',
        KAFKA_AUTH: 'iam',
        KAFKA_CLUSTER_ARN: 'arn:aws:kafka:eu-west-1:111122223333:cluster/orders/uuid',
        REPLAY_CONSUMER_GROUP_ID: 'orders-fn',
        REPLAY_ALLOWED_TOPICS: 'orders',
      },
      { awsCallMs: 1_500 },
    );
    const handle = createReplayHandler({ config, lambda: undefined as never, log: () => {} });
    const started = Date.now();
    const result = await handle({ group: 'orders-fn', topic: 'orders', toEarliest: true });
    expect(Date.now() - started).toBeLessThan(8_000);
    expect(result).toMatchObject({ ok: false, error: { name: 'AwsApiTimeoutError', kind: 'error' } });
    expect((result as { error: { message: string } }).error.message).toMatch(
      /^Kafka \(MSK\) API call GetBootstrapBrokers got no answer in \d+ ms .*a "kafka" interface VPC endpoint/,
    );
  }, 20_000);
});
