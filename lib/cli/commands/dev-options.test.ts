// dev's schema-registry and filter flags are checked when parsed: a usage error (exit 2) before any broker starts.
import { describe, expect, it } from 'vitest';
import { runCli } from '../../../test/support/run-cli.ts';

describe('kafka-lambda dev flags', () => {
  it.each([
    [['--filter', '{not json'], /--filter.*not JSON: give FilterCriteria/],
    [
      ['--schema-registry', 'http://127.0.0.1:1', '--schema-validation', 'KEY,BODY'],
      /"BODY" is not KEY or VALUE/,
    ],
    [['--schema-registry', 'http://127.0.0.1:1', '--event-record-format', 'AVRO'], /--event-record-format/],
  ])(
    '%j is a usage error',
    async (flags, message) => {
      const run = await runCli(['dev', 'functions/orders/handler.ts', '--topic', 'orders', ...flags]);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(message);
    },
    60_000,
  );
});
