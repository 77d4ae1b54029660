import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BrokerPrerequisiteError } from './errors.ts';
import { assertJava17, resolveBrokerJars, usesLog4j2 } from './jars.ts';
import { commandOutput } from './process.ts';

describe('broker prerequisites', () => {
  const saved = { path: process.env.PATH, cache: process.env.KAFKA_LAMBDA_CACHE };
  let bin: string;
  beforeEach(async () => {
    bin = await mkdtemp(join(tmpdir(), 'kafka-lambda-path-'));
  });
  afterEach(async () => {
    process.env.PATH = saved.path;
    if (saved.cache === undefined) delete process.env.KAFKA_LAMBDA_CACHE;
    else process.env.KAFKA_LAMBDA_CACHE = saved.cache;
    await rm(bin, { recursive: true, force: true });
  });

  it('names what is missing when there is no Java', async () => {
    process.env.PATH = bin;
    await expect(assertJava17()).rejects.toThrow(
      new BrokerPrerequisiteError(
        'Java 17+ and Maven are needed for the embedded broker; or set KAFKA_BROKERS=host:port to use your own',
      ),
    );
  });

  it('names what is missing when Java is there but Maven is not and the jars are not cached yet', async () => {
    const java = (await commandOutput('sh', ['-c', 'command -v java']))?.trim();
    expect(java).toBeTruthy();
    await symlink(java!, join(bin, 'java'));
    process.env.PATH = bin;
    process.env.KAFKA_LAMBDA_CACHE = bin;
    const attempt = resolveBrokerJars('3.9.2');
    await expect(attempt).rejects.toBeInstanceOf(BrokerPrerequisiteError);
    await expect(attempt).rejects.toThrow(/Java 17\+ and Maven are needed/);
  });

  it('picks log4j2 from Kafka 4 on', () => {
    expect([usesLog4j2('3.9.2'), usesLog4j2('4.1.1'), usesLog4j2('10.0.0')]).toEqual([false, true, true]);
  });
});
