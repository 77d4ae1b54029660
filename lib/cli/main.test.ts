import { once } from 'node:events';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, spawnCli } from '../../test/support/run-cli.ts';
import { processOutput } from '../maven-server/process.ts';
import { USAGE_EXIT_CODE } from './usage.ts';

// Each case starts a real CLI process, which takes seconds on a loaded machine.
describe('kafka-lambda usage errors', { timeout: 60_000 }, () => {
  it.each([
    [['no-such-command'], /unknown command 'no-such-command'/],
    [['broker', 'no-such-command'], /unknown command 'no-such-command'/],
    [['--no-such-option'], /unknown option '--no-such-option'/],
    [[], /Usage: kafka-lambda/],
  ])('kafka-lambda %j exits 2 and says why', async (args, message) => {
    const run = await runCli(args);
    expect(run.code).toBe(USAGE_EXIT_CODE);
    expect(run.stderr).toMatch(message);
  });

  it('names a bad option value and points to --help without printing the whole usage', async () => {
    const run = await runCli(['replay', '--auth', 'sasl', '--group', 'g', '--topic', 't', '--to-earliest']);
    expect(run.code).toBe(USAGE_EXIT_CODE);
    expect(run.stderr).toMatch(/argument 'sasl' is invalid\. Allowed choices are iam, sasl-scram-512/);
    expect(run.stderr).toContain('(see --help for usage)');
    expect(run.stderr).not.toContain('Options:');
  });

  it.each([
    [
      ['--group', 'a', '--group', 'b', '--topic', 'orders'],
      /one group per replay \(a trigger has one\): got "a" and "b"/,
    ],
    [
      ['--group', 'a', '--topic', 'orders', '--topic', 'payments:0'],
      /one topic per replay .*"orders" and "payments"/,
    ],
  ])('replay refuses a second group or topic instead of keeping the last: %j', async (args, message) => {
    const run = await runCli(['replay', '--brokers', '127.0.0.1:9', ...args, '--to-earliest']);
    expect(run.code).toBe(USAGE_EXIT_CODE);
    expect(run.stderr).toMatch(message);
  });

  it('names a misspelt option rather than the required option it stands for', async () => {
    const run = await runCli(['event', '--topicc', 'orders']);
    expect(run.code).toBe(USAGE_EXIT_CODE);
    expect(run.stderr).toMatch(/^error: unknown option '--topicc'\n\(Did you mean --topic\?\)\n/);
    expect(run.stderr).not.toContain('required option');
  });

  it('escapes the control characters of what it repeats from the command line', async () => {
    const run = await runCli(['event', '--topic', 'orders', '--value', '\x07\x1b[31m{i%0}']);
    expect(run.code).toBe(USAGE_EXIT_CODE);
    expect(run.stderr).toContain("argument '\\u0007\\u001b[31m{i%0}' is invalid");
    expect(run.stderr).not.toMatch(/\p{Cc}(?<!\n)/u);
  });

  it("prints a multi-line error (Maven's output) with its lines, without colour codes", async () => {
    // Java 17 and a Maven that fails as a real one does, in colour.
    const root = await mkdtemp(join(tmpdir(), 'kafka-lambda-main-error-'));
    try {
      await writeFile(join(root, 'java'), '#!/bin/sh\necho \'openjdk version "17.0.9"\' >&2\n');
      await writeFile(
        join(root, 'mvn'),
        '#!/bin/sh\n[ "$1" = --version ] && exit 0\nprintf \'\\033[1;31m[ERROR]\\033[m Failed to read artifact\\n\\033[1;31m[ERROR]\\033[m\\tsee the log\\n\'\nexit 1\n',
      );
      await Promise.all(['java', 'mvn'].map((name) => chmod(join(root, name), 0o755)));
      const run = await runCli(['sqs', 'install'], {
        env: { PATH: `${root}:/usr/bin:/bin`, KAFKA_LAMBDA_CACHE: join(root, 'cache') },
      });
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(
        /^kafka-lambda: Maven could not resolve ElasticMQ [\d.]+ from Maven Central \(exit 1\):\n\[ERROR\] Failed to read artifact\n\[ERROR\]\tsee the log\n$/,
      );
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  // Each command with --json: a usage error, wherever --json is on the line, is its failure object.
  const NOTHING_SENT = { created: false, records: 0, batches: [], partitions: [] };
  it.each([
    [['produce', '--json', '--topic', 't', '--bogus'], "unknown option '--bogus'", NOTHING_SENT],
    [['produce', '--topic', 't', '--count', '0', '--json'], "option '--count <n>' argument '0' is invalid"],
    [['produce', '--json'], "required option '-t, --topic <topic>' not specified", NOTHING_SENT],
    [['consume', '-vt', 't', '--partition', 'x', '--json'], "option '--partition <n>' argument 'x'", {}],
    [['consume', '--json', '--topic', 't', '--offset', '3'], '--offset needs --partition', {}],
    [
      ['replay', '--json', '--auth', 'nope'],
      "option '--auth <type>' argument 'nope' is invalid. Allowed choices are",
      { error: { name: 'ReplayInputError', kind: 'invalid' } },
    ],
    [
      ['replay', '--group', 'g', '--json', '--export'],
      "option '--json' cannot be used with option '--export'",
      { error: { name: 'ReplayInputError', kind: 'invalid' } },
    ],
  ])('kafka-lambda %j prints its {"ok":false} object on stdout, exit 2', async (args, message, more = {}) => {
    const run = await runCli(args);
    expect(run.code).toBe(USAGE_EXIT_CODE);
    const printed = JSON.parse(run.stdout) as { ok: boolean; error: { message: string } };
    expect(printed).toMatchObject({ ok: false, ...more });
    expect(printed.error.message).toContain(message);
    expect(printed.error.message).not.toMatch(/^error: /);
    // stderr says it as without --json.
    expect(run.stderr).toContain(message);
  });

  it.each([
    [['produce', '--topic', 't', '--bogus']],
    [['produce', '--topic', 't', '--value', '--json', '--bogus']],
    [['consume', '-t', '--json', '--partition', 'x']],
    [['replay', '--auth', 'nope', '--', '--json']],
  ])('kafka-lambda %j, without --json (or with it as a value), prints nothing on stdout', async (args) => {
    const run = await runCli(args);
    expect(run).toMatchObject({ code: USAGE_EXIT_CODE, stdout: '' });
    expect(run.stderr).toMatch(/^error: /);
  });

  it('--version prints the package version', async () => {
    const { version } = JSON.parse(await readFile('package.json', 'utf8')) as { version: string };
    const run = await runCli(['--version']);
    expect(run).toMatchObject({ code: 0, stdout: `${version}\n` });
  });

  it('ends quietly, exit 0, when the reader of its output goes away (| head)', async () => {
    const child = spawnCli(['event', '--topic', 'orders', '--count', '10000']);
    child.stdin.end();
    const output = processOutput(child);
    await once(child.stdout, 'data');
    child.stdout.destroy();
    const { code, stderr } = await output;
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });

  it('--help lists every command', async () => {
    const run = await runCli(['--help']);
    expect(run.code).toBe(0);
    const listed = [...run.stdout.matchAll(/^ {2}(\w+)/gm)].map((match) => match[1]);
    expect(listed).toEqual([
      'broker',
      'consume',
      'dev',
      'event',
      'init',
      'invoke',
      'produce',
      'registry',
      'replay',
      'sqs',
      'help',
    ]);
  });

  it('--help still exits 0', async () => {
    const run = await runCli(['broker', '--help']);
    expect(run).toMatchObject({ code: 0, stdout: expect.stringContaining('Usage: kafka-lambda broker') });
  });
});

// Every module the process resolves, printed to stderr at exit by a resolve hook given through NODE_OPTIONS.
const MODULE_LIST_HOOK = `import { registerHooks } from 'node:module';
const loaded = [];
registerHooks({ resolve: (specifier, context, next) => { const result = next(specifier, context); loaded.push(result.url); return result; } });
process.on('exit', () => process.stderr.write('\\nloaded modules: ' + JSON.stringify(loaded)));`;

describe('kafka-lambda start-up', { timeout: 60_000 }, () => {
  it.each([[['invoke', '--help']], [['event', '--help']]])(
    'kafka-lambda %j loads neither kafkajs nor the AWS SDK: commands are imported when named',
    async (args) => {
      const run = await runCli(args, {
        env: { NODE_OPTIONS: `--import=data:text/javascript,${encodeURIComponent(MODULE_LIST_HOOK)}` },
      });
      expect(run.code).toBe(0);
      const loaded = JSON.parse(/loaded modules: (.*)$/.exec(run.stderr)![1]!) as string[];
      expect(loaded.some((url) => url.endsWith(`/lib/cli/commands/${args[0]}.ts`))).toBe(true);
      expect(loaded.filter((url) => /\/node_modules\/(kafkajs|@aws-sdk)\//.test(url))).toEqual([]);
    },
  );
});
