import { describe, expect, it } from 'vitest';
import { withoutJavaOrCache } from '../../test/support/no-java.ts';
import { JavaOrMavenMissingError } from '../maven-server/index.ts';
import { SchemaRegistryError } from './errors.ts';
import { installRegistry, SchemaRegistryServerError } from './server.ts';

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
    expect((error as Error).message).toBe('Java 17+ and Maven are needed for the local schema registry');
    expect((error as Error).cause).toBeInstanceOf(JavaOrMavenMissingError);
  });
});
