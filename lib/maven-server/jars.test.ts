import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
});
