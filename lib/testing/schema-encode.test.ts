import { describe, expect, it } from 'vitest';
import { SchemaEncodeError, schemaEncoder } from './schema-encode.ts';

function refusal(format: 'avro' | 'json-schema', schema: object, value: unknown): string {
  const encode = schemaEncoder({ format, schema: JSON.stringify(schema), wire: 'source' });
  try {
    encode(value);
  } catch (error) {
    expect(error).toBeInstanceOf(SchemaEncodeError);
    return (error as Error).message;
  }
  throw new Error('the value fits the schema');
}

describe('schemaEncoder refusing a value', () => {
  const items = {
    type: 'record',
    name: 'Order',
    fields: [
      {
        name: 'items',
        type: {
          type: 'array',
          items: { type: 'record', name: 'Item', fields: [{ name: 'sku', type: 'string' }] },
        },
      },
    ],
  };

  it('names the Avro fields and array indices that do not fit', () => {
    expect(refusal('avro', items, { items: [{ sku: 'a' }, { sku: 1 }] })).toBe(
      'value does not fit the Avro schema at items.1.sku',
    );
  });

  it("shows the value's own Avro map keys as *, never the keys", () => {
    const message = refusal(
      'avro',
      { type: 'map', values: 'int' },
      { 'SECRET-KEY-1': 'x', 'SECRET-KEY-2': 'y' },
    );
    expect(message).toBe('value does not fit the Avro schema at *');
  });

  it('names the JSON Schema paths that do not fit, with array indices', () => {
    const schema = {
      type: 'object',
      properties: {
        items: { type: 'array', items: { type: 'object', properties: { sku: { type: 'string' } } } },
      },
    };
    expect(refusal('json-schema', schema, { items: [{ sku: 1 }] })).toBe(
      'value does not fit the JSON Schema: items.0.sku must be string',
    );
  });

  it("shows the value's own JSON object keys as *, never the keys", () => {
    const schema = { type: 'object', additionalProperties: { type: 'integer' } };
    const message = refusal('json-schema', schema, { 'SECRET-KEY/1~': 'x' });
    expect(message).toBe('value does not fit the JSON Schema: * must be integer');
  });
});
