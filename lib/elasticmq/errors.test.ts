import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { JavaOrMavenMissingError } from '../maven-server/index.ts';
import { ElasticMqError, ElasticMqPrerequisiteError, ElasticMqStartError } from './errors.ts';
import { resolveElasticMqJars } from './jars.ts';

describe('ElasticMQ errors', () => {
  const saved = { path: process.env.PATH, cache: process.env.KAFKA_LAMBDA_CACHE };
  let dir: string | undefined;
  afterEach(async () => {
    process.env.PATH = saved.path;
    if (saved.cache === undefined) delete process.env.KAFKA_LAMBDA_CACHE;
    else process.env.KAFKA_LAMBDA_CACHE = saved.cache;
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('every error is an ElasticMqError, named after its class, keeping its cause', () => {
    const cause = new Error('BindException');
    for (const error of [
      new ElasticMqError('x', { cause }),
      new ElasticMqPrerequisiteError('x', { cause }),
      new ElasticMqStartError('x', 'log tail', { cause }),
    ]) {
      expect(error).toBeInstanceOf(ElasticMqError);
      expect(error.cause).toBe(cause);
      expect(error.name).toBe(error.constructor.name);
    }
  });

  it('without Java: names what the SQS server needs, the shared unit’s finding as the cause', async () => {
    dir = await mkdtemp(join(tmpdir(), 'kafka-lambda-no-java-'));
    process.env.PATH = dir;
    process.env.KAFKA_LAMBDA_CACHE = dir;
    const error = await resolveElasticMqJars().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ElasticMqPrerequisiteError);
    expect((error as Error).message).toBe(
      'Java 17+ and Maven are needed for the local SQS server (ElasticMQ)',
    );
    expect((error as Error).cause).toBeInstanceOf(JavaOrMavenMissingError);
  });
});
