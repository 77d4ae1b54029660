import {
  type EventSourceMappingConfiguration,
  GetEventSourceMappingCommand,
  LambdaClient,
} from '@aws-sdk/client-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testBrokers, testKafka, uniqueName } from '../../test/support/kafka.ts';
import { BASE_TIME, seedTopic } from '../../test/support/seed-topic.ts';
import { runKafkaTool } from '../broker/broker.ts';
import { connectReplayKafka, type ReplayKafka } from './connection.ts';
import {
  NoCommittedOffsetError,
  OffsetOutOfRangeError,
  ReplayRefusedError,
  UnknownPartitionError,
  UnknownTopicError,
} from './errors.ts';
import { formatReplayMetadata } from './metadata.ts';
import { runReplay } from './pipeline.ts';
import { planReplay } from './plan.ts';
import { parseReplayRequest } from './request.ts';
import type { PartitionPlan, PlanRequest, ReplayPlan } from './types.ts';

// 3 partitions × 10 records (offset i has timestamp BASE_TIME + i s); partition 0 truncated to start at 3.
// The group has committed 7, 8 and 9.
const topic = uniqueName('replay-plan');
const groupId = uniqueName('replay-plan-group');
let kafka: ReplayKafka;

beforeAll(async () => {
  await seedTopic(testKafka(), {
    topic,
    partitions: 3,
    records: 10,
    truncate: 3,
    groupId,
    committed: [7, 8, 9],
  });
  kafka = await connectReplayKafka({ brokers: testBrokers() });
});
afterAll(async () => {
  await kafka?.disconnect();
});

/**
 * NEW-OFFSET per partition in `kafka-consumer-groups --reset-offsets … --dry-run` (Kafka's own tool, from
 * the broker's jars), by partition number.
 */
async function kafkaToolPlans(group: string, onTopic: string, target: string[]): Promise<number[]> {
  const result = await runKafkaTool('org.apache.kafka.tools.consumer.group.ConsumerGroupCommand', [
    '--bootstrap-server',
    testBrokers().join(','),
    '--group',
    group,
    '--topic',
    onTopic,
    '--reset-offsets',
    ...target,
    '--dry-run',
  ]);
  if (result.code !== 0) throw new Error(`ConsumerGroupCommand failed (${result.code}): ${result.stderr}`);
  // Rows of GROUP TOPIC PARTITION NEW-OFFSET (the tool pads its columns; lines may wrap).
  const cells = result.stdout.trim().split(/\s+/);
  const offsets: number[] = [];
  cells.forEach((cell, i) => {
    if (cell === group && cells[i + 1] === onTopic) offsets[Number(cells[i + 2])] = Number(cells[i + 3]);
  });
  if (offsets.length === 0) throw new Error(`no plan row in: ${result.stdout} ${result.stderr}`);
  return offsets;
}

const plan = (request: Partial<PlanRequest> & Pick<PlanRequest, 'target'>) =>
  planReplay({ kafka, groupId, topic, ...request });
const summary = (p: ReplayPlan) =>
  p.partitions.map((x) => ({
    partition: x.partition,
    target: x.target,
    redeliver: x.redeliver,
    skip: x.skip,
    warnings: x.warnings.map((w) => w.code),
  }));

