import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { KafkaMessage } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  committedOffsetsByKafkaTool,
  createTopic,
  testBrokers,
  testKafka,
  uniqueName,
} from '../../../test/support/kafka.ts';
import { runCli } from '../../../test/support/run-cli.ts';
import { processOutput } from '../../maven-server/process.ts';
import type { ConsumedRecord } from './consume.ts';
import type { ProduceSummary } from './produce.ts';

const kafka = testKafka('produce-consume-cli');
const brokers = () => testBrokers().join(',');
const cli = (args: string[], input?: string) =>
  runCli([...args, '--brokers', brokers()], input === undefined ? {} : { input });

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kafka-lambda-produce-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function topicExists(topic: string): Promise<boolean> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    return (await admin.listTopics()).includes(topic);
  } finally {
    await admin.disconnect();
  }
}

/** Every record of a topic, read by a plain kafkajs consumer (an independent check of what produce wrote). */
async function readAll(topic: string, count: number): Promise<Array<KafkaMessage & { partition: number }>> {
  const consumer = kafka.consumer({ groupId: uniqueName('check') });
  const seen: Array<KafkaMessage & { partition: number }> = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    const done = new Promise<void>((resolve) => {
      void consumer.run({
        eachMessage: async ({ partition, message }) => {
          seen.push({ ...message, partition });
          if (seen.length === count) resolve();
        },
      });
    });
    await Promise.race([done, sleep(60_000)]);
  } finally {
    await consumer.disconnect();
  }
  return seen.sort((a, b) => a.partition - b.partition || Number(a.offset) - Number(b.offset));
}

