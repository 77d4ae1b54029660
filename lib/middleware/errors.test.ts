import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { encodeEventRecord } from '../kafka-event/encode.ts';
import {
  KafkaBatchError,
  KafkaBatchFailedError,
  KafkaBatchOptionsError,
  KafkaPoisonRecordError,
  KafkaRecordDecodeError,
  KafkaSchemaError,
} from './errors.ts';
import { describeError } from './log.ts';
import { KafkaRecord } from './record.ts';

const position = { topic: 'orders', partition: 3, offset: 7 };

describe('the middleware errors', () => {
  it('all extend KafkaBatchError and carry their own class name', () => {
    const errors = [
      new KafkaBatchError('base'),
      new KafkaBatchOptionsError('bad option'),
      new KafkaPoisonRecordError(position, 'value', 'is bad'),
      new KafkaRecordDecodeError(position, 'key', 'is not a base64 string'),
      new KafkaSchemaError(position, 'value', ['amount']),
      new KafkaBatchFailedError(3),
    ];
    for (const error of errors) {
      expect(error).toBeInstanceOf(KafkaBatchError);
      expect(error).toBeInstanceOf(Error);
      expect(error.name).toBe(error.constructor.name);
    }
  });

  it('are logged without their cause (describeError reads name and message only)', () => {
    const cause = new SyntaxError('Unexpected token \'c\', "card=4111" is not valid JSON');
    const described = describeError(new KafkaRecordDecodeError(position, 'value', 'is bad', { cause }));
    expect(described).toEqual({
      errorName: 'KafkaRecordDecodeError',
      errorMessage: 'orders-3@7: value is bad',
    });
  });

  it('keep the cause they are given', () => {
    const cause = new Error('socket closed');
    const wrapped = new KafkaBatchOptionsError('logger rejected', { cause });
    expect(wrapped.cause).toBe(cause);
    expect(wrapped).toBeInstanceOf(KafkaBatchError);
    const poison = new KafkaRecordDecodeError(position, 'value', 'does not decode', { cause });
    expect(poison.cause).toBe(cause);
    expect(poison.message).toBe('orders-3@7: value does not decode');
  });
});

describe('a value that is not JSON', () => {
  const secret = 'card=4111111111111111';
  const record = (value: string) =>
    new KafkaRecord(encodeEventRecord({ ...position, timestamp: 0, value }), 'orders', 3, 7);

  for (const [label, value] of [
    ['quoted by the parser', secret],
    ['located by the parser', `{"a":"${secret}`],
    ['cut short', ''],
  ] as const) {
    it(`(${label}) fails with a decode error whose cause is a SyntaxError without a byte of the value`, () => {
      let thrown: unknown;
      try {
        record(value).json();
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(KafkaRecordDecodeError);
      const error = thrown as KafkaRecordDecodeError;
      expect(error.cause).toBeInstanceOf(SyntaxError);
      expect((error.cause as SyntaxError).message).toMatch(/^JSON\.parse failed/);
      // What a logger printing causes and stacks would write (Node's console, Powertools' Logger).
      for (const printed of [inspect(error), JSON.stringify(describeError(error)), String(error.cause)])
        expect(printed).not.toContain('4111');
    });
  }

  it('keeps where the parser stopped, when it says', () => {
    let thrown: unknown;
    try {
      record('{"a":1,}').json();
    } catch (error) {
      thrown = error;
    }
    expect(((thrown as Error).cause as Error).message).toContain('at position 7');
  });
});
