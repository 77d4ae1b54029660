import { describe, expect, it } from 'vitest';
import { KafkaEventError } from './errors.ts';
import { parseKafkaEvent } from './parse.ts';

describe('KafkaEventError', () => {
  it('keeps the cause it is given', () => {
    const cause = new TypeError('not iterable');
    const error = new KafkaEventError('records', 'is not an object', { cause });
    expect(error.cause).toBe(cause);
    expect(error).toBeInstanceOf(KafkaEventError);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('KafkaEventError');
    expect(error.field).toBe('records');
    expect(error.message).toBe('Invalid Kafka event: records is not an object');
  });

  it('is what parseKafkaEvent throws', () => {
    expect(() => parseKafkaEvent(42)).toThrow(KafkaEventError);
  });
});
