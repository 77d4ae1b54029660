import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../../test/support/run-cli.ts';
import { USAGE_EXIT_CODE } from '../usage.ts';

describe('kafka-lambda sqs start', { timeout: 60_000 }, () => {
  it.each([
    ['bad name!', /not an SQS queue name/],
    ['orders.fifo', /FIFO queues are not supported/],
  ])('--queue %j is a usage error naming the queue, before any server starts', async (queue, problem) => {
    const cache = await mkdtemp(join(tmpdir(), 'kafka-lambda-sqs-usage-'));
    try {
      const run = await runCli(['sqs', 'start', '--queue', 'ok', queue], {
        env: { KAFKA_LAMBDA_CACHE: cache },
      });
      expect(run.code).toBe(USAGE_EXIT_CODE);
      expect(run.stderr).toContain(`argument '${queue}' is invalid`);
      expect(run.stderr).toMatch(problem);
      expect(await readdir(cache)).toEqual([]);
    } finally {
      await rm(cache, { recursive: true, force: true });
    }
  });
});
