import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withoutJavaOrCache } from '../../test/support/no-java.ts';
import { JavaOrMavenMissingError, MavenResolveError, MavenServerError } from './errors.ts';
import { resolveMavenClasspath } from './jars.ts';

describe('maven-server errors', () => {
  withoutJavaOrCache();

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
    const cacheDir = join(process.env.KAFKA_LAMBDA_CACHE ?? '', 'nothing', '1');
    const attempt = resolveMavenClasspath({ name: 'Nothing 1', cacheDir, pom: '' });
    await expect(attempt).rejects.toBeInstanceOf(JavaOrMavenMissingError);
    await expect(attempt).rejects.toThrow('Java (java) is not on PATH');
  });
});
