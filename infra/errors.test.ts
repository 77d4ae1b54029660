import { describe, expect, it } from 'vitest';
import { appConfigFromContext, InvalidContextError } from './app-config.ts';
import { KafkaLambdaCdkError } from './errors.ts';
import { InvalidClusterArnError, mskTopicArn } from './msk-arns.ts';

describe('KafkaLambdaCdkError', () => {
  it('is the base of the synth-time errors, named by their class', () => {
    const thrown = [
      () => mskTopicArn('not-an-arn', 'orders'),
      () => appConfigFromContext((key) => (key === 'cluster' ? 'sideways' : undefined)),
    ].map((synth) => {
      try {
        synth();
      } catch (error) {
        return error;
      }
      throw new Error('expected a synth-time error');
    });
    expect(thrown[0]).toBeInstanceOf(InvalidClusterArnError);
    expect(thrown[1]).toBeInstanceOf(InvalidContextError);
    for (const error of thrown) {
      expect(error).toBeInstanceOf(KafkaLambdaCdkError);
      expect((error as Error).name).toBe((error as Error).constructor.name);
    }
  });

  it('keeps the cause it is given', () => {
    const cause = new RangeError('inner');
    const error = new KafkaLambdaCdkError('outer', { cause });
    expect(error.cause).toBe(cause);
    expect(error.name).toBe('KafkaLambdaCdkError');
  });
});
