import { describe, expect, it } from 'vitest';
import { ReplayInputError } from './errors.ts';
import { parseReplayRequest, ReplayRequestError, requestTarget, requestTopic } from './request.ts';

const issues = (input: unknown): string[] => {
  try {
    parseReplayRequest(input);
  } catch (error) {
    expect(error).toBeInstanceOf(ReplayRequestError);
    return (error as ReplayRequestError).issues;
  }
  throw new Error('expected the request to be refused');
};

describe('parseReplayRequest', () => {
  it('accepts each target kind, dry run by default', () => {
    expect(parseReplayRequest({ mapping: 'm', toEarliest: true })).toEqual({
      mapping: 'm',
      toEarliest: true,
      execute: false,
      strict: false,
    });
    expect(
      parseReplayRequest({ group: 'g', topic: 't', toDatetime: 1_700_000_000_000, execute: true }).execute,
    ).toBe(true);
  });

  it('says that a request must be a JSON object', () => {
    for (const [input, got] of [
      [null, 'null'],
      ['toEarliest', 'a string'],
      [42, 'a number'],
      [[], 'an array'],
      [true, 'a boolean'],
    ] as const) {
      expect(issues(input)).toEqual([`the request must be a JSON object (got ${got})`]);
    }
  });

  it('says what is wrong with a time, a duration or a plan file, by field', () => {
    expect(issues({ group: 'g', topic: 't', toDatetime: '2026-02-30T00:00:00Z' })).toEqual([
      'toDatetime: timestamp "2026-02-30T00:00:00Z": 2026-02 has no day 30',
    ]);
    expect(issues({ group: 'g', topic: 't', byDuration: 'PT1X' })[0]).toMatch(
      /^byDuration: duration "PT1X" is not ISO 8601/,
    );
    expect(issues({ group: 'g', fromFile: 'orders,0,1\norders,0,2' })).toEqual([
      'fromFile: plan file line 2 repeats orders partition 0 (first given on line 1)',
    ]);
    expect(
      issues({
        group: 'g',
        topic: 't',
        partitions: Array.from({ length: 10_001 }, (_, i) => i),
        toEarliest: true,
      }),
    ).toEqual(['partitions: must name at most 10000 partitions']);
  });

  it('names unknown fields', () => {
    expect(issues({ mapping: 'm', toEarliest: true, dryRun: true })).toEqual(['dryRun: unknown field']);
  });

  it('refuses negative offsets and partitions, and fractions', () => {
    expect(issues({ group: 'g', topic: 't', toOffset: -1 })).toEqual(['toOffset: must not be negative']);
    expect(issues({ group: 'g', topic: 't', toOffsets: [{ partition: -1, offset: 1.5 }] })).toEqual([
      'toOffsets.0.partition: must not be negative',
      'toOffsets.0.offset: must be an integer',
    ]);
  });

  it('wants exactly one target', () => {
    expect(issues({ group: 'g', toEarliest: true, toOffset: 3 })).toEqual([
      'give exactly one target: toOffset, toOffsets, toDatetime, byDuration, toEarliest, toLatest, toCurrent, shiftBy, fromFile',
    ]);
    expect(issues({ group: 'g' })[0]).toMatch(/^give exactly one target/);
  });

  it('refuses a reason with control characters, naming the field and the character; keeps accents and emoji', () => {
    const reason = 'a\x1b[31mRED\x1b[0m\nline2\rX';
    expect(issues({ group: 'g', topic: 't', toEarliest: true, reason })).toEqual([
      'reason: must not contain control characters (found U+001B at character 2): it is shown in terminals; accents and emoji are fine',
    ]);
    for (const [bad, found] of [
      ['line1\nline2', 'U+000A'],
      ['x\ry', 'U+000D'],
      ['tab\there', 'U+0009'],
      ['csi\u009b31m', 'U+009B'],
      ['del\u007f', 'U+007F'],
      ['rtl\u202eexe.txt', 'U+202E'],
      ['sep\u2028', 'U+2028'],
    ]) {
      expect(issues({ mapping: 'm', toEarliest: true, reason: bad })).toEqual([
        expect.stringContaining(`reason: must not contain control characters (found ${found} at`),
      ]);
    }
    const utf8 = 'INC-42: réplique après le correctif 👩‍🔧 — 再配信 ✅';
    expect(parseReplayRequest({ mapping: 'm', toEarliest: true, reason: utf8 }).reason).toBe(utf8);
  });

  it('checks time formats up front', () => {
    expect(issues({ group: 'g', toDatetime: '2026-11-29 10:00:00' })[0]).toMatch(
      /toDatetime: .*is not ISO 8601/,
    );
    expect(parseReplayRequest({ group: 'g', toDatetime: '2026-11-29T10:00:00.000' })).toMatchObject({
      toDatetime: '2026-11-29T10:00:00.000',
    });
    expect(issues({ group: 'g', byDuration: '1h' })).toEqual([
      'byDuration: duration "1h" is not ISO 8601 like PT1H30M, P1DT12H or PT0.5S (days, hours, minutes, seconds)',
    ]);
    expect(issues({ group: 'g', fromFile: 'orders;0;1' })).toEqual([
      'fromFile: plan file line 1 has 1 column(s); expected 3: topic,partition,offset',
    ]);
  });
});

