import { inspect } from 'node:util';
import type { StandardSchemaV1 } from '@standard-schema/spec';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { encodeEventRecord } from '../kafka-event/encode.ts';
import {
  KafkaBatchError,
  KafkaBatchFailedError,
  KafkaBatchOptionsError,
  KafkaPoisonRecordError,
  KafkaRecordDecodeError,
  KafkaSchemaError,
  shownPath,
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

describe('KafkaSchemaError.fromIssues', () => {
  const secret = 'SECRET-PAYLOAD-123';
  const rejected = (schema: StandardSchemaV1, data: unknown) => {
    const result = schema['~standard'].validate(data) as StandardSchemaV1.Result<unknown>;
    if (!result.issues) throw new Error('the schema accepted the data');
    return KafkaSchemaError.fromIssues(position, 'value', result.issues);
  };

  it('keeps declared field names and array indices', () => {
    const items = { items: [{ sku: 1 }] };
    expect(rejected(v.object({ items: v.array(v.object({ sku: v.string() })) }), items).paths).toEqual([
      'items.0.sku',
    ]);
    expect(rejected(z.object({ items: z.array(z.object({ sku: z.string() })) }), items).paths).toEqual([
      'items.0.sku',
    ]);
    expect(rejected(v.number(), 'x').paths).toEqual(['']);
  });

  for (const [label, schema, data, paths] of [
    ['valibot strictObject unknown key', v.strictObject({ a: v.number() }), { a: 1, [secret]: 1 }, ['*']],
    ['valibot record value', v.record(v.string(), v.number()), { [secret]: 'x' }, ['*']],
    [
      'valibot record key',
      v.object({ m: v.record(v.pipe(v.string(), v.maxLength(3)), v.number()) }),
      { m: { [secret]: 1 } },
      ['m.*'],
    ],
    [
      'valibot objectWithRest',
      v.objectWithRest({ a: v.number() }, v.number()),
      { a: 1, [secret]: 'x' },
      ['*'],
    ],
    ['valibot map', v.map(v.string(), v.number()), new Map([['secret', 'x']]), ['*']],
    ['valibot set', v.set(v.number()), new Set([secret]), ['*']],
    ['zod record', z.object({ m: z.record(z.string(), z.number()) }), { m: { [secret]: 'x' } }, ['m.*']],
    ['zod map with a number key', z.map(z.number(), z.string()), new Map([[4111111111111111, 1]]), ['*']],
  ] as const) {
    it(`(${label}) shows a key from the data as *, never the key`, () => {
      const error = rejected(schema, data);
      expect(error.paths).toEqual(paths);
      for (const printed of [error.message, inspect(error), JSON.stringify(describeError(error))]) {
        expect(printed).not.toContain('SECRET');
        expect(printed).not.toContain('secret');
        expect(printed).not.toContain('4111');
      }
    });
  }

  it('collapses the keys of the data into one path', () => {
    const error = rejected(v.record(v.string(), v.number()), { a: 'x', 'b-c': 'y', 'd e': 'z' });
    // `a` looks like a declared name: an identifier-like record key still shows.
    expect(error.paths).toEqual(['a', '*']);
  });

  it('shows a symbol, a fraction or a negative number as *', () => {
    expect(shownPath([Symbol('s'), 1.5, -1, 2 ** 32, 'ok', 3])).toBe('*.*.*.*.ok.3');
  });
});
