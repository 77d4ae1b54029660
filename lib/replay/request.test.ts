import { describe, expect, it } from 'vitest';
import { ReplayInputError } from './errors.ts';
import { parseReplayRequest, ReplayRequestError, requestTarget } from './request.ts';

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
      'give exactly one target: toOffset, toOffsets, toDatetime, byDuration, toEarliest, toLatest, shiftBy, fromFile',
    ]);
    expect(issues({ group: 'g' })[0]).toMatch(/^give exactly one target/);
  });

  it('checks time formats up front', () => {
    expect(issues({ group: 'g', toDatetime: '2026-11-29T10:00:00' })[0]).toMatch(/toDatetime: .*with a zone/);
    expect(issues({ group: 'g', byDuration: '1h' })).toEqual([
      'byDuration: must be an ISO 8601 duration like PT1H30M or P1D',
    ]);
    expect(issues({ group: 'g', fromFile: 'orders;0;1' })).toEqual([
      'fromFile: must be topic,partition,offset lines',
    ]);
  });

  it('refuses a non-object', () => {
    expect(issues('toEarliest')).toHaveLength(1);
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
