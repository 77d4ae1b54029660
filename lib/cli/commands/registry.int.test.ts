import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../../test/support/run-cli.ts';
import { isAlive } from '../../maven-server/index.ts';
import { installRegistry } from '../../schema-registry/server.ts';

describe('kafka-lambda registry start|status|stop', () => {
  it('starts one background registry, reports it, and stops it, deleting its run folder', async () => {
    // A cache of its own (the built app linked in): the state file never touches the user's registry.
    const cache = await mkdtemp(join(tmpdir(), 'kafka-lambda-registry-cli-'));
    const env = { KAFKA_LAMBDA_CACHE: cache };
    try {
      await symlink(dirname(await installRegistry()), join(cache, 'schema-registry'));
      const started = await runCli(['registry', 'start'], { env });
      expect(started.code).toBe(0);
      const url = started.stdout.trim();
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/apis\/ccompat\/v7$/);
      const pid = Number(/pid (\d+)/.exec(started.stderr)?.[1]);
      expect(isAlive(pid)).toBe(true);

      const again = await runCli(['registry', 'start'], { env });
      expect(again.stdout.trim()).toBe(url);
      expect(again.stderr).toContain(`already running (pid ${pid})`);
      expect(await runCli(['registry', 'status'], { env })).toMatchObject({
        code: 0,
        stdout: `running ${url} (pid ${pid})\n`,
      });

      const { runDir } = JSON.parse(await readFile(join(cache, 'schema-registry.json'), 'utf8')) as {
        runDir: string;
      };
      expect(existsSync(runDir)).toBe(true);
      expect((await runCli(['registry', 'stop'], { env })).stdout).toBe(`stopped (pid ${pid})\n`);
      expect(isAlive(pid)).toBe(false);
      expect(await runCli(['registry', 'status'], { env })).toMatchObject({ code: 3, stdout: 'stopped\n' });
      expect(existsSync(runDir)).toBe(false);
    } finally {
      await runCli(['registry', 'stop'], { env });
      await rm(cache, { recursive: true, force: true });
    }
  }, 300_000);
});
