import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { JavaOrMavenMissingError } from '../maven-server/index.ts';
import { installRegistry, SchemaRegistryServerError } from './server.ts';

describe('the local schema registry server', () => {
  const saved = { path: process.env.PATH, cache: process.env.KAFKA_LAMBDA_CACHE };
  let dir: string | undefined;
  afterEach(async () => {
    process.env.PATH = saved.path;
    if (saved.cache === undefined) delete process.env.KAFKA_LAMBDA_CACHE;
    else process.env.KAFKA_LAMBDA_CACHE = saved.cache;
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('its error is named after its class and keeps its cause', () => {
    const cause = new Error('spawn java ENOENT');
    const error = new SchemaRegistryServerError('x', { cause });
    expect([error.name, error.cause]).toEqual(['SchemaRegistryServerError', cause]);
  });

  it('without Java: names what the registry needs, the shared unit’s finding as the cause', async () => {
    dir = await mkdtemp(join(tmpdir(), 'kafka-lambda-no-java-'));
    process.env.PATH = dir;
    process.env.KAFKA_LAMBDA_CACHE = dir;
    const error = await installRegistry().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SchemaRegistryServerError);
    expect((error as Error).message).toBe('Java 17+ and Maven are needed for the local schema registry');
    expect((error as Error).cause).toBeInstanceOf(JavaOrMavenMissingError);
  });
});
