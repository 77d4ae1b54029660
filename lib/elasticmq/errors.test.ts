import { describe, expect, it } from 'vitest';
import { withoutJavaOrCache } from '../../test/support/no-java.ts';
import { JavaOrMavenMissingError } from '../maven-server/index.ts';
import { ElasticMqError, ElasticMqPrerequisiteError, ElasticMqStartError } from './errors.ts';
import { resolveElasticMqJars } from './jars.ts';

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
      'Java 17+ and Maven are needed for the local SQS server (ElasticMQ)',
    );
    expect((error as Error).cause).toBeInstanceOf(JavaOrMavenMissingError);
  });
});