describe('requestTopic', () => {
  it('is the plan file’s one topic; a plan file naming several is refused for what it is', () => {
    expect(requestTopic(parseReplayRequest({ group: 'g', fromFile: 'orders,0,5\norders,1,5' }))).toBe(
      'orders',
    );
    expect(() =>
      requestTopic(parseReplayRequest({ group: 'g', fromFile: 'orders,0,5\npayments,0,5' })),
    ).toThrow(
      "plan file names 2 topics (orders, payments): a replay moves one topic's offsets; split the file, or give the topic to use",
    );
  });
});

describe('numeric bounds', () => {
  it('refuses numbers no plan can use, naming the field, before anything is asked of the cluster', () => {
    const issues = (request: Record<string, unknown>) => {
      try {
        parseReplayRequest({ group: 'g', topic: 't', ...request });
      } catch (error) {
        return (error as { issues?: string[] }).issues;
      }
      return undefined;
    };
    expect(issues({ toDatetime: 9e15 })).toEqual([
      expect.stringMatching(/^toDatetime: .*later than any time/),
    ]);
    expect(issues({ toDatetime: '9000000000000000' })).toEqual([expect.stringMatching(/^toDatetime: /)]);
    expect(issues({ shiftBy: 1e300 })).toEqual(['shiftBy: must be within ±(2^53 − 1)']);
    expect(issues({ toOffset: 2 ** 60 })).toEqual(['toOffset: must be at most 2^53 − 1']);
    expect(issues({ toDatetime: 8.64e15 })).toBeUndefined();
  });
});

describe('requestTarget', () => {
  it('maps fields to core targets, with the partition subset', () => {
    expect(requestTarget(parseReplayRequest({ group: 'g', shiftBy: -5, partitions: [1] }), 't')).toEqual({
      target: { kind: 'shift', by: -5 },
      partitions: [1],
    });
    expect(requestTarget(parseReplayRequest({ group: 'g', byDuration: 'PT1H' }), 't')).toEqual({
      target: { kind: 'duration', duration: 'PT1H' },
    });
  });

  it('turns a plan file into per-partition offsets for its one topic', () => {
    const request = parseReplayRequest({ group: 'g', fromFile: 'orders,0,5\norders,2,7\n' });
    expect(requestTarget(request, 'orders').target).toEqual({
      kind: 'offsets',
      offsets: [
        { partition: 0, offset: 5 },
        { partition: 2, offset: 7 },
      ],
    });
    expect(() => requestTarget(request, 'payments')).toThrow(ReplayInputError);
  });
});
