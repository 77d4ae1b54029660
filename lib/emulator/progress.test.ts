import { describe, expect, it } from 'vitest';
import type { MappingEvent, MappingStats } from './emulator.ts';
import { describeEvent, formatProgress } from './progress.ts';
import { newCounters } from './stats.ts';

function stats(overrides: Partial<MappingStats>): MappingStats {
  return { ...newCounters(), partitions: [], ...overrides };
}

describe('formatProgress', () => {
  it('shows the commit rate, lag of lagging partitions (largest first) and failure counters', () => {
    const line = formatProgress(
      { at: 0, stats: stats({ recordsCommitted: 1_000 }) },
      {
        at: 2_000,
        stats: stats({
          recordsCommitted: 6_000,
          partialFailures: 2,
          functionErrors: 1,
          retries: 4,
          destinationRecords: 1,
          partitions: [
            { partition: 0, committed: 10, highWatermark: 10, lag: 0 },
            { partition: 1, committed: 5, highWatermark: 25, lag: 20 },
            { partition: 2, committed: 0, highWatermark: 1_500, lag: 1_500 },
          ],
        }),
      },
    );
    expect(line).toBe(
      '2,500 rec/s · committed 6,000 · lag 1,520 (p2 1,500, p1 20) · failed batches 3 · retries 4 · to destination 1',
    );
  });

  it('counts dropped records only once there are some', () => {
    const line = formatProgress(undefined, {
      at: 0,
      stats: stats({ destinationRecords: 2, droppedRecords: 3 }),
    });
    expect(line).toBe(
      '0 rec/s · committed 0 · lag 0 · failed batches 0 · retries 0 · to destination 2 · dropped 3',
    );
  });

  it('counts bisect splits apart from retries, once there are some', () => {
    const line = formatProgress(undefined, {
      at: 0,
      stats: stats({ functionErrors: 3, retries: 0, splits: 3, destinationRecords: 1 }),
    });
    expect(line).toBe(
      '0 rec/s · committed 0 · lag 0 · failed batches 3 · retries 0 · splits 3 · to destination 1',
    );
  });

  it('fits the terminal width', () => {
    const line = formatProgress(undefined, { at: 0, stats: stats({}) }, 20);
    expect(line).toBe('0 rec/s · committed…');
  });
});

