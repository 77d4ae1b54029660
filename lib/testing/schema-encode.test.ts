import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeValue } from '../../test/support/decoding.ts';
import { avroDecoder } from '../avro/index.ts';
import type { PendingRecord } from '../emulator/batch.ts';
import { createSchemaResolver } from '../emulator/schema-registry.ts';
import { CachingSchemaRegistry, type RegisteredSchema } from '../schema-registry/registry.ts';
import { parseValueJson, protoImports, SchemaEncodeError, schemaEncoder } from './schema-encode.ts';

/** The SchemaEncodeError `run` throws. */
function thrown(run: () => unknown): SchemaEncodeError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(SchemaEncodeError);
    return error as SchemaEncodeError;
  }
  throw new Error('nothing was thrown');
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kafka-lambda-schema-encode-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Writes files under a new folder of the temporary folder; returns the folder. */
async function files(tree: Record<string, string>): Promise<string> {
  const root = await mkdtemp(join(dir, 'tree-'));
  for (const [path, text] of Object.entries(tree)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
  return root;
}

/** A record as the emulator's consumer hands it to the schema resolver. */
function pending(value: Uint8Array): PendingRecord {
  const json = JSON.stringify({
    topic: 't',
    partition: 0,
    offset: 0,
    timestamp: 1,
    timestampType: 'CREATE_TIME',
    key: null,
    value: Buffer.from(value).toString('base64'),
    headers: [],
  });
  return {
    partition: 0,
    offset: 0,
    timestamp: 1,
    json,
    bytes: json.length,
    get encoded() {
      return JSON.parse(json);
    },
  };
}

/** The value the emulator's registry (EventRecordFormat JSON) hands a function for Confluent-framed bytes. */
async function emulatorJson(schema: RegisteredSchema, bytes: Uint8Array): Promise<unknown> {
  const registry = new (class extends CachingSchemaRegistry {
    readonly registry = 'confluent';
    protected async fetchSchema(): Promise<RegisteredSchema> {
      return schema;
    }
  })();
  const resolver = createSchemaResolver(
    {
      SchemaRegistryURI: 'http://127.0.0.1:1',
      EventRecordFormat: 'JSON',
      SchemaValidationConfigs: [{ Attribute: 'VALUE' }],
    },
    registry,
  );
  const outcome = await resolver.resolve(pending(bytes));
  if (outcome.kind !== 'resolved') throw new Error(`the emulator failed the record: ${outcome.reason}`);
  return JSON.parse(Buffer.from(outcome.record.encoded.value!, 'base64').toString());
}

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
      'value does not fit the Avro schema at items.1.sku (expected a string)',
    );
  });

  it("shows the value's own Avro map keys as *, never the keys", () => {
    const message = refusal(
      'avro',
      { type: 'map', values: 'int' },
      { 'SECRET-KEY-1': 'x', 'SECRET-KEY-2': 'y' },
    );
    expect(message).toBe('value does not fit the Avro schema at * (expected an int, a 32-bit integer)');
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

describe('schemaEncoder with a .proto', () => {
  const proto = `syntax = "proto3"; package shop;
    enum Status { NEW = 0; PAID = 1; }
    message Item { string sku = 1; uint32 qty = 2; }
    message Order { string order_id = 1; Status status = 2; int64 cents = 3; repeated Item line_items = 4; map<string, Item> by_sku = 5; int32 small = 6; }`;
  const encode = schemaEncoder({ format: 'protobuf', schema: proto, type: 'shop.Order', wire: 'json' });
  const refused = (value: unknown) => {
    try {
      encode(value);
    } catch (error) {
      expect(error).toBeInstanceOf(SchemaEncodeError);
      return (error as Error).message;
    }
    throw new Error('the value fits the schema');
  };

  it('takes the proto field names and the lowerCamelCase JSON names, enum names and numbers', () => {
    for (const value of [
      { order_id: 'o-1', status: 'PAID', cents: '5', line_items: [{ sku: 's', qty: 2 }] },
      { orderId: 'o-1', status: 1, cents: 5, lineItems: [{ sku: 's', qty: 2 }] },
    ])
      expect(JSON.parse(Buffer.from(encode(value).bytes).toString())).toMatchObject({
        order_id: 'o-1',
        status: 'PAID',
        cents: '5',
        line_items: [{ sku: 's', qty: 2 }],
      });
  });

  it.each([
    [{ orderI: 'o-1' }, 'value does not fit shop.Order at orderI: is not a field of the message'],
    [{ line_items: [{ sku: 's', qtty: 1 }] }, 'at line_items.0.qtty: is not a field of the message'],
    [{ by_sku: { 'SECRET-KEY': { skew: 's' } } }, 'at by_sku.*.skew: is not a field of the message'],
    [{ status: 'PAYED' }, 'at status: must be one of NEW, PAID'],
    [{ status: 7 }, 'at status: must be one of NEW, PAID'],
    [{ small: 2 ** 31 }, 'at small: must be an int32'],
    [{ cents: '9223372036854775808' }, 'at cents: must be an int64'],
    [{ line_items: [{ qty: -1 }] }, 'at line_items.0.qty: must be a uint32'],
    [{ order_id: 5 }, 'at order_id: must be a string'],
  ])('refuses %j, naming the field path', (value, message) => {
    const refusal = refused(value);
    expect(refusal).toContain(message);
    expect(refusal).not.toContain('SECRET');
  });
});

describe("schemaEncoder's Glue message index", () => {
  // The example of aws-glue-schema-registry's MessageIndexFinder: every message type of the file, nested
  // ones and protoc's map entry types included, sorted by full name: B = 0, B.A = 1, B.A.D = 2, B.C = 3.
  const proto = `syntax = "proto3"; package p;
    message B { message C { string c = 1; } message A { message D { map<string, int32> my_counts = 1; } } }
    message E { string e = 1; }`;
  const glueIndex = (type: string) => {
    const encode = schemaEncoder({
      format: 'protobuf',
      schema: proto,
      type,
      wire: 'glue',
      schemaId: '12345678-1234-1234-1234-123456789012',
    });
    // Version byte, compression byte, 16-byte UUID, then the index as one varint.
    return Buffer.from(encode({}).bytes)[18];
  };

  it('numbers every message type of the file by full name, nested and map entry types too', () => {
    // p.B, p.B.A, p.B.A.D, p.B.A.D.MyCountsEntry, p.B.C, p.E
    expect(['p.B', 'p.B.A', 'p.B.A.D', 'p.B.C', 'p.E'].map(glueIndex)).toEqual([0, 1, 2, 4, 5]);
  });
});

describe('schemaEncoder refusing a schema file that is not JSON', () => {
  const source = 'export const SECRET_TOKEN = "x";\n';

  it.each([
    ['avro', 'not a valid Avro schema'],
    ['json-schema', 'not a valid JSON Schema'],
  ] as const)('%s: says where parsing stopped, never quoting the file', (format, what) => {
    const error = (() => {
      try {
        schemaEncoder({ format, schema: source, wire: 'confluent' });
      } catch (caught) {
        return caught as Error;
      }
      throw new Error('compiled');
    })();
    expect(error).toBeInstanceOf(SchemaEncodeError);
    expect(error.message).toBe(
      `${what}: not JSON: JSON.parse failed at position 0 (line 1 column 1) (its message is withheld: it quotes the file)`,
    );
    expect(String(error.cause)).not.toMatch(/export|SECRET/);
  });

  it.each([
    ['{"type": "record",\n "name": x}', 'position 28 (line 2 column 10)'],
    ['{"type": "record"', 'position 17 (line 1 column 18)'],
  ])('names the position and line of the first thing no JSON has there (%j)', (schema, where) => {
    expect(() => schemaEncoder({ format: 'avro', schema, wire: 'confluent' })).toThrow(
      `not a valid Avro schema: not JSON: JSON.parse failed at ${where} (its message is withheld: it quotes the file)`,
    );
  });

  it('says an empty file is empty', () => {
    expect(() => schemaEncoder({ format: 'json-schema', schema: ' \n', wire: 'confluent' })).toThrow(
      /^not a valid JSON Schema: the file is empty$/,
    );
  });
});

describe('schemaEncoder with Avro bytes, fixed and decimal values', () => {
  const payment = {
    type: 'record',
    name: 'Payment',
    namespace: 'shop',
    fields: [
      { name: 'id', type: 'string' },
      { name: 'amount', type: { type: 'bytes', logicalType: 'decimal', precision: 10, scale: 2 } },
      { name: 'hash', type: { type: 'fixed', name: 'Sha', size: 4 } },
      { name: 'raw', type: 'bytes' },
      { name: 'note', type: ['null', 'bytes'] },
      { name: 'parts', type: { type: 'array', items: 'bytes' } },
      { name: 'tags', type: { type: 'map', values: 'Sha' } },
    ],
  };
  const schema = JSON.stringify(payment);
  const value = {
    id: 'p-1',
    amount: 'BNI=', // 1234 unscaled: 12.34
    hash: 'AAECAw==',
    raw: 'aGk=',
    note: 'bm90ZQ==',
    parts: ['AQ==', ''],
    tags: { a: '/////w==' },
  };

  it('takes base64 text, and the emulator reads the record back to the same JSON', async () => {
    const encode = schemaEncoder({ format: 'avro', schema, wire: 'confluent', schemaId: '7' });
    const { bytes } = encode(value);
    // The decimal's bytes are its two's-complement integer, as written.
    expect(Buffer.from(bytes).includes(Buffer.from([0x04, 0xd2]))).toBe(true);
    expect(await emulatorJson({ id: '7', type: 'AVRO', definition: schema }, bytes)).toEqual(value);
    // The JSON wire's text is what the emulator prints, too.
    const json = schemaEncoder({ format: 'avro', schema, wire: 'json' })(value);
    expect(JSON.parse(Buffer.from(json.bytes).toString())).toEqual(value);
  });

  it('says which form a value that does not fit should have (base64 text, the size of a fixed)', () => {
    const encode = schemaEncoder({ format: 'avro', schema, wire: 'source' });
    const error = thrown(() =>
      encode({ ...value, amount: 12.34, hash: 'AAEC', raw: 'not base64!', tags: { 'SECRET-KEY': [1] } }),
    );
    expect(error.message).toBe(
      "value does not fit the Avro schema at amount (expected decimal: base64 text of its unscaled two's-complement integer), hash (expected fixed: base64 text of 4 bytes), raw (expected bytes: base64 text), tags.* (expected fixed: base64 text of 4 bytes)",
    );
  });

  it('keeps text in a union that has a string, even when it reads as base64', () => {
    const either = JSON.stringify({
      type: 'record',
      name: 'R',
      fields: [{ name: 'v', type: ['bytes', 'string'] }],
    });
    const encode = schemaEncoder({ format: 'avro', schema: either, wire: 'confluent' });
    const { bytes } = encode({ v: 'abcd' });
    // Branch 1 (string, zigzag 2), then the text itself.
    expect(Buffer.from(bytes).subarray(5)).toEqual(Buffer.from([2, 8, ...Buffer.from('abcd')]));
  });
});

describe('schemaEncoder refusing a schema its library does not compile, never quoting it', () => {
  const avro = (schema: object) =>
    thrown(() =>
      schemaEncoder({
        format: 'avro',
        schema: JSON.stringify(schema, null, 2),
        schemaPath: 'x.avsc',
        wire: 'json',
      }),
    );

  it.each([
    [
      { type: 'record', name: 'R', namespace: 'shop', fields: [{ name: 'a', type: 'SECRET_Type' }] },
      'x.avsc: not a valid Avro schema at line 8 column 15: a type name is neither a primitive type nor a named type defined before it',
    ],
    [
      { type: 'record', name: 'R', fields: [{ name: 'a', type: ['null', 'SECRET_Type'] }] },
      'x.avsc: not a valid Avro schema at line 9 column 9: a type name is neither',
    ],
    [
      {
        type: 'record',
        name: 'R',
        fields: [
          { name: 'a', type: { type: 'fixed', name: 'SECRET', size: 2 } },
          { name: 'b', type: { type: 'enum', name: 'SECRET', symbols: ['A'] } },
        ],
      },
      'x.avsc: not a valid Avro schema at line 17 column 17: a named type (record, enum, fixed) is defined twice',
    ],
    [
      { type: 'record', name: 'R', fields: [{ name: 'a', type: { type: 'SECRET-type' } }] },
      'x.avsc: not a valid Avro schema at line 8 column 17: a "type" is not an Avro type',
    ],
    [
      { type: 'record', name: 'R', fields: [{ name: 'SECRET-field', type: 'int' }] },
      'x.avsc: not a valid Avro schema at line 6 column 15: a name is not a valid Avro name',
    ],
    [
      { type: 'record', name: 'R', fields: [{ name: 'a', type: 'int', default: 'SECRET' }] },
      'x.avsc: not a valid Avro schema: a default does not fit its type',
    ],
    [{ type: 'enum', name: 'E', symbols: ['SECRET', 'SECRET'] }, "an enum's symbols are not valid"],
  ])('Avro %j: what and where', (schema, message) => {
    const error = avro(schema);
    expect(error.message).toContain(message);
    expect(error.message).toMatch(/\(its message is withheld: it quotes the schema\)$/);
    expect(`${error.message} ${String(error.cause)}`).not.toContain('SECRET');
  });

  const jsonSchema = (schema: object) =>
    thrown(() =>
      schemaEncoder({
        format: 'json-schema',
        schema: JSON.stringify(schema, null, 2),
        schemaPath: 'x.json',
        wire: 'json',
      }),
    );

  it.each([
    [
      { type: 'object', properties: { SECRET_name: { type: 'strng' } } },
      'x.json: not a valid JSON Schema at line 5 column 15: must be equal to one of the allowed values, must be array, must match a schema in anyOf',
    ],
    [
      { type: 'object', properties: { a: { $ref: '#/definitions/SECRET' } } },
      'x.json: not a valid JSON Schema at line 5 column 15: a "$ref" names a schema the file does not hold (none is fetched)',
    ],
    [
      { type: 'object', properties: { a: { type: 'string', pattern: 'SECRET(' } } },
      'x.json: not a valid JSON Schema at line 6 column 18: a pattern is not a valid regular expression',
    ],
    [
      { $schema: 'http://json-schema.org/draft-04/schema#', type: 'object' },
      'x.json: not a valid JSON Schema at line 2 column 14: its "$schema" is a dialect Ajv does not know here',
    ],
  ])('JSON Schema %j: what and where', (schema, message) => {
    const error = jsonSchema(schema);
    expect(error.message).toContain(message);
    expect(`${error.message} ${String(error.cause)}`).not.toContain('SECRET');
  });

  it('compiles a 2020-12 schema with its own dialect, as the emulator does', () => {
    const schema = JSON.stringify({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'array',
      prefixItems: [{ type: 'string' }],
    });
    const encode = schemaEncoder({ format: 'json-schema', schema, wire: 'json' });
    expect(Buffer.from(encode(['a']).bytes).toString()).toBe('["a"]');
    expect(thrown(() => encode([1])).message).toBe('value does not fit the JSON Schema: 0 must be string');
  });

  it('.proto: names the file and where parsing failed, its cause quoting nothing either', () => {
    const error = thrown(() =>
      schemaEncoder({
        format: 'protobuf',
        schema: 'syntax = "proto3";\nmessage Order {\n  string SECRET_a = 1\n  int32 n = 2;\n}\n',
        schemaPath: 'order.proto',
        type: 'Order',
        wire: 'json',
      }),
    );
    expect(error.message).toBe(
      "order.proto: not a valid .proto file: parsing failed at line 4 column 3, ';' expected (its message is withheld: it quotes the file)",
    );
    expect(String(error.cause)).not.toContain('SECRET');
  });
});

describe('schemaEncoder with a .proto that imports', () => {
  const P3 = 'syntax = "proto3";\npackage shop;\n';
  const money = `${P3}message Money {\n  string currency = 1;\n  int64 units = 2;\n}\n`;
  /** The encoder of the .proto file at `path`, read as the CLI reads it. */
  const encoderOf = (path: string, type: string, more: { importPaths?: string[] } = {}) =>
    schemaEncoder({
      format: 'protobuf',
      schema: readFileSync(path, 'utf8'),
      schemaPath: path,
      type,
      wire: 'confluent',
      ...more,
    });

  it('reads a sibling import, relative to the importing file, and the well-known types', async () => {
    const root = await files({
      'schemas/money.proto': money,
      'schemas/invoice.proto': `${P3}import "money.proto";\nimport "google/protobuf/timestamp.proto";\nmessage Invoice {\n  string id = 1;\n  Money total = 2;\n  google.protobuf.Timestamp issued_at = 3;\n}\n`,
    });
    const encode = encoderOf(join(root, 'schemas/invoice.proto'), 'shop.Invoice');
    const { bytes } = encode({
      id: 'i-1',
      total: { currency: 'EUR', units: '12' },
      issued_at: '2024-05-01T12:00:00.5Z',
    });
    // Framing, message index [0], then id (1), total (2: Money), issued_at (3: Timestamp 1714564800 s, 0.5e9 ns).
    expect(Buffer.from(bytes).subarray(6)).toEqual(
      Buffer.from([
        ...[0x0a, 3, ...Buffer.from('i-1')],
        ...[0x12, 7, 0x0a, 3, ...Buffer.from('EUR'), 0x10, 12],
        ...[0x1a, 12, 0x08, 0xc0, 0xdd, 0xc8, 0xb1, 0x06, 0x10, 0x80, 0xca, 0xb5, 0xee, 0x01],
      ]),
    );
    // The Timestamp's proto3 JSON text and its fields (as the emulator prints them) are the same message.
    const asFields = encode({
      id: 'i-1',
      total: { currency: 'EUR', units: 12 },
      issued_at: { seconds: '1714564800', nanos: 500_000_000 },
    });
    expect(Buffer.from(asFields.bytes)).toEqual(Buffer.from(bytes));
  });

  it('looks for an import in the importPaths folders (protoc -I), and says where one is not found', async () => {
    const root = await files({
      'proto/shop/v1/money.proto': money,
      'proto/shop/v1/order.proto': `${P3}// import "commented/out.proto";\nimport "shop/v1/money.proto";\nmessage Order { Money total = 1; }\n`,
    });
    const path = join(root, 'proto/shop/v1/order.proto');
    expect(thrown(() => encoderOf(path, 'shop.Order')).message).toBe(
      `${path}: an import at line 4 column 1 names a file that is in none of: ${join(root, 'proto/shop/v1')}, the working directory (give the folder its path starts from with --proto-path, as protoc's -I)`,
    );
    const encode = encoderOf(path, 'shop.Order', { importPaths: [join(root, 'proto')] });
    expect(Buffer.from(encode({ total: { units: 3 } }).bytes).subarray(6)).toEqual(
      Buffer.from([0x0a, 2, 0x10, 3]),
    );
  });

  it('names an imported file that does not parse, and where', async () => {
    const root = await files({
      'a.proto': `${P3}import "b.proto";\nmessage A { B b = 1; }\n`,
      'b.proto': `${P3}message B {\n  int32 SECRET = 1\n}\n`,
    });
    expect(thrown(() => encoderOf(join(root, 'a.proto'), 'shop.A')).message).toBe(
      `${join(root, 'b.proto')}: not a valid .proto file: parsing failed at line 5 column 1, ';' expected (its message is withheld: it quotes the file)`,
    );
  });

  it('says where a type is defined nowhere, in which file, without naming it', async () => {
    const root = await files({
      'a.proto': `${P3}import "b.proto";\nmessage A { B b = 1; }\n`,
      'b.proto': `${P3}message B {\n  map<string, SECRET_Money> totals = 4;\n}\n`,
    });
    const error = thrown(() => encoderOf(join(root, 'a.proto'), 'shop.A'));
    expect(error.message).toBe(
      `${join(root, 'b.proto')}: not a valid .proto file at line 4 column 15: a type it names is defined neither in the file nor in a file it imports (its message is withheld: it quotes the file)`,
    );
    expect(String(error.cause)).not.toContain('SECRET');
  });

  it('refuses an import cycle, a name two files define, and a --type of an imported file', async () => {
    const cycle = await files({
      'a.proto': `${P3}import "b.proto";\nmessage A {}\n`,
      'b.proto': `${P3}import "a.proto";\nmessage B {}\n`,
    });
    expect(thrown(() => encoderOf(join(cycle, 'a.proto'), 'shop.A')).message).toBe(
      `${join(cycle, 'b.proto')}: the import at line 3 column 1 closes a cycle: the file imports itself through the files it imports (protoc refuses this too)`,
    );
    const twice = await files({
      'a.proto': `${P3}import "b.proto";\nmessage SECRET {}\n`,
      'b.proto': `${P3}message SECRET {}\n`,
    });
    expect(thrown(() => encoderOf(join(twice, 'a.proto'), 'shop.SECRET')).message).toBe(
      `${join(twice, 'a.proto')}: not a valid .proto file: a name is defined twice in one scope (with the files it imports) (its message is withheld: it quotes the file)`,
    );
    const imported = await files({
      'a.proto': `${P3}import "money.proto";\nmessage A {}\n`,
      'money.proto': money,
    });
    expect(thrown(() => encoderOf(join(imported, 'a.proto'), 'shop.Money')).message).toMatch(
      /a\.proto: shop\.Money is a message of a file the \.proto file imports, not of the file itself/,
    );
  });

  it("counts the message index among the messages of the schema's own file, not of the same package imported", async () => {
    const root = await files({
      'a.proto': `${P3}import "money.proto";\nmessage First {}\nmessage Second { Money m = 1; }\n`,
      'money.proto': money,
    });
    // Second is the file's message 1 (Confluent writes [1] as the count 1 and the index 1, zigzag: 2 2).
    expect(Buffer.from(encoderOf(join(root, 'a.proto'), 'shop.Second')({}).bytes).subarray(5)).toEqual(
      Buffer.from([2, 2]),
    );
  });

  it('lists the imported files, each after its own imports, as schema references (well-known types left out)', async () => {
    const root = await files({
      'a.proto': `${P3}import "b.proto";\nimport "shop/c.proto";\nimport "google/protobuf/empty.proto";\nmessage A {}\n`,
      'b.proto': `${P3}import "shop/c.proto";\nmessage B {}\n`,
      'shop/c.proto': `${P3}import "google/protobuf/timestamp.proto";\nmessage C {}\n`,
    });
    const path = join(root, 'a.proto');
    const listed = protoImports({
      schema: readFileSync(path, 'utf8'),
      schemaPath: path,
      importPaths: [root],
    });
    expect(listed.references).toEqual(['b.proto', 'shop/c.proto']);
    expect(listed.imports.map(({ name, path, references }) => ({ name, path, references }))).toEqual([
      { name: 'shop/c.proto', path: join(root, 'shop/c.proto'), references: [] },
      { name: 'b.proto', path: join(root, 'b.proto'), references: ['shop/c.proto'] },
    ]);
    expect(listed.imports[1]!.schema).toBe(readFileSync(join(root, 'b.proto'), 'utf8'));
  });
});

describe("protoImports and the files Confluent's registry knows by name", () => {
  // Stand-ins written for these tests (the fields a test needs), not copies of Google's or Confluent's.
  const googleMoney =
    'syntax = "proto3";\npackage google.type;\nmessage Money {\n  string currency_code = 1;\n  int64 units = 2;\n  int32 nanos = 3;\n}\n';
  const confluentDecimal =
    'syntax = "proto3";\npackage confluent.type;\nmessage Decimal {\n  bytes value = 1;\n  uint32 precision = 2;\n  int32 scale = 3;\n}\n';
  const priced =
    'syntax = "proto3";\npackage shop;\nimport "google/type/money.proto";\nimport "confluent/type/decimal.proto";\nimport "google/protobuf/timestamp.proto";\nimport "google/protobuf/compiler/plugin.proto";\nimport "rate.proto";\nmessage Priced {\n  google.type.Money price = 1;\n  confluent.type.Decimal rate = 2;\n  Rate kind = 3;\n}\n';

  it("leaves out exactly the imports Confluent's serializer does not register (google/type, confluent/, its google/protobuf files)", async () => {
    const root = await files({
      'vendor/google/type/money.proto': googleMoney,
      'vendor/confluent/type/decimal.proto': confluentDecimal,
      'schemas/rate.proto': 'syntax = "proto3";\npackage shop;\nenum Rate { FIXED = 0; }\n',
      'schemas/priced.proto': priced,
    });
    const path = join(root, 'schemas/priced.proto');
    const options = {
      schema: readFileSync(path, 'utf8'),
      schemaPath: path,
      importPaths: [join(root, 'vendor')],
    };
    const listed = protoImports(options);
    // google/protobuf/compiler/plugin.proto is protobufjs's but not one of Confluent's known files: a reference,
    // registered with the text protobufjs ships; its own import (descriptor.proto) is a known one.
    expect(listed.references).toEqual(['google/protobuf/compiler/plugin.proto', 'rate.proto']);
    expect(listed.imports.map(({ name, references }) => ({ name, references }))).toEqual([
      { name: 'google/protobuf/compiler/plugin.proto', references: [] },
      { name: 'rate.proto', references: [] },
    ]);
    expect(listed.imports[0]!.schema).toMatch(/message CodeGeneratorRequest/);
    // The known files found in the folders are read all the same, to encode.
    const encode = schemaEncoder({ format: 'protobuf', ...options, type: 'shop.Priced', wire: 'source' });
    const { bytes } = encode({ price: { currency_code: 'EUR', units: '3' } });
    expect(Buffer.from(bytes)).toEqual(Buffer.from([0, 0x0a, 7, 0x0a, 3, ...Buffer.from('EUR'), 0x10, 3]));
  });

  it('names a known import that is in no folder, protobufjs shipping none, and says where to get it', async () => {
    const root = await files({
      'priced.proto': priced,
      'rate.proto': 'syntax = "proto3";\npackage shop;\nenum Rate { FIXED = 0; }\n',
    });
    const path = join(root, 'priced.proto');
    expect(thrown(() => protoImports({ schema: readFileSync(path, 'utf8'), schemaPath: path })).message).toBe(
      `${path}: the import at line 3 column 1 of google/type/money.proto, one of the files Confluent's registry knows by name (not registered as a schema reference), is in none of: ${root}, the working directory; protobufjs does not ship it: give the folder holding a copy (google/type/money.proto under it, as in Google's googleapis repository) with --proto-path, as protoc's -I`,
    );
  });
});

describe("schemaEncoder reading the well-known types' proto3 JSON forms", () => {
  const proto = `syntax = "proto3"; package shop;
    import "google/protobuf/timestamp.proto"; import "google/protobuf/duration.proto";
    import "google/protobuf/wrappers.proto"; import "google/protobuf/struct.proto";
    import "google/protobuf/field_mask.proto"; import "google/protobuf/any.proto";
    message Item { int32 n = 1; }
    message Wkt {
      google.protobuf.Timestamp at = 1; google.protobuf.Duration took = 2; google.protobuf.Int64Value big = 3;
      google.protobuf.StringValue name = 4; google.protobuf.Struct attrs = 5; google.protobuf.Value any_json = 6;
      google.protobuf.FieldMask mask = 7; google.protobuf.Any item = 8; repeated google.protobuf.Timestamp times = 9;
      map<string, google.protobuf.Duration> waits = 10;
    }`;
  const encode = schemaEncoder({ format: 'protobuf', schema: proto, type: 'shop.Wkt', wire: 'json' });
  const json = (value: unknown) =>
    JSON.parse(Buffer.from(encode(value).bytes).toString()) as Record<string, unknown>;

  it('reads each into its fields, as the same message as those fields', () => {
    expect(
      json({
        at: '2024-05-01T14:00:00.25+02:00',
        took: '-1.5s',
        big: '9007199254740993',
        name: 'n',
        attrs: { a: 1, b: [true, null, 'x'] },
        anyJson: null,
        mask: 'fooBar,a.bC',
        item: { '@type': 'type.googleapis.com/shop.Item', n: 5 },
        times: ['1970-01-01T00:00:00Z'],
        waits: { k: '3s' },
      }),
    ).toMatchObject({
      at: { seconds: '1714564800', nanos: 250_000_000 },
      took: { seconds: '-1', nanos: -500_000_000 },
      big: { value: '9007199254740993' },
      name: { value: 'n' },
      attrs: {
        fields: {
          a: { numberValue: 1 },
          b: {
            listValue: { values: [{ boolValue: true }, { nullValue: 'NULL_VALUE' }, { stringValue: 'x' }] },
          },
        },
      },
      any_json: { nullValue: 'NULL_VALUE' },
      mask: { paths: ['foo_bar', 'a.b_c'] },
      item: { type_url: 'type.googleapis.com/shop.Item', value: 'CAU=' },
      times: [{ seconds: '0', nanos: 0 }],
      waits: { k: { seconds: '3', nanos: 0 } },
    });
  });

  it.each([
    [{ at: '2024-02-30T00:00:00Z' }, 'at at: must be an RFC 3339 time'],
    [{ times: ['SECRET'] }, 'at times.0: must be an RFC 3339 time'],
    [{ took: '5m' }, 'at took: must be seconds with an s, as "1.5s"'],
    [{ attrs: 'SECRET' }, 'at attrs: must be an object (a google.protobuf.Struct)'],
    [{ item: { '@type': 'x/SECRET.Nope' } }, 'at item: has an @type that names no message'],
    [{ item: { '@type': 'x/shop.Item', n: 'SECRET' } }, 'at item.n: must be an int32'],
  ])('refuses %j, naming where and the form expected', (value, message) => {
    const error = thrown(() => encode(value));
    expect(error.message).toContain(`value does not fit shop.Wkt ${message}`);
    expect(error.message).not.toContain('SECRET');
  });
});

describe('schemaEncoder with Avro longs beyond 2^53 − 1', () => {
  const reading = {
    type: 'record',
    name: 'Reading',
    fields: [
      { name: 'id', type: 'long' },
      { name: 'maybe', type: ['null', 'long'] },
      { name: 'price', type: 'double' },
      { name: 'count', type: 'int' },
    ],
  };
  const schema = JSON.stringify(reading);
  const text = '{"id":9007199254740993,"maybe":-9223372036854775808,"price":9007199254740993,"count":3}';

  /** What kafka-lambda/avro reads from Confluent-framed bytes written with `reading`. */
  async function decoded(bytes: Uint8Array): Promise<unknown> {
    const decoder = avroDecoder({
      registry: {
        registry: 'confluent',
        stats: { requests: 0, cacheHits: 0 },
        getSchema: async (id) => ({ id, type: 'AVRO', definition: schema }),
      },
    });
    return { ...((await decodeValue(decoder, Buffer.from(bytes))) as object) };
  }

  it('parses JSON text keeping the exact digits of an integer beyond 2^53 − 1 (Avro only)', () => {
    expect(parseValueJson(text, 'avro')).toEqual({
      id: 9007199254740993n,
      maybe: -9223372036854775808n,
      price: 9007199254740993n,
      count: 3,
    });
    // A safe integer, a fraction, an exponent stay numbers; so does every number of the other formats.
    expect(parseValueJson('[9007199254740991, 1.5, 1e30, -0]', 'avro')).toEqual([
      9007199254740991, 1.5, 1e30, -0,
    ]);
    expect(parseValueJson('[9007199254740993]', 'json-schema')).toEqual([9007199254740992]);
  });

  it('writes a long exactly, and a double given one as the nearest double', async () => {
    const encode = schemaEncoder({ format: 'avro', schema, wire: 'confluent' });
    expect(await decoded(encode(parseValueJson(text, 'avro')).bytes)).toEqual({
      id: 9007199254740993n,
      maybe: -9223372036854775808n,
      price: 9007199254740992,
      count: 3,
    });
    // The JSON wire's text keeps the digits too.
    const json = schemaEncoder({ format: 'avro', schema, wire: 'json' })(parseValueJson(text, 'avro'));
    expect(Buffer.from(json.bytes).toString()).toBe(
      '{"id":9007199254740993,"maybe":-9223372036854775808,"price":9007199254740992,"count":3}',
    );
  });

  it('refuses a long beyond 64 bits, a rounded one and a fraction, saying what a long is', () => {
    const encode = schemaEncoder({ format: 'avro', schema, wire: 'source' });
    for (const id of [2n ** 63n, -(2n ** 63n) - 1n, 2 ** 53, 1.5]) {
      const fits = { id, maybe: null, price: 1, count: 1 };
      expect(thrown(() => encode(fits)).message).toBe(
        'value does not fit the Avro schema at id (expected a long, an integer from −2^63 to 2^63 − 1)',
      );
    }
    // An int is no bigint: one beyond 2^53 − 1 is beyond an int's range anyway.
    expect(thrown(() => encode({ id: 1, maybe: null, price: 1, count: 2n ** 60n })).message).toBe(
      'value does not fit the Avro schema at count (expected an int, a 32-bit integer)',
    );
  });
});
