import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { JavaOrMavenMissingError } from '../maven-server/index.ts';
import { BrokerError, BrokerPrerequisiteError, BrokerStartError, TopicMissingError } from './errors.ts';
import { resolveBrokerJars } from './jars.ts';

describe('broker errors', () => {
  const saved = { path: process.env.PATH, cache: process.env.KAFKA_LAMBDA_CACHE };
  let dir: string | undefined;
  afterEach(async () => {
    process.env.PATH = saved.path;
    if (saved.cache === undefined) delete process.env.KAFKA_LAMBDA_CACHE;
    else process.env.KAFKA_LAMBDA_CACHE = saved.cache;
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('every error is a BrokerError, named after its class, keeping its cause', () => {
    const cause = new Error('EADDRINUSE');
    for (const error of [
      new BrokerError('x', { cause }),
      new BrokerPrerequisiteError('x', { cause }),
      new BrokerStartError('x', 'log tail', { cause }),
      new TopicMissingError('x', ['orders'], { cause }),
    ]) {
      expect(error).toBeInstanceOf(BrokerError);
      expect(error.cause).toBe(cause);
      expect(error.name).toBe(error.constructor.name);
    }
  });

  it('a missing Java is a BrokerPrerequisiteError whose cause says what the shared unit found', async () => {
    dir = await mkdtemp(join(tmpdir(), 'kafka-lambda-no-java-'));
    process.env.PATH = dir;
    process.env.KAFKA_LAMBDA_CACHE = dir;
    const error = await resolveBrokerJars('9.9.9').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BrokerPrerequisiteError);
    expect((error as Error).cause).toBeInstanceOf(JavaOrMavenMissingError);
  });
});
