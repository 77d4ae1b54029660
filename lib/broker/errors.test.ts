import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withoutJavaOrCache } from '../../test/support/no-java.ts';
import { JavaOrMavenMissingError } from '../maven-server/index.ts';
import { startBroker } from './broker.ts';
import { BrokerError, BrokerPrerequisiteError, BrokerStartError, TopicMissingError } from './errors.ts';
import { DEFAULT_KAFKA_VERSION, resolveBrokerJars } from './jars.ts';

describe('broker errors', () => {
  withoutJavaOrCache();

  it('every error is a BrokerError, named after its class, keeping its cause', () => {
    const cause = new Error('EADDRINUSE');
    const errors = [
      new BrokerError('x', { cause }),
      new BrokerPrerequisiteError('x', { cause }),
      new BrokerStartError('x', 'log tail', { cause }),
      new TopicMissingError('x', ['orders'], { cause }),
    ];
    expect(errors.map((e) => [e instanceof BrokerError, e.cause, e.name])).toEqual(
      errors.map((e) => [true, cause, e.constructor.name]),
    );
  });

  it('a missing Java is a BrokerPrerequisiteError whose cause is what the shared unit found', async () => {
    const error = await resolveBrokerJars('9.9.9').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BrokerPrerequisiteError);
    expect((error as Error).cause).toBeInstanceOf(JavaOrMavenMissingError);
  });

  it('a start whose Java cannot load a class from the cached jars names the cache folder to delete', async () => {
    // withoutJavaOrCache's empty folder is both PATH and the cache: a Java 17 there, and "cached" jars.
    const empty = process.env.PATH!;
    await writeFile(
      join(empty, 'java'),
      `#!/bin/sh\n[ "$1" = -version ] && { echo 'openjdk version "17.0.9"' >&2; exit 0; }\necho 'Exception in thread "main" java.lang.NoClassDefFoundError: org/apache/kafka/common/Uuid' >&2\nexit 1\n`,
    );
    await chmod(join(empty, 'java'), 0o755);
    process.env.PATH = `${empty}:/usr/bin:/bin`;
    const cached = join(empty, 'kafka', DEFAULT_KAFKA_VERSION);
    await mkdir(join(cached, 'libs'), { recursive: true });
    await writeFile(join(cached, '.complete'), '1 jars\n');
    const error = await startBroker().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BrokerStartError);
    expect((error as Error).message).toContain(
      `Formatting the broker storage failed; its cached jars look damaged (a class or jar could not be read): delete ${cached} and run install again`,
    );
  });
});
