import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describedOrders } from '../../../test/support/described.ts';
import { runCli } from '../../../test/support/run-cli.ts';
import { kafkaEvent } from '../../testing/event-builder.ts';

const fixtures = 'test/support/handlers/handlers.ts';
const sandboxFixtures = 'test/support/handlers/sandbox-handlers.ts';
const sample = 'test/events/self-managed-events.json';
const summaryOf = (stderr: string) => stderr.trimEnd().split('\n').at(-1);

/** The lines Lambda's runtime writes at an invocation's end, by their start, in order. */
function lambdaLines(stderr: string): string[] {
  return stderr
    .split('\n')
    .map(
      (line) =>
        /^(ERROR\t(?:Invoke Error|Uncaught Exception|Unhandled Promise Rejection)|Runtime\.ExitError|END|REPORT|Task timed out)\b/.exec(
          line,
        )?.[1],
    )
    .filter((start): start is string => start !== undefined);
}

describe('kafka-lambda invoke', { timeout: 60_000 }, () => {
  it('prints only the response on stdout: the failing record and the later records of its partition', async () => {
    const event = kafkaEvent({
      topic: 'order-events',
      partitions: 3,
      startOffset: 40,
      records: ['ok', 'ok', 'ok', 'ok', 'fail', 'ok', 'ok', 'ok', 'ok'].map((value) => ({ value })),
    });
    const run = await runCli(['invoke', fixtures, '--event', '-'], { input: JSON.stringify(event) });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      batchItemFailures: [
        { itemIdentifier: { partition: 'order-events-1', offset: 41 } },
        { itemIdentifier: { partition: 'order-events-1', offset: 42 } },
      ],
    });
    expect(run.stdout.endsWith('}\n')).toBe(true);
    expect(summaryOf(run.stderr)).toMatch(
      /^\[invoke\] partial failure: 9 records in 3 partitions, 2 reported failed \(order-events-1: 41-42\); [\d.]+ ms$/,
    );
  });

  it('sends everything the handler prints to stderr, keeping stdout for the response', async () => {
    const run = await runCli(['invoke', `${fixtures}#chatty`, '--event', sample]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('{"batchItemFailures":[]}\n');
    expect(run.stderr).toContain('log line\ninfo line\nwarn line\nerror line\ndirect stdout write\n');
    expect(summaryOf(run.stderr)).toMatch(
      /^\[invoke\] success: 5 records in 3 partitions, none reported failed; /,
    );
  });

  it('prints null for a handler that returns nothing', async () => {
    const run = await runCli(['invoke', `${fixtures}#returnsNothing`, '--event', sample]);
    expect(run).toMatchObject({ code: 0, stdout: 'null\n' });
  });

  it('gives the handler a Lambda-like context and environment from the options', async () => {
    const run = await runCli(
      [
        'invoke',
        `${fixtures}#describe`,
        '--event',
        sample,
        '--function-name',
        'orders',
        '--memory',
        '512',
        '--timeout',
        '2',
      ],
      // This shell's time zone is not the function's: Lambda runs functions in UTC.
      { env: { TZ: 'America/New_York', AWS_REGION: 'eu-west-1' } },
    );
    expect(run.code).toBe(0);
    const seen = JSON.parse(run.stdout);
    const REFERENCE = `${fixtures}#describe`;
    expect(seen).toEqual(describedOrders(REFERENCE, 'SelfManagedKafka', seen, 0));
    expect(seen.remainingMs).toBeGreaterThan(1_500);
    expect(seen.remainingMs).toBeLessThanOrEqual(2_000);
  });

  it('gives the function the variables of --dotenv and --env-vars (SAM form: Parameters, then the function), and their TZ', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'invoke-env-'));
    try {
      await writeFile(join(dir, '.env'), 'STAGE=from-env-file\nTABLE=from-env-file\nTZ=Asia/Tokyo\n');
      await writeFile(
        join(dir, 'env.json'),
        JSON.stringify({
          Parameters: { STAGE: 'dev', TABLE: 'shared' },
          orders: { TABLE: 'orders-local' },
          other: { TABLE: 'x' },
        }),
      );
      for (const mode of [[], ['--in-process']]) {
        const run = await runCli([
          'invoke',
          `${fixtures}#environment`,
          '--event',
          sample,
          '--function-name',
          'orders',
          '--dotenv',
          join(dir, '.env'),
          '--env-vars',
          join(dir, 'env.json'),
          ...mode,
        ]);
        expect(run.code).toBe(0);
        expect(JSON.parse(run.stdout)).toEqual({
          STAGE: 'dev',
          TABLE: 'orders-local',
          TZ: 'Asia/Tokyo',
          utcOffsetMinutes: -540,
        });
      }
      await writeFile(join(dir, 'bad.json'), JSON.stringify({ STAGE: 'dev', orders: { TABLE: 't' } }));
      const bad = await runCli(['invoke', fixtures, '--event', sample, '--env-vars', join(dir, 'bad.json')]);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/--env-vars .*bad\.json mixes variables and objects/);
      // Node.js claims its own --env-file (a missing file ends it before the CLI runs): ours is --dotenv.
      const missing = await runCli([
        'invoke',
        fixtures,
        '--event',
        sample,
        '--dotenv',
        join(dir, 'none.env'),
      ]);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toMatch(/error: --dotenv .*none\.env: ENOENT/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it.each([[[] as string[]], [['--in-process']]])(
    "reports a module failing in its init phase as the function's error, as Lambda does (exit 1) %j",
    async (mode) => {
      const run = await runCli([
        'invoke',
        'test/support/handlers/init-throws.ts',
        '--event',
        sample,
        ...mode,
      ]);
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain(
        'ERROR\tUncaught Exception \t{"errorType":"Error","errorMessage":"ORDERS_TABLE is not set","stack":["Error: ORDERS_TABLE is not set"',
      );
      expect(summaryOf(run.stderr)).toMatch(
        /^\[invoke\] error: 5 records in 3 partitions, the module's init failed: Error: ORDERS_TABLE is not set \(Lambda retries the whole batch\)/,
      );
    },
  );

  it('reports a function timeout like Lambda and exits 124, even though the handler never settles', async () => {
    const run = await runCli(['invoke', `${fixtures}#hangs`, '--event', sample, '--timeout', '0.5']);
    expect(run.code).toBe(124);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('Task timed out after 0.50 seconds\n');
    expect(summaryOf(run.stderr)).toMatch(/^\[invoke\] timeout: 5 records in 3 partitions, no response/);
    expect(run.ms).toBeGreaterThanOrEqual(500);
    // As Lambda logs it: the timeout, then END, then REPORT.
    expect(lambdaLines(run.stderr)).toEqual(['Task timed out', 'END', 'REPORT']);
  });

  it('names the export it looked for in a module with none of that name (exit 2)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'invoke-default-'));
    try {
      await writeFile(join(dir, 'def.mjs'), 'export default async () => ({ batchItemFailures: [] });\n');
      for (const mode of [[], ['--in-process']]) {
        const run = await runCli(['invoke', join(dir, 'def.mjs'), '--event', sample, ...mode]);
        expect(run.code).toBe(2);
        expect(run.stderr).toContain(`error: ${join(dir, 'def.mjs')}#handler is undefined or not exported\n`);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('logs an error line, END and REPORT in the order Lambda writes them', async () => {
    const thrown = await runCli(['invoke', `${fixtures}#throws`, '--event', sample]);
    expect(lambdaLines(thrown.stderr)).toEqual(['ERROR\tInvoke Error', 'END', 'REPORT']);
    const succeeded = await runCli(['invoke', fixtures, '--event', sample]);
    expect(lambdaLines(succeeded.stderr)).toEqual(['END', 'REPORT']);
    const ids = succeeded.stderr.match(/^(?:END|REPORT) RequestId: ([0-9a-f-]{36})/gm)!;
    expect(new Set(ids.map((line) => line.split(' ')[2])).size).toBe(1);
  });

  it("prints a thrown error's type and message like Lambda and exits 1", async () => {
    const run = await runCli(['invoke', `${fixtures}#throws`, '--event', sample]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    const line = run.stderr.split('\n').find((l) => l.startsWith('ERROR\tInvoke Error \t'));
    expect(JSON.parse(line!.split('\t')[2]!)).toEqual({
      errorType: 'OrderRejectedError',
      errorMessage: 'order o-7 rejected',
      stack: expect.arrayContaining([expect.stringMatching(/^OrderRejectedError: order o-7 rejected/)]),
    });
    expect(summaryOf(run.stderr)).toMatch(
      /^\[invoke\] error: 5 records in 3 partitions, OrderRejectedError: order o-7 rejected/,
    );
  });

  it.each([[[] as string[]], [['--in-process']]])(
    'fails a response above Lambda’s 6 MB limit as Lambda does: Function.ResponseSizeTooLarge, exit 1 (%j)',
    async (flags) => {
      const dir = await mkdtemp(join(tmpdir(), 'kafka-lambda-invoke-large-'));
      try {
        const handler = join(dir, 'large.mjs');
        await writeFile(
          handler,
          "export const handler = async () => ({ batchItemFailures: [], debug: 'x'.repeat(7e6) });\n",
        );
        const run = await runCli(['invoke', handler, '--event', sample, ...flags]);
        expect(run.code).toBe(1);
        expect(run.stdout).toBe('');
        const line = run.stderr.split('\n').find((l) => l.startsWith('ERROR\tInvoke Error \t'));
        expect(JSON.parse(line!.split('\t')[2]!)).toEqual({
          errorType: 'Function.ResponseSizeTooLarge',
          errorMessage: 'Response payload size exceeded maximum allowed payload size (6291556 bytes).',
          stack: [],
        });
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  );

  it.each([[[] as string[]], [['--in-process']]])(
    'fails a response JSON cannot carry as Lambda does: Runtime.MarshalError, exit 1 (%j)',
    async (flags) => {
      const dir = await mkdtemp(join(tmpdir(), 'kafka-lambda-invoke-circular-'));
      try {
        const handler = join(dir, 'circular.mjs');
        await writeFile(
          handler,
          'export const handler = async () => { const r = { batchItemFailures: [] }; r.self = r; return r; };\n',
        );
        const run = await runCli(['invoke', handler, '--event', sample, ...flags]);
        expect(run.code).toBe(1);
        expect(run.stdout).toBe('');
        const line = run.stderr.split('\n').find((l) => l.startsWith('ERROR\tInvoke Error \t'));
        expect(JSON.parse(line!.split('\t')[2]!)).toEqual({
          errorType: 'Runtime.MarshalError',
          errorMessage: expect.stringMatching(
            /^Unable to marshal response: Converting circular structure to JSON/,
          ),
          stack: [],
        });
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  );

  it('fails the invocation on a promise rejection nobody handles, as the Lambda runtime does', async () => {
    const run = await runCli(['invoke', `${fixtures}#forgetsRejection`, '--event', sample]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(summaryOf(run.stderr)).toContain(
      'Runtime.UnhandledPromiseRejection: TypeError: nobody awaited me',
    );
  });

  it('exits once the handler has responded, whatever it left running', async () => {
    const run = await runCli(['invoke', `${fixtures}#leavesTimer`, '--event', sample]);
    expect(run).toMatchObject({ code: 0, stdout: '{"batchItemFailures":[]}\n' });
  });

  it('exits 3 on a response Lambda would reject, still printing it', async () => {
    const run = await runCli(['invoke', `${fixtures}#stringIdentifiers`, '--event', sample]);
    expect(run.code).toBe(3);
    expect(JSON.parse(run.stdout)).toEqual({ batchItemFailures: [{ itemIdentifier: 'click-stream-0-0' }] });
    expect(summaryOf(run.stderr)).toMatch(
      /^\[invoke\] rejected response: 5 records in 3 partitions; batchItemFailures\[0\]\.itemIdentifier must be an object/,
    );
  });

  it('runs events whose records keys disagree with their records', async () => {
    const run = await runCli(['invoke', fixtures, '--event', 'test/events/msk-map-key-mismatch.json']);
    expect(run).toMatchObject({ code: 0, stdout: '{"batchItemFailures":[]}\n' });
  });

  it.each([
    [['invoke', fixtures], /required option '-e, --event <file>' not specified/],
    [
      ['invoke', fixtures, '--event', 'test/events/nope.json'],
      /error: cannot read the event from test\/events\/nope\.json: ENOENT/,
    ],
    [
      ['invoke', fixtures, '--event', 'package.json'],
      /error: package\.json: not a valid Kafka event: eventSource: /,
    ],
    [['invoke', fixtures, '--event', 'README.md'], /error: the event in README\.md is not JSON/],
    [
      ['invoke', `${fixtures}#notAFunction`, '--event', sample],
      /error: test\/support\/handlers\/handlers\.ts#notAFunction is not a function/,
    ],
    [
      ['invoke', 'test/support/handlers/missing.ts', '--event', sample],
      /error: Cannot find module test\/support\/handlers\/missing\.ts/,
    ],
    [
      ['invoke', fixtures, '--event', sample, '--timeout', '900'],
      /'-t, --timeout <seconds>' argument '900' is invalid\. must be a number of seconds above 0 and at most 840/,
    ],
    [['invoke', fixtures, '--event', sample, '--timeout', '0'], /argument '0' is invalid/],
    [
      ['invoke', fixtures, '--event', sample, '--memory', '64'],
      /'--memory <MB>' argument '64' is invalid\. must be an integer from 128 to 10240/,
    ],
  ])('exits 2 on bad usage: %j', async (args, message) => {
    const run = await runCli(args);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(message);
  });

  it('stops a handler stuck in a synchronous loop at its timeout (exit 124)', async () => {
    const run = await runCli([
      'invoke',
      `${sandboxFixtures}#spinsForever`,
      '--event',
      sample,
      '--timeout',
      '1',
    ]);
    expect(run.code).toBe(124);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('Task timed out after 1.00 seconds\n');
  }, 60_000);

  it('reports a timeout in process too when the handler held the thread past it and then answered (exit 124)', async () => {
    const run = await runCli([
      'invoke',
      `${fixtures}#spinsThenAnswers`,
      '--event',
      sample,
      '--timeout',
      '0.5',
      '--in-process',
    ]);
    expect(run.code).toBe(124);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('Task timed out after 0.50 seconds\n');
  }, 60_000);

  it('bounds the module loading: a top-level await that never settles times out (init 10 s, retried within --timeout)', async () => {
    const run = await runCli([
      'invoke',
      'test/support/handlers/init-never-settles.ts',
      '--event',
      sample,
      '--timeout',
      '2',
    ]);
    expect(run.code).toBe(124);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('Task timed out after 2.00 seconds\n');
    expect(run.ms).toBeGreaterThanOrEqual(12_000);
  }, 90_000);

  it('shows the cold start in a Lambda-like REPORT line', async () => {
    const run = await runCli(['invoke', fixtures, '--event', sample, '--memory', '256']);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(
      /^REPORT RequestId: [0-9a-f-]{36}\tDuration: [\d.]+ ms\tMemory Size: 256 MB\tInit Duration: [\d.]+ ms$/m,
    );
  });

  describe.each([
    ['in a sandbox', []],
    ['in-process', ['--in-process']],
  ])('%s', (_, mode) => {
    const invoke = (handler: string) => runCli(['invoke', handler, '--event', sample, ...mode]);
    const invokeError = (stderr: string) =>
      JSON.parse(
        stderr
          .split('\n')
          .find((l) => /^ERROR\t(Invoke Error|Unhandled Promise Rejection) \t/.test(l))!
          .split('\t')[2]!,
      );

    it('reports a process.exit(0) as Runtime.ExitError and exits 1', async () => {
      const run = await invoke(`${sandboxFixtures}#exits`);
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      // The runtime is gone and logs nothing: Lambda's own line, then the error type, then END.
      expect(run.stderr).toMatch(
        /^RequestId: ([0-9a-f-]{36}) Error: Runtime exited with error: exit status 0\nRuntime\.ExitError\nEND RequestId: \1$/m,
      );
      expect(run.stderr).not.toMatch(/^ERROR\t/m);
      expect(summaryOf(run.stderr)).toMatch(
        /^\[invoke\] error: 5 records in 3 partitions, Runtime\.ExitError: /,
      );
    });

    it('keeps stdout for the response when the handler prints', async () => {
      const run = await invoke(`${sandboxFixtures}#printsToStdout`);
      expect(run).toMatchObject({ code: 0, stdout: '{"batchItemFailures":[]}\n' });
      expect(run.stderr).toContain('log line\ndirect stdout write\nerror line\n');
    });

    it('reports a thrown null-prototype object as the Lambda runtime does', async () => {
      const run = await invoke(`${sandboxFixtures}#throwsNullPrototype`);
      expect(run.code).toBe(1);
      expect(run.stderr).not.toContain('Cannot convert object to primitive value');
      expect(invokeError(run.stderr)).toEqual({
        errorType: 'handled',
        errorMessage:
          'callback called with Error argument, but there was a problem while retrieving one or more of its message, name, and stack',
        stack: [],
      });
    });

    it('reports an unhandled null-prototype rejection as Runtime.UnhandledPromiseRejection', async () => {
      const run = await invoke(`${sandboxFixtures}#rejectsNullPrototypeUnhandled`);
      expect(run.code).toBe(1);
      expect(run.stderr).not.toContain('Cannot convert object to primitive value');
      expect(invokeError(run.stderr)).toMatchObject({ errorType: 'Runtime.UnhandledPromiseRejection' });
    });

    it("reports an unhandled rejection with Lambda's fields, no stack trace from the CLI itself", async () => {
      const run = await invoke(`${fixtures}#forgetsRejection`);
      expect(run.code).toBe(1);
      expect(lambdaLines(run.stderr)).toEqual(['ERROR\tUnhandled Promise Rejection', 'END', 'REPORT']);
      expect(invokeError(run.stderr)).toEqual({
        errorType: 'Runtime.UnhandledPromiseRejection',
        errorMessage: 'TypeError: nobody awaited me',
        stack: ['Runtime.UnhandledPromiseRejection: TypeError: nobody awaited me'],
      });
      expect(run.stderr).not.toMatch(/commands\/invoke\.ts/);
    });
  });

  it('says where an event is not JSON, never quoting it', async () => {
    for (const [input, where] of [
      // V8 names no position for an unexpected token: found without quoting the text.
      [
        '{"records": {"t-0": [{"value": SECRET-PAYLOAD-123}]}}',
        'JSON.parse failed at position 31 (line 1 column 32)',
      ],
      ['{"a":1,\n "b": x}', 'JSON.parse failed at position 14 (line 2 column 7)'],
      [
        '{"records": {"t-0": [{"value": "SECRET-PAYLOAD-123" "headers": []}]}}',
        'JSON.parse failed at position 52 (line 1 column 53)',
      ],
    ]) {
      const run = await runCli(['invoke', fixtures, '--event', '-'], { input });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`error: the event in stdin is not JSON: ${where}`);
      expect(run.stderr).not.toContain('SECRET');
    }
  });

  it('says an empty event is empty, from stdin or a file (exit 2)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kafka-lambda-invoke-empty-'));
    try {
      const file = join(dir, 'event.json');
      await writeFile(file, ' \n');
      for (const [source, input, name] of [
        ['-', '', 'stdin'],
        ['-', '\n\n', 'stdin'],
        [file, undefined, file],
      ] as const) {
        const run = await runCli(
          ['invoke', fixtures, '--event', source],
          input === undefined ? {} : { input },
        );
        expect(run.code).toBe(2);
        expect(run.stderr).toBe(
          `error: the event in ${name} is empty: give a Kafka event as JSON (\`kafka-lambda event\` prints one)\n`,
        );
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('names the wrong field of an invalid event', async () => {
    const event = kafkaEvent({ topic: 'orders', records: [{ value: 'x' }] });
    event.records['orders-0']![0]!.offset = 2 ** 53 + 2;
    const run = await runCli(['invoke', fixtures, '--event', '-'], { input: JSON.stringify(event) });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      'error: stdin: not a valid Kafka event: records["orders-0"][0].offset: is 9007199254740994 as JavaScript reads it, above 2^53 − 1',
    );
  });
});
