import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stageIntoCache } from './jars.ts';

describe('stageIntoCache', () => {
  let cache: string;
  beforeEach(async () => {
    cache = await mkdtemp(join(tmpdir(), 'kafka-lambda-stage-'));
  });
  afterEach(async () => {
    await rm(cache, { recursive: true, force: true });
  });

  /** Fills the staging folder after `ms` with a file naming `who`, as a slow download would. */
  const build = (who: string, ms: number) => async (staging: string) => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    await writeFile(join(staging, 'app.jar'), who);
    return staging;
  };

  it('two builds at once: one complete folder, the other build discarded, no staging folder left', async () => {
    const dir = join(cache, 'app', '1');
    const isComplete = () => existsSync(join(dir, 'app.jar'));
    await Promise.all([
      stageIntoCache(dir, isComplete, build('first', 200)),
      stageIntoCache(dir, isComplete, build('second', 400)),
    ]);
    expect(await readdir(join(cache, 'app'))).toEqual(['1']);
    expect(await readFile(join(dir, 'app.jar'), 'utf8')).toBe('first');
  });

  it('a failed build leaves nothing behind and its error unchanged', async () => {
    const dir = join(cache, 'app', '1');
    const failure = new Error('Could not transfer artifact');
    const attempt = stageIntoCache(
      dir,
      () => false,
      async () => {
        throw failure;
      },
    );
    await expect(attempt).rejects.toBe(failure);
    expect(await readdir(join(cache, 'app'))).toEqual([]);
  });

  it('an install killed by a signal (no finally ran) leaves a staging folder the next install deletes', async () => {
    const dir = join(cache, 'app', '1');
    const jars = fileURLToPath(new URL('./jars.ts', import.meta.url));
    // A build that never ends, in a process killed with SIGKILL once its staging folder exists.
    const script = `const { stageIntoCache } = await import(${JSON.stringify(jars)});
      await stageIntoCache(${JSON.stringify(dir)}, () => false, () => new Promise(() => console.log('building')));`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise((resolve) => child.stdout.once('data', resolve));
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    expect(await readdir(join(cache, 'app'))).toEqual([expect.stringMatching(/^1\.staging-\d+-/)]);

    await stageIntoCache(dir, () => existsSync(join(dir, 'app.jar')), build('next', 0));
    expect(await readdir(join(cache, 'app'))).toEqual(['1']);
  });

  it("leaves a live install's staging folder alone; one without a pid (older layout) goes once an hour old", async () => {
    const dir = join(cache, 'app', '1');
    const live = join(cache, 'app', `1.staging-${process.ppid}-abc123`);
    const fresh = join(cache, 'app', '1.staging-Xy12ab');
    const old = join(cache, 'app', '1.staging-Zz34cd');
    for (const folder of [live, fresh, old]) await mkdir(folder, { recursive: true });
    const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60_000);
    await utimes(old, twoHoursAgo, twoHoursAgo);
    await stageIntoCache(dir, () => existsSync(join(dir, 'app.jar')), build('next', 0));
    expect((await readdir(join(cache, 'app'))).sort()).toEqual(
      ['1', '1.staging-Xy12ab', `1.staging-${process.ppid}-abc123`].sort(),
    );
  });
});
