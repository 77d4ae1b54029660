// The replay function's answers and logs when something fails before Kafka is reached (no broker needed).
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { modelEventSourceMapping } from '../../test/support/esm-model.ts';
import { replayConfigFromEnv } from './config.ts';
import { createReplayHandler } from './handler.ts';

const secrets = mockClient(SecretsManagerClient);
afterEach(() => secrets.reset());

const ARN = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:AmazonMSK_orders';
const SECRET = 'S3cr3t-Passw0rd!';

function setup(auth: string) {
  const config = replayConfigFromEnv({
    AWS_REGION: 'eu-west-1',
    KAFKA_AUTH: auth,
    KAFKA_BOOTSTRAP_SERVERS: 'b-1:9096',
    KAFKA_SECRET_ARN: ARN,
    REPLAY_MAPPING_UUID: 'esm-1',
  });
  const model = modelEventSourceMapping({ uuid: 'esm-1', topic: 'orders', groupId: 'orders-consumer' });
  const logs: Record<string, unknown>[] = [];
  const handle = createReplayHandler({ config, lambda: model.lambda, log: (line) => logs.push(line) });
  return { model, logs, handle };
}

/** A handler over a modelled mapping esm-1 (topic orders), noting whether it ever connected to Kafka. */
function handlerWatchingKafka(config: ReturnType<typeof replayConfigFromEnv>) {
  const model = modelEventSourceMapping({ uuid: 'esm-1', topic: 'orders', groupId: 'orders-consumer' });
  let connected = false;
  const handle = createReplayHandler({
    config: {
      ...config,
      connection: async () => {
        connected = true;
        return config.connection();
      },
    },
    lambda: model.lambda,
    log: () => {},
  });
  return { model, handle, connected: () => connected };
}

describe('the replay function and its Kafka secret', () => {
  for (const [what, auth, secret] of [
    ['a SASL secret that is a plain password', 'sasl-scram-512', SECRET],
    ['an mTLS secret that is PEM text, not JSON', 'mtls', `-----BEGIN PRIVATE KEY-----\n${SECRET}\n`],
  ] as const) {
    it(`${what}: answers and logs a config error naming the secret, never its value`, async () => {
      secrets.on(GetSecretValueCommand, { SecretId: ARN }).resolves({ SecretString: secret });
      const { model, logs, handle } = setup(auth);
      const result = await handle({ toEarliest: true, execute: true });
      expect(result).toEqual({
        ok: false,
        error: { name: 'ReplayConfigError', kind: 'error', message: `secret ${ARN} is not JSON` },
      });
      expect(logs).toEqual([{ replay: 'failed', error: result.ok ? null : result.error }]);
      expect(JSON.stringify([result, logs])).not.toContain('S3cr3t');
      expect(model.updates).toEqual([]);
    });
  }

  it('an unexpected error’s message is withheld from the answer and the log', async () => {
    secrets.on(GetSecretValueCommand).rejects(new TypeError(`unexpected ${SECRET}`));
    const { logs, handle } = setup('basic');
    const result = await handle({ toEarliest: true });
    expect(result).toMatchObject({ ok: false, error: { name: 'TypeError', kind: 'error' } });
    expect(JSON.stringify([result, logs])).not.toContain('S3cr3t');
  });
});

describe('the replay function and a mapping that does not exist', () => {
  it('answers an invalid request naming the mapping and the region, touching nothing', async () => {
    const config = replayConfigFromEnv({
      AWS_REGION: 'eu-west-1',
      KAFKA_BOOTSTRAP_SERVERS: 'b-1:9096',
      REPLAY_MAPPING_UUID: 'esm-1,m-404',
    });
    const { model, handle, connected } = handlerWatchingKafka(config);
    for (const execute of [false, true]) {
      expect(await handle({ mapping: 'm-404', toEarliest: true, execute })).toEqual({
        ok: false,
        error: {
          name: 'MappingNotFoundError',
          kind: 'invalid',
          message:
            'event source mapping m-404 not found in eu-west-1: check the UUID and the region (aws lambda list-event-source-mappings lists them)',
        },
      });
    }
    expect(connected()).toBe(false);
    expect(model.updates).toEqual([]);
  });
});

describe('the replay function and a request naming a group without a mapping', () => {
  it('says that the default mapping is not used then, and what to give: "topic" or "mapping"', async () => {
    const config = replayConfigFromEnv({
      KAFKA_BOOTSTRAP_SERVERS: 'b-1:9096',
      REPLAY_MAPPING_UUID: 'esm-1',
      REPLAY_CONSUMER_GROUP_ID: 'orders-consumer',
      REPLAY_ALLOWED_TOPICS: 'orders',
    });
    const { model, handle, connected } = handlerWatchingKafka(config);
    expect(await handle({ group: 'orders-consumer', toEarliest: true, execute: true })).toEqual({
      ok: false,
      error: {
        name: 'ReplayInputError',
        kind: 'invalid',
        message:
          'a request with "group" and no "mapping" does not use the default mapping (REPLAY_MAPPING_UUID): give "topic" to replay that group on its own, or "mapping" to replay the group of an event source mapping',
      },
    });
    expect(connected()).toBe(false);
    expect(model.history).toEqual(['Enabled']);
    expect(model.updates).toEqual([]);
  });
});
