// What `kafka-lambda replay` prints, from plans built here (the command against a broker: replay.int.test.ts).
import { describe, expect, it } from 'vitest';
import { findControlCharacter, formatReplayMetadata } from '../../replay/metadata.ts';
import type { PartitionPlan, ReplayPlan } from '../../replay/types.ts';
import { planTable } from './replay.ts';

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
    totals: { redeliver: 7 * partitions.length, skip: 0, partitions: partitions.length, changed: 1 },
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
