import avsc from 'avsc';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeValue } from '../../test/support/decoding.ts';
import type { PendingRecord } from '../emulator/batch.ts';
import { createSchemaResolver } from '../emulator/schema-registry.ts';
import { KafkaSchemaRegistryDecodeError } from '../schema-registry/errors.ts';
import { CachingSchemaRegistry, type RegisteredSchema } from '../schema-registry/registry.ts';
import { avroDecoder } from './index.ts';
import { exactLongOptions } from './long.ts';

/** A registry holding one Avro writer schema, whatever the id asked. */
class OneSchema extends CachingSchemaRegistry {
  readonly registry = 'confluent';
  readonly #definition: string;
  constructor(definition: object) {
    super();
    this.#definition = JSON.stringify(definition);
  }
  protected async fetchSchema(id: string): Promise<RegisteredSchema> {
    return { id, type: 'AVRO', definition: this.#definition };
  }
}

/** The schema metadata of a record from a trigger with a registry (writer schema id 1). */
const AVRO_METADATA = { dataFormat: 'AVRO', schemaId: '1' };

/** An EventRecordFormat JSON record's value read by a decoder whose reader schema is `schema`. */
function readJson(schema: unknown, json: string | object): unknown {
  const value = Buffer.from(typeof json === 'string' ? json : JSON.stringify(json));
  const decoder = avroDecoder({ schema: schema as object, eventRecordFormat: 'JSON' });
  return decodeValue(decoder, value, AVRO_METADATA);
}

/** The same, for a record that must be poison: its error. */
function refusal(schema: unknown, json: string | object): KafkaSchemaRegistryDecodeError {
  let thrown: unknown;
  try {
    readJson(schema, json);
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(KafkaSchemaRegistryDecodeError);
  const error = thrown as KafkaSchemaRegistryDecodeError;
  expect(error.reason).toBe('DESERIALIZATION_ERROR');
  return error;
}

/** A SOURCE record (binary, written with `writer`) read by a decoder whose reader schema is `reader`. */
async function readSource(writer: object, reader: object, bytes: Buffer): Promise<unknown> {
  const decoder = avroDecoder({
    schema: reader,
    registry: new OneSchema(writer),
    eventRecordFormat: 'SOURCE',
  });
  return decodeValue(decoder, bytes, AVRO_METADATA);
}

/** The JSON the emulator's schema registry hands over for a record written with `writer` (JSON format). */
async function emulatorJson(writer: object, bytes: Buffer): Promise<string> {
  const framed = Buffer.concat([Buffer.from([0, 0, 0, 0, 1]), bytes]);
  const encoded = {
    topic: 'orders',
    partition: 0,
    offset: 7,
    timestamp: 1,
    timestampType: 'CREATE_TIME' as const,
    value: framed.toString('base64'),
    headers: [],
  };
  const json = JSON.stringify(encoded);
  const pending: PendingRecord = {
    partition: 0,
    offset: 7,
    timestamp: 1,
    json,
    bytes: json.length,
    get encoded() {
      return JSON.parse(json);
    },
  };
  const resolver = createSchemaResolver(
    {
      SchemaRegistryURI: 'http://127.0.0.1:1/apis/ccompat/v7',
      EventRecordFormat: 'JSON',
      SchemaValidationConfigs: [{ Attribute: 'VALUE' }],
    },
    new OneSchema(writer),
  );
  const outcome = await resolver.resolve(pending);
  if (outcome.kind !== 'resolved') throw new Error(`the emulator failed the record: ${outcome.reason}`);
  return Buffer.from(outcome.record.encoded.value!, 'base64').toString('utf8');
}

/**
 * Data with the name of each object's class beside its fields: two decoders compile the same schema
 * into classes of one name (a record's name, `Branch$` for a wrapped union's value), never one class.
 */
function shape(data: unknown): unknown {
  if (Array.isArray(data)) return data.map(shape);
  if (data === null || typeof data !== 'object' || Buffer.isBuffer(data)) return data;
  const entries = Object.entries(data).map(([key, value]) => [key, shape(value)]);
  return { class: data.constructor?.name, ...Object.fromEntries(entries) };
}

const orderV1 = {
  type: 'record',
  name: 'Order',
  namespace: 'shop',
  fields: [
    { name: 'id', type: 'string' },
    { name: 'total', type: 'double' },
    { name: 'note', type: ['null', 'string'] },
  ],
};
const orderV2 = {
  type: 'record',
  name: 'Order',
  namespace: 'shop',
  fields: [
    { name: 'id', type: 'string' },
    { name: 'total', type: 'double' },
    { name: 'currency', type: 'string', default: 'EUR' },
  ],
};

describe('avroDecoder with EventRecordFormat JSON and a reader schema', () => {
  it('reads the JSON into the reader schema as a SOURCE record is: defaults for added fields, removed ones dropped', async () => {
    const bytes = avsc.Type.forSchema(orderV1 as avsc.Schema).toBuffer({ id: 'o-1', total: 5, note: 'gift' });
    const fromSource = await readSource(orderV1, orderV2, bytes);
    const fromJson = readJson(orderV2, await emulatorJson(orderV1, bytes));
    expect(shape(fromJson)).toStrictEqual(shape(fromSource));
    expect({ ...(fromJson as object) }).toEqual({ id: 'o-1', total: 5, currency: 'EUR' });
    // A record of the type's own class (named as the record), as binary decoding gives.
    expect((fromJson as object).constructor.name).toBe('Order');
  });

  it('makes a record that does not fit poison, naming where and never the value', () => {
    const missing = refusal(orderV2, { total: 5, currency: 'SECRET-1' });
    expect(missing.message).toContain(
      'does not fit the Avro reader schema (EventRecordFormat JSON) at id: is missing, and the reader schema gives no default',
    );
    const mistyped = refusal(orderV2, { id: 'SECRET-2', total: 'SECRET-3' });
    expect(mistyped.message).toContain('at total: must be a number (a double)');
    const notObject = refusal(orderV2, '"SECRET-4"');
    expect(notObject.message).toContain('at (root): must be an object (record shop.Order)');
    const nested = refusal(
      { type: 'record', name: 'Cart', fields: [{ name: 'lines', type: { type: 'map', values: orderV2 } }] },
      { lines: { 'SECRET-KEY': { id: 'a', total: true } } },
    );
    expect(nested.message).toContain('at lines.*.total: must be a number (a double)');
    for (const error of [missing, mistyped, notObject, nested]) expect(error.message).not.toContain('SECRET');
  });

  it('reads a field renamed in the reader schema by its alias, and one named like an Object method', () => {
    const reader = {
      type: 'record',
      name: 'Order',
      fields: [
        { name: 'orderId', type: 'string', aliases: ['id'] },
        { name: 'constructor', type: 'string', default: 'none' },
        { name: 'toString', type: 'int' },
      ],
    };
    expect({ ...(readJson(reader, { id: 'o-1', toString: 3 }) as object) }).toEqual({
      orderId: 'o-1',
      constructor: 'none',
      toString: 3,
    });
    expect(refusal(reader, { orderId: 'o-1' }).message).toContain('at toString: is missing');
  });

  it('reads a union value bare or wrapped in its branch name, and a wrapped value where the reader has no union', () => {
    const reader = {
      type: 'record',
      name: 'R',
      namespace: 'ns',
      fields: [
        { name: 'note', type: ['null', 'string'] },
        { name: 'count', type: ['null', 'long'] },
        { name: 'size', type: ['int', 'long'] }, // avsc wraps this one: its branches are both numbers
        { name: 'tag', type: 'string' },
        { name: 'kind', type: ['null', { type: 'enum', name: 'Kind', symbols: ['A', 'B'] }] },
      ],
    };
    const bare = readJson(reader, { note: 'x', count: 3, size: { long: 4 }, tag: 't', kind: 'A' });
    const wrapped = readJson(reader, {
      note: { string: 'x' },
      count: { int: 3 }, // a writer int, promoted to the reader's long
      size: { long: 4 },
      tag: { string: 't' }, // the writer's ["null", "string"], the reader's string
      kind: { 'ns.Kind': 'A' },
    });
    expect(shape(wrapped)).toStrictEqual(shape(bare));
    expect({ ...(bare as object) }).toEqual({ note: 'x', count: 3, size: { long: 4 }, tag: 't', kind: 'A' });
    expect(shape((bare as { size: unknown }).size)).toStrictEqual(
      shape(avsc.Type.forSchema(['int', 'long']).fromBuffer(Buffer.from([2, 8]))),
    );
    expect({
      ...(readJson(reader, { note: null, count: null, size: 1, tag: 't', kind: null }) as object),
    }).toEqual({
      note: null,
      count: null,
      size: { int: 1 },
      tag: 't',
      kind: null,
    });
    expect(refusal(reader, { note: 5, count: 1, size: 1, tag: 't', kind: null }).message).toContain(
      "at note: fits none of the union's branches (null, string)",
    );
    expect(refusal(reader, { note: null, count: 1.5, size: 1, tag: 't', kind: null }).message).toContain(
      'at count: must be a long (a 64-bit integer)',
    );
  });

  it('refuses a union value that reads as two branches into different data, instead of picking one', () => {
    // avsc unwraps ["string", "bytes"], and the emulator writes bytes as base64: text that is base64 fits both.
    const textOrBytes = { type: 'record', name: 'R', fields: [{ name: 'v', type: ['string', 'bytes'] }] };
    expect(refusal(textOrBytes, { v: 'aGk=' }).message).toContain(
      "at v: is ambiguous: it reads as two of the union's branches (string, bytes), into different data",
    );
    expect({ ...(readJson(textOrBytes, { v: 'hello' }) as object) }).toEqual({ v: 'hello' });
    expect({ ...(readJson(textOrBytes, { v: { bytes: 'aGk=' } }) as object) }).toEqual({
      v: Buffer.from('hi'),
    });
    // A record whose fields all have defaults reads any object: one keyed by its own name too.
    const point = { type: 'record', name: 'Point', fields: [{ name: 'x', type: 'int', default: 0 }] };
    const optional = { type: 'record', name: 'R', fields: [{ name: 'p', type: ['null', point] }] };
    expect(refusal(optional, { p: { Point: { x: 1 } } }).message).toContain(
      "at p: is ambiguous: an object whose one key names a branch (Point) reads as the union's Point itself or as a wrapped Point",
    );
    expect(refusal({ ...point, name: 'Only' }, { Only: { x: 2 } }).message).toContain('(root): is ambiguous');
    expect({ ...(readJson(optional, { p: { x: 1 } }) as { p: object }).p }).toEqual({ x: 1 });
  });

  it('reads bytes and fixed from base64 as the emulator writes them, and refuses other text', () => {
    const reader = {
      type: 'record',
      name: 'R',
      fields: [
        { name: 'b', type: 'bytes' },
        { name: 'f', type: { type: 'fixed', name: 'Two', size: 2 } },
      ],
    };
    expect({ ...(readJson(reader, { b: 'AAEC/w==', f: 'YWI=' }) as object) }).toEqual({
      b: Buffer.from([0, 1, 2, 255]),
      f: Buffer.from('ab'),
    });
    expect(refusal(reader, { b: 'not base64!', f: 'YWI=' }).message).toContain(
      'at b: must be base64 text (bytes)',
    );
    expect(refusal(reader, { b: '', f: 'YWJj' }).message).toContain(
      'at f: must be base64 text of 2 bytes (fixed)',
    );
  });

  it("reads an enum symbol the reader lacks as the reader's default, and refuses it without one", () => {
    const withDefault = { type: 'enum', name: 'Status', symbols: ['NEW', 'UNKNOWN'], default: 'UNKNOWN' };
    expect(readJson(withDefault, '"SHIPPED"')).toBe('UNKNOWN');
    expect(readJson(withDefault, '"NEW"')).toBe('NEW');
    const strict = { type: 'enum', name: 'Status', symbols: ['NEW', 'PAID'] };
    const error = refusal(strict, '"SECRET"');
    expect(error.message).toContain('at (root): must be one of NEW, PAID (enum Status)');
    expect(error.message).not.toContain('SECRET');
  });

  it('reads recursive types, arrays and maps, and promotes int and long to double', () => {
    const list = {
      type: 'record',
      name: 'Node',
      fields: [
        { name: 'value', type: 'double' },
        { name: 'next', type: ['null', 'Node'] },
        { name: 'tags', type: { type: 'map', values: { type: 'array', items: 'int' } } },
      ],
    };
    // The writer's long beyond 2^53 (read from its digits as a bigint) into the reader's double.
    const read = readJson(
      list,
      '{"value":1,"next":{"Node":{"value":-9007199254740993,"next":null,"tags":{}}},"tags":{"a":[1,2]}}',
    ) as { value: number; next: { value: number; next: null }; tags: object };
    expect(read.value).toBe(1);
    expect(read.next.value).toBe(-(2 ** 53));
    expect(read.next.next).toBeNull();
    expect(read.tags).toEqual({ a: [1, 2] });
    expect(refusal(list, { value: 1, next: null, tags: { a: [1, 2 ** 31] } }).message).toContain(
      'at tags.*.1: must be an int (a 32-bit integer)',
    );
  });

  it('applies the logical types of an avsc Type given, as its binary reader does', () => {
    class DateType extends avsc.types.LogicalType {
      override _fromValue(value: unknown) {
        return new Date(value as number);
      }
      override _toValue(date: unknown) {
        return date instanceof Date ? date.getTime() : undefined;
      }
    }
    const type = avsc.Type.forSchema(
      {
        type: 'record',
        name: 'Event',
        fields: [{ name: 'at', type: { type: 'long', logicalType: 'timestamp-millis' } }],
      },
      { logicalTypes: { 'timestamp-millis': DateType } },
    );
    expect((readJson(type, { at: 1700000000000 }) as { at: Date }).at).toEqual(new Date(1700000000000));
    expect(readJson(type, { at: 1700000000000 })).toStrictEqual(
      type.fromBuffer(type.toBuffer({ at: new Date(1700000000000) })),
    );
  });

  it('hands over the parsed JSON as it is without a schema in code', () => {
    const value = Buffer.from('{"id":"o-1","unknown":true}');
    const decoder = avroDecoder({ registry: new OneSchema(orderV2), eventRecordFormat: 'JSON' });
    expect(decodeValue(decoder, value, AVRO_METADATA)).toEqual({
      id: 'o-1',
      unknown: true,
    });
  });
});

// ---------------------------------------------------------------------------------------------------
// Property: a record written with a writer schema, rendered as the emulator renders it in JSON format,
// then read with a reader schema, is what the SOURCE bytes read with that reader schema give.

type Schema = string | { readonly [key: string]: unknown } | readonly Schema[];

const SAFE_LONG = Number.MAX_SAFE_INTEGER;
/** Names a map key must not take: a union's branch names (a map keyed so could be a wrapped value). */
const BRANCH_NAMES = new Set([
  'null',
  'boolean',
  'int',
  'long',
  'float',
  'double',
  'string',
  'bytes',
  'map',
  'array',
]);
/** A number JSON writes as it is: not NaN nor ±Infinity (written null), not −0 (written 0). */
const finite = (value: number) => Number.isFinite(value) && !Object.is(value, -0);

let names = 0;
const named = (prefix: string) => `${prefix}${names++}`;

const primitive = fc.constantFrom('boolean', 'int', 'long', 'float', 'double', 'string', 'bytes');

/** Writer schemas: no defaults (a record reads no object of another shape), unions avsc writes bare or wrapped. */
const schemaOf = (depth: number): fc.Arbitrary<Schema> => {
  const leaves: fc.Arbitrary<Schema>[] = [
    primitive,
    fc
      .subarray(['A', 'B', 'C', 'D'], { minLength: 1 })
      .map((symbols) => ({ type: 'enum', name: named('E'), symbols })),
    fc.integer({ min: 1, max: 4 }).map((size) => ({ type: 'fixed', name: named('F'), size })),
  ];
  if (depth === 0) return fc.oneof(...leaves);
  const inner = schemaOf(depth - 1);
  const nonNull = inner.filter((schema) => !Array.isArray(schema));
  return fc.oneof(
    ...leaves,
    inner.map((items) => ({ type: 'array', items })),
    inner.map((values) => ({ type: 'map', values })),
    fc.array(inner, { minLength: 1, maxLength: 3 }).map((types) => recordSchema(types)),
    nonNull.map((schema) => ['null', schema]),
    // Unions avsc wraps (two branches of one kind): the emulator writes {"branch": value}.
    fc.constant(['int', 'long']),
    fc.constant(['null', 'float', 'double']),
    fc.constant(null).map(() => ['string', { type: 'enum', name: named('E'), symbols: ['X', 'Y'] }]),
    fc
      .tuple(
        fc.array(primitive, { minLength: 1, maxLength: 2 }),
        fc.array(primitive, { minLength: 1, maxLength: 2 }),
      )
      .map(([a, b]) => ['null', recordSchema(a), recordSchema(b)]),
  );
};

function recordSchema(types: readonly Schema[]): Schema {
  return {
    type: 'record',
    name: named('R'),
    fields: types.map((type, index) => ({ name: `f${index}`, type })),
  };
}

/** Values for a compiled writer type, as avsc takes them (a wrapped union's value wrapped). */
function valuesOf(type: avsc.Type): fc.Arbitrary<unknown> {
  const avro = type as unknown as {
    typeName: string;
    symbols: string[];
    size: number;
    itemsType: avsc.Type;
    valuesType: avsc.Type;
    fields: Array<{ name: string; type: avsc.Type }>;
    types: avsc.Type[];
  };
  switch (avro.typeName) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'int':
      return fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });
    case 'long':
    case 'abstract:long':
      return fc.oneof(
        fc.integer({ min: -SAFE_LONG, max: SAFE_LONG }),
        fc
          .bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n })
          .map((value) => (value >= -SAFE_LONG && value <= SAFE_LONG ? Number(value) : value)),
      );
    case 'float':
      return fc.float({ noNaN: true }).filter(finite);
    case 'double':
      return fc.double({ noNaN: true }).filter(finite);
    case 'string':
      return fc.string({ maxLength: 6 });
    case 'bytes':
      return fc.uint8Array({ maxLength: 6 }).map((bytes) => Buffer.from(bytes));
    case 'fixed':
      return fc.uint8Array({ minLength: avro.size, maxLength: avro.size }).map((bytes) => Buffer.from(bytes));
    case 'enum':
      return fc.constantFrom(...avro.symbols);
    case 'array':
      return fc.array(valuesOf(avro.itemsType), { maxLength: 3 });
    case 'map':
      return fc.dictionary(
        fc.string({ maxLength: 4 }).filter((key) => !BRANCH_NAMES.has(key) && key !== '__proto__'),
        valuesOf(avro.valuesType),
        { maxKeys: 3 },
      );
    case 'record':
      return fc.record(Object.fromEntries(avro.fields.map((field) => [field.name, valuesOf(field.type)])));
    case 'union:unwrapped':
      return fc.oneof(...avro.types.map(valuesOf));
    case 'union:wrapped':
      return fc.oneof(
        ...avro.types.map((branch) =>
          branch.typeName === 'null'
            ? fc.constant(null)
            : valuesOf(branch).map((value) => ({ [branch.branchName!]: value })),
        ),
      );
    default:
      throw new Error(`no values for ${avro.typeName}`);
  }
}

