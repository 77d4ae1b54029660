// What `kafka-lambda replay` prints, from plans built here (the command against a broker: replay.int.test.ts),
// and how it ends against a Lambda API endpoint that never answers.
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type LocalEndpoint, silentEndpoint } from '../../../test/support/aws-endpoints.ts';
import { runCli } from '../../../test/support/run-cli.ts';
import { formatReplayMetadata } from '../../replay/metadata.ts';
import type { PartitionPlan, ReplayPlan } from '../../replay/types.ts';
import { findControlCharacter } from '../../text/control-characters.ts';
import { dryRunNotes, INVOKE_CLIENT, planSummary, planTable } from './replay.ts';

function plan(partitions: Partial<PartitionPlan>[], group: Partial<ReplayPlan> = {}): ReplayPlan {
  return {
    groupId: 'orders-fn',
    topic: 'orders',
    target: { kind: 'earliest' },
    plannedAt: '2026-11-29T10:00:00.000Z',
    groupState: 'Empty',
    members: 0,
    heldByReplay: false,
    partitions: partitions.map((p, partition) => ({
      partition,
      committed: 7,
      committedMetadata: null,
      low: 0,
      high: 10,
      requested: 0,
      target: 0,
      redeliver: 7,
      skip: 0,
      warnings: [],
      ...p,
    })),
    totals: {
      redeliver: 7 * partitions.length,
      skip: 0,
      partitions: partitions.length,
      changed: 1,
      unknown: 0,
    },
    ...group,
  };
}

/** The control characters of each line of `text` (a terminal acts on them): none may reach it raw. */
const controlCharacters = (text: string) =>
  text.split('\n').flatMap((line) => findControlCharacter(line) ?? []);

describe('planTable', () => {
  it('shows an audit record’s text with its control characters escaped, not obeyed; UTF-8 stays', () => {
    // Metadata anyone who may commit to the group can write, in the audit record's shape.
    const metadata = formatReplayMetadata({
      at: '2026-11-29T09:00:00.000Z\u001b[2J',
      previous: 41,
      reason: 'a\u001b[31mRED\u001b[0m\nline2\rX\u009b1m\u202eé👩‍🔧',
    });
    const table = planTable(plan([{ committedMetadata: metadata }]), false);
    expect(controlCharacters(table)).toEqual([]);
    expect(table).toContain(
      'last replay 2026-11-29T09:00:00.000Z\\u001b[2J from 41: a\\u001b[31mRED\\u001b[0m\\u000aline2\\u000dX\\u009b1m\\u202eé👩‍🔧',
    );
    // One line per table row: the reason's newline did not start another.
    expect(table.split('\n').filter((line) => line.includes('line2'))).toHaveLength(1);
  });

  it('an ordinary audit record reads as written', () => {
    const metadata = formatReplayMetadata({ at: '2026-11-29T09:00:00.000Z', previous: 41, reason: 'INC-42' });
    expect(planTable(plan([{ committedMetadata: metadata }]), false)).toContain(
      'last replay 2026-11-29T09:00:00.000Z from 41: INC-42',
    );
  });
});

describe('a partition without a committed offset, and no starting position to count from', () => {
  // --to-current on a group that committed on partition 0 only: partition 1 has no committed offset.
  const pinned = plan(
    [
      { committed: 7, target: 7, redeliver: 0 },
      { committed: null, target: 10, redeliver: null, skip: null },
    ],
    {
      target: { kind: 'current' },
      totals: { redeliver: 0, skip: 0, partitions: 2, changed: 1, unknown: 1 },
    },
  );

  it('shows ? in its RE-DELIVER and SKIP cells, not 0', () => {
    const rows = planTable(pinned, false)
      .split('\n')
      .map((line) =>
        line
          .split('│')
          .map((cell) => cell.trim())
          .filter(Boolean),
      );
    expect(rows.find((cells) => cells[0] === '1')?.slice(0, 7)).toEqual([
      '1',
      '-',
      '0',
      '10',
      '10',
      '?',
      '?',
    ]);
    expect(rows.find((cells) => cells[0] === '0')?.slice(0, 7)).toEqual(['0', '7', '0', '10', '7', '0', '0']);
  });

  it('the totals line says on how many partitions the counts are unknown', () => {
    expect(planSummary(pinned, false)).toBe(
      "0 record(s) would be delivered again, 0 skipped on the partitions with a committed offset; unknown (?) on 1 partition(s) without one: there the trigger's StartingPosition decides (counted from it when the mapping is given, --esm).",
    );
    expect(planSummary(plan([{}]), true)).toBe('7 record(s) will be delivered again, 0 skipped.');
  });
});