describe('planReplay on a real broker', () => {
  it('reports committed offsets, watermarks and the group state', async () => {
    const result = await plan({ target: { kind: 'earliest' } });
    expect(result.partitions.map((p) => [p.partition, p.committed, p.low, p.high])).toEqual([
      [0, 7, 3, 10],
      [1, 8, 0, 10],
      [2, 9, 0, 10],
    ]);
    expect(result.groupState).toBe('Empty');
    expect(result.members).toBe(0);
  });

  it('earliest: the low watermark of each partition', async () => {
    const result = await plan({ target: { kind: 'earliest' } });
    expect(summary(result)).toEqual([
      { partition: 0, target: 3, redeliver: 4, skip: 0, warnings: [] },
      { partition: 1, target: 0, redeliver: 8, skip: 0, warnings: [] },
      { partition: 2, target: 0, redeliver: 9, skip: 0, warnings: [] },
    ]);
    expect(result.totals).toEqual({ partitions: 3, changed: 3, redeliver: 21, skip: 0, unknown: 0 });
  });

  it('latest: the log end, skipping what is left', async () => {
    const result = await plan({ target: { kind: 'latest' } });
    expect(summary(result).map((p) => [p.target, p.skip])).toEqual([
      [10, 3],
      [10, 2],
      [10, 1],
    ]);
  });

  it('an offset for every partition, clamped into [low, high] with warnings', async () => {
    expect(summary(await plan({ target: { kind: 'offset', offset: 5 } }))).toEqual([
      { partition: 0, target: 5, redeliver: 2, skip: 0, warnings: [] },
      { partition: 1, target: 5, redeliver: 3, skip: 0, warnings: [] },
      { partition: 2, target: 5, redeliver: 4, skip: 0, warnings: [] },
    ]);
    const low = await plan({ target: { kind: 'offset', offset: 1 } });
    expect(low.partitions[0]).toMatchObject({ requested: 1, target: 3 });
    expect(low.partitions[0]?.warnings[0]?.code).toBe('CLAMPED_TO_LOW');
    expect(low.partitions[1]).toMatchObject({ requested: 1, target: 1, warnings: [] });
    const high = await plan({ target: { kind: 'offset', offset: 50 } });
    expect(high.partitions.map((p) => [p.target, p.warnings.map((w) => w.code)])).toEqual([
      [10, ['CLAMPED_TO_HIGH']],
      [10, ['CLAMPED_TO_HIGH']],
      [10, ['CLAMPED_TO_HIGH']],
    ]);
  });

  it('strict refuses out-of-range targets, naming each partition', async () => {
    const error = await plan({ target: { kind: 'offset', offset: 1 }, strict: true }).catch((e) => e);
    expect(error).toBeInstanceOf(OffsetOutOfRangeError);
    expect(error.outOfRange).toEqual([{ partition: 0, requested: 1, low: 3, high: 10 }]);
    expect(error.message).toContain('partition 0 wants 1, valid 3..10');
  });

  it('offsets per partition, and a partition subset', async () => {
    const result = await plan({
      target: {
        kind: 'offsets',
        offsets: [
          { partition: 2, offset: 4 },
          { partition: 1, offset: 9 },
        ],
      },
    });
    expect(summary(result)).toEqual([
      { partition: 1, target: 9, redeliver: 0, skip: 1, warnings: [] },
      { partition: 2, target: 4, redeliver: 5, skip: 0, warnings: [] },
    ]);
    const subset = await plan({ partitions: [2], target: { kind: 'earliest' } });
    expect(subset.partitions.map((p) => p.partition)).toEqual([2]);
  });

  it('a timestamp (ISO 8601 or epoch ms): the first record at or after it', async () => {
    const iso = await plan({
      target: { kind: 'timestamp', timestamp: new Date(BASE_TIME + 4_500).toISOString() },
    });
    expect(iso.partitions.map((p) => p.target)).toEqual([5, 5, 5]);
    const epoch = await plan({ target: { kind: 'timestamp', timestamp: BASE_TIME + 6_000 } });
    expect(epoch.partitions.map((p) => p.target)).toEqual([6, 6, 6]);
    // Before partition 0's first retained record: its low watermark, no clamping needed.
    const early = await plan({ target: { kind: 'timestamp', timestamp: BASE_TIME } });
    expect(early.partitions.map((p) => p.target)).toEqual([3, 0, 0]);
  });

  it('a timestamp with no record at or after it says so instead of silently meaning latest', async () => {
    const result = await plan({ target: { kind: 'timestamp', timestamp: BASE_TIME + 60_000 } });
    expect(result.partitions.map((p) => p.target)).toEqual([10, 10, 10]);
    for (const p of result.partitions) {
      expect(p.warnings.map((w) => w.code)).toEqual(['NO_RECORD_AT_OR_AFTER_TIMESTAMP']);
      expect(p.warnings[0]?.message).toContain(
        `no record at or after ${new Date(BASE_TIME + 60_000).toISOString()}`,
      );
    }
    await expect(
      plan({ target: { kind: 'timestamp', timestamp: BASE_TIME + 60_000 }, strict: true }),
    ).rejects.toBeInstanceOf(ReplayRefusedError);
  });

  it('a duration back from now', async () => {
    const result = await plan({
      target: { kind: 'duration', duration: 'PT16S' },
      now: new Date(BASE_TIME + 20_000),
    });
    expect(result.partitions.map((p) => p.target)).toEqual([4, 4, 4]);
    expect(result.plannedAt).toBe(new Date(BASE_TIME + 20_000).toISOString());
  });

  it('shift by ±N from the committed offsets, clamped', async () => {
    expect((await plan({ target: { kind: 'shift', by: -2 } })).partitions.map((p) => p.target)).toEqual([
      5, 6, 7,
    ]);
    const back = await plan({ target: { kind: 'shift', by: -6 } });
    expect(back.partitions.map((p) => [p.requested, p.target])).toEqual([
      [1, 3],
      [2, 2],
      [3, 3],
    ]);
    expect((await plan({ target: { kind: 'shift', by: 2 } })).partitions.map((p) => p.target)).toEqual([
      9, 10, 10,
    ]);
  });

  it('shift needs committed offsets; a group without them is an error naming the partitions', async () => {
    const error = await plan({ groupId: uniqueName('nobody'), target: { kind: 'shift', by: -1 } }).catch(
      (e) => e,
    );
    expect(error).toBeInstanceOf(NoCommittedOffsetError);
    expect(error.partitions).toEqual([0, 1, 2]);
  });

  it('a group without committed offsets: the plan says so, and what it re-delivers or skips is unknown (null), not 0', async () => {
    for (const target of [
      { kind: 'earliest' },
      { kind: 'current' },
      { kind: 'duration', duration: 'PT2H' },
      { kind: 'latest' },
    ] as const) {
      const result = await plan({ groupId: uniqueName('nobody'), target });
      expect(result.groupState).toBe('Dead');
      expect(
        result.partitions.map((p) => [p.committed, p.redeliver, p.skip, p.warnings.map((w) => w.code)]),
        target.kind,
      ).toEqual([
        [null, null, null, ['NO_COMMITTED_OFFSET']],
        [null, null, null, ['NO_COMMITTED_OFFSET']],
        [null, null, null, ['NO_COMMITTED_OFFSET']],
      ]);
      expect(result.totals).toEqual({ partitions: 3, changed: 3, redeliver: 0, skip: 0, unknown: 3 });
      expect(result.partitions[0]!.warnings[0]!.message).toContain('so both are unknown');
    }
  });

  it('a partition without a committed offset is counted from the trigger’s StartingPosition when the plan has it', async () => {
    // Partition 1 has a committed offset (4); 0 (records 3..9) and 2 (records 0..9) have none.
    const group = uniqueName('replay-plan-start');
    await kafka.commitOffsets({
      groupId: group,
      topic,
      offsets: [{ partition: 1, offset: 4, metadata: '' }],
    });
    const counts = async (
      target: PlanRequest['target'],
      startingPosition?: PlanRequest['startingPosition'],
    ) => {
      const result = await plan({ groupId: group, target, startingPosition });
      return {
        rows: result.partitions.map((p) => [p.target, p.redeliver, p.skip]),
        totals: result.totals,
        notes: result.partitions.map((p) => p.warnings.map((w) => w.message).join()),
      };
    };
    // --to-earliest: from the oldest record, nothing is re-delivered; from the log end, everything is.
    expect((await counts({ kind: 'earliest' }, { position: 'TRIM_HORIZON' })).rows).toEqual([
      [3, 0, 0],
      [0, 4, 0],
      [0, 0, 0],
    ]);
    const latest = await counts({ kind: 'earliest' }, { position: 'LATEST' });
    expect(latest.rows).toEqual([
      [3, 7, 0],
      [0, 4, 0],
      [0, 10, 0],
    ]);
    expect(latest.totals).toMatchObject({ redeliver: 21, skip: 0, unknown: 0 });
    expect(latest.notes[0]).toBe(
      'the group has no committed offset here: the trigger would start at its StartingPosition, LATEST (offset 10); counted from there',
    );
    // --to-current pins the log end: from the oldest record, that skips what is there.
    expect((await counts({ kind: 'current' }, { position: 'TRIM_HORIZON' })).rows).toEqual([
      [10, 0, 7],
      [4, 0, 0],
      [10, 0, 10],
    ]);
    // AT_TIMESTAMP: from the first record at or after it (offset 5 of each partition).
    const at = new Date(BASE_TIME + 4_500).toISOString();
    const fromTime = await counts({ kind: 'earliest' }, { position: 'AT_TIMESTAMP', timestamp: at });
    expect(fromTime.rows).toEqual([
      [3, 2, 0],
      [0, 4, 0],
      [0, 5, 0],
    ]);
    expect(fromTime.notes[2]).toContain(`StartingPosition, AT_TIMESTAMP ${at} (offset 5)`);
  });

  it('unknown topics and partitions are typed errors', async () => {
    await expect(
      plan({ topic: uniqueName('no-such-topic'), target: { kind: 'earliest' } }),
    ).rejects.toBeInstanceOf(UnknownTopicError);
    const error = await plan({ partitions: [1, 7], target: { kind: 'earliest' } }).catch((e) => e);
    expect(error).toBeInstanceOf(UnknownPartitionError);
    expect(error.message).toBe(`topic "${topic}" has no partition 7 (it has 3: 0..2)`);
    await expect(
      plan({ target: { kind: 'offsets', offsets: [{ partition: 3, offset: 0 }] } }),
    ).rejects.toBeInstanceOf(UnknownPartitionError);
  });

  it('shows the metadata stored with the committed offsets', async () => {
    const group = uniqueName('replay-plan-meta');
    const metadata = formatReplayMetadata({ at: '2026-11-29T10:00:00.000Z', previous: 8, reason: 'INC-1' });
    await kafka.commitOffsets({ groupId: group, topic, offsets: [{ partition: 1, offset: 4, metadata }] });
    const result = await plan({ groupId: group, target: { kind: 'latest' } });
    expect(result.partitions[1]).toMatchObject({ committed: 4, committedMetadata: metadata });
    expect(result.partitions[0]).toMatchObject({ committed: null, committedMetadata: null });
  });

  it('plans what kafka-consumer-groups --reset-offsets --dry-run plans, for every kind of target', async () => {
    const at = (seconds: number) => new Date(BASE_TIME + seconds * 1000).toISOString();
    const cases: [string[], PlanRequest['target']][] = [
      [['--to-earliest'], { kind: 'earliest' }],
      [['--to-latest'], { kind: 'latest' }],
      [['--to-offset', '1'], { kind: 'offset', offset: 1 }],
      [['--to-offset', '5'], { kind: 'offset', offset: 5 }],
      [['--to-offset', '50'], { kind: 'offset', offset: 50 }],
      [['--shift-by', '-8'], { kind: 'shift', by: -8 }],
      [['--shift-by', '2'], { kind: 'shift', by: 2 }],
      [['--to-datetime', at(4.5)], { kind: 'timestamp', timestamp: at(4.5) }],
      [['--to-datetime', at(-3600)], { kind: 'timestamp', timestamp: at(-3600) }],
      [['--to-datetime', at(3000)], { kind: 'timestamp', timestamp: at(3000) }],
      [['--by-duration', 'PT2H'], { kind: 'duration', duration: 'PT2H' }],
      [['--by-duration', 'PT30M'], { kind: 'duration', duration: 'PT30M' }],
      [['--to-current'], { kind: 'current' }],
    ];
    for (const [flags, target] of cases) {
      const ours = (await plan({ target })).partitions.map((p) => p.target);
      expect(ours, flags.join(' ')).toEqual(await kafkaToolPlans(groupId, topic, flags));
    }
  }, 180_000);

  it('--to-current pins every partition as Kafka’s tool does: the committed offset, the log end where none', async () => {
    // Partition 0's committed offset was deleted from the log (it starts at 3); partition 2 has none.
    const group = uniqueName('replay-plan-current');
    await kafka.commitOffsets({
      groupId: group,
      topic,
      offsets: [
        { partition: 0, offset: 1, metadata: '' },
        { partition: 1, offset: 4, metadata: '' },
      ],
    });
    const ours = await plan({ groupId: group, target: { kind: 'current' } });
    expect(ours.partitions.map((p) => p.target)).toEqual(
      await kafkaToolPlans(group, topic, ['--to-current']),
    );
    // Kept as is, as Kafka's tool keeps it (nothing re-delivered or skipped: the log starts at 3).
    expect(
      ours.partitions.map((p) => [p.target, p.redeliver, p.skip, p.warnings.map((w) => w.code)]),
    ).toEqual([
      [1, 0, 0, ['COMMITTED_BELOW_LOW']],
      [4, 0, 0, []],
      [10, null, null, ['NO_COMMITTED_OFFSET']],
    ]);
  }, 60_000);
});