describe('kafka-lambda produce → consume', () => {
  it('writes JSON lines with keys and headers, and both consume and kafkajs read them back byte-exact', async () => {
    const topic = uniqueName('jsonl');
    // Spacing, key order, unicode and a number format JSON.stringify would change: bytes must survive as they are.
    const lines = [
      '{"id":"o-1","amount":1.50}',
      '{ "amount": 2, "id": "o-2" }',
      '{"id":"o-3","note":"café ☕","amount":3e2}',
      '{"id":7,"amount":4}',
      // A key field beyond 2^53: the key is the digits the line gives, not the double nearest them.
      '{"id":9007199254740993,"amount":5}',
    ];
    const file = join(dir, 'orders.jsonl');
    await writeFile(file, `${lines[0]}\n${lines[1]}\r\n\n${lines[2]}\n${lines[3]}\n${lines[4]}\n`);
    const produced = await cli([
      'produce',
      '--topic',
      topic,
      '--file',
      file,
      '--key-field',
      'id',
      '--header',
      'source=cli',
      '--header',
      'trace=t-{i}',
      '--partition',
      '1',
      '--partitions',
      '2',
      '--json',
    ]);
    expect(produced.stderr).toBe(`created topic ${topic} (2 partitions) on --brokers\n`);
    expect(produced.code).toBe(0);
    const summary = JSON.parse(produced.stdout) as ProduceSummary;
    expect(summary).toEqual({
      ok: true,
      topic,
      created: true,
      records: 5,
      batches: [{ partition: 1, firstOffset: 0, lastOffset: 4, records: 5 }],
      partitions: [{ partition: 1, firstOffset: 0, lastOffset: 4, records: 5 }],
    });

    const keys = ['o-1', 'o-2', 'o-3', '7', '9007199254740993'];
    const consumed = await cli(['consume', '--topic', topic]);
    expect(consumed.code).toBe(0);
    expect(consumed.stdout).toBe(
      lines.map((line, i) => `${topic}-1@${i} key=${keys[i]} [source=cli trace=t-${i}] ${line}\n`).join(''),
    );
    expect(consumed.stderr).toBe(`5 record(s) from ${topic}\n`);

    const json = await cli(['consume', '--topic', topic, '--json']);
    const records = json.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as ConsumedRecord);
    expect(records.map((r) => [r.offset, r.key, r.headers, r.value, r.valueFormat])).toEqual(
      lines.map((line, i) => [
        i,
        keys[i],
        [
          ['source', 'cli'],
          ['trace', `t-${i}`],
        ],
        JSON.parse(line),
        'json',
      ]),
    );

    const messages = await readAll(topic, 5);
    expect(messages.map((m) => [m.partition, m.key?.toString('hex'), m.value?.toString('hex')])).toEqual(
      lines.map((line, i) => [1, Buffer.from(keys[i]!).toString('hex'), Buffer.from(line).toString('hex')]),
    );
    expect(messages.map((m) => m.headers)).toEqual(
      lines.map((_, i) => ({ source: Buffer.from('cli'), trace: Buffer.from(`t-${i}`) })),
    );
  });

  it('generates keyed records where Kafka would put them, text and binary values as they are', async () => {
    const topic = uniqueName('generated');
    await createTopic(kafka, topic, 3);
    const generated = await cli([
      'produce',
      '--topic',
      topic,
      '--count',
      '6',
      '--key',
      'c-{i%2}',
      '--value',
      'order {i} is not JSON',
    ]);
    expect(generated.code).toBe(0);
    expect(generated.stderr).toBe('');
    expect(generated.stdout).toMatch(
      new RegExp(`^produced 6 record\\(s\\) to ${topic} in 1 batch\\(es\\): `, 'm'),
    );
    const binary = join(dir, 'value.bin');
    await writeFile(binary, Buffer.from([0, 0xff, 0x80, 0x0a, 0x41]));
    expect((await cli(['produce', '--topic', topic, '--value-file', binary, '--partition', '2'])).code).toBe(
      0,
    );

    const messages = await readAll(topic, 7);
    const { partitionForKey } = await import('../../testing/partitioner.ts');
    for (const m of messages.filter((m) => m.key !== null)) {
      expect(m.partition).toBe(partitionForKey(m.key!, 3));
    }
    expect(
      messages
        .filter((m) => m.key !== null)
        .map((m) => m.value!.toString())
        .sort(),
    ).toEqual(Array.from({ length: 6 }, (_, i) => `order ${i} is not JSON`).sort());
    const bin = messages.find((m) => m.key === null)!;
    expect(bin.value!.toString('hex')).toBe('00ff800a41');

    const lines = (await cli(['consume', '--topic', topic, '--partition', '2'])).stdout.trimEnd().split('\n');
    expect(lines.at(-1)).toBe(
      `${topic}-2@${bin.offset} base64:${Buffer.from([0, 0xff, 0x80, 0x0a, 0x41]).toString('base64')}`,
    );
  });

  it('reads from --partition/--offset, up to --max, and with --group starts after what the group committed', async () => {
    const topic = uniqueName('positions');
    expect(
      (await cli(['produce', '--topic', topic, '--partitions', '1', '--count', '5', '--value', 'v{i}'])).code,
    ).toBe(0);
    const fromOffset = await cli(['consume', '--topic', topic, '--partition', '0', '--offset', '3']);
    expect(fromOffset.stdout).toBe(`${topic}-0@3 v3\n${topic}-0@4 v4\n`);
    const group = uniqueName('reader');
    const first = await cli(['consume', '--topic', topic, '--group', group, '--max', '2']);
    expect(first.stdout).toBe(`${topic}-0@0 v0\n${topic}-0@1 v1\n`);
    expect(await committedOffsetsByKafkaTool(group)).toEqual([
      { topic, partition: 0, currentOffset: 2, logEndOffset: 5 },
    ]);
    const rest = await cli(['consume', '--topic', topic, '--group', group]);
    expect(rest.stdout).toBe(`${topic}-0@2 v2\n${topic}-0@3 v3\n${topic}-0@4 v4\n`);
    // Without --group nothing is committed: the group is unchanged, and a plain read starts at the beginning.
    expect((await cli(['consume', '--topic', topic, '--max', '1'])).stdout).toBe(`${topic}-0@0 v0\n`);
    expect(await committedOffsetsByKafkaTool(group)).toEqual([
      { topic, partition: 0, currentOffset: 5, logEndOffset: 5 },
    ]);
  });

  it('--follow starts at the end (or --from-beginning) and prints new records as they come', async () => {
    const topic = uniqueName('follow');
    expect(
      (await cli(['produce', '--topic', topic, '--partitions', '1', '--count', '2', '--value', 'old-{i}']))
        .code,
    ).toBe(0);
    const follow = (extra: string[]) => {
      const child = spawn(
        process.execPath,
        [
          fileURLToPath(new URL('../../../bin/kafka-lambda.js', import.meta.url)),
          'consume',
          '--topic',
          topic,
          '--follow',
          '--max',
          '3',
          '--brokers',
          brokers(),
          ...extra,
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      const ready = new Promise<void>((resolve) => {
        child.stderr.on('data', (chunk: Buffer) => {
          if (chunk.toString().includes('following from')) resolve();
        });
      });
      return { ready, output: processOutput(child) };
    };
    const fromEnd = follow([]);
    const fromBeginning = follow(['--from-beginning']);
    await Promise.all([fromEnd.ready, fromBeginning.ready]);
    expect((await cli(['produce', '--topic', topic, '--count', '3', '--value', 'new-{i}'])).code).toBe(0);
    const [end, beginning] = await Promise.all([fromEnd.output, fromBeginning.output]);
    expect(end.stderr).toContain(`following from ${topic}-0@2 (Ctrl-C to stop)`);
    expect(end.stdout).toBe(`${topic}-0@2 new-0\n${topic}-0@3 new-1\n${topic}-0@4 new-2\n`);
    expect(beginning.stdout).toBe(`${topic}-0@0 old-0\n${topic}-0@1 old-1\n${topic}-0@2 new-0\n`);
  });

  it("shows each dead-letter record's origin, written by the emulator (Kafka destination: one message per record)", async () => {
    const topic = uniqueName('orders');
    const dlq = `${topic}-dlq`;
    await createTopic(kafka, topic, 2);
    await createTopic(kafka, dlq, 1);
    const produced = await cli(
      ['produce', '--topic', topic, '--partition', '1', '--header', 'trace=x'],
      [
        '{"id":"o-0","amount":1}',
        '{"id":"o-1","amount":-1}',
        '{"id":"o-2","amount":2}',
        '{"id":"o-3","amount":-3}',
        '',
      ].join('\n'),
    );
    expect(produced.code).toBe(0);
    // The emulator behind `dev` writes the dead-letter topic; the handler reports negative amounts.
    const handler = join(dir, 'negative-amounts.ts');
    await writeFile(
      handler,
      `export async function handler(event) {
        const failed = Object.values(event.records).flat().filter(
          (r) => JSON.parse(Buffer.from(r.value, 'base64').toString()).amount < 0);
        return { batchItemFailures: failed.map((r) => ({ itemIdentifier: { partition: r.topic + '-' + r.partition, offset: r.offset } })) };
      }\n`,
    );
    const dev = await runCli([
      'dev',
      handler,
      '--topic',
      topic,
      '--brokers',
      brokers(),
      '--window',
      '0',
      '--report-batch-item-failures',
      '--retries',
      '1',
      '--redelivery',
      'listed',
      '--on-failure',
      `kafka://${dlq}`,
      '--exit-when-idle',
    ]);
    expect(dev.code).toBe(0);
    const consumed = await cli(['consume', '--topic', dlq]);
    expect(consumed.code).toBe(0);
    const lines = consumed.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines.map((l) => l.replace(/^\S+ /, ''))).toEqual([
      expect.stringMatching(new RegExp(`^failed ${topic}-1@1 \\w+ after 2 invocation\\(s\\)$`)),
      expect.stringMatching(new RegExp(`^failed ${topic}-1@3 \\w+ after 2 invocation\\(s\\)$`)),
    ]);
    const verbose = await cli(['consume', '--topic', dlq, '-v']);
    expect(verbose.stdout).toContain('\n  record [trace=x] {"id":"o-1","amount":-1}\n');
    expect(verbose.stdout).toContain('\n  record [trace=x] {"id":"o-3","amount":-3}\n');
    const json = (await cli(['consume', '--topic', dlq, '--json'])).stdout.trimEnd().split('\n');
    expect(json.map((l) => (JSON.parse(l) as ConsumedRecord).failure?.[0])).toEqual([
      expect.objectContaining({ topic, partition: 1, firstOffset: 1, lastOffset: 1, invocations: 2 }),
      expect.objectContaining({ topic, partition: 1, firstOffset: 3, lastOffset: 3, invocations: 2 }),
    ]);
  });

  it('shows the per-batch on-failure message (SQS/SNS form) as the failed offset range', async () => {
    const topic = uniqueName('sqs-form');
    // The documented SQS/SNS message (https://docs.aws.amazon.com/lambda/latest/dg/kafka-on-failure.html).
    const envelope = {
      requestContext: {
        requestId: 'r-1',
        functionArn: 'arn:aws:lambda:eu-west-1:111122223333:function:orders',
        condition: 'RetryAttemptsExhausted',
        approximateInvokeCount: 11,
      },
      responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
      version: '1.0',
      timestamp: '2026-11-29T10:00:00.000Z',
      KafkaBatchInfo: {
        batchSize: 2,
        eventSourceArn: 'arn:aws:kafka:eu-west-1:111122223333:cluster/orders/uuid',
        bootstrapServers: 'b-1:9098',
        payloadSize: 1520,
        recordsInfo: {
          'order-events-3': {
            firstRecordOffset: '1041',
            lastRecordOffset: '1042',
            firstRecordTimestamp: '2026-11-29T09:59:59.900Z',
            lastRecordTimestamp: '2026-11-29T10:00:00.000Z',
          },
        },
      },
    };
    expect(
      (await cli(['produce', '--topic', topic, '--partitions', '1'], `${JSON.stringify(envelope)}\n`)).code,
    ).toBe(0);
    const consumed = await cli(['consume', '--topic', topic]);
    expect(consumed.stdout).toBe(
      `${topic}-0@0 failed order-events-3@1041..1042 RetryAttemptsExhausted after 11 invocation(s) (Unhandled)\n`,
    );
  });

  it('keeps dev busy with a generated stream at --rate, and dev processes every record', async () => {
    const topic = uniqueName('rate');
    await createTopic(kafka, topic, 2);
    const group = uniqueName('rate-dev');
    const dev = spawn(
      process.execPath,
      [
        fileURLToPath(new URL('../../../bin/kafka-lambda.js', import.meta.url)),
        'dev',
        'test/support/handlers/handlers.ts',
        '--topic',
        topic,
        '--group',
        group,
        '--brokers',
        brokers(),
        '--report-batch-item-failures',
        '--window',
        '0',
        '--starting-position',
        'TRIM_HORIZON',
      ],
      { cwd: fileURLToPath(new URL('../../../', import.meta.url)), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let devErr = '';
    dev.stderr.on('data', (c: Buffer) => {
      devErr += c.toString();
    });
    const exited = new Promise<number | null>((resolve) => dev.on('exit', resolve));
    try {
      const produced = await cli([
        'produce',
        '--topic',
        topic,
        '--rate',
        '40',
        '--count',
        '120',
        '--value',
        '{"id":"o-{i}"}',
      ]);
      expect(produced.code).toBe(0);
      // Paced: many small batches rather than one (at 40 records/s the run takes about 3 s).
      const batches = Number(/in (\d+) batch/.exec(produced.stdout)?.[1]);
      expect(batches).toBeGreaterThan(10);
      const committed = async () =>
        (await committedOffsetsByKafkaTool(group)).reduce((sum, row) => sum + (row.currentOffset ?? 0), 0);
      for (let i = 0; i < 120 && (await committed()) < 120; i++) await sleep(500);
      expect(await committed()).toBe(120);
    } finally {
      dev.kill('SIGINT');
      await exited;
    }
    expect(devErr).toMatch(new RegExp(`offsets committed by this run: ${topic}-0=\\d+ ${topic}-1=\\d+`));
    const [, first, second] = new RegExp(
      `offsets committed by this run: ${topic}-0=(\\d+) ${topic}-1=(\\d+)`,
    ).exec(devErr)!;
    expect(Number(first) + Number(second)).toBe(120);
  });
});

describe('kafka-lambda produce --tombstone → consume', () => {
  it('sends tombstones, which consume tells from the text null and from an empty value', async () => {
    const topic = uniqueName('tombstones');
    const produce = (args: string[]) => cli(['produce', '--topic', topic, '--partitions', '1', ...args]);
    expect((await produce(['--key', 'k1', '--value', 'null'])).code).toBe(0);
    const tombstones = await produce([
      '--tombstone',
      '--key',
      'k{i}',
      '--count',
      '2',
      '--header',
      'op=delete',
      '--json',
    ]);
    expect(tombstones.code).toBe(0);
    expect(JSON.parse(tombstones.stdout)).toEqual({
      ok: true,
      topic,
      created: false,
      records: 2,
      batches: [{ partition: 0, firstOffset: 1, lastOffset: 2, records: 2 }],
      partitions: [{ partition: 0, firstOffset: 1, lastOffset: 2, records: 2 }],
    });
    expect((await produce(['--key', 'k3', '--value', ''])).code).toBe(0);

    const messages = await readAll(topic, 5);
    expect(
      messages.map((m) => [m.key?.toString(), m.value === null ? null : m.value.toString('hex')]),
    ).toEqual([
      ['k1', Buffer.from('null').toString('hex')],
      ['k0', null],
      ['k1', null],
      ['k3', ''],
    ]);
    const consumed = await cli(['consume', '--topic', topic]);
    expect(consumed.stdout).toBe(
      [
        `${topic}-0@0 key=k1 null`,
        `${topic}-0@1 key=k0 [op=delete] (tombstone)`,
        `${topic}-0@2 key=k1 [op=delete] (tombstone)`,
        `${topic}-0@3 key=k3 (empty)`,
        '',
      ].join('\n'),
    );
    const json = (await cli(['consume', '--topic', topic, '--json'])).stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as ConsumedRecord);
    expect(json.map((r) => [r.value, r.valueFormat])).toEqual([
      [null, 'json'],
      [null, 'null'],
      [null, 'null'],
      ['', 'text'],
    ]);
  });
});

describe('kafka-lambda produce / consume errors', () => {
  it.each([['produce'], ['consume']])(
    '%s fails on connect when --brokers is not Kafka (exit 1)',
    async (command) => {
      const server = createServer((_, response) => response.end('not kafka'));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as { port: number };
      try {
        const run = await runCli(
          [command, '--topic', 't', '--count', '1', '--brokers', `127.0.0.1:${port}`].filter(
            (arg) => command === 'produce' || (arg !== '--count' && arg !== '1'),
          ),
        );
        expect(run.code).toBe(1);
        expect(run.stderr).toBe(
          `kafka-lambda ${command}: 127.0.0.1:${port}: answered with something that is not Kafka protocol: not a Kafka broker\n`,
        );
      } finally {
        server.close();
      }
    },
  );

  it('say how to get a broker when none is given or running (exit 1)', async () => {
    const cache = await mkdtemp(join(tmpdir(), 'kafka-lambda-cache-'));
    try {
      for (const command of ['produce', 'consume']) {
        const run = await runCli([command, '--topic', 't'], {
          env: { KAFKA_LAMBDA_CACHE: cache, KAFKA_BROKERS: '' },
        });
        expect(run.code).toBe(1);
        expect(run.stderr).toMatch(new RegExp(`^kafka-lambda ${command}: no broker: start one with`));
      }
    } finally {
      await rm(cache, { recursive: true, force: true });
    }
  });

  it.each([
    [['consume', '--topic', 'x', '--offset', '3'], /--offset needs --partition/],
    [['consume', '--topic', 'x', '--group', 'g', '--partition', '0'], /cannot be used with/],
    [['consume', '--topic', 'no-such-topic-h4'], /topic no-such-topic-h4 does not exist/],
    [['produce', '--topic', 'x', '--file', '-', '--count', '2'], /cannot be used with/],
    [['produce', '--topic', 'x', '--file', 'no-such-file.jsonl'], /--file.*cannot read it: ENOENT/],
    [['produce', '--topic', 'x', '--key', 'k', '--key-field', 'id'], /cannot be used with/],
    [['produce', '--topic', 'x', '--rate', '0'], /--rate.*must be a number > 0/],
    // Refused before the topic is created or anything is sent.
    [['produce', '--topic', '', '--count', '1'], /argument '' is invalid\. not a Kafka topic name/],
    [
      ['produce', '--topic', 'ördérs', '--count', '1'],
      /argument 'ördérs' is invalid\. not a Kafka topic name/,
    ],
    [
      ['produce', '--topic', 'x', '--file', '.'],
      /--file <path>' argument '\.' is invalid\. a folder, not a file/,
    ],
    [['produce', '--topic', 'x', '--count', '1', '--value', '{i%0}'], /\{i%N\} needs a whole number N ≥ 1/],
    [['consume', '--topic', 'x', '--group', ''], /--group <id>' argument '' is invalid\. must not be empty/],
  ])('%j is a usage error (exit 2)', async (args, message) => {
    const run = await cli(args);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
  });

  it('checks --partition against the partitions it would create, before creating the topic (exit 2)', async () => {
    const topic = uniqueName('no-partition');
    const missing = await cli(['produce', '--topic', topic, '--partition', '5', '--value', 'x']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(
      `kafka-lambda produce: --partition 5: topic ${topic} does not exist, and produce would create it with 3 partition(s) (--partitions), 0 to 2: give --partitions 6 or more; nothing was created\n`,
    );
    expect(await topicExists(topic)).toBe(false);
    // An existing topic's own partitions; with --json, stdout still holds its one object.
    await createTopic(kafka, topic, 2);
    const existing = await cli(['produce', '--topic', topic, '--partition', '9', '--value', 'x', '--json']);
    expect(existing.code).toBe(2);
    expect(JSON.parse(existing.stdout)).toEqual({
      ok: false,
      error: { message: `--partition 9: ${topic} has partitions 0 to 1` },
      topic,
      created: false,
      records: 0,
      batches: [],
      partitions: [],
    });
  });

  it('refuses input without a record before creating the topic (exit 2)', async () => {
    for (const input of ['', '\n \r\n']) {
      const topic = uniqueName('empty-input');
      const run = await cli(['produce', '--topic', topic], input);
      expect(run.code).toBe(2);
      expect(run.stderr).toBe(
        'kafka-lambda produce: no records on stdin (blank lines are skipped): nothing was sent\n',
      );
      expect(run.stdout).toBe('');
      expect(await topicExists(topic)).toBe(false);
    }
    const topic = uniqueName('empty-file');
    const file = join(dir, 'empty.jsonl');
    await writeFile(file, '');
    const fromFile = await cli(['produce', '--topic', topic, '--file', file, '--json']);
    expect(fromFile.code).toBe(2);
    expect(JSON.parse(fromFile.stdout)).toMatchObject({
      ok: false,
      error: { message: `no records in ${file} (blank lines are skipped): nothing was sent` },
      created: false,
      records: 0,
    });
    expect(await topicExists(topic)).toBe(false);
  });

  it('numbers generated records from 1, as it numbers input lines; a first record it cannot key creates no topic', async () => {
    const topic = uniqueName('record-numbers');
    const run = await cli([
      'produce',
      '--topic',
      topic,
      '--partitions',
      '1',
      '--count',
      '3',
      '--value',
      '{i}',
      '--key-field',
      'id',
      '--json',
    ]);
    expect(run.code).toBe(2);
    const message =
      'record 1: not a JSON object, so it has no "id" field for the key (--key-field); nothing was sent';
    expect(run.stderr).toBe(`kafka-lambda produce: ${message}\n`);
    expect(JSON.parse(run.stdout)).toEqual({
      ok: false,
      error: { message },
      topic,
      created: false,
      records: 0,
      batches: [],
      partitions: [],
    });
    expect(await topicExists(topic)).toBe(false);
    // The same for a first input line.
    const fromStdin = await cli(
      ['produce', '--topic', topic, '--key-field', 'id'],
      '\n{"no_id":1}\n{"id":"a"}\n',
    );
    expect(fromStdin.code).toBe(2);
    expect(fromStdin.stderr).toBe(
      'kafka-lambda produce: line 2: no "id" field for the key (--key-field); nothing was sent\n',
    );
    expect(await topicExists(topic)).toBe(false);
  });

  it('refuses a first record above the max.message.bytes a missing topic would get, before creating it (exit 2)', async () => {
    const topic = uniqueName('too-large-first');
    const file = join(dir, 'large.bin');
    await writeFile(file, Buffer.alloc(1_100_000, 0x61));
    const run = await cli(['produce', '--topic', topic, '--value-file', file, '--count', '2']);
    expect(run.code).toBe(2);
    // The test broker keeps Kafka's default message.max.bytes.
    expect(run.stderr).toBe(
      `kafka-lambda produce: record 1: 1,100,000 bytes of key, value and headers, above what the brokers' message.max.bytes (1,048,588), which ${topic} would be created with, lets through with Kafka's framing; nothing was created\n`,
    );
    expect(await topicExists(topic)).toBe(false);
  });

  it('stops at a line it cannot key, after sending the lines before it (exit 2)', async () => {
    const topic = uniqueName('bad-line');
    const run = await cli(
      ['produce', '--topic', topic, '--partitions', '1', '--key-field', 'id'],
      '{"id":"a"}\n{"id":"b"}\nnot json\n{"id":"c"}\n',
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      'kafka-lambda produce: line 3: not JSON, so it has no "id" field for the key (--key-field); 2 record(s) before it were sent\n',
    );
    expect((await cli(['consume', '--topic', topic])).stdout).toBe(
      `${topic}-0@0 key=a {"id":"a"}\n${topic}-0@1 key=b {"id":"b"}\n`,
    );
  });

  it('stops at a line that is not UTF-8 rather than changing its bytes, after sending the lines before it (exit 2)', async () => {
    const topic = uniqueName('not-utf8');
    const file = join(dir, 'not-utf8.jsonl');
    await writeFile(file, Buffer.concat([Buffer.from('{"id":"a"}\n'), Buffer.of(0xff, 0xfe, 0x0a)]));
    const run = await cli(['produce', '--topic', topic, '--partitions', '1', '--file', file]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      'kafka-lambda produce: line 2: not UTF-8 text (produce sends lines of text; a binary value: --value-file); 1 record(s) before it were sent\n',
    );
    expect((await cli(['consume', '--topic', topic])).stdout).toBe(`${topic}-0@0 {"id":"a"}\n`);
  });

  it("sends records in batches the topic's max.message.bytes takes, and names a record above it (exit 2)", async () => {
    const topic = uniqueName('max-message');
    const admin = kafka.admin();
    await admin.connect();
    try {
      await admin.createTopics({
        topics: [{ topic, numPartitions: 1, configEntries: [{ name: 'max.message.bytes', value: '2000' }] }],
        waitForLeaders: true,
      });
    } finally {
      await admin.disconnect();
    }
    const line = (i: number) => JSON.stringify({ i, pad: 'x'.repeat(500) });
    const lines = [0, 1, 2, 3, 4, 5].map(line);
    const run = await cli(
      ['produce', '--topic', topic, '--json'],
      `${lines.join('\n')}\n${JSON.stringify({ pad: 'y'.repeat(2000) })}\n`,
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      "kafka-lambda produce: line 7: 2,010 bytes of key, value and headers, above what the topic's max.message.bytes (2,000) lets through with Kafka's framing; 6 record(s) before it were sent\n",
    );
    // Six 510-byte records do not fit in one 2,000-byte record batch: several requests, each taken.
    const summary = JSON.parse(run.stdout) as ProduceSummary;
    expect(summary.ok).toBe(false);
    expect(summary.error?.message).toMatch(/^line 7: 2,010 bytes .*; 6 record\(s\) before it were sent$/);
    expect(summary.records).toBe(6);
    expect(summary.batches.length).toBeGreaterThan(1);
    expect((await cli(['consume', '--topic', topic])).stdout).toBe(
      lines.map((value, offset) => `${topic}-0@${offset} ${value}\n`).join(''),
    );
  });
});