describe('dryRunNotes: what a dry run says --execute would meet', () => {
  const idle = plan([{}]);
  const busy = plan([{}], { groupState: 'Stable', members: 1 });

  it('a mapping in transition: --execute would be refused now, whatever the group', () => {
    for (const state of ['Creating', 'Updating', 'Enabling', 'Disabling', 'Deleting']) {
      const expected = [
        `Mapping m-1 is ${state}, not Enabled or Disabled: --execute would be refused now, changing nothing (exit 3); retry once it is Enabled or Disabled.`,
      ];
      expect(dryRunNotes(busy, { uuid: 'm-1', stateBefore: state })).toEqual(expected);
      expect(dryRunNotes(idle, { uuid: 'm-1', stateBefore: state })).toEqual(expected);
    }
  });

  it('an Enabled mapping with its pollers in the group: disabled first, then waited for', () => {
    expect(dryRunNotes(busy, { uuid: 'm-1', stateBefore: 'Enabled' })).toEqual([
      'Group orders-fn is Stable with 1 member(s): --execute disables mapping m-1 first and waits for them to leave.',
    ]);
    expect(dryRunNotes(idle, { uuid: 'm-1', stateBefore: 'Enabled' })).toEqual([]);
  });

  it('a Disabled mapping: nothing to disable; members are waited for, and refused if they stay', () => {
    expect(dryRunNotes(busy, { uuid: 'm-1', stateBefore: 'Disabled' })).toEqual([
      'Group orders-fn is Stable with 1 member(s) although mapping m-1 is already Disabled: --execute does not touch the mapping; it waits for them to leave (the group timeout) and is refused (exit 3) if they stay.',
    ]);
    expect(dryRunNotes(idle, { uuid: 'm-1', stateBefore: 'Disabled' })).toEqual([]);
  });

  it('without a mapping, members are refused; another replay holding the group is a conflict', () => {
    expect(dryRunNotes(busy, null)).toEqual([
      'Group orders-fn is Stable with 1 member(s): --execute will be refused while it has members (stop its consumers, or give --esm to disable the mapping around the change).',
    ]);
    expect(dryRunNotes({ ...busy, heldByReplay: true }, { uuid: 'm-1', stateBefore: 'Enabled' })).toEqual([
      'Group orders-fn is Stable with 1 member(s): another replay holds it right now; --execute would be refused as a conflict (exit 6) until it is done.',
    ]);
  });
});

describe('a Lambda API endpoint that accepts connections and never answers', () => {
  let silent: LocalEndpoint;
  beforeEach(async () => {
    silent = await silentEndpoint();
  });
  afterEach(() => silent.close());
  const env = () => ({
    AWS_ENDPOINT_URL_LAMBDA: silent.url,
    AWS_REGION: 'eu-west-1',
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
    AWS_SESSION_TOKEN: '',
    AWS_PROFILE: '',
  });

  it('--esm: reading the mapping ends within --mapping-timeout (exit 1), naming the call and what to check', async () => {
    const args = ['replay', '--brokers', '127.0.0.1:1', '--esm', 'esm-1', '--to-earliest'];
    const result = await runCli([...args, '--mapping-timeout', '2'], { env: env() });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /kafka-lambda replay: Lambda API call GetEventSourceMapping got no answer in \d+ ms \(\d+ attempt\(s\)\): check that the Lambda API endpoint is reachable/,
    );
    expect(result.ms).toBeLessThan(15_000);
    const json = await runCli([...args, '--mapping-timeout', '1', '--json'], { env: env() });
    expect(JSON.parse(json.stdout)).toMatchObject({
      ok: false,
      error: { name: 'AwsApiTimeoutError', kind: 'error' },
    });
  }, 40_000);

  it('--function: the Invoke client fails a request past its timeout instead of only warning', async () => {
    const lambda = new LambdaClient({
      ...INVOKE_CLIENT,
      // 16 minutes in use; shortened here.
      requestHandler: { ...INVOKE_CLIENT.requestHandler, requestTimeout: 300 },
      endpoint: silent.url,
      region: 'eu-west-1',
      credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    });
    const started = Date.now();
    const invoke = lambda.send(new InvokeCommand({ FunctionName: 'replay-fn', Payload: new Uint8Array() }));
    await expect(invoke).rejects.toMatchObject({ name: 'TimeoutError' });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(silent.connections()).toBe(1); // sent once: a replay must never run twice
  }, 20_000);
});

describe('--function with --group and no --esm', () => {
  it('says at once that the function’s default mapping is not used then, and to give --topic or --esm (exit 2)', async () => {
    const result = await runCli([
      'replay',
      '--function',
      'replay-fn',
      '--group',
      'orders-fn',
      '--to-earliest',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      "kafka-lambda replay: --group without --esm does not use the function's default mapping: give --topic too, to replay that group on its own, or --esm, to replay the group of an event source mapping\n",
    );
  });
});

describe('kafka-consumer-groups flags replay spells otherwise', () => {
  it('are refused as unknown options (exit 2) saying what to give instead, on stderr and in --json', async () => {
    const target = ['--group', 'orders-fn', '--topic', 'orders', '--to-earliest'];
    for (const [flags, instead] of [
      [['--bootstrap-server', '127.0.0.1:9092'], 'replay takes the brokers as --brokers <host:port,…>'],
      [
        ['--all-topics'],
        'a replay moves one group on one topic (a trigger reads one): give it, e.g. --topic orders',
      ],
      [
        ['--all-groups'],
        'a replay moves one group (a trigger has one): give it, --group <id> or --esm <uuid>',
      ],
      [
        ['--reset-offsets'],
        'replay resets offsets by itself: give the target directly, e.g. --to-earliest (a dry run unless --execute)',
      ],
    ] as const) {
      const result = await runCli(['replay', ...flags, ...target]);
      expect(result.code, flags[0]).toBe(2);
      expect(result.stderr).toBe(
        `error: unknown option '${flags[0]}' (kafka-consumer-groups' spelling): ${instead}\n(see --help for usage)\n`,
      );
    }
    const json = await runCli(['replay', '--reset-offsets', '--json', ...target]);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toEqual({
      ok: false,
      error: {
        name: 'ReplayInputError',
        kind: 'invalid',
        message:
          "unknown option '--reset-offsets' (kafka-consumer-groups' spelling): replay resets offsets by itself: give the target directly, e.g. --to-earliest (a dry run unless --execute)",
      },
    });
    const help = await runCli(['replay', '--help']);
    expect(help.stdout).not.toContain('--reset-offsets');
  }, 60_000);
});