describe('a mapping’s StartingPosition, read through the Lambda API', () => {
  /** A mapping of `group` on the topic, as GetEventSourceMapping describes it (aws-sdk-client-mock). */
  function mappingOf(group: string, state: string, configuration: Partial<EventSourceMappingConfiguration>) {
    const lambda = new LambdaClient({
      region: 'eu-west-1',
      credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    });
    mockClient(lambda)
      .on(GetEventSourceMappingCommand)
      .resolves({
        UUID: 'esm-start',
        State: state,
        Topics: [topic],
        AmazonManagedKafkaEventSourceConfig: { ConsumerGroupId: group },
        ...configuration,
      });
    return lambda;
  }

  it('a dry run counts the partitions without a committed offset from it (LATEST: everything re-delivered)', async () => {
    const group = uniqueName('replay-plan-esm');
    await kafka.commitOffsets({
      groupId: group,
      topic,
      offsets: [{ partition: 1, offset: 4, metadata: '' }],
    });
    const outcome = await runReplay(parseReplayRequest({ mapping: 'esm-start', toEarliest: true }), {
      connection: { brokers: testBrokers() },
      lambda: mappingOf(group, 'Enabled', { StartingPosition: 'LATEST' }),
    });
    expect(outcome.plan.partitions.map((p) => [p.redeliver, p.skip])).toEqual([
      [7, 0],
      [4, 0],
      [10, 0],
    ]);
    expect(outcome.plan.totals).toMatchObject({ redeliver: 21, skip: 0, unknown: 0 });
  });

  it('an execution too (AT_TIMESTAMP), and the JSON keeps null for a mapping that reports no StartingPosition', async () => {
    const group = uniqueName('replay-plan-esm-run');
    const at = new Date(Math.floor((BASE_TIME + 4_500) / 1000) * 1000 + 1000);
    const executed = await runReplay(
      parseReplayRequest({ mapping: 'esm-start', toEarliest: true, partitions: [2], execute: true }),
      {
        connection: { brokers: testBrokers() },
        // Disabled: the replay does not touch it, so reading it is all the Lambda API is asked.
        lambda: mappingOf(group, 'Disabled', {
          StartingPosition: 'AT_TIMESTAMP',
          StartingPositionTimestamp: at,
        }),
      },
    );
    expect(executed.plan.partitions.map((p) => [p.target, p.redeliver, p.skip])).toEqual([[0, 5, 0]]);
    const unknown = await runReplay(parseReplayRequest({ mapping: 'esm-start', toEarliest: true }), {
      connection: { brokers: testBrokers() },
      lambda: mappingOf(uniqueName('replay-plan-esm-none'), 'Enabled', {}),
    });
    expect(
      JSON.parse(JSON.stringify(unknown)).plan.partitions.map((p: PartitionPlan) => p.redeliver),
    ).toEqual([null, null, null]);
    expect(unknown.plan.totals.unknown).toBe(3);
  });
});

