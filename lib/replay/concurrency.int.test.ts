// Two replays of one group racing, round after round, on the real broker, through every pair of entry
// points (the library, the spawned CLI, the replay function's handler), without and with an event source
// mapping (one model of the Lambda API shared by both, as both would share the real mapping). Each run
// must either win (exit 0, its offsets and audit record are the group's, or a later winner's audit record
// names them as what it replaced) or be turned away having changed nothing (conflict 6, or refused 3 when
// it met the other one's mapping mid-transition): never two "verified" runs where one silently undid the
// other, never an audit record whose "previous" is not what its commit replaced.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout } from 'node:timers/promises';
import { GetEventSourceMappingCommand, UpdateEventSourceMappingCommand } from '@aws-sdk/client-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReplayHandler } from '../../functions/replay/handler.ts';
import { type EsmModel, modelEventSourceMapping } from '../../test/support/esm-model.ts';
import { testBrokers, testKafka, uniqueName } from '../../test/support/kafka.ts';
import { runCli } from '../../test/support/run-cli.ts';
import { seedTopic } from '../../test/support/seed-topic.ts';
import { connectReplayKafka, type ReplayKafka } from './connection.ts';
import { executeReplay } from './execute.ts';
import { parseReplayMetadata } from './metadata.ts';
import { describeReplayError, REPLAY_EXIT_CODES, type ReplayOutcome } from './outcome.ts';
import type { ReplayPlan } from './types.ts';

type Entry = 'library' | 'cli' | 'function';
interface Run {
  entry: Entry;
  target: number;
  reason: string;
  code: number;
  plan?: ReplayPlan;
  /** What a run that did not win said (shown when a round fails). */
  error?: string;
}

const UUID = 'esm-race';
const timeouts = { mappingMs: 10_000, groupMs: 20_000, restoreMs: 10_000, pollIntervalMs: 10 };
let kafka: ReplayKafka;
const topic = uniqueName('replay-race');
// The model of the round being run: the CLI reaches it through a local Lambda API endpoint.
let current: EsmModel | undefined;
let server: Server;
let endpoint: string;
/** How long a spawned `kafka-lambda` takes to start (measured once). */
let cliStartMs = 0;

