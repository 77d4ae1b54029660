import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { confluentFrame } from '../../test/support/decoding.ts';
import { SchemaNotFoundError } from '../schema-registry/errors.ts';
import { CachingSchemaRegistry, type RegisteredSchema } from '../schema-registry/registry.ts';
import { type SchemaFormat, schemaEncoder } from '../testing/schema-encode.ts';
import type { PendingRecord } from './batch.ts';
import { InvalidMappingSettingError } from './errors.ts';
import { createSchemaResolver, resolveSchemaRegistry, type SchemaRegistryConfig } from './schema-registry.ts';

const schemaText = (file: string) =>
  readFileSync(new URL(`../../test/events/schemas/${file}`, import.meta.url), 'utf8');
const SCHEMAS: Record<SchemaFormat, { file: string; type: RegisteredSchema['type'] }> = {
  avro: { file: 'order.avsc', type: 'AVRO' },
  protobuf: { file: 'order.proto', type: 'PROTOBUF' },
  'json-schema': { file: 'order.schema.json', type: 'JSON' },
};
const ORDER = { orderId: 'o-1', customerId: 'c-1', total: 2.5 };

/** The registry client's own caching, answering from schemas held in memory (ids 1–3). */
class InMemoryRegistry extends CachingSchemaRegistry {
  readonly registry = 'confluent';
  protected async fetchSchema(id: string): Promise<RegisteredSchema> {
    const format = (['avro', 'protobuf', 'json-schema'] as const)[Number(id) - 1];
    if (format === undefined) throw new SchemaNotFoundError(id);
    return { id, type: SCHEMAS[format].type, definition: schemaText(SCHEMAS[format].file) };
  }
}

function pending(value: Uint8Array | null, key: Uint8Array | null = null): PendingRecord {
  const encoded = {
    topic: 'orders',
    partition: 0,
    offset: 7,
    timestamp: 1,
    timestampType: 'CREATE_TIME' as const,
    key: key === null ? null : Buffer.from(key).toString('base64'),
    value: value === null ? null : Buffer.from(value).toString('base64'),
    headers: [],
  };
  const json = JSON.stringify(encoded);
  return {
    partition: 0,
    offset: 7,
    timestamp: 1,
    json,
    bytes: json.length,
    get encoded() {
      return JSON.parse(json);
    },
  };
}

const config = (
  format: 'JSON' | 'SOURCE',
  attributes: Array<'KEY' | 'VALUE'> = ['VALUE'],
): SchemaRegistryConfig => ({
  SchemaRegistryURI: 'http://127.0.0.1:1/apis/ccompat/v7',
  EventRecordFormat: format,
  SchemaValidationConfigs: attributes.map((Attribute) => ({ Attribute })),
});

/** A registry answering from `schemas` by id (SchemaNotFoundError for any other), with the client's caching. */
function registryOf(schemas: Record<string, RegisteredSchema>): CachingSchemaRegistry {
  return new (class extends CachingSchemaRegistry {
    readonly registry = 'confluent';
    protected async fetchSchema(id: string): Promise<RegisteredSchema> {
      const schema = schemas[id];
      if (schema === undefined) throw new SchemaNotFoundError(id);
      return schema;
    }
  })();
}

/** The value `resolver` (of the JSON format) delivers for the record value `bytes`, as text; throws if it fails. */
async function resolvedJson(
  resolver: ReturnType<typeof createSchemaResolver>,
  bytes: Uint8Array,
): Promise<string> {
  const outcome = await resolver.resolve(pending(bytes));
  if (outcome.kind !== 'resolved') throw new Error(`failed: ${outcome.reason}`);
  return Buffer.from(outcome.record.encoded.value!, 'base64').toString('utf8');
}

