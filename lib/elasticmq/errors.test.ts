import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { withoutJavaOrCache } from '../../test/support/no-java.ts';
import { JavaOrMavenMissingError } from '../maven-server/index.ts';
import { ElasticMqError, ElasticMqPrerequisiteError, ElasticMqStartError } from './errors.ts';
import { DEFAULT_ELASTICMQ_VERSION, resolveElasticMqJars } from './jars.ts';
import { startElasticMq } from './server.ts';

describe('ElasticMQ errors', () => {
  withoutJavaOrCache();

  it('every error is an ElasticMqError, named after its class, keeping its cause', () => {
    const cause = new Error('BindException');
    const errors = [
      new ElasticMqError('x', { cause }),
      new ElasticMqPrerequisiteError('x', { cause }),
      new ElasticMqStartError('x', 'log tail', { cause }),
    ];
    expect(errors.map((e) => [e instanceof ElasticMqError, e.cause, e.name])).toEqual(
      errors.map((e) => [true, cause, e.constructor.name]),
    );
  });

  it('without Java: names what the SQS server needs, with the shared unit’s finding as the cause', async () => {
    const error = await resolveElasticMqJars().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ElasticMqPrerequisiteError);
    expect((error as Error).message).toBe(
      'Java 17+ and Maven are needed for the local SQS server (ElasticMQ): Java (java) is not on PATH',
    );
    expect((error as Error).cause).toBeInstanceOf(JavaOrMavenMissingError);
  });

  it('with its jars cached but no Java: says Java is missing before starting anything', async () => {
    const cached = join(process.env.KAFKA_LAMBDA_CACHE!, 'elasticmq', DEFAULT_ELASTICMQ_VERSION);
    await mkdir(join(cached, 'libs'), { recursive: true });
    await writeFile(join(cached, '.complete'), '1 jars\n');
    const error = await startElasticMq().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ElasticMqPrerequisiteError);
    expect((error as Error).message).toMatch(/Java \(java\) is not on PATH$/);
  });
});

describe('ElasticMQ with damaged cached jars', () => {
  const saved = { path: process.env.PATH, cache: process.env.KAFKA_LAMBDA_CACHE };
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'kafka-lambda-damaged-'));
    // A Java 17 whose class loading fails as it does on a truncated jar.
    await mkdir(join(root, 'bin'));
    await writeFile(
      join(root, 'bin', 'java'),
      `#!/bin/sh
[ "$1" = -version ] && { echo 'openjdk version "17.0.9"' >&2; exit 0; }
echo 'Error: Could not find or load main class org.elasticmq.server.Main' >&2
echo 'Caused by: java.lang.ClassNotFoundException: org.elasticmq.server.Main' >&2
exit 1
`,
    );
    await chmod(join(root, 'bin', 'java'), 0o755);
    process.env.PATH = `${join(root, 'bin')}:/usr/bin:/bin`;
    process.env.KAFKA_LAMBDA_CACHE = join(root, 'cache');
  });
  afterEach(async () => {
    process.env.PATH = saved.path;
    if (saved.cache === undefined) delete process.env.KAFKA_LAMBDA_CACHE;
    else process.env.KAFKA_LAMBDA_CACHE = saved.cache;
    await rm(root, { recursive: true, force: true });
  });

  it('a start that dies of a class it cannot load names the cache folder to delete', async () => {
    const cached = join(root, 'cache', 'elasticmq', DEFAULT_ELASTICMQ_VERSION);
    await mkdir(join(cached, 'libs'), { recursive: true });
    await writeFile(join(cached, 'libs', 'elasticmq-server_2.13.jar'), 'PK\x03\x04 truncated');
    await writeFile(join(cached, '.complete'), '1 jars\n');
    const error = await startElasticMq().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ElasticMqStartError);
    expect((error as Error).message).toContain(
      `ElasticMQ died during start-up; its cached jars look damaged (a class or jar could not be read): delete ${cached} and run install again`,
    );
  });
});
