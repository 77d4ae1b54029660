import { describe, expect, it } from 'vitest';
import { withoutJavaOrCache } from '../../test/support/no-java.ts';
import { JavaOrMavenMissingError } from '../maven-server/index.ts';
import { BrokerError, BrokerPrerequisiteError, BrokerStartError, TopicMissingError } from './errors.ts';
import { resolveBrokerJars } from './jars.ts';

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
});