describe('planReplay against an open transaction, compared with kafka-consumer-groups --dry-run', () => {
  // One partition: 5 committed records (timestamps BASE_TIME + i s), then a transaction left open with 3
  // records (timestamps BASE_TIME + 10 s, 11 s, 12 s). The high watermark is 8, the last stable offset 5.
  const txTopic = uniqueName('replay-plan-tx');
  const txGroup = uniqueName('replay-plan-tx-group');
  let abort: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    await seedTopic(testKafka(), {
      topic: txTopic,
      partitions: 1,
      records: 5,
      groupId: txGroup,
      committed: [2],
    });
    const producer = testKafka().producer({
      transactionalId: uniqueName('replay-plan-tx-producer'),
      idempotent: true,
      maxInFlightRequests: 1,
    });
    await producer.connect();
    const transaction = await producer.transaction();
    await transaction.send({
      topic: txTopic,
      messages: [10, 11, 12].map((s) => ({ value: `open-${s}`, timestamp: String(BASE_TIME + s * 1000) })),
    });
    abort = async () => {
      await transaction.abort();
      await producer.disconnect();
    };
  });
  afterAll(async () => {
    await abort?.();
  });

  const kafkaToolPlan = async (...target: string[]) => (await kafkaToolPlans(txGroup, txTopic, target))[0];
  const ours = async (target: PlanRequest['target']) =>
    (await planReplay({ kafka, groupId: txGroup, topic: txTopic, target })).partitions[0]!;

  it('--to-latest is the high watermark past the open transaction, as Kafka’s tool plans it', async () => {
    const latest = await ours({ kind: 'latest' });
    expect(latest).toMatchObject({ low: 0, high: 8, target: 8, redeliver: 0, skip: 6 });
    expect(latest.target).toBe(await kafkaToolPlan('--to-latest'));
  });

  it('--to-offset 999 clamps to that same log end', async () => {
    const clamped = await ours({ kind: 'offset', offset: 999 });
    expect(clamped).toMatchObject({
      target: 8,
      warnings: [expect.objectContaining({ code: 'CLAMPED_TO_HIGH' })],
    });
    expect(clamped.target).toBe(await kafkaToolPlan('--to-offset', '999'));
  });

  it('a time inside the open transaction finds its first record there', async () => {
    const at = new Date(BASE_TIME + 11_000).toISOString();
    const inside = await ours({ kind: 'timestamp', timestamp: at });
    expect(inside).toMatchObject({ target: 6, warnings: [] });
    expect(inside.target).toBe(await kafkaToolPlan('--to-datetime', at.replace(/Z$/, '+00:00')));
  });

  it('a time without a zone is UTC, as Kafka’s tool reads it (its documented format, YYYY-MM-DDTHH:mm:SS.sss)', async () => {
    const zoneless = new Date(BASE_TIME + 11_000).toISOString().replace(/Z$/, '');
    const inside = await ours({ kind: 'timestamp', timestamp: zoneless });
    expect(inside).toMatchObject({ target: 6, warnings: [] });
    expect(inside.target).toBe(await kafkaToolPlan('--to-datetime', zoneless));
  });

  it('an instant before the epoch plans to the earliest offset with a warning', async () => {
    const before = await ours({ kind: 'timestamp', timestamp: '0000-01-01T00:00:00Z' });
    expect(before).toMatchObject({
      target: 0,
      warnings: [expect.objectContaining({ code: 'TIME_BEFORE_EPOCH' })],
    });
    const ancient = await ours({ kind: 'duration', duration: 'P99999999999D' });
    expect(ancient).toMatchObject({
      target: 0,
      warnings: [expect.objectContaining({ code: 'TIME_BEFORE_EPOCH' })],
    });
  });
});
