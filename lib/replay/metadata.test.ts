import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  GroupNotEmptyError,
  OffsetOutOfRangeError,
  ReplayExecutionError,
  UnknownTopicError,
} from './errors.ts';
import { formatReplayMetadata, parseReplayMetadata } from './metadata.ts';
import { describeReplayError, REPLAY_EXIT_CODES } from './outcome.ts';
import { ReplayRequestError } from './request.ts';
import type { FailureReport } from './types.ts';

describe('replay audit metadata', () => {
  it('round-trips any audit record and stays far below Kafka’s 4096-byte metadata limit', () => {
    fc.assert(
      fc.property(fc.option(fc.nat(), { nil: null }), fc.string({ maxLength: 2_000 }), (previous, reason) => {
        const metadata = formatReplayMetadata({ at: '2026-11-29T10:00:00.000Z', previous, reason });
        expect(Buffer.byteLength(metadata)).toBeLessThan(4_096);
        const audit = parseReplayMetadata(metadata);
        expect(audit).toEqual({
          at: '2026-11-29T10:00:00.000Z',
          previous,
          reason: reason.length > 500 ? `${reason.slice(0, 499)}…` : reason,
        });
      }),
    );
  });

  it('reads nothing from metadata a replay did not write', () => {
    for (const other of [null, undefined, '', 'consumer-1', '{"kafka-lambda-replay":', '{"other":1}']) {
      expect(parseReplayMetadata(other)).toBeNull();
    }
  });
});

describe('describeReplayError', () => {
  const report = (restored: boolean): FailureReport => ({
    failedStep: 'wait-group-empty',
    error: { name: 'GroupNotEmptyError', message: 'still members' },
    offsets: 'untouched',
    offsetsNow: [{ partition: 0, offset: 7 }],
    mappingStateBefore: 'Enabled',
    mappingStateNow: restored ? 'Enabled' : 'Disabled',
    mappingRestored: restored,
  });

  it('classifies errors into the kinds behind the exit codes', () => {
    const kinds = [
      new ReplayRequestError(['toOffset: must not be negative']),
      new UnknownTopicError('orders'),
      new GroupNotEmptyError('g', 'Stable', 2),
      new OffsetOutOfRangeError('orders', [{ partition: 0, requested: 99, low: 0, high: 10 }]),
      new ReplayExecutionError(report(true), new Error('x')),
      new ReplayExecutionError(report(false), new Error('x')),
      new Error('ECONNREFUSED'),
    ].map((error) => describeReplayError(error).kind);
    expect(kinds).toEqual([
      'invalid',
      'invalid',
      'refused',
      'refused',
      'failed',
      'failed-unrestored',
      'error',
    ]);
    expect(kinds.map((kind) => REPLAY_EXIT_CODES[kind])).toEqual([2, 2, 3, 3, 4, 5, 1]);
  });

  it('carries the issues and the failure report', () => {
    expect(describeReplayError(new ReplayRequestError(['a: b']))).toMatchObject({ issues: ['a: b'] });
    expect(describeReplayError(new ReplayExecutionError(report(false), new Error('x')))).toMatchObject({
      name: 'ReplayExecutionError',
      report: { mappingRestored: false, mappingStateNow: 'Disabled' },
    });
  });
});
