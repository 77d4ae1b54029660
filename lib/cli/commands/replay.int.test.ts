// `kafka-lambda replay`, spawned for real: against the test broker directly, and through a local
// HTTP server speaking the Lambda Invoke API that runs the real replay function.
import { once } from 'node:events';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetEventSourceMappingCommand, UpdateEventSourceMappingCommand } from '@aws-sdk/client-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReplayHandler } from '../../../functions/replay/handler.ts';
import { modelEventSourceMapping } from '../../../test/support/esm-model.ts';
import {
  committedOffsetsByKafkaTool,
  testBrokers,
  testKafka,
  uniqueName,
} from '../../../test/support/kafka.ts';
import { runCli, spawnCli } from '../../../test/support/run-cli.ts';
import { seedTopic } from '../../../test/support/seed-topic.ts';
import { runKafkaTool } from '../../broker/broker.ts';
import { describeGroup } from '../../replay/group.ts';
import { connectReplayKafka, type ReplayKafka, type ReplayOutcome } from '../../replay/index.ts';
import { pollUntil } from '../../replay/wait.ts';
import { findControlCharacter } from '../../text/control-characters.ts';

const topic = uniqueName('orders');
let kafka: ReplayKafka;

beforeAll(async () => {
  await seedTopic(testKafka(), { topic, partitions: 3, records: 10 });
  kafka = await connectReplayKafka({ brokers: testBrokers() });
});
afterAll(async () => {
  await kafka?.disconnect();
});

const run = (args: string[], env: Record<string, string> = {}) => runCli(['replay', ...args], { env });

/** `replay --brokers <test broker> --group <groupId> --topic <topicArg> …rest`. */
const runOnGroup = (groupId: string, topicArg: string, ...rest: string[]) =>
  run(['--brokers', testBrokers().join(','), '--group', groupId, '--topic', topicArg, ...rest]);

async function commit(groupId: string, offsets: number[]): Promise<void> {
  await kafka.commitOffsets({
    groupId,
    topic,
    offsets: offsets.map((offset, partition) => ({ partition, offset, metadata: '' })),
  });
}

async function group(offsets = [7, 8, 9]): Promise<string> {
  const groupId = uniqueName('cli-group');
  await commit(groupId, offsets);
  return groupId;
}

const current = async (groupId: string) =>
  (await committedOffsetsByKafkaTool(groupId)).map((r) => r.currentOffset);

/** Starts `server` on a free local port; returns its URL. */
async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Environment pointing the spawned CLI's Lambda client at a local endpoint. */
const lambdaEnv = (endpoint: string) => ({
  AWS_ENDPOINT_URL_LAMBDA: endpoint,
  AWS_REGION: 'eu-west-1',
  AWS_ACCESS_KEY_ID: 'test',
  AWS_SECRET_ACCESS_KEY: 'test',
});

