import { mkdir, mkdtemp, readdir, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { GetQueueUrlCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTopic, testBrokers, testKafka, uniqueName } from '../../../test/support/kafka.ts';
import { testProducer } from '../../../test/support/producer.ts';
import { runCli } from '../../../test/support/run-cli.ts';
import { type ElasticMq, resolveElasticMqJars, startElasticMq } from '../../elasticmq/index.ts';
import type { BatchFailureEnvelope } from '../../emulator/destination.ts';
import { isAlive } from '../../maven-server/index.ts';

const kafka = testKafka('sqs-cli');
const queue = uniqueName('orders-dlq');
let sqs: ElasticMq;

beforeAll(async () => {
  sqs = await startElasticMq({ queues: [queue] });
});

afterAll(async () => {
  await sqs?.stop();
});

describe('kafka-lambda dev with an SQS on-failure destination', () => {
  it('sends the failed batch to the queue the ARN names, on the SQS server given by --sqs-endpoint', async () => {
    const topic = uniqueName('dev-sqs');
    await createTopic(kafka, topic, 1);
    const producer = testProducer(kafka);
    await producer.connect();
    await producer.send({
      topic,
      messages: [
        { key: 'c-x', value: JSON.stringify({ orderId: 'o-bad', items: [] }) },
        {
          key: 'c-1',
          value: JSON.stringify({ orderId: 'o-1', customerId: 'c-1', items: [{ sku: 'tea', quantity: 1 }] }),
        },
      ],
    });
    await producer.disconnect();

    const run = await runCli(
      [
        'dev',
        'functions/orders/handler.ts',
        '--topic',
        topic,
        '--brokers',
        testBrokers().join(','),
        '--report-batch-item-failures',
        '--retries',
        '1',
        '--on-failure',
        sqs.queueArn(queue),
        '--sqs-endpoint',
        sqs.endpoint,
        '--window',
        '0',
        '--exit-when-idle',
      ],
      { env: { RESERVATIONS_FAILURE_RATE: '0' } },
    );
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(`on-failure to SQS at ${sqs.endpoint} (--sqs-endpoint)`);
    expect(run.stderr.trimEnd().split('\n').at(-1)).toBe(`offsets committed by this run: ${topic}-0=2`);

    const client = new SQSClient({
      endpoint: sqs.endpoint,
      region: sqs.region,
      credentials: sqs.credentials,
    });
    try {
      const { Messages = [] } = await client.send(
        new ReceiveMessageCommand({
          QueueUrl: `${sqs.endpoint}/${sqs.accountId}/${queue}`,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: 2,
        }),
      );
      expect(Messages).toHaveLength(1);
      const envelope = JSON.parse(Messages[0]!.Body!) as BatchFailureEnvelope;
      expect(envelope.requestContext).toMatchObject({
        condition: 'RetryAttemptsExhausted',
        approximateInvokeCount: 2,
      });
      expect(envelope.KafkaBatchInfo).toMatchObject({
        batchSize: 1,
        recordsInfo: { [`${topic}-0`]: { firstRecordOffset: '0', lastRecordOffset: '0' } },
      });
    } finally {
      client.destroy();
    }
  });

  it('prints the SQS endpoint without its user name, password or query', async () => {
    const topic = uniqueName('dev-sqs-url');
    await createTopic(kafka, topic, 1);
    const run = await runCli(
      [
        'dev',
        'functions/orders/handler.ts',
        '--topic',
        topic,
        '--brokers',
        testBrokers().join(','),
        '--on-failure',
        sqs.queueArn(queue),
        '--window',
        '0',
        '--exit-when-idle',
      ],
      // The SDKs' own variable, as a developer's shell may hold it. Nothing listens there: the queue is
      // looked up at start, and dev stops, naming the server without its credentials either.
      { env: { AWS_ENDPOINT_URL_SQS: 'http://key:SECRET-PASS@127.0.0.1:1/?token=SECRET-TOKEN' } },
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('on-failure to SQS at http://127.0.0.1:1 (AWS_ENDPOINT_URL_SQS)');
    expect(run.stderr).toContain(`the SQS server at 127.0.0.1:1 could not be asked for the queue ${queue}`);
    expect(run.stderr).not.toContain('SECRET');
  });
});

describe('kafka-lambda sqs start|status|stop', () => {
  it('starts one background server, reports it, and stops it', async () => {
    // A cache of its own (the jars linked in): the state file never touches the user's server.
    const cache = await mkdtemp(join(tmpdir(), 'kafka-lambda-sqs-cli-'));
    const env = { KAFKA_LAMBDA_CACHE: cache };
    try {
      await symlink(dirname(dirname(await resolveElasticMqJars())), join(cache, 'elasticmq'));
      const started = await runCli(['sqs', 'start', '--queue', 'orders-dlq'], { env });
      expect(started.code).toBe(0);
      const endpoint = started.stdout.trim();
      expect(endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const pid = Number(/pid (\d+)/.exec(started.stderr)?.[1]);
      expect(isAlive(pid)).toBe(true);

      const again = await runCli(['sqs', 'start'], { env });
      expect(again.stdout.trim()).toBe(endpoint);
      expect(again.stderr).toContain(`already running (pid ${pid})`);
      expect(await runCli(['sqs', 'status'], { env })).toMatchObject({
        code: 0,
        stdout: `running ${endpoint} (pid ${pid})\n`,
      });

      expect((await runCli(['sqs', 'stop'], { env })).stdout).toBe(`stopped (pid ${pid})\n`);
      expect(isAlive(pid)).toBe(false);
      expect(await runCli(['sqs', 'status'], { env })).toMatchObject({ code: 3, stdout: 'stopped\n' });
    } finally {
      await runCli(['sqs', 'stop'], { env });
      await rm(cache, { recursive: true, force: true });
    }
  });

  it('two starts at once leave one server, recorded, which stop stops; --queue reaches a running server', async () => {
    // A cache and temporary folder of its own: its run folders are the only ones there.
    const root = await mkdtemp(join(tmpdir(), 'kafka-lambda-sqs-twice-'));
    const cache = join(root, 'cache');
    const tmp = join(root, 'tmp');
    const env = { KAFKA_LAMBDA_CACHE: cache, TMPDIR: tmp };
    const runDirs = async () =>
      (await readdir(tmp)).filter((name) => name.startsWith('kafka-lambda-elasticmq-'));
    try {
      await Promise.all([mkdir(cache), mkdir(tmp)]);
      await symlink(dirname(dirname(await resolveElasticMqJars())), join(cache, 'elasticmq'));
      const [a, b] = await Promise.all([
        runCli(['sqs', 'start', '--queue', 'first'], { env }),
        runCli(['sqs', 'start', '--queue', 'second'], { env }),
      ]);
      expect([a.code, b.code]).toEqual([0, 0]);
      expect(a.stdout).toBe(b.stdout);
      // The server's pid is the last named: a waiting start first names the start it waits for.
      const pids = [a, b].map((run) => Number([...run.stderr.matchAll(/pid (\d+)/g)].at(-1)?.[1]));
      expect(pids[0]).toBe(pids[1]);
      expect(`${a.stderr}${b.stderr}`).toMatch(/is starting the SQS server: waiting for it/);
      expect(`${a.stderr}${b.stderr}`).toMatch(/already running \(pid \d+\); queues (first|second) created/);
      expect(await runDirs()).toHaveLength(1);

      // A queue asked for on the running server is created there, not ignored.
      const third = await runCli(['sqs', 'start', '--queue', 'third'], { env });
      expect(third.stderr).toContain(
        `already running (pid ${pids[0]}); queues third created unless they existed`,
      );
      const endpoint = a.stdout.trim();
      const client = new SQSClient({
        endpoint,
        region: 'us-east-1',
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      });
      try {
        for (const QueueName of ['first', 'second', 'third'])
          expect((await client.send(new GetQueueUrlCommand({ QueueName }))).QueueUrl).toContain(
            `/${QueueName}`,
          );
      } finally {
        client.destroy();
      }

      expect((await runCli(['sqs', 'stop'], { env })).stdout).toBe(`stopped (pid ${pids[0]})\n`);
      expect(isAlive(pids[0]!)).toBe(false);
      expect(await runDirs()).toEqual([]);
    } finally {
      await runCli(['sqs', 'stop'], { env });
      await rm(root, { recursive: true, force: true });
    }
  });
});