describe('describeEvent', () => {
  const failed = (errorType: string, errorMessage: string) =>
    describeEvent({
      type: 'invoke',
      requestId: 'r',
      attempt: 1,
      records: 1,
      offsets: { 't2-0': [10, 10] },
      durationMs: 3,
      outcome: 'function-error',
      detail: errorType,
      errorMessage,
    });

  it("shows a function error's message, as Lambda logs it: the function's own words", () => {
    expect(failed('TypeError', "Cannot read properties of undefined (reading 'amount')")).toBe(
      "function-error: TypeError: Cannot read properties of undefined (reading 'amount') (attempt 1; t2-0@10)",
    );
    // An init error under --watch: the message says what is wrong with the module.
    expect(failed('Runtime.UserCodeSyntaxError', "SyntaxError: Unexpected token ';'")).toBe(
      "function-error: Runtime.UserCodeSyntaxError: SyntaxError: Unexpected token ';' (attempt 1; t2-0@10)",
    );
    // process.exit: its status, without the request id Lambda prefixes.
    expect(
      failed(
        'Runtime.ExitError',
        'RequestId: 0f8e2c1a-5b7d-4e3f-9a61-2d4c8b7e1f00 Error: Runtime exited with error: exit status 3',
      ),
    ).toBe(
      'function-error: Runtime.ExitError: Runtime exited with error: exit status 3 (attempt 1; t2-0@10)',
    );
    expect(failed('Error', 'first line\n  second line')).toBe(
      'function-error: Error: first line second line (attempt 1; t2-0@10)',
    );
    expect(failed('Error', 'x'.repeat(2_000))).toBe(
      `function-error: Error: ${'x'.repeat(499)}… (attempt 1; t2-0@10)`,
    );
    expect(failed('Error', '')).toBe('function-error: Error (attempt 1; t2-0@10)');
  });

  describe('with trace: true', () => {
    /** The second attempt of orders-0@10..12 failed with `errorType`, and `trace` if given. */
    const failure = (
      errorMessage: string,
      trace: string[] | undefined,
      errorType = 'TypeError',
    ): MappingEvent => ({
      type: 'invoke',
      requestId: 'r',
      attempt: 2,
      records: 3,
      offsets: { 'orders-0': [10, 12] },
      durationMs: 3,
      outcome: 'function-error',
      detail: errorType,
      errorMessage,
      ...(trace ? { trace } : {}),
    });
    const threw = (errorMessage: string, trace: string[] | undefined, errorType = 'TypeError') =>
      describeEvent(failure(errorMessage, trace, errorType), { trace: true });

    it("puts the trace's frames under the failure's line, indented, as the function's log gives them", () => {
      expect(
        threw("Cannot read properties of undefined (reading 'amount')", [
          "TypeError: Cannot read properties of undefined (reading 'amount')",
          '    at handler (file:///app/functions/orders/handler.ts:12:31)',
          '    at invoke (file:///app/node_modules/kafka-lambda/lib/lambda-runtime/sandbox-worker.ts:85:20)',
        ]),
      ).toBe(
        [
          "function-error: TypeError: Cannot read properties of undefined (reading 'amount') (attempt 2; orders-0@10..12)",
          '    at handler (file:///app/functions/orders/handler.ts:12:31)',
          '    at invoke (file:///app/node_modules/kafka-lambda/lib/lambda-runtime/sandbox-worker.ts:85:20)',
        ].join('\n'),
      );
    });

    it("leaves out the trace's header, whatever its lines look like: the message may quote a record", () => {
      const message = 'Unexpected token \'c\', "card=41111"... is not valid JSON';
      const shown = threw(
        message,
        [`SyntaxError: ${message}`, '    at JSON.parse (<anonymous>)'],
        'SyntaxError',
      );
      expect(shown).not.toContain('41111');
      expect(shown).toMatch(/\n {4}at JSON\.parse \(<anonymous>\)$/);
      // A message of several lines, one of them reading like a frame.
      const quoting = 'bad record\n  at {"card":"41111"}';
      const lines = threw(quoting, [
        'TypeError: bad record',
        '  at {"card":"41111"}',
        '    at handler (file:///app/handler.ts:3:9)',
      ])!.split('\n');
      expect(lines.slice(1)).toEqual(['    at handler (file:///app/handler.ts:3:9)']);
    });

    it('shows ten frames at most, then how many more there were', () => {
      const frames = Array.from({ length: 13 }, (_, i) => `    at f${i} (file:///app/handler.ts:${i + 1}:1)`);
      const lines = threw('deep', ['TypeError: deep', ...frames])!.split('\n');
      expect(lines).toHaveLength(12);
      expect(lines[10]).toBe('    at f9 (file:///app/handler.ts:10:1)');
      expect(lines[11]).toBe('    … 3 more frames');
    });

    it('is the one line without a trace, and without the option', () => {
      const line = 'function-error: TypeError: boom (attempt 2; orders-0@10..12)';
      expect(threw('boom', undefined)).toBe(line);
      expect(threw('boom', ['TypeError: boom'])).toBe(line);
      expect(
        describeEvent(failure('boom', ['TypeError: boom', '    at handler (file:///app/handler.ts:3:9)'])),
      ).toBe(line);
    });
  });

  it('describes failures, retries and destination records, and skips routine events', () => {
    expect(
      describeEvent({
        type: 'invoke',
        requestId: 'r',
        attempt: 2,
        records: 10,
        offsets: { 'orders-1': [40, 49], 'orders-2': [7, 7] },
        durationMs: 3,
        outcome: 'partial',
        failedRecords: 3,
      }),
    ).toBe('partial failure: 3 of 10 records reported (attempt 2; orders-1@40..49 orders-2@7)');
    // A JSON.parse error's message quotes the text parsed (a record): withheld, as the middleware logs it.
    expect(
      describeEvent({
        type: 'invoke',
        requestId: 'r',
        attempt: 1,
        records: 1,
        offsets: { 'orders-0': [0, 0] },
        durationMs: 3,
        outcome: 'function-error',
        detail: 'SyntaxError',
        errorMessage: 'Unexpected token \'c\', "card=41111"... is not valid JSON',
      }),
    ).toBe(
      'function-error: SyntaxError: JSON.parse failed (its message is withheld: it quotes the text parsed) (attempt 1; orders-0@0)',
    );
    expect(
      describeEvent({
        type: 'retry',
        attempt: 1,
        records: 3,
        fromOffsets: { 'orders-1': 47 },
        reason: 'partial',
      }),
    ).toBe('retry 1 (partial) of 3 records from orders-1@47');
    // A split is not a retry: it says how the batch was split and how many of its retries are used.
    expect(
      describeEvent({
        type: 'bisect',
        records: 9,
        halves: [5, 4],
        fromOffsets: { 'orders-0': 10, 'orders-1': 3 },
        retriesUsed: 1,
        retryLimit: 3,
      }),
    ).toBe('bisect: 9 records from orders-0@10 orders-1@3 split into 5 + 4; retries used 1 of 3');
    expect(
      describeEvent({
        type: 'bisect',
        records: 2,
        halves: [1, 1],
        fromOffsets: { 'orders-0': 4 },
        retriesUsed: 0,
        retryLimit: Number.POSITIVE_INFINITY,
      }),
    ).toBe('bisect: 2 records from orders-0@4 split into 1 + 1; retries used 0 (no limit)');
    expect(
      describeEvent({
        type: 'destination',
        partition: 'orders-1',
        offset: 47,
        condition: 'RetryAttemptsExhausted',
        dropped: false,
      }),
    ).toBe('orders-1@47 → on-failure destination (RetryAttemptsExhausted)');
    // No destination configured: the record is dropped, and the line must not claim it was sent.
    expect(
      describeEvent({
        type: 'destination',
        partition: 'orders-1',
        offset: 48,
        condition: 'SCHEMA_NOT_FOUND',
        dropped: 'no-destination',
      }),
    ).toBe('orders-1@48 dropped: no on-failure destination is configured (SCHEMA_NOT_FOUND)');
    expect(
      describeEvent({
        type: 'destination',
        partition: 'orders-1',
        offset: 49,
        condition: 'RetryAttemptsExhausted',
        dropped: 'delivery-failed',
      }),
    ).toBe('orders-1@49 dropped: delivery to the on-failure destination failed (RetryAttemptsExhausted)');
    expect(describeEvent({ type: 'commit', offsets: { 'orders-1': 50 } })).toBeUndefined();
    expect(
      describeEvent({
        type: 'invoke',
        requestId: 'r',
        attempt: 1,
        records: 1,
        offsets: {},
        durationMs: 1,
        outcome: 'success',
      }),
    ).toBeUndefined();
  });
});
