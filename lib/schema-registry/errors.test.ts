import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { confluentFrame, valueRecord as recordOf } from '../../test/support/decoding.ts';
import { jsonSchemaDecoder } from '../json-schema/index.ts';
import { KafkaPoisonRecordError } from '../middleware/errors.ts';
import {
  KafkaSchemaRegistryDecodeError,
  SchemaNotFoundError,
  SchemaRegistryError,
  SchemaRegistryRequestError,
} from './errors.ts';

/** `text` framed as a record of schema 3. */
function confluentFramed(text: string): Buffer {
  return confluentFrame(3, Buffer.from(text));
}

function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('nothing was thrown');
}

describe('schema-registry errors', () => {
  it('have one base, keep their cause and their own name', () => {
    const network = new TypeError('fetch failed');
    const request = new SchemaRegistryRequestError('Schema registry request for schema 7 failed', undefined, {
      cause: network,
    });
    expect(request).toBeInstanceOf(SchemaRegistryError);
    expect(request.cause).toBe(network);
    expect(request.name).toBe('SchemaRegistryRequestError');
    const notFound = new SchemaNotFoundError('7', { cause: request });
    expect(notFound).toBeInstanceOf(SchemaRegistryError);
    expect(notFound.cause).toBe(request);
    expect(notFound.name).toBe('SchemaNotFoundError');
  });

  it('a decode error stays a poison record error and keeps its cause', () => {
    const cause = new SchemaNotFoundError('9');
    const error = new KafkaSchemaRegistryDecodeError(
      { topic: 'orders', partition: 0, offset: 7 },
      'value',
      'SCHEMA_NOT_FOUND',
      'names a schema the confluent registry does not have',
      '9',
      { cause },
    );
    expect(error).toBeInstanceOf(KafkaPoisonRecordError);
    expect(error.cause).toBe(cause);
    expect(error.message).toBe(
      'orders-0@7: value names a schema the confluent registry does not have (schema 9)',
    );
  });

  it("keeps which library refused the bytes as the cause, never the library's message quoting them", () => {
    const secret = 'not-json-but-a-secret-token';
    const framed = recordOf(confluentFramed(secret));
    const decoder = jsonSchemaDecoder({ schema: { type: 'object' } });
    const refused = thrownBy(() =>
      decoder.decode(framed.value!, framed, 'value', new AbortController().signal),
    );
    expect(refused).toBeInstanceOf(KafkaSchemaRegistryDecodeError);
    expect((refused as Error).cause).toBeInstanceOf(Error);
    expect(((refused as Error).cause as Error).message).toMatch(
      /JSON Schema refused the bytes \(SyntaxError/,
    );
    expect(inspect(refused)).not.toContain(secret);

    const asJson = recordOf(Buffer.from(secret), { dataFormat: 'JSON', schemaId: '3' });
    const jsonDecoder = jsonSchemaDecoder({ schema: { type: 'object' }, eventRecordFormat: 'JSON' });
    const parseFailure = thrownBy(() =>
      jsonDecoder.decode(asJson.value!, asJson, 'value', new AbortController().signal),
    );
    expect((parseFailure as Error).cause).toBeInstanceOf(SyntaxError);
    expect(inspect(parseFailure)).not.toContain(secret);
  });
});