beforeAll(async () => {
  kafka = await connectReplayKafka({ brokers: testBrokers() });
  cliStartMs = (await runCli(['replay', '--help'])).ms;
  await seedTopic(testKafka(), { topic, partitions: 3, records: 10 });
  // The Lambda API's event source mapping calls over HTTP, answered by the current round's model.
  server = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    try {
      if (!current) throw new Error('no mapping model in this round');
      const output =
        req.method === 'PUT'
          ? await current.lambda.send(
              new UpdateEventSourceMappingCommand({ UUID, ...(JSON.parse(body) as { Enabled?: boolean }) }),
            )
          : await current.lambda.send(new GetEventSourceMappingCommand({ UUID }));
      const { $metadata: _, ...configuration } = output;
      res.writeHead(req.method === 'PUT' ? 202 : 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(configuration));
    } catch (error) {
      const name = (error as Error).name;
      res.writeHead(name === 'TooManyRequestsException' ? 429 : 409, {
        'content-type': 'application/json',
        'x-amzn-errortype': name,
      });
      res.end(JSON.stringify({ Type: 'User', message: (error as Error).message }));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await kafka?.disconnect();
});

async function replay(
  entry: Entry,
  groupId: string,
  model: EsmModel | undefined,
  target: number,
  reason: string,
): Promise<Run> {
  const run = { entry, target, reason };
  if (entry === 'cli') {
    const where = model ? ['--esm', UUID] : ['--group', groupId, '--topic', topic];
    const result = await runCli(
      [
        'replay',
        '--brokers',
        testBrokers().join(','),
        ...where,
        '--to-offset',
        String(target),
        '--execute',
        '--reason',
        reason,
        '--json',
      ],
      {
        env: {
          AWS_ENDPOINT_URL_LAMBDA: endpoint,
          AWS_REGION: 'eu-west-1',
          AWS_ACCESS_KEY_ID: 'test',
          AWS_SECRET_ACCESS_KEY: 'test',
        },
      },
    );
    const outcome = JSON.parse(result.stdout) as ReplayOutcome;
    return outcome.ok
      ? { ...run, code: result.code ?? -1, plan: outcome.plan }
      : { ...run, code: result.code ?? -1, error: outcome.error.message };
  }
  if (entry === 'function') {
    const handle = createReplayHandler({
      config: {
        mappings: model ? [UUID] : [],
        groups: model ? [] : [groupId],
        topics: model ? [] : [topic],
        timeouts,
        connection: async () => ({ brokers: testBrokers() }),
      },
      lambda: (model ?? modelEventSourceMapping({ uuid: UUID, topic, groupId })).lambda,
      log: () => {},
    });
    const outcome = await handle(
      { ...(model ? {} : { group: groupId, topic }), toOffset: target, execute: true, reason },
      { getRemainingTimeInMillis: () => 600_000 },
    );
    return outcome.ok
      ? { ...run, code: 0, plan: outcome.plan }
      : { ...run, code: REPLAY_EXIT_CODES[outcome.error.kind], error: outcome.error.message };
  }
  const own = await connectReplayKafka({ brokers: testBrokers() });
  try {
    const result = await executeReplay({
      kafka: own,
      ...(model ? { mapping: { lambda: model.lambda, uuid: UUID } } : { groupId, topic }),
      target: { kind: 'offset', offset: target },
      reason,
      timeouts,
    });
    return { ...run, code: 0, plan: result.plan };
  } catch (error) {
    const described = describeReplayError(error);
    return { ...run, code: REPLAY_EXIT_CODES[described.kind], error: described.message };
  } finally {
    await own.disconnect();
  }
}

/** The offsets and audit records of the group now, by partition. */
async function committed(groupId: string) {
  const [fetched] = await kafka.admin.fetchOffsets({ groupId, topics: [topic] });
  return fetched!.partitions
    .sort((a, b) => a.partition - b.partition)
    .map((p) => ({ offset: Number(p.offset), audit: parseReplayMetadata(p.metadata) }));
}

/**
 * How many winners of the round were silently undone: a run that exited 0 whose offsets are neither the
 * group's now nor named, as what it replaced, by the audit record of the run that won after it. Also
 * counts audit records whose "previous" is not the offset their commit replaced.
 */
function silentOverwrites(runs: Run[], final: Awaited<ReturnType<typeof committed>>, seed: number): number {
  const winners = runs.filter((r) => r.code === 0);
  const last = winners.find((w) => final.every((p) => p.audit?.reason === w.reason && p.offset === w.target));
  let undone = winners.filter((w) => w !== last).length;
  if (last) {
    const replaced = last.plan!.partitions.map((p) => parseReplayMetadata(p.committedMetadata)?.reason);
    const earlier = winners.find((w) => w !== last && replaced.every((reason) => reason === w.reason));
    if (earlier) undone--;
    const expectedPrevious = earlier?.target ?? seed;
    if (final.some((p) => p.audit?.previous !== expectedPrevious)) undone++;
  } else if (winners.length > 0 || final.some((p) => p.audit !== null)) {
    undone++; // the offsets carry nobody's (or a loser's) commit
  }
  return undone;
}

const combinations: { a: Entry; b: Entry; mapping: boolean; rounds: number }[] = [
  { a: 'library', b: 'library', mapping: false, rounds: 20 },
  { a: 'library', b: 'function', mapping: false, rounds: 10 },
  { a: 'function', b: 'function', mapping: false, rounds: 10 },
  { a: 'cli', b: 'cli', mapping: false, rounds: 4 },
  { a: 'cli', b: 'library', mapping: false, rounds: 4 },
  { a: 'cli', b: 'function', mapping: false, rounds: 4 },
  { a: 'library', b: 'library', mapping: true, rounds: 10 },
  { a: 'library', b: 'function', mapping: true, rounds: 10 },
  { a: 'function', b: 'function', mapping: true, rounds: 6 },
  { a: 'cli', b: 'library', mapping: true, rounds: 3 },
  { a: 'cli', b: 'function', mapping: true, rounds: 3 },
];

describe('two replays of one group at once', () => {
  for (const { a, b, mapping, rounds } of combinations) {
    it(`${a} × ${b}, ${mapping ? 'through one event source mapping' : 'without a mapping'}: ${rounds} rounds, no silent overwrite`, async () => {
      const codes: Record<string, number> = {};
      let undone = 0;
      for (let round = 0; round < rounds; round++) {
        const groupId = uniqueName('replay-race-group');
        const seed = 5;
        await kafka.commitOffsets({
          groupId,
          topic,
          offsets: [0, 1, 2].map((partition) => ({ partition, offset: seed, metadata: '' })),
        });
        const model = mapping
          ? modelEventSourceMapping({ uuid: UUID, topic, groupId, transitionPolls: 1 })
          : undefined;
        current = model;
        // A spawned CLI needs a while before it reaches the broker: the in-process side starts later,
        // by a delay swept around that start-up time, so that the two really meet.
        const lag = a === 'cli' && b !== 'cli' ? cliStartMs * (0.5 + round / rounds) : 0;
        const runs = await Promise.all([
          replay(a, groupId, model, 1, `round ${round}: A`),
          setTimeout(lag).then(() => replay(b, groupId, model, 7, `round ${round}: B`)),
        ]);
        for (const run of runs) codes[run.code] = (codes[run.code] ?? 0) + 1;
        // Exit 0, 3 (refused: the other's mapping was mid-transition) or 6 (conflict): nothing else.
        const seen = JSON.stringify(runs.map(({ entry, code, error }) => ({ entry, code, error })));
        expect(
          runs.map((r) => r.code).every((code) => [0, 3, 6].includes(code)),
          seen,
        ).toBe(true);
        expect(runs.some((r) => r.code === 0)).toBe(true);
        undone += silentOverwrites(runs, await committed(groupId), seed);
        if (model) expect(model.state()).toBe('Enabled');
      }
      console.log(
        `${a} × ${b}${mapping ? ' (mapping)' : ''}: exit codes ${JSON.stringify(codes)}, silent overwrites ${undone}`,
      );
      expect(undone).toBe(0);
    }, 600_000);
  }
});