describe('the emulator schema resolver', () => {
  it('JSON format writes an Avro long beyond 2^53 with all its digits, and a small one as a plain number', async () => {
    const schema = {
      type: 'record',
      name: 'Tick',
      fields: [
        { name: 'big', type: 'long' },
        { name: 'small', type: 'long' },
      ],
    };
    const registry = registryOf({ '9': { id: '9', type: 'AVRO', definition: JSON.stringify(schema) } });
    // Avro's zigzag varint of 2^63 − 1 and of 5, after Confluent's framing (magic 0, schema id 9).
    const zigzag = (n: bigint) => {
      const bytes: number[] = [];
      for (let v = (n << 1n) ^ (n >> 63n); ; v >>= 7n) {
        if (v < 0x80n) return [...bytes, Number(v)];
        bytes.push(Number((v & 0x7fn) | 0x80n));
      }
    };
    const framed = Uint8Array.from([0, 0, 0, 0, 9, ...zigzag(2n ** 63n - 1n), ...zigzag(5n)]);
    const json = await resolvedJson(createSchemaResolver(config('JSON'), registry), framed);
    expect(json).toBe('{"big":9223372036854775807,"small":5}');
  });

  it.each(['avro', 'protobuf', 'json-schema'] as const)(
    '%s: JSON format delivers the decoded JSON, SOURCE the bytes without framing, both with metadata',
    async (format) => {
      const id = String(['avro', 'protobuf', 'json-schema'].indexOf(format) + 1);
      const common = { format, schema: schemaText(SCHEMAS[format].file), type: 'shop.Order', schemaId: id };
      const framed = schemaEncoder({ ...common, wire: 'confluent' })(ORDER).bytes;
      const source = schemaEncoder({ ...common, wire: 'source' })(ORDER).bytes;
      for (const recordFormat of ['JSON', 'SOURCE'] as const) {
        const resolver = createSchemaResolver(config(recordFormat), new InMemoryRegistry());
        const outcome = await resolver.resolve(pending(framed));
        if (outcome.kind !== 'resolved') throw new Error(`failed: ${outcome.reason}`);
        const record = outcome.record.encoded;
        const bytes = Buffer.from(record.value!, 'base64');
        if (recordFormat === 'JSON') expect(JSON.parse(bytes.toString('utf8'))).toEqual(ORDER);
        else expect(bytes).toEqual(Buffer.from(source));
        expect(record.valueSchemaMetadata).toEqual({ dataFormat: SCHEMAS[format].type, schemaId: id });
        expect(JSON.parse(outcome.filterValue!.toString('utf8'))).toEqual(ORDER);
        expect(resolver.isResolved(outcome.record)).toBe(true);
      }
    },
  );

  it('keeps every digit (an Avro long, a JSON Schema number past 2^53), resolves well-known Protobuf imports, reads JSON Schema 2020-12', async () => {
    const schemas: Record<string, RegisteredSchema> = {
      '21': {
        id: '21',
        type: 'AVRO',
        definition: JSON.stringify({ type: 'record', name: 'Id', fields: [{ name: 'id', type: 'long' }] }),
      },
      // A long written as a schema object (with a logical type, as timestamps are), not the name "long".
      '25': {
        id: '25',
        type: 'AVRO',
        definition: JSON.stringify({
          type: 'record',
          name: 'At',
          fields: [{ name: 'at', type: { type: 'long', logicalType: 'timestamp-micros' } }],
        }),
      },
      '22': { id: '22', type: 'JSON', definition: JSON.stringify({ type: 'object', required: ['id'] }) },
      '24': {
        id: '24',
        type: 'JSON',
        definition: JSON.stringify({
          $schema: 'https://json-schema.org/draft/2020-12/schema',
          type: 'object',
          properties: { line: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }] } },
          required: ['line'],
        }),
      },
      '23': {
        id: '23',
        type: 'PROTOBUF',
        definition:
          'syntax = "proto3"; package shop; import "google/protobuf/timestamp.proto"; message Paid { string order_id = 1; google.protobuf.Timestamp at = 2; }',
      },
    };
    const resolver = createSchemaResolver(config('JSON'), registryOf(schemas));
    const jsonOf = (bytes: Buffer) => resolvedJson(resolver, bytes);
    // Avro long: zigzag varint of 2^63 − 1 (9,223,372,036,854,775,807): ten bytes, the last 0x01.
    const maxLong = Buffer.from([0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]);
    expect(await jsonOf(confluentFrame(21, maxLong))).toBe('{"id":9223372036854775807}');
    expect(await jsonOf(confluentFrame(21, Buffer.from([0x0e])))).toBe('{"id":7}');
    expect(await jsonOf(confluentFrame(25, maxLong))).toBe('{"at":9223372036854775807}');
    expect(await jsonOf(confluentFrame(22, Buffer.from('{"id":12345678901234567890}')))).toBe(
      '{"id":12345678901234567890}',
    );
    // order_id "o-1", at { seconds: 5 }, after the message index [0].
    const paid = Buffer.from([0x00, 0x0a, 0x03, 0x6f, 0x2d, 0x31, 0x12, 0x02, 0x08, 0x05]);
    expect(JSON.parse(await jsonOf(confluentFrame(23, paid)))).toEqual({
      order_id: 'o-1',
      at: { seconds: '5', nanos: 0 },
    });
    // A JSON Schema in the 2020-12 dialect, read by that dialect's rules (prefixItems).
    expect(await jsonOf(confluentFrame(24, Buffer.from('{"line":["sku",2]}')))).toBe('{"line":["sku",2]}');
    const mistyped = await resolver.resolve(pending(confluentFrame(24, Buffer.from('{"line":[2,"sku"]}'))));
    expect(mistyped).toMatchObject({ kind: 'failed', reason: 'DESERIALIZATION_ERROR' });
  });

  it("compiles a schema's references with it: Avro named types, JSON Schema $refs, Protobuf imports", async () => {
    const address = {
      type: 'record',
      name: 'Address',
      namespace: 'shop',
      fields: [{ name: 'city', type: 'string' }],
    };
    const schemas: Record<string, RegisteredSchema> = {
      '31': {
        id: '31',
        type: 'AVRO',
        definition: JSON.stringify({
          type: 'record',
          name: 'Customer',
          namespace: 'shop',
          fields: [{ name: 'address', type: 'shop.Address' }],
        }),
        references: [{ name: 'shop.Address', type: 'AVRO', definition: JSON.stringify(address) }],
      },
      '32': {
        id: '32',
        type: 'JSON',
        definition: JSON.stringify({ type: 'object', properties: { address: { $ref: 'address.json' } } }),
        references: [
          {
            name: 'address.json',
            type: 'JSON',
            definition: JSON.stringify({ type: 'object', required: ['city'] }),
          },
        ],
      },
      // The referenced file has the same package: its message must not count in the message indexes.
      '33': {
        id: '33',
        type: 'PROTOBUF',
        definition:
          'syntax = "proto3"; package shop; import "shop/address.proto"; import "google/protobuf/timestamp.proto"; message Customer { Address address = 1; google.protobuf.Timestamp at = 2; }',
        references: [
          {
            name: 'shop/address.proto',
            type: 'PROTOBUF',
            definition: 'syntax = "proto3"; package shop; message Address { string city = 1; }',
          },
        ],
      },
      '34': {
        id: '34',
        type: 'AVRO',
        definition: JSON.stringify({
          type: 'record',
          name: 'C',
          fields: [{ name: 'a', type: 'shop.Address' }],
        }),
        references: [{ name: 'shop.Address', type: 'JSON', definition: '{}' }],
      },
    };
    const resolver = createSchemaResolver(config('JSON'), registryOf(schemas));
    const outcomeOf = (bytes: Buffer) => resolver.resolve(pending(bytes));
    const jsonOf = async (bytes: Buffer) => JSON.parse(await resolvedJson(resolver, bytes));
    // Avro: the string "Delft" (length 5 as zigzag 10, then the bytes).
    const delft = Buffer.concat([Buffer.from([10]), Buffer.from('Delft')]);
    expect(await jsonOf(confluentFrame(31, delft))).toEqual({ address: { city: 'Delft' } });
    expect(await jsonOf(confluentFrame(32, Buffer.from('{"address":{"city":"Delft"}}')))).toEqual({
      address: { city: 'Delft' },
    });
    expect(await outcomeOf(confluentFrame(32, Buffer.from('{"address":{}}')))).toEqual({
      kind: 'failed',
      reason: 'DESERIALIZATION_ERROR',
    });
    // Protobuf: message index [0] (Customer), then address { city: "Delft" }.
    const customer = Buffer.concat([Buffer.from([0x00, 0x0a, 0x07, 0x0a, 0x05]), Buffer.from('Delft')]);
    expect(await jsonOf(confluentFrame(33, customer))).toEqual({ address: { city: 'Delft' }, at: null });
    // A reference of another format: the schema does not compile.
    expect(await outcomeOf(confluentFrame(34, delft))).toEqual({
      kind: 'failed',
      reason: 'DESERIALIZATION_ERROR',
    });
  });

  it('fails unknown schema ids with SCHEMA_NOT_FOUND and unframed or corrupt bytes with DESERIALIZATION_ERROR', async () => {
    const resolver = createSchemaResolver(config('JSON'), new InMemoryRegistry());
    const unknown = Buffer.from([0, 0, 0, 0, 99, 1, 2]);
    const avro = schemaEncoder({
      format: 'avro',
      schema: schemaText('order.avsc'),
      wire: 'confluent',
      schemaId: '1',
    });
    const corrupt = Buffer.concat([avro(ORDER).bytes.subarray(0, 5), Buffer.from([0xff, 0xff])]);
    const jsonInvalid = schemaEncoder({
      format: 'json-schema',
      schema: '{"type":"object"}',
      wire: 'confluent',
      schemaId: '3',
    })({ orderId: 1 }).bytes;
    expect(await resolver.resolve(pending(unknown))).toEqual({ kind: 'failed', reason: 'SCHEMA_NOT_FOUND' });
    expect(await resolver.resolve(pending(Buffer.from('{"plain":"json"}')))).toEqual({
      kind: 'failed',
      reason: 'DESERIALIZATION_ERROR',
    });
    expect(await resolver.resolve(pending(corrupt))).toEqual({
      kind: 'failed',
      reason: 'DESERIALIZATION_ERROR',
    });
    expect(await resolver.resolve(pending(jsonInvalid))).toEqual({
      kind: 'failed',
      reason: 'DESERIALIZATION_ERROR',
    });
  });

  it('fails a Glue-framed record against a Confluent-compatible registry with DESERIALIZATION_ERROR, as the decoders do', async () => {
    const resolver = createSchemaResolver(config('SOURCE'), new InMemoryRegistry());
    const glue = schemaEncoder({
      format: 'avro',
      schema: schemaText('order.avsc'),
      wire: 'glue',
      schemaId: '0f6a3c2e-5b1d-4e8f-9a7b-2c4d6e8f0a1b',
    })(ORDER).bytes;
    expect(await resolver.resolve(pending(glue))).toEqual({
      kind: 'failed',
      reason: 'DESERIALIZATION_ERROR',
    });
  });

  it('resolves the key only when KEY is configured, and leaves tombstones and absent keys alone', async () => {
    const avro = schemaEncoder({
      format: 'avro',
      schema: schemaText('order.avsc'),
      wire: 'confluent',
      schemaId: '1',
    });
    const framed = avro(ORDER).bytes;
    const keyOnly = createSchemaResolver(config('JSON', ['KEY']), new InMemoryRegistry());
    const outcome = await keyOnly.resolve(pending(Buffer.from('not framed'), framed));
    if (outcome.kind !== 'resolved') throw new Error('failed');
    expect(outcome.record.encoded.keySchemaMetadata).toEqual({ dataFormat: 'AVRO', schemaId: '1' });
    expect(outcome.record.encoded.valueSchemaMetadata).toBeUndefined();
    expect(Buffer.from(outcome.record.encoded.value!, 'base64').toString()).toBe('not framed');
    const both = createSchemaResolver(config('JSON', ['KEY', 'VALUE']), new InMemoryRegistry());
    const tombstone = await both.resolve(pending(null));
    expect(tombstone.kind).toBe('resolved');
  });

  it.each([
    [
      { ...config('JSON'), SchemaRegistryURI: 'arn:aws:glue:eu-west-1:111122223333:registry/shop' },
      /Glue registry ARN/,
    ],
    [{ ...config('JSON'), SchemaRegistryURI: 'registry:8081' }, /http\(s\) registry URL/],
    [{ ...config('JSON'), EventRecordFormat: 'AVRO' as 'JSON' }, /JSON or SOURCE/],
    [config('JSON', []), /KEY.*VALUE/],
    [config('JSON', ['VALUE', 'VALUE']), /twice/],
  ])('refuses a bad setting %#', (settings, message) => {
    expect(() => resolveSchemaRegistry(settings)).toThrow(InvalidMappingSettingError);
    expect(() => resolveSchemaRegistry(settings)).toThrow(message);
  });
});
