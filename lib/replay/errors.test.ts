import { describe, expect, it } from 'vitest';
import {
  GroupNotEmptyError,
  ReplayAbortedError,
  ReplayConflictError,
  ReplayConnectionError,
  ReplayError,
  ReplayExecutionError,
  ReplayInputError,
  ReplayTimeoutError,
} from './errors.ts';
import { withLambdaRetry } from './mapping.ts';
import { describeReplayError } from './outcome.ts';
import { pause } from './wait.ts';

describe('replay errors', () => {
  it('keep the error they wrap as their cause, and are ReplayErrors', () => {
    const cause = Object.assign(new Error('Connection refused'), { code: 'ECONNREFUSED' });
    for (const error of [
      new ReplayError('x', { cause }),
      new ReplayInputError('x', { cause }),
      new ReplayConnectionError('cannot reach Kafka at b:9092 (ECONNREFUSED)', { cause }),
      new GroupNotEmptyError('g', 'Stable', 1, undefined, { cause }),
      new ReplayConflictError('g', 'lost the hold', { cause }),
      new ReplayTimeoutError('mapping to be Disabled', 1000, 'Disabling', { cause }),
    ]) {
      expect(error).toBeInstanceOf(ReplayError);
      expect(error.cause).toBe(cause);
    }
  });

  it('a cause is summarised by name and code in an answer, never by its message', () => {
    const cause = Object.assign(new Error('password=S3cr3t rejected'), { code: 'EPROTO' });
    const described = describeReplayError(new ReplayConnectionError('Kafka at b:9096 refused', { cause }));
    expect(described.message).toBe('Kafka at b:9096 refused');
    expect(JSON.stringify(described)).not.toContain('S3cr3t');
  });

  it('a Lambda API call that keeps being throttled times out with the last throttling as its cause', async () => {
    const throttled = Object.assign(new Error('Rate exceeded'), { name: 'TooManyRequestsException' });
    const error = await withLambdaRetry(() => Promise.reject(throttled), { deadline: Date.now() }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ReplayTimeoutError);
    expect((error as Error).cause).toBe(throttled);
  });

  it('an aborted pause keeps the abort as its cause', async () => {
    const controller = new AbortController();
    const paused = pause(60_000, controller.signal).catch((e: unknown) => e);
    controller.abort();
    const error = await paused;
    expect(error).toBeInstanceOf(ReplayAbortedError);
    expect((error as Error).cause).toMatchObject({ name: 'AbortError' });
  });

  it('a failed replay that left the mapping paused says how to resume it, by the state it is in now', () => {
    const failed = (mappingStateNow: string | null, mappingStateBefore = 'Enabled') =>
      new ReplayExecutionError(
        {
          failedStep: 'enable-mapping',
          error: { name: 'InvalidParameterValueException', message: 'cannot enable' },
          offsets: 'set',
          offsetsNow: null,
          mappingStateBefore,
          mappingStateNow,
          mappingRestored: false,
          mappingUuid: 'esm-1',
          restore: { ms: 300_000, timeoutMs: 300_000 },
        },
        new Error('x'),
      ).message;
    const command = 'aws lambda update-event-source-mapping --uuid esm-1 --enabled';
    expect(failed('Disabled')).toMatch(
      new RegExp(`mapping NOT restored \\(was Enabled, now Disabled\\): resume it: ${command}$`),
    );
    expect(failed('Disabling')).toContain(
      `now Disabling): once it has left Disabling, if it is Disabled, resume it: ${command}`,
    );
    expect(failed(null)).toContain(
      `now unknown): check it (aws lambda get-event-source-mapping --uuid esm-1) and, if Disabled, resume it: ${command}`,
    );
    // A mapping the replay found Disabled it never enables, so it never advises to.
    expect(failed('Enabled', 'Disabled')).not.toContain('resume');
  });
});
