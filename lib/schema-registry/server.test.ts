import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withoutJavaOrCache } from '../../test/support/no-java.ts';
import { JavaOrMavenMissingError } from '../maven-server/index.ts';
import { SchemaRegistryError } from './errors.ts';
import { installRegistry, registryCacheDir, SchemaRegistryServerError, startRegistry } from './server.ts';

describe('the local schema registry server', () => {
  withoutJavaOrCache();

  it("its error is one of the module's (SchemaRegistryError), named after its class, keeping its cause", () => {
    const cause = new Error('spawn java ENOENT');
    const error = new SchemaRegistryServerError('x', { cause });
    expect([error instanceof SchemaRegistryError, error.name, error.cause]).toEqual([
      true,
      'SchemaRegistryServerError',
      cause,
    ]);
  });

  it('without Java: names what the registry needs, with the shared unit’s finding as the cause', async () => {
    const error = await installRegistry().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SchemaRegistryServerError);
    expect((error as Error).message).toBe(
      'Java 17+ and Maven are needed for the local schema registry: Java (java) is not on PATH',
    );
    expect((error as Error).cause).toBeInstanceOf(JavaOrMavenMissingError);
  });

  it('built already but no Java: says Java is missing before starting anything', async () => {
    await mkdir(registryCacheDir(), { recursive: true });
    await writeFile(join(registryCacheDir(), 'kafka-lambda-registry-1-runner.jar'), 'PK');
    const error = await startRegistry().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SchemaRegistryServerError);
    expect((error as Error).message).toMatch(/registry: Java \(java\) is not on PATH$/);
  });

  it('a start that dies on a corrupt jar names the cache folder to delete', async () => {
    // withoutJavaOrCache's empty folder is on PATH: a Java 17 there that cannot read the jar.
    const bin = process.env.PATH!;
    await writeFile(
      join(bin, 'java'),
      `#!/bin/sh\n[ "$1" = -version ] && { echo 'openjdk version "17.0.9"' >&2; exit 0; }\necho 'Error: Invalid or corrupt jarfile x.jar' >&2\nexit 1\n`,
    );
    await chmod(join(bin, 'java'), 0o755);
    process.env.PATH = `${bin}:/usr/bin:/bin`;
    await mkdir(registryCacheDir(), { recursive: true });
    await writeFile(join(registryCacheDir(), 'kafka-lambda-registry-1-runner.jar'), 'PK');
    const error = await startRegistry().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SchemaRegistryServerError);
    expect((error as Error).message).toMatch(
      `The schema registry died during start-up; its cached jars look damaged (a class or jar could not be read): delete ${registryCacheDir()} and run install again`,
    );
  });
});
