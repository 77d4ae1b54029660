// dev's flags are checked when parsed: a usage error (exit 2) before any broker starts, led by the flag.
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

  // Every setting of the function and the mapping refused when parsed: the message names the flag typed
  // (the emulator's own refusals, named the same way, are in dev.int.test.ts).
  it.each([
    ['--timeout', '900', /must be a number of seconds above 0 and at most 840/],
    ['--timeout', '0', /must be a number of seconds above 0 and at most 840/],
    ['--timeout', 'soon', /must be a number of seconds above 0/],
    ['--memory', '64', /must be an integer from 128 to 10240/],
    ['--window', '301', /must be an integer from 0 to 300/],
    ['--batch-size', '10001', /must be an integer from 1 to 10000/],
    ['--retries', '-2', /must be an integer from -1 to 10000/],
    ['--max-record-age', '604801', /must be an integer from -1 to 604800/],
    ['--min-pollers', '201', /must be an integer from 1 to 200/],
    ['--max-pollers', '2001', /must be an integer from 1 to 2000/],
    ['--starting-position', 'EARLIEST', /Allowed choices are TRIM_HORIZON, LATEST, AT_TIMESTAMP/],
    ['--starting-timestamp', 'yesterday', /must be a number/],
    ['--tombstone-value', 'empty', /Allowed choices are null, absent/],
    ['--redelivery', 'all', /Allowed choices are from-lowest, listed/],
    ['--partitions', '0', /must be an integer from 1 to 1000/],
  ])(
    '%s %s is refused, naming the flag',
    async (flag, value, message) => {
      const run = await runCli(['dev', 'functions/orders/handler.ts', '--topic', 'orders', flag, value]);
      expect(run.code).toBe(2);
      const [first] = run.stderr.split('\n');
      expect(first).toMatch(
        new RegExp(`^error: option '${flag} <[^>]+>' argument '${value}' is invalid\\. `),
      );
      expect(first).toMatch(message);
      // Not the emulator's or LocalFunction's name for it.
      expect(run.stderr).not.toMatch(/timeoutSeconds|memoryLimitInMB|maximum\w+|batchSize/);
    },
    60_000,
  );
});

describe('kafka-lambda dev flags for the other kind of function', () => {
  it.each([
    [['--timeout', '5'], '--timeout sets'],
    [['--memory', '512', '--function-name', 'orders'], '--memory, --function-name set'],
    [['--in-process'], '--in-process sets'],
    [['--dotenv', '.env', '--env-vars', 'env.json'], '--dotenv, --env-vars set'],
  ])(
    'with --invoke, %j is refused: it would be ignored',
    async (flags, named) => {
      const run = await runCli(['dev', '--invoke', 'orders-fn', '--topic', 'orders', ...flags]);
      expect(run.code).toBe(2);
      expect(run.stderr).toBe(
        `kafka-lambda dev: ${named} up a local handler; a function called with --invoke has its own configuration\n`,
      );
    },
    60_000,
  );

  it('with a handler module, --endpoint is refused: it would be ignored', async () => {
    const run = await runCli([
      'dev',
      'functions/orders/handler.ts',
      '--topic',
      'orders',
      '--endpoint',
      'http://127.0.0.1:3001',
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'kafka-lambda dev: --endpoint is the Invoke API of a function given with --invoke; a handler module runs here\n',
    );
  }, 60_000);
});

describe('kafka-lambda dev --help', () => {
  it('shows the defaults and choices, and ends with the exit codes', async () => {
    const run = await runCli(['dev', '--help']);
    expect(run.code).toBe(0);
    // Commander wraps the descriptions: read them as one line each.
    const help = run.stdout.replace(/\n {20,}/g, ' ');
    expect(help).toMatch(/--retries <n> +MaximumRetryAttempts, -1 \(infinite; .*\(default: -1\)\n/);
    expect(help).toMatch(/--max-record-age <seconds> +MaximumRecordAgeInSeconds, .*\(default: -1\)\n/);
    expect(help).toMatch(
      /--starting-position <position> .*\(choices: "TRIM_HORIZON", "LATEST", "AT_TIMESTAMP", default: "TRIM_HORIZON"\)\n/,
    );
    expect(help).toMatch(/--event-record-format <format> .*\(choices: "JSON", "SOURCE", default: "JSON"\)\n/);
    expect(run.stdout).toContain('\nExit codes:\n');
    const codes = run.stdout.slice(run.stdout.indexOf('\nExit codes:\n'));
    expect([...codes.matchAll(/^ {2}(\d+) /gm)].map((match) => match[1])).toEqual(['0', '1', '2', '130']);
    expect(codes).toContain('(143 for SIGTERM, 129 for SIGHUP)');
    // A signal that stops --exit-when-idle early is not 0, which says the run drained.
    expect(codes).toMatch(/0 +stopped: idle with --exit-when-idle, or \(without it\) stopped cleanly by/);
    expect(codes).toMatch(/130 +a Ctrl-C stopped --exit-when-idle before the run was idle/);
    expect(codes).toMatch(/2 +bad usage: .*\n.*--endpoint that accepts no connection, no AWS credentials/);
  });
});