describe('kafka-lambda replay --brokers', () => {
  it('prints a plan and changes nothing by default', async () => {
    const G = await group();
    const result = await runOnGroup(G, topic, '--to-earliest');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      `Plan for group ${G} on ${topic} (dry run: nothing changed; add --execute to apply):`,
    );
    expect(result.stdout).toMatch(/│ 0\s+│ 7\s+│ 0\s+│ 10\s+│ 0\s+│ 7\s+│ 0\s+│/);
    expect(result.stdout).toContain('24 record(s) would be delivered again, 0 skipped.');
    expect(await current(G)).toEqual([7, 8, 9]);
  });

  it('with --execute moves the offsets, Kafka’s own tool agrees, and the next plan shows the audit trail', async () => {
    const G = await group();
    const result = await runOnGroup(G, topic, '--to-earliest', '--execute', '--reason', 'INC-3');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Replayed group ${G} on ${topic}: 3 of 3 partition(s) moved.`);
    expect(result.stderr).toContain('[replay] commit-offsets: committing 3 offset(s) in one request');
    expect(await current(G)).toEqual([0, 0, 0]);

    const again = await runOnGroup(G, `${topic}:1`, '--to-latest');
    expect(again.stdout).toMatch(/last replay \S+ from 8: INC-3/);
  });

  it('refuses a --reason with control characters (exit 2); shows metadata written by anyone escaped', async () => {
    const G = await group();
    const refused = await runOnGroup(
      G,
      topic,
      '--to-earliest',
      '--execute',
      '--reason',
      'a\u001b[31mRED\u001b[0m\nline2\rX',
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      '--reason: must not contain control characters (found U+001B at character 2)',
    );
    expect(await current(G)).toEqual([7, 8, 9]);

    // Anyone who may commit to the group can write metadata in the audit record's shape.
    const forged = JSON.stringify({
      'kafka-lambda-replay': { at: '2026-11-29T09:00:00Z', previous: 3, reason: 'a\u001b[31mRED\nline2\rX' },
    });
    await kafka.commitOffsets({
      groupId: G,
      topic,
      offsets: [{ partition: 0, offset: 7, metadata: forged }],
    });
    const plan = await runOnGroup(G, `${topic}:0`, '--to-earliest');
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain(
      'last replay 2026-11-29T09:00:00Z from 3: a\\u001b[31mRED\\u000aline2\\u000dX',
    );
    expect(plan.stdout.split('\n').flatMap((line) => findControlCharacter(line) ?? [])).toEqual([]);
    const json = await runOnGroup(G, `${topic}:0`, '--to-earliest', '--json');
    expect(
      (JSON.parse(json.stdout) as { plan: { partitions: { committedMetadata: string }[] } }).plan
        .partitions[0]?.committedMetadata,
    ).toBe(forged);

    const utf8 = 'INC-7: réplique 👩‍🔧 再配信';
    const done = await runOnGroup(G, `${topic}:0`, '--to-earliest', '--execute', '--reason', utf8);
    expect(done.code).toBe(0);
    expect((await runOnGroup(G, `${topic}:0`, '--to-latest')).stdout).toContain(`from 7: ${utf8}`);
  });

  it('a dry run on a group with members says that --execute will be refused', async () => {
    const G = await group();
    const member = testKafka().consumer({ groupId: G, sessionTimeout: 6_000, heartbeatInterval: 500 });
    await member.connect();
    try {
      await member.subscribe({ topic });
      await member.run({ autoCommit: false, eachMessage: async () => {} });
      await pollUntil('group Stable', { timeoutMs: 60_000, intervalMs: 200 }, async () => {
        const seen = (await describeGroup(kafka.admin, G)).state;
        return { done: seen === 'Stable', seen };
      });
      const result = await runOnGroup(G, topic, '--to-earliest');
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(
        `Group ${G} is Stable with 1 member(s): --execute will be refused while it has members`,
      );
      const refused = await runOnGroup(G, topic, '--to-earliest', '--execute');
      expect(refused.code).toBe(3);
      expect(await current(G)).toEqual([7, 8, 9]);
    } finally {
      await member.disconnect();
    }
  });

  it('--json prints the outcome for scripts', async () => {
    const G = await group();
    const result = await runOnGroup(G, `${topic}:0,2`, '--shift-by', '-2', '--json');
    expect(result.code).toBe(0);
    const outcome = JSON.parse(result.stdout) as ReplayOutcome;
    if (!outcome.ok) throw new Error(result.stdout);
    expect(outcome.executed).toBe(false);
    expect(outcome.plan.partitions.map((p) => [p.partition, p.target])).toEqual([
      [0, 5],
      [2, 7],
    ]);
  });

  it('--to-current plans each partition at its committed offset', async () => {
    const G = await group([7, 8, 9]);
    const result = await runOnGroup(G, `${topic}:0,2`, '--to-current', '--json');
    expect(result.code).toBe(0);
    const outcome = JSON.parse(result.stdout) as ReplayOutcome;
    if (!outcome.ok) throw new Error(result.stdout);
    expect(outcome.plan.partitions.map((p) => [p.partition, p.target, p.redeliver, p.skip])).toEqual([
      [0, 7, 0, 0],
      [2, 9, 0, 0],
    ]);
  });

  it('partitions without a committed offset: ? in the table and null in --json, and the totals say how many', async () => {
    const G = uniqueName('cli-no-commit');
    await kafka.commitOffsets({ groupId: G, topic, offsets: [{ partition: 0, offset: 7, metadata: '' }] });
    const table = await runOnGroup(G, topic, '--to-current');
    expect(table.code).toBe(0);
    const row = (partition: string) =>
      table.stdout
        .split('\n')
        .map((line) =>
          line
            .split('│')
            .map((cell) => cell.trim())
            .filter(Boolean),
        )
        .find((cells) => cells[0] === partition)
        ?.slice(0, 7);
    expect(row('1')).toEqual(['1', '-', '0', '10', '10', '?', '?']);
    expect(table.stdout).toContain(
      '0 record(s) would be delivered again, 0 skipped on the partitions with a committed offset; unknown (?) on 2 partition(s) without one',
    );
    const json = await runOnGroup(G, topic, '--to-current', '--json');
    const outcome = JSON.parse(json.stdout) as ReplayOutcome;
    if (!outcome.ok) throw new Error(json.stdout);
    expect(outcome.plan.partitions.map((p) => [p.partition, p.redeliver, p.skip])).toEqual([
      [0, 0, 0],
      [1, null, null],
      [2, null, null],
    ]);
    expect(outcome.plan.totals).toEqual({ partitions: 3, changed: 2, redeliver: 0, skip: 0, unknown: 2 });
  });

  it('--topic given twice adds up its partitions, as kafka-consumer-groups takes it', async () => {
    const G = await group();
    const exported = await runOnGroup(G, `${topic}:0`, '--topic', `${topic}:2`, '--to-earliest', '--export');
    expect(exported.code).toBe(0);
    expect(exported.stdout).toBe(`${topic},0,0\n${topic},2,0\n`);
  });

  it('--export writes a plan file that --from-file applies', async () => {
    const G = await group();
    const exported = await runOnGroup(G, `${topic}:0,2`, '--shift-by', '-3', '--export');
    expect(exported.code).toBe(0);
    expect(exported.stdout).toBe(`${topic},0,4\n${topic},2,6\n`);
    expect(exported.stderr).toBe('');
    // A note the table would show goes to stderr, never into the plan file.
    const clamped = await runOnGroup(G, `${topic}:0`, '--shift-by', '-100', '--export');
    expect(clamped.stdout).toBe(`${topic},0,0\n`);
    expect(clamped.stderr).toMatch(
      /^\[replay\] note: partition 0: -93 is before the first retained record; clamped to 0\n$/,
    );
    const planFile = join(await mkdtemp(join(tmpdir(), 'replay-')), 'plan.csv');
    await writeFile(planFile, exported.stdout);
    const applied = await runOnGroup(G, topic, '--from-file', planFile, '--execute');
    expect(applied.code).toBe(0);
    expect(await current(G)).toEqual([4, 8, 6]);
  });

  it('plan files go both ways with kafka-consumer-groups: the same --export text, each applies the other’s', async () => {
    const G = await group();
    const kafkaTool = (...args: string[]) =>
      runKafkaTool('org.apache.kafka.tools.consumer.group.ConsumerGroupCommand', [
        '--bootstrap-server',
        testBrokers().join(','),
        '--group',
        G,
        '--reset-offsets',
        ...args,
      ]);
    const ours = await runOnGroup(G, `${topic}:0,2`, '--shift-by', '-3', '--export');
    const theirs = await kafkaTool('--topic', `${topic}:0,2`, '--shift-by', '-3', '--dry-run', '--export');
    expect(theirs.code).toBe(0);
    // The same lines; Kafka's tool writes them in its map's order, this one by partition.
    const lines = (text: string) => text.trim().split('\n').toSorted();
    expect(lines(ours.stdout)).toEqual(lines(theirs.stdout));
    expect(lines(ours.stdout)).toEqual([`${topic},0,4`, `${topic},2,6`]);

    const folder = await mkdtemp(join(tmpdir(), 'replay-'));
    await writeFile(join(folder, 'ours.csv'), ours.stdout);
    expect(await kafkaTool('--from-file', join(folder, 'ours.csv'), '--execute')).toMatchObject({ code: 0 });
    expect(await current(G)).toEqual([4, 8, 6]);

    const earliest = await kafkaTool('--topic', topic, '--to-earliest', '--dry-run', '--export');
    await writeFile(join(folder, 'theirs.csv'), earliest.stdout);
    expect(await runOnGroup(G, topic, '--from-file', join(folder, 'theirs.csv'), '--execute')).toMatchObject({
      code: 0,
    });
    expect(await current(G)).toEqual([0, 0, 0]);
  });

  it('exit codes: 2 for an invalid request, 3 for a refusal', async () => {
    const G = await group();
    const twoTargets = await runOnGroup(G, topic, '--to-earliest', '--to-latest');
    expect(twoTargets.code).toBe(2);
    expect(twoTargets.stderr).toContain('give exactly one of --to-offset, --to-datetime');
    const badTime = await runOnGroup(G, topic, '--to-datetime', '2026-11-29 10:00');
    expect(badTime.code).toBe(2);
    expect(badTime.stderr).toContain('  - --to-datetime: timestamp "2026-11-29 10:00" is not ISO 8601');
    for (const [flag, value, problem] of [
      ['--to-datetime', '2026-02-30T00:00:00Z', '2026-02 has no day 30'],
      ['--to-datetime', '2026-04-31T00:00:00Z', '2026-04 has no day 31'],
      ['--to-datetime', '2026-11-29T24:00Z', 'hour 24 is not 00..23'],
      ['--by-duration', 'PT1H30', 'is not ISO 8601'],
    ]) {
      const refused = await runOnGroup(G, topic, flag!, value!);
      expect(refused.code, value).toBe(2);
      expect(refused.stderr).toContain(`  - ${flag}: `);
      expect(refused.stderr).toContain(problem);
    }
    // Text the user gave is quoted as given: "topic" is not the --topic flag there.
    const wordLike = await runOnGroup(G, topic, '--by-duration', 'topic');
    expect(wordLike.stderr).toContain('  - --by-duration: duration "topic" is not ISO 8601');
    // Decimal digits only, as Kafka's tool reads them; and a number past 2^53 - 1 is named as such.
    for (const [value, problem] of [
      ['0x10', 'must be an integer ≥ 0'],
      ['1e1', 'must be an integer ≥ 0'],
      ['9007199254740993', '2^53 − 1'],
    ]) {
      const refused = await runOnGroup(G, topic, '--to-offset', value!);
      expect(refused.code, value).toBe(2);
      expect(refused.stderr, value).toContain(problem);
    }
    const badOffset = await runOnGroup(G, topic, '--to-offset', '-1');
    expect(badOffset.code).toBe(2);
    expect(badOffset.stderr).toContain("option '--to-offset <n>' argument '-1' is invalid");
    const unknown = await runOnGroup(G, `${topic}:9`, '--to-earliest');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('has no partition 9');
    const strict = await runOnGroup(G, topic, '--to-offset', '99', '--strict', '--execute');
    expect(strict.code).toBe(3);
    expect(strict.stderr).toContain('strict: not clamped');
    const flags = await run(['--brokers', testBrokers().join(','), '--dry-run', '--execute', '--to-latest']);
    expect(flags.code).toBe(2);
    expect(await current(G)).toEqual([7, 8, 9]);
  });
});

describe('kafka-lambda replay: what is missing, said at once', () => {
  // Loose bounds: kafkajs' retries and the AWS SDK's took 10 to 40 s to end in a withheld message.
  const promptly = 30_000;
  const noAws = {
    AWS_REGION: '',
    AWS_DEFAULT_REGION: '',
    AWS_PROFILE: '',
    AWS_CONFIG_FILE: join(tmpdir(), 'kafka-lambda-no-aws-config'),
    AWS_SHARED_CREDENTIALS_FILE: join(tmpdir(), 'kafka-lambda-no-aws-credentials'),
    AWS_ACCESS_KEY_ID: '',
    AWS_SECRET_ACCESS_KEY: '',
    AWS_SESSION_TOKEN: '',
    AWS_WEB_IDENTITY_TOKEN_FILE: '',
    AWS_CONTAINER_CREDENTIALS_FULL_URI: '',
    AWS_CONTAINER_CREDENTIALS_RELATIVE_URI: '',
    AWS_EC2_METADATA_DISABLED: 'true',
  };

  it('a plan file too large to be a plan is refused unread', async () => {
    const planFile = join(await mkdtemp(join(tmpdir(), 'replay-')), 'huge.csv');
    await writeFile(planFile, Buffer.alloc(17 * 1024 * 1024, 'a'));
    const result = await run(['--brokers', '127.0.0.1:1', '--group', 'g', '--from-file', planFile]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('is 17825792 bytes, more than a plan can hold');
  });

  it('a former --auth spelling, naming the new one; flags --auth cannot use', async () => {
    const target = ['--brokers', '127.0.0.1:1', '--group', 'g', '--topic', 't', '--to-latest'];
    const former = await run([...target, '--auth', 'msk-iam']);
    expect(former.code).toBe(2);
    expect(former.stderr).toContain('--auth msk-iam: now spelled "iam"');
    const noRegion = await run([...target, '--auth', 'iam'], noAws);
    expect(noRegion.code).toBe(2);
    expect(noRegion.stderr).toContain('--auth iam needs --region or AWS_REGION');
    const certWithoutMtls = await run([
      ...target,
      '--auth',
      'tls',
      '--cert-file',
      'c.pem',
      '--key-file',
      'k.pem',
    ]);
    expect(certWithoutMtls.code).toBe(2);
    expect(certWithoutMtls.stderr).toContain('give --auth mtls (not tls)');
  });

  it('a broker address with nothing listening', async () => {
    const result = await run(['--brokers', '127.0.0.1:1', '--group', 'g', '--topic', 't', '--to-latest']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('cannot reach Kafka at 127.0.0.1:1 (ECONNREFUSED)');
    expect(result.ms).toBeLessThan(promptly);
  });

  it('a server that is not a Kafka broker', async () => {
    const http = createServer((_, res) => res.end('not Kafka'));
    const url = await listen(http);
    try {
      const address = url.replace('http://', '');
      const result = await run(['--brokers', address, '--group', 'g', '--topic', 't', '--to-latest']);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`Kafka at ${address} did not answer as a Kafka broker`);
      expect(result.stderr).not.toContain('withheld');
      expect(result.ms).toBeLessThan(promptly);
    } finally {
      await new Promise((resolve) => http.close(resolve));
    }
  });

  it('--function without a region, or without credentials', async () => {
    const noRegion = await run(['--function', 'replay-fn', '--to-latest'], noAws);
    expect(noRegion.code).toBe(2);
    expect(noRegion.stderr).toContain('--function calls the Lambda API and needs an AWS region');
    const noCredentials = await run(['--function', 'replay-fn', '--to-latest'], {
      ...noAws,
      AWS_REGION: 'eu-west-1',
    });
    expect(noCredentials.code).toBe(1);
    expect(noCredentials.stderr).toContain('--function calls the Lambda API and found no AWS credentials');
    expect(noCredentials.ms).toBeLessThan(promptly);
  });
});

describe('kafka-lambda replay --function', () => {
  let server: Server;
  let endpoint: string;
  const G = uniqueName('cli-fn-group');
  const model = modelEventSourceMapping({ uuid: 'esm-cli', topic, groupId: G, transitionPolls: 1 });
  const handle = createReplayHandler({
    config: {
      mappings: ['esm-cli'],
      groups: [],
      topics: [topic],
      timeouts: { pollIntervalMs: 10 },
      connection: async () => ({ brokers: testBrokers() }),
    },
    lambda: model.lambda,
    log: () => {},
  });
  const invocations: { path: string; body: unknown }[] = [];
  let configurationDenied = false;

  beforeAll(async () => {
    // The Lambda Invoke API: POST /2015-03-31/functions/{name}/invocations, the payload in and out.
    server = createServer(async (req, res) => {
      let body = '';
      for await (const chunk of req) body += chunk;
      // GetFunctionConfiguration: the function's environment names its default mapping.
      if (req.method === 'GET' && req.url?.startsWith('/2015-03-31/functions/replay-fn/configuration')) {
        if (configurationDenied) {
          res.writeHead(403, {
            'content-type': 'application/json',
            'x-amzn-errortype': 'AccessDeniedException',
          });
          res.end(JSON.stringify({ Message: 'not authorized to perform: lambda:GetFunctionConfiguration' }));
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            FunctionName: 'replay-fn',
            Environment: { Variables: { REPLAY_MAPPING_UUID: 'esm-cli,esm-other', KAFKA_AUTH: 'none' } },
          }),
        );
        return;
      }
      const event = JSON.parse(body) as unknown;
      invocations.push({ path: req.url ?? '', body: event });
      if (!req.url?.startsWith('/2015-03-31/functions/replay-fn/invocations')) {
        res.writeHead(404, {
          'content-type': 'application/json',
          'x-amzn-errortype': 'ResourceNotFoundException',
        });
        res.end(JSON.stringify({ Type: 'User', message: 'Function not found' }));
        return;
      }
      if ((event as { reason?: string }).reason === 'drop') {
        // The connection lost while the function runs: the answer never arrives.
        req.socket.destroy();
        return;
      }
      if ((event as { reason?: string }).reason === 'crash') {
        res.writeHead(200, { 'content-type': 'application/json', 'x-amz-function-error': 'Unhandled' });
        res.end(
          JSON.stringify({ errorType: 'Runtime.ExitError', errorMessage: 'RequestId: 1 Error: exited' }),
        );
        return;
      }
      const result = await handle(event, { getRemainingTimeInMillis: () => 600_000 });
      res.writeHead(200, { 'content-type': 'application/json', 'x-amz-executed-version': '$LATEST' });
      res.end(JSON.stringify(result));
    });
    endpoint = await listen(server);
    await commit(G, [7, 8, 9]);
  });
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
  });

  const env = () => lambdaEnv(endpoint);

  it('sends the flags as the request and prints the function’s plan as a table', async () => {
    const result = await run(['--function', 'replay-fn', '--topic', `${topic}:1`, '--to-offset', '3'], env());
    expect(result.code).toBe(0);
    expect(invocations.at(-1)).toEqual({
      path: '/2015-03-31/functions/replay-fn/invocations',
      body: { topic, partitions: [1], toOffset: 3, execute: false, strict: false },
    });
    expect(result.stdout).toContain(`Plan for group ${G} on ${topic} (mapping esm-cli, Enabled)`);
    expect(result.stdout).toMatch(/│ 1\s+│ 8\s+│ 0\s+│ 10\s+│ 3\s+│ 5\s+│ 0\s+│/);
    expect(await current(G)).toEqual([7, 8, 9]);
  });

  it('--execute applies it through the mapping', async () => {
    const result = await run(
      ['--function', 'replay-fn', '--to-offset', '3', '--execute', '--reason', 'INC-4'],
      env(),
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('3 of 3 partition(s) moved');
    expect(model.state()).toBe('Enabled');
    expect(model.updates).toEqual([false, true]);
    expect(await current(G)).toEqual([3, 3, 3]);
  });

  it('passes the function’s refusals and crashes on as exit codes', async () => {
    const refused = await run(
      ['--function', 'replay-fn', '--group', 'payments', '--topic', topic, '--to-latest', '--execute'],
      env(),
    );
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('consumer group "payments" is not allowed here');
    const crashed = await run(['--function', 'replay-fn', '--to-latest', '--reason', 'crash'], env());
    expect(crashed.code).toBe(1);
    expect(crashed.stderr).toContain('replay-fn failed: RequestId: 1 Error: exited');
    const missing = await run(['--function', 'nope', '--to-latest'], env());
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('Function not found');
  });

  it('an executing replay that ends without an answer is exit 5, naming what to check and how to resume', async () => {
    const crashed = await run(
      ['--function', 'replay-fn', '--esm', 'esm-cli', '--to-latest', '--execute', '--reason', 'crash'],
      env(),
    );
    expect(crashed.code).toBe(5);
    expect(crashed.stderr).toContain(
      'replay-fn failed without answering (Runtime.ExitError: RequestId: 1 Error: exited)',
    );
    expect(crashed.stderr).toContain('aws lambda update-event-source-mapping --uuid esm-cli --enabled');
    expect(crashed.stderr).toContain('kafka-lambda replay --function replay-fn --to-current');
    // A lost connection is not sent again: a second run of a relative replay would move the offsets twice.
    const before = invocations.length;
    const dropped = await run(
      ['--function', 'replay-fn', '--shift-by', '-1', '--execute', '--reason', 'drop'],
      env(),
    );
    expect(invocations.length - before).toBe(1);
    expect(dropped.code).toBe(5);
    expect(dropped.stderr).toContain('replay-fn gave no answer (unexpected ');
    // The function's default mapping, the first of its REPLAY_MAPPING_UUID (GetFunctionConfiguration).
    expect(dropped.stderr).toContain(
      'the mapping: aws lambda get-event-source-mapping --uuid esm-cli (resume it if Disabled: aws lambda update-event-source-mapping --uuid esm-cli --enabled)\n',
    );
    // Without permission to read it, the placeholder stays, saying where the UUID is.
    configurationDenied = true;
    try {
      const denied = await run(
        ['--function', 'replay-fn', '--shift-by', '-1', '--execute', '--reason', 'drop'],
        env(),
      );
      expect(denied.code).toBe(5);
      expect(denied.stderr).toContain(
        "--uuid <mapping uuid> --enabled); replay-fn's default mapping is the first of its REPLAY_MAPPING_UUID (lambda:GetFunctionConfiguration would have named it)",
      );
    } finally {
      configurationDenied = false;
    }
    // A group without a mapping: no trigger was paused; only the offsets are to check.
    const groupOnly = await run(
      [
        '--function',
        'replay-fn',
        '--group',
        G,
        '--topic',
        topic,
        '--to-latest',
        '--execute',
        '--reason',
        'drop',
      ],
      env(),
    );
    expect(groupOnly.code).toBe(5);
    expect(groupOnly.stderr).toContain('no trigger was paused: the request names a group without a mapping');
    expect(groupOnly.stderr).toContain(
      `the offsets: kafka-lambda replay --function replay-fn --to-current --group ${G} --topic ${topic} (NOTES`,
    );
    expect(groupOnly.stderr).not.toContain('get-event-source-mapping');
    // A dry run changes nothing: its crash stays an error (exit 1).
    const dryRun = await run(['--function', 'replay-fn', '--shift-by', '-1', '--reason', 'drop'], env());
    expect(dryRun.code).toBe(1);
  });

  it('says when the mapping is Disabled and stays so: its trigger reads nothing until someone enables it', async () => {
    const settle = async (state: string) => {
      while (model.state() !== state)
        await model.lambda.send(new GetEventSourceMappingCommand({ UUID: 'esm-cli' }));
    };
    await model.lambda.send(new UpdateEventSourceMappingCommand({ UUID: 'esm-cli', Enabled: false }));
    await settle('Disabled');
    try {
      const result = await run(['--function', 'replay-fn', '--to-current'], env());
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(
        'Mapping esm-cli is Disabled and would stay so: its trigger reads nothing until it is enabled (aws lambda update-event-source-mapping --uuid esm-cli --enabled).',
      );
    } finally {
      await model.lambda.send(new UpdateEventSourceMappingCommand({ UUID: 'esm-cli', Enabled: true }));
      await settle('Enabled');
    }
  });
});

describe('kafka-lambda replay --brokers --esm', () => {
  // The Lambda API's event source mapping calls over HTTP, answered by the mapping model.
  let server: Server;
  let endpoint: string;
  const G = uniqueName('cli-esm-group');
  const model = modelEventSourceMapping({ uuid: 'esm-http', topic, groupId: G });
  // A mapping Lambda is still creating (or updating): a dry run plans it, --execute refuses it.
  const creating = modelEventSourceMapping({
    uuid: 'esm-creating',
    topic,
    groupId: uniqueName('cli-esm-creating'),
    state: 'Creating',
  });
  // A mapping that never leaves Disabling: the replay fails and cannot put it back.
  const stuck = modelEventSourceMapping({
    uuid: 'esm-stuck',
    topic,
    groupId: uniqueName('cli-esm-stuck'),
    disablePolls: Number.POSITIVE_INFINITY,
  });
  const models: Record<string, typeof model> = { 'esm-creating': creating, 'esm-stuck': stuck };

  beforeAll(async () => {
    server = createServer(async (req, res) => {
      let body = '';
      for await (const chunk of req) body += chunk;
      const uuid = decodeURIComponent(
        req.url?.match(/^\/2015-03-31\/event-source-mappings\/([^/?]+)/)?.[1] ?? '',
      );
      const { lambda } = models[uuid] ?? model;
      try {
        const output =
          req.method === 'PUT'
            ? await lambda.send(
                new UpdateEventSourceMappingCommand({
                  UUID: uuid,
                  ...(JSON.parse(body) as { Enabled?: boolean }),
                }),
              )
            : await lambda.send(new GetEventSourceMappingCommand({ UUID: uuid }));
        const { $metadata: _, ...configuration } = output;
        res.writeHead(req.method === 'PUT' ? 202 : 200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(configuration));
      } catch (error) {
        const name = (error as Error).name;
        const status =
          name === 'TooManyRequestsException'
            ? 429
            : name === 'InvalidParameterValueException'
              ? 400
              : name === 'ResourceNotFoundException'
                ? 404
                : 409;
        res.writeHead(status, { 'content-type': 'application/json', 'x-amzn-errortype': name });
        res.end(JSON.stringify({ Type: 'User', message: (error as Error).message }));
      }
    });
    endpoint = await listen(server);
    await commit(G, [7, 8, 9]);
  });
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
  });

  it('disables the mapping, reports progress while waiting, moves the offsets and re-enables it', async () => {
    model.failNext('update', 'in-use');
    const result = await run(
      [
        '--brokers',
        testBrokers().join(','),
        '--esm',
        'esm-http',
        '--to-offset',
        '5',
        '--execute',
        '--reason',
        'INC-5',
      ],
      lambdaEnv(endpoint),
    );
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('[replay] disable-mapping: disabling mapping esm-http');
    expect(result.stderr).toMatch(
      /\[replay\] wait-mapping-disabled: mapping esm-http: Disabling \(\d+ s, waiting for Disabled\)/,
    );
    expect(result.stderr).toMatch(/\[replay\] wait-group-empty: group .*: (Empty|Dead), 0 member\(s\)/);
    expect(result.stderr).toMatch(/\[replay\] wait-mapping-enabled: mapping esm-http: Enabled/);
    expect(result.stdout).toContain(
      `Replayed group ${G} on ${topic} (mapping esm-http, Enabled): 3 of 3 partition(s) moved.`,
    );
    expect(model.history).toEqual(['Enabled', 'Disabling', 'Disabled', 'Enabling', 'Enabled']);
    expect(await current(G)).toEqual([5, 5, 5]);
  });

  it('a dry run on a mapping in transition says that --execute would be refused now, as it is', async () => {
    const args = ['--brokers', testBrokers().join(','), '--esm', 'esm-creating', '--to-earliest'];
    const dryRun = await run(args, lambdaEnv(endpoint));
    expect(dryRun.code).toBe(0);
    expect(dryRun.stdout).toContain(
      'Mapping esm-creating is Creating, not Enabled or Disabled: --execute would be refused now, changing nothing (exit 3); retry once it is Enabled or Disabled.',
    );
    expect(dryRun.stdout).not.toContain('--execute disables mapping');
    const executed = await run([...args, '--execute'], lambdaEnv(endpoint));
    expect(executed.code).toBe(3);
    expect(executed.stderr).toContain(
      'event source mapping esm-creating (Creating): is in transition; retry once it is Enabled or Disabled',
    );
    expect(creating.updates).toEqual([]);
  });

  it('a mapping it cannot restore (exit 5): the report says how long the restore tried and how to resume', async () => {
    const result = await run(
      [
        '--brokers',
        testBrokers().join(','),
        '--esm',
        'esm-stuck',
        '--to-earliest',
        '--execute',
        '--mapping-timeout',
        '1',
        '--restore-timeout',
        '3',
      ],
      lambdaEnv(endpoint),
    );
    expect(result.code).toBe(5);
    expect(result.stderr).toContain(
      '[replay] wait-mapping-disabled: restoring mapping esm-stuck to Enabled (for up to 3 s)',
    );
    expect(result.stderr).toContain('  mapping: was Enabled, now Disabling — NOT restored');
    // --mapping-timeout (1 s) does not bound the restore: --restore-timeout (3 s) does.
    expect(result.stderr).toMatch(/\n {2}restore: gave up after [23] s \(bound: 3 s; --restore-timeout\)\n/);
    expect(result.stderr).toContain(
      '  to resume the trigger: once it has left Disabling, if it is Disabled, resume it: aws lambda update-event-source-mapping --uuid esm-stuck --enabled',
    );
    const help = await run(['--help']);
    expect(help.stdout).toMatch(/--restore-timeout <seconds>\s+bound on putting the mapping back to Enabled/);
  });

  it('a mapping that does not exist is an invalid request (exit 2) naming it and the region', async () => {
    for (const execute of [[], ['--execute']]) {
      const result = await run(
        ['--brokers', testBrokers().join(','), '--esm', 'm-404', '--to-earliest', ...execute],
        lambdaEnv(endpoint),
      );
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(
        'kafka-lambda replay: event source mapping m-404 not found in eu-west-1: check the UUID and the region',
      );
    }
    expect(model.state()).toBe('Enabled');
  });

  /** Starts an executing replay through the mapping and resolves once it waits for the mapping to disable. */
  async function replayWaitingForDisable() {
    const child = spawnCli(
      ['replay', '--brokers', testBrokers().join(','), '--esm', 'esm-http', '--to-offset', '1', '--execute'],
      { env: lambdaEnv(endpoint) },
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    const seen = async (text: string) =>
      pollUntil(text, { timeoutMs: 20_000, intervalMs: 20 }, async () => ({
        done: stderr.includes(text),
        seen: stderr.slice(-200),
      }));
    await seen('[replay] wait-mapping-disabled');
    return { child, exited, seen, stderr: () => stderr };
  }

  it('SIGTERM (kill, timeout, a CI cancel) stops an executing replay as Ctrl-C does: the mapping is restored', async () => {
    const { child, exited, seen } = await replayWaitingForDisable();
    child.kill('SIGTERM');
    await seen('[replay] SIGTERM: stopping and restoring the mapping');
    const [code] = await exited;
    expect(code).toBe(4); // failed mid-way, mapping back in its original state
    expect(model.state()).toBe('Enabled');
    expect(await current(G)).toEqual([5, 5, 5]);
  });

  it('a second stop signal says how to resume the trigger by hand; a third quits at once, saying it again', async () => {
    const { child, exited, seen, stderr } = await replayWaitingForDisable();
    const resume =
      'mapping esm-http may be left Disabled: resume it with aws lambda update-event-source-mapping --uuid esm-http --enabled';
    child.kill('SIGINT');
    await seen('[replay] SIGINT: stopping and restoring the mapping');
    child.kill('SIGHUP');
    await seen(`[replay] SIGHUP: still stopping; send it again to quit at once; ${resume}`);
    child.kill('SIGTERM');
    const [code] = await exited;
    expect(code).toBe(128 + 15);
    expect(stderr()).toContain(`[replay] SIGTERM: quitting; ${resume}`);
    // Leave the mapping as the next test expects it, whatever state the quit left it in.
    await pollUntil('mapping settled', { timeoutMs: 20_000, intervalMs: 50 }, async () => {
      const state = model.state();
      if (state === 'Disabled')
        await model.lambda
          .send(new UpdateEventSourceMappingCommand({ UUID: 'esm-http', Enabled: true }))
          .catch(() => {});
      if (state !== 'Enabled')
        await model.lambda.send(new GetEventSourceMappingCommand({ UUID: 'esm-http' }));
      return { done: model.state() === 'Enabled', seen: model.state() };
    });
  });
});
