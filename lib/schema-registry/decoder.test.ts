import { create, createFileRegistry, type DescMessage, fromBinary, fromJson } from '@bufbuild/protobuf';
import { FieldDescriptorProto_Type, FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import middy from '@middy/core';
import avsc from 'avsc';
import protobuf from 'protobufjs';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import {
  confluentFrame as confluent,
  decodeValue as decode,
  valueRecord as recordOf,
  useLoopbackServers,
} from '../../test/support/decoding.ts';
import { avroDecoder } from '../avro/index.ts';
import { jsonSchemaDecoder } from '../json-schema/index.ts';
import { KafkaPoisonRecordError, KafkaSchemaError, KafkaSchemaThrewError } from '../middleware/errors.ts';
import { kafkaBatch } from '../middleware/middleware.ts';
import type { KafkaBatchOptions } from '../middleware/options.ts';
import { KafkaRecord } from '../middleware/record.ts';
import { protobufDecoder } from '../protobuf/index.ts';
import { failedOffsets } from '../testing/batch-response.ts';
import { type KafkaRecordInput, kafkaEvent } from '../testing/event-builder.ts';
import { invokeHandler } from '../testing/invoke-handler.ts';
import { KafkaSchemaRegistryDecodeError, SchemaRegistryRequestError } from './errors.ts';
import { confluentSchemaRegistry } from './registry.ts';

const orderSchema = {
  type: 'record',
  name: 'Order',
  fields: [
    { name: 'id', type: 'string' },
    { name: 'total', type: 'double' },
  ],
};
const Order = avsc.Type.forSchema(orderSchema as avsc.Schema);

function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

const serve = useLoopbackServers();

/** A Confluent-compatible registry on loopback: `schemas` by id, everything else 404 (40403). */
async function fakeRegistry(schemas: Record<string, object>, delayMs = 0) {
  const requests: string[] = [];
  const url = await serve((request, response) => {
    requests.push(`${request.url} ${request.headers.authorization ?? ''}`);
    const id = /\/schemas\/ids\/(\d+)$/.exec(request.url ?? '')?.[1];
    const body = id !== undefined ? schemas[id] : undefined;
    setTimeout(() => {
      response.writeHead(body ? 200 : 404, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body ?? { error_code: 40403, message: 'Schema not found' }));
    }, delayMs);
  });
  return { url: `${url}/apis/ccompat/v7`, requests };
}