/**
 * Promotions of Avro's whose binary reading by avsc is exact: not long → double, which avsc reads
 * through a double, flipping the sign of a value below −2^52 (the JSON reading is exact).
 */
const PROMOTIONS: { readonly [type: string]: readonly string[] } = { int: ['long', 'double'] };

/**
 * A reader schema for a writer record: fields kept (their type as is, promoted, or made optional by a
 * union with null), renamed with the writer's name as an alias, dropped; new fields with defaults.
 */
function readerOf(writer: { name: string; fields: Array<{ name: string; type: Schema }> }) {
  const change = fc.constantFrom('keep', 'promote', 'optional', 'rename', 'drop');
  const added = fc.subarray([
    { name: 'currency', type: 'string', default: 'EUR' },
    { name: 'retries', type: 'int', default: 3 },
    { name: 'comment', type: ['null', 'string'], default: null },
    { name: 'labels', type: { type: 'array', items: 'string' }, default: ['a'] },
    { name: 'blob', type: 'bytes', default: '\u00ff' },
  ]);
  return fc
    .tuple(fc.array(change, { minLength: writer.fields.length, maxLength: writer.fields.length }), added)
    .map(([changes, extra]) => {
      const fields: object[] = [];
      writer.fields.forEach((field, index) => {
        const kind = changes[index]!;
        const type = field.type;
        if (kind === 'drop') return;
        if (kind === 'promote' && typeof type === 'string' && PROMOTIONS[type])
          fields.push({ name: field.name, type: PROMOTIONS[type]![0] });
        else if (kind === 'optional' && !Array.isArray(type) && type !== 'null')
          fields.push({ name: field.name, type: ['null', type] });
        else if (kind === 'rename') fields.push({ name: `renamed${index}`, aliases: [field.name], type });
        else fields.push(field);
      });
      return { type: 'record', name: writer.name, fields: [...fields, ...extra] };
    });
}

describe('EventRecordFormat JSON as the emulator writes it, against SOURCE', () => {
  it('reads every record into the reader schema as its binary reads (fast-check)', async () => {
    const cases = fc
      .array(schemaOf(2), { minLength: 1, maxLength: 4 })
      .map((types) => recordSchema(types) as { name: string; fields: Array<{ name: string; type: Schema }> })
      .chain((writer) => {
        const type = avsc.Type.forSchema(writer as avsc.Schema, exactLongOptions(avsc));
        return fc.tuple(fc.constant(writer), fc.constant(type), valuesOf(type), readerOf(writer));
      });
    await fc.assert(
      fc.asyncProperty(cases, async ([writer, type, value, reader]) => {
        const bytes = type.toBuffer(value);
        const fromSource = await readSource(writer, reader, bytes);
        const json = await emulatorJson(writer, bytes);
        expect(shape(readJson(reader, json))).toStrictEqual(shape(fromSource));
      }),
      { numRuns: 300 },
    );
  });
});
