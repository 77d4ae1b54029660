import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';

/**
 * For each test of the calling `describe` block: `PATH` and `KAFKA_LAMBDA_CACHE` name an empty folder, so
 * there is no Java, no Maven and nothing cached; both are restored afterwards.
 *
 * @example
 * ```ts
 * describe('without Java', () => {
 *   withoutJavaOrCache();
 *   it('says so', async () => { await expect(resolveBrokerJars()).rejects.toThrow(/Java 17\+/); });
 * });
 * ```
 */
export function withoutJavaOrCache(): void {
  const saved = { path: process.env.PATH, cache: process.env.KAFKA_LAMBDA_CACHE };
  let empty: string | undefined;
  beforeEach(async () => {
    empty = await mkdtemp(join(tmpdir(), 'kafka-lambda-no-java-'));
    process.env.PATH = empty;
    process.env.KAFKA_LAMBDA_CACHE = empty;
  });
  afterEach(async () => {
    process.env.PATH = saved.path;
    if (saved.cache === undefined) delete process.env.KAFKA_LAMBDA_CACHE;
    else process.env.KAFKA_LAMBDA_CACHE = saved.cache;
    if (empty) await rm(empty, { recursive: true, force: true });
  });
}
