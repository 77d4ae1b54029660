import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { JavaOrMavenMissingError, MavenResolveError, MavenServerError } from './errors.ts';
import { resolveMavenClasspath } from './jars.ts';

describe('maven-server errors', () => {
  const saved = process.env.PATH;
  let dir: string | undefined;
  afterEach(async () => {
    process.env.PATH = saved;
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('every error is a MavenServerError, named after its class, keeping its cause', () => {
    const cause = new Error('spawn mvn ENOENT');
    for (const error of [
      new MavenServerError('x', { cause }),
      new JavaOrMavenMissingError('x', undefined, { cause }),
      new MavenResolveError('x', { cause }),
    ]) {
      expect(error).toBeInstanceOf(MavenServerError);
      expect(error.cause).toBe(cause);
      expect(error.name).toBe(error.constructor.name);
    }
  });

  it('resolving without Java names what is missing', async () => {
    dir = await mkdtemp(join(tmpdir(), 'kafka-lambda-no-java-'));
    process.env.PATH = dir;
    const attempt = resolveMavenClasspath({ name: 'Nothing 1', cacheDir: join(dir, 'cache'), pom: '' });
    await expect(attempt).rejects.toBeInstanceOf(JavaOrMavenMissingError);
    await expect(attempt).rejects.toThrow('Java (java) is not on PATH');
  });
});
