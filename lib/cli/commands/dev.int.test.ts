import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  createTopic,
  createTopicWith,
  testBrokers,
  testKafka,
  uniqueName,
} from '../../../test/support/kafka.ts';
import { runCli, spawnCli } from '../../../test/support/run-cli.ts';
import { freePort, processOutput } from '../../maven-server/index.ts';

const kafka = testKafka('dev-cli');
const handler = 'functions/orders/handler.ts';

/** `kafka-lambda dev <orders handler> --topic <topic> --brokers <test broker> …rest`. */
const runDev = (topic: string, rest: string[] = [], env: Record<string, string> = {}) =>
  runCli(['dev', handler, '--topic', topic, '--brokers', testBrokers().join(','), ...rest], { env });

/** `kafka-lambda dev --invoke orders-fn --endpoint http://127.0.0.1:<port> --topic <topic> --brokers <test broker> …rest`. */
const invokeArgs = (port: number, topic: string, rest: string[]) => [
  'dev',
  '--invoke',
  'orders-fn',
  '--endpoint',
  `http://127.0.0.1:${port}`,
  '--topic',
  topic,
  '--brokers',
  testBrokers().join(','),
  ...rest,
];

describe('kafka-lambda dev', () => {
  it('runs the orders function against a topic: progress lines, the poison order to the destination, final offsets', async () => {
    const topic = uniqueName('dev-orders');
    await createTopic(kafka, `${topic}-dlq`, 1);
    const order = (i: number) => ({
      orderId: `o-${i}`,
      customerId: `c-${i % 3}`,
      items: [{ sku: 'tea', quantity: 1 + (i % 2) }],
    });
    await createTopicWith(
      kafka,
      topic,
      [
        ...Array.from({ length: 8 }, (_, i) => ({
          partition: 0,
          key: `c-${i}`,
          value: JSON.stringify(order(i)),
        })),
        { partition: 1, key: 'c-x', value: JSON.stringify({ orderId: 'o-bad', items: [] }) },
        ...Array.from({ length: 3 }, (_, i) => ({
          partition: 1,
          key: `c-${i}`,
          value: JSON.stringify(order(100 + i)),
        })),
      ],
      2,
    );

    const run = await runDev(
      topic,
      [
        '--report-batch-item-failures',
        '--retries',
        '1',
        '--on-failure',
        `kafka://${topic}-dlq`,
        '--window',
        '0',
        '--exit-when-idle',
      ],
      { RESERVATIONS_FAILURE_RATE: '0' },
    );
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(`dev: ${handler} ← topic ${topic} (group kafka-lambda-dev-${topic})`);
    expect(run.stderr).toContain(
      'dev: note: AWS offers FunctionResponseTypes (ReportBatchItemFailures), MaximumRetryAttempts, DestinationConfig.OnFailure (a Kafka topic) only in provisioned mode',
    );
    expect(run.stderr).toContain(`partial failure: 4 of 4 records reported (attempt 1; ${topic}-1@0..3)`);
    expect(run.stderr).toContain(`retry 1 (partial) of 4 records from ${topic}-1@0`);
    expect(run.stderr).toContain(`${topic}-1@0 → on-failure destination (RetryAttemptsExhausted)`);
    expect(run.stderr).toMatch(
      /\d+ rec\/s · committed 12 · lag 0 · failed batches 2 · retries 1 · to destination 1/,
    );
    expect(run.stderr.trimEnd().split('\n').at(-1)).toBe(
      `offsets committed by this run: ${topic}-0=8 ${topic}-1=4`,
    );
  });

  it.each([
    [['--batch-size', '0'], /--batch-size.*must be an integer from 1 to 10000/],
    // --on-failure's problems are said in the flag's terms, offering what dev --help offers.
    [
      ['--on-failure', 'arn:aws:sqs:us-east-1:1:q'],
      /^kafka-lambda dev: --on-failure: expected kafka:\/\/<topic>, or an SQS queue ARN \(arn:aws:sqs:<region>:<account-id>:<queue>\), got "arn:aws:sqs:us-east-1:1:q"\n$/,
    ],
    [
      ['--on-failure', 'orders-dlq'],
      /^kafka-lambda dev: --on-failure: expected kafka:\/\/<topic>, or an SQS queue ARN \(arn:aws:sqs:<region>:<account-id>:<queue>\), got "orders-dlq"\n$/,
    ],
    [
      ['--on-failure', 'arn:aws:sns:us-east-1:123456789012:alerts'],
      /^kafka-lambda dev: --on-failure: dev sends failed records to kafka:\/\/<topic>, or an SQS queue ARN .*; an SNS topic is a destination Lambda takes, but dev has no local SNS server to send to\n$/,
    ],
    [
      ['--on-failure', 'arn:aws:s3:::failed-orders'],
      /^kafka-lambda dev: --on-failure: .*an S3 bucket is a destination Lambda takes, but dev has no local S3 server/,
    ],
    [
      ['--on-failure', 'arn:aws:sqs:us-east-1:123456789012:q.fifo'],
      /^kafka-lambda dev: --on-failure: a FIFO queue cannot be a destination/,
    ],
    // Schema registry settings without a registry: refused, not ignored.
    [
      ['--event-record-format', 'SOURCE'],
      /^kafka-lambda dev: --event-record-format needs --schema-registry \(it is a setting of the trigger's schema registry\)\n$/,
    ],
    [['--schema-validation', 'KEY'], /^kafka-lambda dev: --schema-validation needs --schema-registry/],
    // An emulator setting's message is led by the flag that set it.
    [['--group', ''], /kafka-lambda dev: --group: consumerGroupId: /],
    [
      ['--window', '0.2'],
      /'--window <seconds>' argument '0\.2' is invalid\. must be an integer from 0 to 300/,
    ],
    [['--max-pollers', '0'], /--max-pollers.*must be an integer from 1 to 2000/],
    [
      ['--min-pollers', '4', '--max-pollers', '3'],
      /--min-pollers\/--max-pollers: provisionedPollerConfig: maximumPollers \(3\) must be at least minimumPollers \(4\)/,
    ],
  ])('refuses %j with exit code 2', async (args, message) => {
    const topic = uniqueName('dev-usage');
    await createTopic(kafka, topic, 1);
    const run = await runDev(topic, args);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    // The library's option names are not the CLI's.
    expect(run.stderr).not.toMatch(/onFailure|destinations\./);
  });

  // Settings the emulator refuses (parsed values it cannot take): the message is led by the flag typed.
  it.each([
    [['--topic', 'a'], '--topic', 'topic: not a topic name a Kafka trigger accepts'],
    [['--max-record-age', '30'], '--max-record-age', 'maximumRecordAgeInSeconds: must be an integer'],
    [
      ['--starting-position', 'AT_TIMESTAMP'],
      '--starting-timestamp',
      'startingPositionTimestamp: required (Unix seconds) with AT_TIMESTAMP',
    ],
    [['--starting-timestamp', '5'], '--starting-timestamp', 'only allowed with AT_TIMESTAMP'],
    [
      ['--starting-position', 'AT_TIMESTAMP', '--starting-timestamp', '99999999999'],
      '--starting-timestamp',
      'must not be in the future',
    ],
    [['--schema-registry', 'ftp://127.0.0.1:1'], '--schema-registry', 'must be an http(s) registry URL'],
    [
      ['--schema-registry', 'http://127.0.0.1:1', '--schema-validation', 'KEY,KEY'],
      '--schema-validation',
      'names an attribute twice',
    ],
    [['--filter', '{"Filters":[{"Pattern":"[1]"}]}'], '--filter', 'must be a JSON object'],
  ])('%j is refused (exit 2) naming %s', async (args, flag, message) => {
    const topic = uniqueName('dev-setting');
    const run = await runCli([
      'dev',
      handler,
      '--brokers',
      testBrokers().join(','),
      '--topic',
      topic,
      ...args,
    ]);
    expect(run.code).toBe(2);
    // One line, the error: no progress line of a run that never started after it.
    expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(new RegExp(`^kafka-lambda dev: ${flag}: \\w`));
    expect(run.stderr).toContain(message);
  });

  it('--invoke with an --endpoint where nothing listens: refused before a record is read (exit 2), not retried forever', async () => {
    const topic = uniqueName('dev-endpoint');
    await createTopicWith(kafka, topic, [{ value: '{}' }]);
    const port = await freePort();
    const dev = spawnCli(invokeArgs(port, topic, ['--exit-when-idle']));
    dev.stdin.end();
    const output = processOutput(dev);
    // Before, every batch failed with ECONNREFUSED, retried every few seconds for as long as dev ran.
    const timer = setTimeout(() => dev.kill('SIGKILL'), 30_000);
    try {
      const run = await output;
      expect(run.code).toBe(2);
      expect(run.stderr).toBe(
        `kafka-lambda dev: --endpoint http://127.0.0.1:${port}: nothing accepts connections at 127.0.0.1:${port} (ECONNREFUSED): start the Invoke API there first (e.g. sam local start-lambda), or correct --endpoint\n`,
      );
    } finally {
      clearTimeout(timer);
    }
  });

  it('--invoke with a live --endpoint: checked without an invocation, then every record is delivered', async () => {
    const topic = uniqueName('dev-invoke');
    await createTopicWith(
      kafka,
      topic,
      [0, 1, 2].map((i) => ({ value: `{"i":${i}}` })),
    );
    // What `sam local start-lambda` serves: the Invoke API, each request recorded.
    const requests: Array<{ method?: string; url?: string; records: number }> = [];
    let connections = 0;
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const event = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as {
          records?: Record<string, unknown[]>;
        };
        requests.push({
          method: request.method,
          url: request.url,
          records: Object.values(event.records ?? {}).flat().length,
        });
        response.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
      });
    });
    server.on('connection', () => connections++);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    try {
      const run = await runCli(invokeArgs(port, topic, ['--window', '0', '--exit-when-idle']));
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr.trimEnd().split('\n').at(-1)).toBe(`offsets committed by this run: ${topic}-0=3`);
      // Every request was an invocation carrying records; the check before was a bare connection.
      expect(requests.length).toBeGreaterThan(0);
      for (const { method, url, records } of requests) {
        expect([method, url]).toEqual(['POST', '/2015-03-31/functions/orders-fn/invocations']);
        expect(records).toBeGreaterThan(0);
      }
      expect(requests.reduce((sum, request) => sum + request.records, 0)).toBe(3);
      expect(connections).toBeGreaterThan(1);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('refuses a topic missing on a cluster it does not own', async () => {
    const run = await runDev(uniqueName('nope'));
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^kafka-lambda dev: topic nope-\w+ does not exist on [^\n]+\n$/);
  });

  it('fails on connect when --brokers is not Kafka: no progress line, exit 1, within seconds', async () => {
    const server = createServer((_, response) => response.end('not kafka'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    try {
      const run = await runCli(['dev', handler, '--topic', 'orders', '--brokers', `127.0.0.1:${port}`]);
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(
        `kafka-lambda dev: 127.0.0.1:${port}: answered with something that is not Kafka protocol: not a Kafka broker\n`,
      );
      // kafkajs alone retried for 32 s behind a progress line; the probe answers at once.
      expect(run.ms).toBeLessThan(20_000);
    } finally {
      server.close();
    }
  });
});