describe('avroDecoder', () => {
  it('decodes Confluent-framed bytes synchronously with the schema in code, and validates', () => {
    const decoder = avroDecoder({
      schema: orderSchema,
      validate: v.object({ id: v.string(), total: v.number() }),
    });
    expect(decode(decoder, confluent(1, Order.toBuffer({ id: 'a', total: 2 })))).toEqual({
      id: 'a',
      total: 2,
    });
    const failing = avroDecoder({
      schema: orderSchema,
      validate: v.object({ id: v.pipe(v.string(), v.minLength(2)) }),
    });
    expect(() => decode(failing, confluent(1, Order.toBuffer({ id: 'a', total: 2 })))).toThrow(
      KafkaSchemaError,
    );
  });

  it('reads Glue-framed and unframed bytes, and tombstones as null', () => {
    const body = Order.toBuffer({ id: 'g', total: 1 });
    const glue = Buffer.concat([Buffer.from([3, 0]), Buffer.alloc(16, 0xab), body]);
    expect(decode(avroDecoder({ schema: orderSchema }), glue)).toEqual({ id: 'g', total: 1 });
    expect(decode(avroDecoder({ schema: orderSchema, framing: 'none' }), body)).toEqual({
      id: 'g',
      total: 1,
    });
    expect(
      avroDecoder({ schema: orderSchema }).decode(
        null,
        recordOf(body),
        'value',
        new AbortController().signal,
      ),
    ).toBe(null);
  });

  it('makes undecodable bytes poison with a reason, never quoting them', () => {
    const secret = Buffer.from('SECRET-SECRET-SECRET');
    for (const [bytes, reason] of [
      [secret, 'DESERIALIZATION_ERROR'],
      [confluent(1, secret), 'DESERIALIZATION_ERROR'],
      [confluent(1, Buffer.concat([Order.toBuffer({ id: 'a', total: 1 }), secret])), 'DESERIALIZATION_ERROR'],
    ] as const) {
      let error: unknown;
      try {
        decode(avroDecoder({ schema: orderSchema }), bytes);
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(KafkaSchemaRegistryDecodeError);
      expect((error as KafkaSchemaRegistryDecodeError).reason).toBe(reason);
      expect(`${(error as Error).message}${(error as Error).stack}`).not.toMatch(
        /SECRET|U0VDUkVU|534543524554/,
      );
    }
  });

  it("names Confluent's schema-id header when an unframed record carries one, instead of suggesting framing 'none'", () => {
    // Confluent's header serializer: magic byte 1 and the schema's 16-byte GUID in __value_schema_id.
    const guid = [1, ...Buffer.from('0123456789abcdef0123456789abcdef', 'hex')].map((b) =>
      b > 127 ? b - 256 : b,
    );
    const body = Order.toBuffer({ id: 'a', total: 1 });
    const record = new KafkaRecord(
      {
        topic: 'orders',
        partition: 0,
        offset: 7,
        timestamp: 0,
        timestampType: 'CREATE_TIME',
        value: body.toString('base64'),
        headers: [{ __value_schema_id: guid }],
      },
      'orders',
      0,
      7,
    ) as KafkaRecord<unknown, unknown>;
    const error = thrownBy(() =>
      avroDecoder({ schema: orderSchema }).decode(
        record.value ?? null,
        record,
        'value',
        new AbortController().signal,
      ),
    );
    expect(error).toBeInstanceOf(KafkaSchemaRegistryDecodeError);
    expect((error as Error).message).toContain(
      "its schema id is in Confluent's __value_schema_id header (schema GUID 01234567-89ab-cdef-0123-456789abcdef)",
    );
    expect((error as Error).message).not.toContain("framing: 'none'");
  });

  it('needs eventRecordFormat for records with schema metadata, and fails them without making them poison', () => {
    const body = Order.toBuffer({ id: 'a', total: 2 });
    expect(() =>
      decode(avroDecoder({ schema: orderSchema }), body, { dataFormat: 'AVRO', schemaId: '1' }),
    ).toThrow(/eventRecordFormat/);
    expect(
      decode(avroDecoder({ schema: orderSchema, eventRecordFormat: 'SOURCE' }), body, {
        dataFormat: 'AVRO',
        schemaId: '1',
      }),
    ).toEqual({ id: 'a', total: 2 });
  });

  it('resolves writer schemas by id once per id, however many records ask at once', async () => {
    const registry = await fakeRegistry({ '5': { schema: JSON.stringify(orderSchema) } });
    const client = confluentSchemaRegistry({ url: registry.url, auth: { username: 'u', password: 'p' } });
    const decoder = avroDecoder({ registry: client });
    const bytes = confluent(5, Order.toBuffer({ id: 'r', total: 3 }));
    const first = await Promise.all([decode(decoder, bytes), decode(decoder, bytes), decode(decoder, bytes)]);
    expect(first.map((d) => ({ ...(d as object) }))).toEqual(Array(3).fill({ id: 'r', total: 3 }));
    // Warm: synchronous, no request.
    expect(decode(decoder, bytes)).not.toBeInstanceOf(Promise);
    expect(registry.requests).toEqual([
      `/apis/ccompat/v7/schemas/ids/5 Basic ${Buffer.from('u:p').toString('base64')}`,
    ]);
    await expect(decode(decoder, confluent(6, Buffer.from([1])))).rejects.toMatchObject({
      reason: 'SCHEMA_NOT_FOUND',
      schemaId: '6',
    });
  });

  it('fails a Glue-framed record with a Confluent registry as DESERIALIZATION_ERROR, as the emulator does, asking nothing', async () => {
    const registry = await fakeRegistry({ '5': { schema: JSON.stringify(orderSchema) } });
    const decoder = avroDecoder({ registry: confluentSchemaRegistry({ url: registry.url }) });
    const glue = Buffer.concat([
      Buffer.from([3, 0]),
      Buffer.alloc(16, 0xab),
      Order.toBuffer({ id: 'g', total: 1 }),
    ]);
    expect(() => decode(decoder, glue)).toThrow(
      expect.objectContaining({ name: 'KafkaSchemaRegistryDecodeError', reason: 'DESERIALIZATION_ERROR' }),
    );
    expect(registry.requests).toEqual([]);
  });

  it('gives up on a registry that does not answer within the timeout or the invocation deadline (retried, not poison)', async () => {
    const registry = await fakeRegistry({ '5': { schema: JSON.stringify(orderSchema) } }, 5_000);
    const decoder = avroDecoder({ registry: confluentSchemaRegistry({ url: registry.url, timeoutMs: 200 }) });
    const started = Date.now();
    await expect(decode(decoder, confluent(5, Order.toBuffer({ id: 'r', total: 3 })))).rejects.toBeInstanceOf(
      SchemaRegistryRequestError,
    );
    expect(Date.now() - started).toBeLessThan(4_000);
    const deadline = new AbortController();
    const slow = avroDecoder({ registry: confluentSchemaRegistry({ url: registry.url }) });
    const record = recordOf(confluent(5, Buffer.from([2, 0x61])));
    const pending = slow.decode(record.value ?? null, record, 'value', deadline.signal);
    deadline.abort();
    await expect(pending).rejects.toBeInstanceOf(SchemaRegistryRequestError);
  });
});

describe('protobufDecoder', () => {
  const root = protobuf.parse('syntax = "proto3"; message Ping { string id = 1; }').root;
  const Ping = root.lookupType('Ping');
  const ping = Buffer.from(Ping.encode(Ping.create({ id: 'p' })).finish());

  it('skips the Confluent index array and the Glue index exactly', () => {
    const decoder = protobufDecoder({ type: Ping });
    expect(
      Ping.toObject(
        decode(decoder, confluent(3, Buffer.concat([Buffer.from([0]), ping]))) as protobuf.Message,
      ),
    ).toEqual({ id: 'p' });
    const glue = Buffer.concat([Buffer.from([3, 0]), Buffer.alloc(16, 1), Buffer.from([0]), ping]);
    expect(Ping.toObject(decode(decoder, glue) as protobuf.Message)).toEqual({ id: 'p' });
  });

  it("reads unsigned message indexes (Confluent .NET's deprecated format) only when told to", () => {
    // [1, 0] without zigzag: count 2, then 1 and 0; framed, and as SOURCE leaves it.
    const deprecated = Buffer.concat([Buffer.from([2, 1, 0]), ping]);
    const told = protobufDecoder({
      type: Ping,
      eventRecordFormat: 'SOURCE',
      confluentMessageIndexes: 'unsigned',
    });
    expect(Ping.toObject(decode(told, confluent(3, deprecated)) as protobuf.Message)).toEqual({ id: 'p' });
    const source = { dataFormat: 'PROTOBUF', schemaId: '3' };
    expect(Ping.toObject(decode(told, deprecated, source) as protobuf.Message)).toEqual({ id: 'p' });
    // The [0] shorthand and the zigzag-free [0] (count 1, index 0) both read.
    for (const prefix of [[0], [1, 0]])
      expect(
        Ping.toObject(decode(told, Buffer.concat([Buffer.from(prefix), ping]), source) as protobuf.Message),
      ).toEqual({ id: 'p' });

    const strict = protobufDecoder({ type: Ping, eventRecordFormat: 'SOURCE' });
    for (const [bytes, metadata] of [
      [confluent(3, deprecated), undefined],
      [deprecated, source],
    ] as const) {
      const error = (() => {
        try {
          decode(strict, bytes, metadata);
        } catch (thrown) {
          return thrown;
        }
      })();
      expect(error).toBeInstanceOf(KafkaSchemaRegistryDecodeError);
      expect((error as KafkaSchemaRegistryDecodeError).reason).toBe('DESERIALIZATION_ERROR');
      expect((error as Error).message).toContain("confluentMessageIndexes: 'unsigned'");
    }
    expect(() => protobufDecoder({ type: Ping, confluentMessageIndexes: 'varint' as never })).toThrow(
      /confluentMessageIndexes must be 'zigzag' or 'unsigned', not varint/,
    );
  });

  describe('a SOURCE message index whose first byte is 8 or more', () => {
    // Glue numbers every message type of the file by full name and writes the position as one
    // varint: the ninth, p.I, is 0x08 (awslabs/aws-glue-schema-registry MessageIndexFinder).
    const nine = protobuf.parse(
      'syntax = "proto3"; package p; message A{} message B{} message C{} message D{} message E{} message F{} message G{} message H{} message I { string id = 1; int32 qty = 2; }',
    ).root;
    const I = nine.lookupType('p.I');
    const glueSource = Buffer.concat([Buffer.from([8]), I.encode({ id: 'o-1', qty: 5 }).finish()]);
    const glueMetadata = { dataFormat: 'PROTOBUF', schemaId: '12345678-1234-1234-1234-123456789012' };
    // Confluent's index array of a message nested 4 deep, [0, 0, 0, 0]: count zigzag(4) = 0x08.
    const deep = protobuf.parse(
      'syntax = "proto3"; package q; message L0 { message L1 { message L2 { message L3 { string id = 1; int32 qty = 2; } } } }',
    ).root;
    const L3 = deep.lookupType('q.L0.L1.L2.L3');
    const confluentSource = Buffer.concat([
      Buffer.from([8, 0, 0, 0, 0]),
      L3.encode({ id: 'o-1', qty: 5 }).finish(),
    ]);
    const confluentMetadata = { dataFormat: 'PROTOBUF', schemaId: '1' };
    const cases = [
      ['Glue', I, glueSource, glueMetadata],
      ['Confluent', L3, confluentSource, confluentMetadata],
    ] as const;

    it.each(cases)('is read exactly with sourceMessageIndex kept (%s)', (_name, type, bytes, metadata) => {
      const decoder = protobufDecoder({ type, eventRecordFormat: 'SOURCE', sourceMessageIndex: 'kept' });
      expect(type.toObject(decode(decoder, bytes, metadata) as protobuf.Message)).toEqual({
        id: 'o-1',
        qty: 5,
      });
    });

    it.each(cases)(
      'fails naming the option under detect, without quoting the bytes (%s)',
      (_name, type, bytes, metadata) => {
        const decoder = protobufDecoder({ type, eventRecordFormat: 'SOURCE' });
        const error = thrownBy(() => decode(decoder, bytes, metadata));
        expect(error).toBeInstanceOf(KafkaSchemaRegistryDecodeError);
        expect((error as KafkaSchemaRegistryDecodeError).reason).toBe('DESERIALIZATION_ERROR');
        expect((error as Error).message).toContain("sourceMessageIndex: 'kept'");
        expect((error as Error).message).not.toContain('o-1');
      },
    );

    it('takes the bytes as the message with sourceMessageIndex removed, whatever the first byte', () => {
      const decoder = protobufDecoder({
        type: Ping,
        eventRecordFormat: 'SOURCE',
        sourceMessageIndex: 'removed',
      });
      const source = { dataFormat: 'PROTOBUF', schemaId: '3' };
      expect(Ping.toObject(decode(decoder, ping, source) as protobuf.Message)).toEqual({ id: 'p' });
      expect(Ping.toObject(decode(decoder, Buffer.alloc(0), source) as protobuf.Message)).toEqual({});
      // A kept [0] is not skipped: field number 0 is no message.
      const error = thrownBy(() => decode(decoder, Buffer.concat([Buffer.from([0]), ping]), source));
      expect((error as KafkaSchemaRegistryDecodeError).reason).toBe('DESERIALIZATION_ERROR');
      expect((error as Error).message).not.toContain('sourceMessageIndex');
      // Framed records carry their index whatever the option says.
      expect(
        Ping.toObject(
          decode(decoder, confluent(3, Buffer.concat([Buffer.from([0]), ping]))) as protobuf.Message,
        ),
      ).toEqual({ id: 'p' });
      expect(() => protobufDecoder({ type: Ping, sourceMessageIndex: 'guess' as never })).toThrow(
        /sourceMessageIndex must be 'detect', 'kept' or 'removed', not guess/,
      );
    });
  });

  it('accepts a @bufbuild/protobuf-style descriptor with its fromBinary', () => {
    const descriptor = { kind: 'message', typeName: 'Ping' } as unknown as DescMessage;
    const decoder = protobufDecoder({
      type: descriptor,
      fromBinary: (_schema: DescMessage, bytes: Uint8Array) => Ping.toObject(Ping.decode(bytes)) as never,
    });
    expect(decode(decoder, confluent(3, Buffer.concat([Buffer.from([0]), ping])))).toEqual({ id: 'p' });
  });
});

describe('protobufDecoder with EventRecordFormat JSON', () => {
  const root = protobuf.parse(`syntax = "proto3"; package shop;
    enum Status { NEW = 0; PAID = 1; }
    message Item { string sku = 1; uint32 qty = 2; }
    message Order {
      string order_id = 1; Status status = 2; int64 cents = 3; repeated Item line_items = 4;
      map<string, Item> items_by_sku = 5; bytes note = 6; Item first_item = 7; repeated Status past_statuses = 8;
    }`).root;
  const Order = root.lookupType('shop.Order');
  const metadata = { dataFormat: 'PROTOBUF', schemaId: '17' };
  const json = (value: unknown) => Buffer.from(JSON.stringify(value));
  const decoder = protobufDecoder({ type: Order, eventRecordFormat: 'JSON' });

  it('hands over a message of the type, from the JSON the emulator renders (proto names, enum names, int64 strings, base64)', () => {
    const data = decode(
      decoder,
      json({
        order_id: 'o-1',
        status: 'PAID',
        cents: '9007199254740993',
        line_items: [{ sku: 's-1', qty: 2 }],
        items_by_sku: { 's-1': { sku: 's-1', qty: 2 } },
        note: Buffer.from('hi').toString('base64'),
        first_item: null,
        past_statuses: ['NEW', 1],
        added_by_a_newer_writer: true,
      }),
      metadata,
    );
    expect(data).toBeInstanceOf(protobuf.Message);
    const order = Order.toObject(data as protobuf.Message, { longs: String, bytes: String });
    expect(order).toEqual({
      orderId: 'o-1',
      status: 1,
      cents: '9007199254740993',
      lineItems: [{ sku: 's-1', qty: 2 }],
      itemsBySku: { 's-1': { sku: 's-1', qty: 2 } },
      note: Buffer.from('hi').toString('base64'),
      pastStatuses: [0, 1],
    });
  });

  it('accepts the lowerCamelCase JSON names too, and a keepCase type', () => {
    const camel = decode(decoder, json({ orderId: 'o-1', lineItems: [{ sku: 's-1' }] }), metadata);
    expect(Order.toObject(camel as protobuf.Message)).toEqual({
      orderId: 'o-1',
      lineItems: [{ sku: 's-1' }],
    });
    const kept = protobuf.parse('syntax = "proto3"; message Ping { string ping_id = 1; }', {
      keepCase: true,
    }).root;
    const Ping = kept.lookupType('Ping');
    const keptDecoder = protobufDecoder({ type: Ping, eventRecordFormat: 'JSON' });
    for (const value of [{ ping_id: 'p' }, { pingId: 'p' }])
      expect(Ping.toObject(decode(keptDecoder, json(value), metadata) as protobuf.Message)).toEqual({
        ping_id: 'p',
      });
  });

  it.each([
    [{ order_id: 5 }, 'orderId: must be a string'],
    [{ status: 'REFUNDED' }, undefined], // a newer writer's enum name: skipped, not poison
    [{ cents: 'twelve' }, 'cents: must be an int64'],
    [{ line_items: [{ qty: -1 }] }, 'lineItems.0.qty: must be a uint32'],
    [{ items_by_sku: { 'SECRET-KEY': { qty: 'x' } } }, 'itemsBySku.*.qty: must be a uint32'],
    [{ first_item: 'SECRET' }, 'firstItem: must be an object'],
    [{ order_id: 'a', orderId: 'b' }, 'orderId: is given twice'],
  ])('makes JSON that does not fit the type poison, naming where, never the value (%j)', (value, problem) => {
    if (problem === undefined) {
      expect(Order.toObject(decode(decoder, json(value), metadata) as protobuf.Message)).toEqual({});
      return;
    }
    const error = thrownBy(() => decode(decoder, json(value), metadata));
    expect(error).toBeInstanceOf(KafkaSchemaRegistryDecodeError);
    expect((error as KafkaSchemaRegistryDecodeError).reason).toBe('DESERIALIZATION_ERROR');
    expect((error as Error).message).toContain(
      `does not fit the Protobuf type (EventRecordFormat JSON) at ${problem}`,
    );
    expect((error as Error).message).not.toMatch(/SECRET|twelve/);
  });

  it('refuses a static class for JSON: it has no field list to read JSON names with', () => {
    // What pbjs -t static-module generates: decode and fromObject, no fields.
    const Static = { decode: (_bytes: Uint8Array) => ({}), fromObject: (_object: object) => ({}) };
    expect(() => protobufDecoder({ type: Static, eventRecordFormat: 'JSON' as never })).toThrow(
      /eventRecordFormat 'JSON' needs a protobufjs reflected Type/,
    );
    expect(() => protobufDecoder({ type: Static, eventRecordFormat: 'SOURCE' })).not.toThrow();
  });

  it("uses @bufbuild/protobuf's fromJson with a descriptor, and needs it", () => {
    const file = create(FileDescriptorProtoSchema, {
      name: 'orders.proto',
      package: 'shop',
      syntax: 'proto3',
      messageType: [
        {
          name: 'Order',
          field: [
            {
              name: 'order_id',
              jsonName: 'orderId',
              number: 1,
              type: FieldDescriptorProto_Type.STRING,
              label: 1,
            },
            { name: 'cents', jsonName: 'cents', number: 3, type: FieldDescriptorProto_Type.INT64, label: 1 },
          ],
        },
      ],
    });
    const OrderSchema = createFileRegistry(file, () => undefined).getMessage('shop.Order')!;
    const bufDecoder = protobufDecoder({
      type: OrderSchema,
      fromBinary,
      fromJson,
      eventRecordFormat: 'JSON',
    });
    for (const value of [
      { order_id: 'o-1', cents: '5', newer: 1 },
      { orderId: 'o-1', cents: 5 },
    ])
      expect(decode(bufDecoder, json(value), metadata)).toMatchObject({
        $typeName: 'shop.Order',
        orderId: 'o-1',
        cents: 5n,
      });
    const error = thrownBy(() => decode(bufDecoder, json({ cents: 'SECRET' }), metadata));
    expect((error as KafkaSchemaRegistryDecodeError).reason).toBe('DESERIALIZATION_ERROR');
    expect((error as Error).message).not.toContain('SECRET');
    expect(() =>
      protobufDecoder({ type: OrderSchema, fromBinary, eventRecordFormat: 'JSON' as never }),
    ).toThrow(/needs fromJson too/);
  });
});

describe('jsonSchemaDecoder', () => {
  it('checks the JSON against the schema in code', () => {
    const decoder = jsonSchemaDecoder({ schema: { type: 'object', required: ['id'] } });
    expect(decode(decoder, confluent(2, Buffer.from('{"id":1}')))).toEqual({ id: 1 });
    expect(() => decode(decoder, confluent(2, Buffer.from('{"no":1}')))).toThrow(
      KafkaSchemaRegistryDecodeError,
    );
    expect(() => decode(decoder, confluent(2, Buffer.from('{not json')))).toThrow(
      KafkaSchemaRegistryDecodeError,
    );
  });

  it("names a validate schema's rejected paths without the value's own keys", () => {
    const decoder = jsonSchemaDecoder({
      schema: { type: 'object' },
      validate: v.object({ prices: v.record(v.string(), v.number()) }),
    });
    let thrown: unknown;
    try {
      decode(decoder, confluent(2, Buffer.from('{"prices":{"SECRET-PAYLOAD-123":"x"}}')));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(KafkaSchemaError);
    expect((thrown as KafkaSchemaError).paths).toEqual(['prices.*']);
    expect((thrown as Error).message).not.toContain('SECRET');
  });

  it('a validate schema that throws is a KafkaSchemaThrewError (retried, never poison), its message withheld', () => {
    const decoder = jsonSchemaDecoder({
      schema: { type: 'object' },
      validate: v.object({
        card: v.pipe(
          v.string(),
          v.transform((text) => JSON.parse(text) as unknown),
        ),
      }),
    });
    let thrown: unknown;
    try {
      decode(decoder, confluent(2, Buffer.from('{"card":"PAN=4111111111111111"}')));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(KafkaSchemaThrewError);
    expect(thrown).not.toBeInstanceOf(KafkaPoisonRecordError);
    expect(String(thrown)).not.toContain('4111');
    expect((thrown as Error).cause).toMatchObject({
      name: 'SyntaxError',
      message: expect.stringContaining('withheld'),
    });
  });

  it.each([
    ['https://json-schema.org/draft/2020-12/schema', 'prefixItems'],
    ['https://json-schema.org/draft/2019-09/schema', 'items'],
  ])('reads a schema in its own dialect (%s)', (dialect, keyword) => {
    // `prefixItems` is 2020-12's tuple keyword; in 2019-09 `items` takes the tuple as a list.
    const tuple = [{ type: 'string' }, { type: 'integer' }];
    const schema = {
      $schema: dialect,
      type: 'object',
      properties: { line: { type: 'array', [keyword]: tuple } },
      required: ['line'],
    };
    const decoder = jsonSchemaDecoder({ schema });
    expect(decode(decoder, confluent(2, Buffer.from('{"line":["sku",2]}')))).toEqual({ line: ['sku', 2] });
    expect(() => decode(decoder, confluent(2, Buffer.from('{"line":[2,"sku"]}')))).toThrow(
      KafkaSchemaRegistryDecodeError,
    );
  });
});

describe('jsonSchemaDecoder with EventRecordFormat JSON', () => {
  function json(text: string, schema: object = orderJsonSchema) {
    const decoder = jsonSchemaDecoder({ schema, eventRecordFormat: 'JSON' });
    const value = Buffer.from(text);
    const record = recordOf(value, { dataFormat: 'JSON', schemaId: '4' });
    return decoder.decode(value, record, 'value', new AbortController().signal);
  }
  function refusal(text: string, schema?: object): KafkaSchemaRegistryDecodeError {
    let thrown: unknown;
    try {
      json(text, schema);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(KafkaSchemaRegistryDecodeError);
    const error = thrown as KafkaSchemaRegistryDecodeError;
    expect(error.reason).toBe('DESERIALIZATION_ERROR');
    expect(error.schemaId).toBe('4');
    expect(error.message).not.toContain('SECRET');
    return error;
  }
  const orderJsonSchema = {
    type: 'object',
    required: ['id', 'lines'],
    additionalProperties: false,
    properties: {
      id: { type: 'string' },
      lines: {
        type: 'array',
        items: {
          type: 'object',
          required: ['sku'],
          properties: { sku: { type: 'string' }, qty: { type: 'integer' } },
        },
      },
      tags: { type: 'object', additionalProperties: { type: 'string' } },
    },
  };

  it('checks the JSON against the schema in code, as a framed record is checked', () => {
    expect(json('{"id":"o-1","lines":[{"sku":"a","qty":2}]}')).toEqual({
      id: 'o-1',
      lines: [{ sku: 'a', qty: 2 }],
    });
    expect(refusal('{"SECRETPAYLOAD":1}').message).toBe(
      'orders-0@7: value does not fit the JSON Schema in code (EventRecordFormat JSON) at id: required (schema 4)',
    );
  });

  it('names where the JSON fails and the keyword, never a value nor a key the schema does not declare', () => {
    expect(refusal('{"id":"o-1","lines":[],"SECRET-EXTRA":1}').message).toContain(
      'at (root): additionalProperties',
    );
    expect(refusal('{"id":"o-1","lines":[{"sku":"a"},{"sku":"SECRET","qty":"SECRET-2"}]}').message).toContain(
      'at lines.1.qty: type',
    );
    expect(refusal('{"id":"o-1","lines":[{"qty":1}]}').message).toContain('at lines.0.sku: required');
    expect(refusal('{"id":"o-1","lines":[],"tags":{"SECRET-KEY":5}}').message).toContain('at tags.*: type');
    expect(refusal('["SECRET"]').message).toContain('at (root): type');
  });

  it('hands the parsed JSON over as it is without a schema in code (the trigger validated it)', () => {
    const decoder = jsonSchemaDecoder({
      registry: confluentSchemaRegistry({ url: 'http://127.0.0.1:1' }),
      eventRecordFormat: 'JSON',
    });
    const value = Buffer.from('{"anything":true}');
    const record = recordOf(value, { dataFormat: 'JSON', schemaId: '4' });
    expect(decoder.decode(value, record, 'value', new AbortController().signal)).toEqual({ anything: true });
  });
});

describe('kafkaBatch with a decoder', () => {
  async function run(options: Partial<KafkaBatchOptions<unknown, unknown>>, records: KafkaRecordInput[]) {
    const data: unknown[] = [];
    const keys: unknown[] = [];
    const lines: string[] = [];
    const log = (message: string, attributes: object) =>
      lines.push(JSON.stringify({ message, ...attributes }));
    const event = kafkaEvent({ topic: 'orders', records });
    const handler = middy().use(
      kafkaBatch({
        ...options,
        logger: { info: log, warn: log, error: log },
        onRecord: (record) => {
          data.push(record.data);
          keys.push(record.keyData);
        },
      } as KafkaBatchOptions<unknown, unknown>),
    );
    return { failed: failedOffsets(await invokeHandler(handler, event), event), data, keys, lines };
  }

  it('isolates a poison record by offset (report) or skips it, never logging its bytes', async () => {
    const good = confluent(1, Order.toBuffer({ id: 'a', total: 1 }));
    const bad = Buffer.from('SECRET-PAYLOAD');
    const reported = await run({ value: avroDecoder({ schema: orderSchema }) }, [
      { value: good },
      { value: bad },
      { value: good },
    ]);
    expect(reported.failed).toEqual({ 'orders-0': [1, 2] });
    const skipped = await run({ value: avroDecoder({ schema: orderSchema }), onPoison: 'skip' }, [
      { value: good },
      { value: bad },
      { value: good },
    ]);
    expect(skipped.failed).toEqual({});
    expect(skipped.data).toHaveLength(2);
    for (const line of [...reported.lines, ...skipped.lines]) expect(line).not.toMatch(/SECRET|U0VDUkVU/);
  });

  it('decodes keys and values with different decoders and schemas', async () => {
    const keyType = avsc.Type.forSchema('string');
    const result = await run({ key: avroDecoder({ schema: 'string' }), value: v.object({ n: v.number() }) }, [
      { key: confluent(9, keyType.toBuffer('customer-7')), value: { n: 1 } },
    ]);
    expect(result.failed).toEqual({});
    expect(result.data).toEqual([{ n: 1 }]);
    expect(result.keys).toEqual(['customer-7']);
  });

  it('refuses a key or value option that is neither a Standard Schema nor a decoder', () => {
    expect(() => kafkaBatch({ value: { decode: () => 1 } as never, onRecord: () => {} })).toThrow(/decoder/);
  });
});
