import { describe, expect, it } from 'vitest';
import { InvalidBatchResponseError } from './batch-response.ts';
import { KafkaTestingError } from './errors.ts';
import { InvalidEventInputError, kafkaEvent } from './event-builder.ts';
import { HandlerTimeoutError, InvalidInvokeOptionsError, ResponseMarshalError } from './invoke-handler.ts';
import { SchemaEncodeError, schemaEncoder } from './schema-encode.ts';
import { InvalidKafkaEventError } from './validate-event.ts';

describe('the testing errors', () => {
  it('all extend KafkaTestingError and carry their own class name', () => {
    const errors = [
      new KafkaTestingError('base'),
      new InvalidBatchResponseError('bad response'),
      new InvalidEventInputError('bad input'),
      new HandlerTimeoutError(100),
      new InvalidInvokeOptionsError('bad options'),
      new ResponseMarshalError({ errorType: 'Runtime.MarshalError', errorMessage: 'x', trace: [] }),
      new InvalidKafkaEventError([{ path: 'records', message: 'is missing' }]),
      new SchemaEncodeError('bad schema'),
    ];
    for (const error of errors) {
      expect(error).toBeInstanceOf(KafkaTestingError);
      expect(error.name).toBe(error.constructor.name);
    }
  });

  it('keep the cause they are given', () => {
    const cause = new Error('underlying');
    const error = new InvalidBatchResponseError('wrapped', { cause });
    expect(error.cause).toBe(cause);
    expect(error).toBeInstanceOf(KafkaTestingError);
  });

  it('kafkaEvent keeps the JSON encoder’s error as the cause', () => {
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    let thrown: unknown;
    try {
      kafkaEvent({ topic: 'orders', records: [{ value: circular }] });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(InvalidEventInputError);
    expect((thrown as Error).cause).toBeInstanceOf(TypeError);
  });

  it('schemaEncoder keeps the schema compiler’s error as the cause', () => {
    let thrown: unknown;
    try {
      schemaEncoder({ format: 'avro', schema: '{"type":"no-such-type"}', wire: 'source' });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(SchemaEncodeError);
    expect(thrown).toBeInstanceOf(KafkaTestingError);
    expect((thrown as Error).cause).toBeInstanceOf(Error);
  });
});
