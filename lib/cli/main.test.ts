import { describe, expect, it } from 'vitest';
import { runCli } from '../../test/support/run-cli.ts';
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

  it('--help still exits 0', async () => {
    const run = await runCli(['broker', '--help']);
    expect(run).toMatchObject({ code: 0, stdout: expect.stringContaining('Usage: kafka-lambda broker') });
  });
});
