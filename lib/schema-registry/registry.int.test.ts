/**
 * Decoders against a real schema registry (Apicurio Registry's Confluent-compatible API, started
 * here, or the user's own via SCHEMA_REGISTRY_URL), with records serialized by an independent
 * implementation: @kafkajs/confluent-schema-registry for Avro and JSON Schema.
 */
import { SchemaType } from '@kafkajs/confluent-schema-registry';
import middy from '@middy/core';
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { ORDER_AVRO, useSchemaRegistry } from '../../test/support/registry.ts';
import { avroDecoder } from '../avro/index.ts';
import { jsonSchemaDecoder } from '../json-schema/index.ts';
import type { KafkaBatchLogger } from '../middleware/log.ts';
import { kafkaBatch } from '../middleware/middleware.ts';
import type { KafkaBatchOptions } from '../middleware/options.ts';
import type { KafkaRecord } from '../middleware/record.ts';
import { protobufDecoder } from '../protobuf/index.ts';
import { failedOffsets } from '../testing/batch-response.ts';
import { type KafkaRecordInput, kafkaEvent } from '../testing/event-builder.ts';
import { invokeHandler } from '../testing/invoke-handler.ts';
import { type KafkaSchemaRegistryDecodeError, SchemaRegistryRequestError } from './errors.ts';
import { confluentSchemaRegistry, type SchemaRegistryClient } from './registry.ts';

/** Subjects are unique per run: a user's own registry may already hold ours. */
const run = `kl-${Date.now().toString(36)}`;

const testRegistry = useSchemaRegistry();
const orderV1 = ORDER_AVRO;
const orderV2 = {
  ...orderV1,
  fields: [...orderV1.fields, { name: 'currency', type: 'string', default: 'EUR' }],
};

interface Captured {
  data: unknown[];
  lines: string[];
  logger: KafkaBatchLogger;
}

function capture(): Captured {
  const lines: string[] = [];
  const add = (message: string, attributes: Record<string, unknown>) => {
    lines.push(JSON.stringify({ message, ...attributes }));
  };
  return { data: [], lines, logger: { info: add, warn: add, error: add } };
}

async function decodeBatch(
  options: Omit<KafkaBatchOptions<unknown, unknown>, 'onRecord' | 'onPartition' | 'logger'>,
  records: KafkaRecordInput[],
  captured = capture(),
) {
  const event = kafkaEvent({ topic: 'orders', records });
  const handler = middy().use(
    kafkaBatch({
      ...options,
      logger: captured.logger,
      onRecord: (record: KafkaRecord<unknown, unknown>) => {
        captured.data.push(record.data);
      },
    } as KafkaBatchOptions<unknown, unknown>),
  );
  const response = await invokeHandler(handler, event, { timeoutMs: 30_000 });
  return { failed: failedOffsets(response, event), ...captured };
}

function newRegistry(): SchemaRegistryClient {
  return confluentSchemaRegistry({ url: testRegistry.url });
}

describe('Avro through a real registry', () => {
  it('decodes Confluent-framed records of two schema versions into the reader schema (evolution), one request per id', async () => {
    const subject = `${run}-orders-value`;
    const v1 = await testRegistry.register(SchemaType.AVRO, orderV1, subject);
    const a = await testRegistry.producer.encode(v1, { id: 'o-1', total: 12.5 });
    const v2 = await testRegistry.register(SchemaType.AVRO, orderV2, subject);
    const b = await testRegistry.producer.encode(v2, { id: 'o-2', total: 3, currency: 'USD' });
    const registry = newRegistry();
    const result = await decodeBatch({ value: avroDecoder({ registry, schema: orderV2 }) }, [
      { value: a },
      { value: b },
      { value: a },
      { value: null },
    ]);
    expect(result.failed).toEqual({});
    expect(result.data.map((d) => (d === null ? null : { ...(d as object) }))).toEqual([
      { id: 'o-1', total: 12.5, currency: 'EUR' },
      { id: 'o-2', total: 3, currency: 'USD' },
      { id: 'o-1', total: 12.5, currency: 'EUR' },
      null,
    ]);
    expect(registry.stats.requests).toBe(2);
  });

  it('reads EventRecordFormat SOURCE (framing removed, id in the metadata) and JSON', async () => {
    const id = await testRegistry.register(SchemaType.AVRO, orderV1, `${run}-source-value`);
    const framed = await testRegistry.producer.encode(id, { id: 'o-3', total: 1 });
    const metadata = { dataFormat: 'AVRO', schemaId: String(id) };
    const source = await decodeBatch(
      { value: avroDecoder({ registry: newRegistry(), eventRecordFormat: 'SOURCE' }) },
      [{ value: framed.subarray(5), valueSchemaMetadata: metadata }],
    );
    expect(source.failed).toEqual({});
    expect({ ...(source.data[0] as object) }).toEqual({ id: 'o-3', total: 1 });
    const json = await decodeBatch({ value: avroDecoder({ schema: orderV1, eventRecordFormat: 'JSON' }) }, [
      { value: { id: 'o-4', total: 2 }, valueSchemaMetadata: metadata },
    ]);
    expect(json.data).toEqual([{ id: 'o-4', total: 2 }]);
  });

  it('isolates records whose schema id is unknown or whose bytes are not Avro, never quoting them', async () => {
    const id = await testRegistry.register(SchemaType.AVRO, orderV1, `${run}-poison-value`);
    const good = await testRegistry.producer.encode(id, { id: 'o-5', total: 5 });
    const unknownId = Buffer.from(good);
    unknownId.writeInt32BE(2_000_000_000, 1);
    const secret = Buffer.from('SECRET-PAYLOAD-SECRET-PAYLOAD');
    const garbage = Buffer.concat([good.subarray(0, 5), Buffer.from([0x7f]), secret]);
    const poisoned: KafkaSchemaRegistryDecodeError[] = [];
    const result = await decodeBatch(
      {
        value: avroDecoder({ registry: newRegistry() }),
        onPoison: (_record, error) => {
          poisoned.push(error as KafkaSchemaRegistryDecodeError);
        },
      },
      [{ value: good }, { value: unknownId }, { value: garbage }, { value: secret }],
    );
    expect(result.failed).toEqual({});
    expect(poisoned.map((e) => [e.offset, e.reason])).toEqual([
      [1, 'SCHEMA_NOT_FOUND'],
      [2, 'DESERIALIZATION_ERROR'],
      [3, 'DESERIALIZATION_ERROR'],
    ]);
    const output = [...result.lines, ...poisoned.map((e) => `${e.message} ${e.stack}`)].join('\n');
    for (const quoted of [
      secret.toString('utf8'),
      secret.toString('base64'),
      secret.toString('hex'),
      'SECRET',
    ])
      expect(output).not.toContain(quoted);
  });
});

describe('schema references through a real registry', () => {
  it('decodes Avro whose field type is a record of another subject, and JSON Schema whose $ref names another subject', async () => {
    const address = {
      type: 'record',
      name: 'Address',
      namespace: 'test.kafkalambda',
      fields: [{ name: 'city', type: 'string' }],
    };
    await testRegistry.register(SchemaType.AVRO, address, `${run}-address`);
    const customer = {
      type: 'record',
      name: 'Customer',
      namespace: 'test.kafkalambda',
      fields: [
        { name: 'id', type: 'string' },
        { name: 'address', type: 'test.kafkalambda.Address' },
      ],
    };
    const avro = await testRegistry.register(SchemaType.AVRO, customer, `${run}-customers-value`, [
      { name: 'test.kafkalambda.Address', subject: `${run}-address`, version: 1 },
    ]);
    const addressUrl = `https://example.com/${run}/address.json`;
    await testRegistry.register(
      SchemaType.JSON,
      { $id: addressUrl, type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      `${run}-address-json`,
    );
    const json = await testRegistry.register(
      SchemaType.JSON,
      {
        type: 'object',
        properties: { id: { type: 'string' }, address: { $ref: addressUrl } },
        required: ['id', 'address'],
      },
      `${run}-customers-json-value`,
      [{ name: addressUrl, subject: `${run}-address-json`, version: 1 }],
    );
    const value = { id: 'c-1', address: { city: 'Delft' } };
    const registry = newRegistry();
    const avroRecords = await decodeBatch({ value: avroDecoder({ registry }) }, [
      { value: await testRegistry.producer.encode(avro, value) },
      { value: await testRegistry.producer.encode(avro, { id: 'c-2', address: { city: 'Leiden' } }) },
    ]);
    expect(avroRecords.failed).toEqual({});
    expect(JSON.parse(JSON.stringify(avroRecords.data))).toEqual([
      value,
      { id: 'c-2', address: { city: 'Leiden' } },
    ]);
    // The schema, then its one reference; the second record asks nothing.
    expect(registry.stats.requests).toBe(2);
    const poisoned: string[] = [];
    const jsonRecords = await decodeBatch(
      {
        value: jsonSchemaDecoder({ registry }),
        onPoison: (_record, e) => {
          poisoned.push((e as KafkaSchemaRegistryDecodeError).reason);
        },
      },
      [
        { value: await testRegistry.producer.encode(json, value) },
        // Framed by hand: the serializer checks the value against the schema first.
        {
          value: Buffer.concat([
            (await testRegistry.producer.encode(json, value)).subarray(0, 5),
            Buffer.from('{"id":"c-3","address":{}}'),
          ]),
        },
      ],
    );
    expect(jsonRecords.data).toEqual([value]);
    expect(poisoned).toEqual(['DESERIALIZATION_ERROR']);
  });
});

describe("the registry's 404s", () => {
  it('retries a record when the URL is not the registry API (unknown path), and poisons one whose id is unknown', async () => {
    const id = await testRegistry.register(SchemaType.AVRO, orderV1, `${run}-url-value`);
    const good = await testRegistry.producer.encode(id, { id: 'o-8', total: 8 });
    const unknownId = Buffer.from(good);
    unknownId.writeInt32BE(2_000_000_000, 1);
    // The server's root, without the compatible API's path: the server answers 404 for the path.
    const wrong = confluentSchemaRegistry({ url: new URL(testRegistry.url).origin });
    const error = await wrong.getSchema(String(id)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SchemaRegistryRequestError);
    expect((error as Error).message).toContain('check the registry URL');
    const retried = await decodeBatch({ value: avroDecoder({ registry: wrong }), onPoison: 'skip' }, [
      { value: good },
    ]);
    expect(retried.failed).toEqual({ 'orders-0': [0] });
    const poisoned: string[] = [];
    const right = await decodeBatch(
      {
        value: avroDecoder({ registry: newRegistry() }),
        onPoison: (_record, e) => {
          poisoned.push((e as KafkaSchemaRegistryDecodeError).reason);
        },
      },
      [{ value: unknownId }],
    );
    expect(right.failed).toEqual({});
    expect(poisoned).toEqual(['SCHEMA_NOT_FOUND']);
  });
});

describe('JSON Schema through a real registry', () => {
  it('checks records against the writer JSON Schema resolved by id', async () => {
    const schema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { id: { type: 'string' } },
      required: ['id'],
    };
    const id = await testRegistry.register(SchemaType.JSON, schema, `${run}-json-value`);
    const good = await testRegistry.producer.encode(id, { id: 'o-6' });
    const bad = Buffer.concat([good.subarray(0, 5), Buffer.from('{"id":42}')]);
    const result = await decodeBatch(
      { value: jsonSchemaDecoder({ registry: newRegistry() }), onPoison: 'skip' },
      [{ value: good }, { value: bad }],
    );
    expect(result.data).toEqual([{ id: 'o-6' }]);
    expect(
      result.lines.some((line) => line.includes('poison record skipped') && line.includes('"offset":1')),
    ).toBe(true);
  });
});

describe('Protobuf with a schema registered in a real registry', () => {
  const proto = `syntax = "proto3";
package test.kafkalambda;
message Order { string id = 1; double total = 2; }
message Refund { string order_id = 1; int32 cents = 2; }
`;
  const root = protobuf.parse(proto).root;
  const Order = root.lookupType('test.kafkalambda.Order');
  const Refund = root.lookupType('test.kafkalambda.Refund');

  it("reads Confluent's message-index array exactly: [0] as one byte, [1] as count and index", async () => {
    const id = await testRegistry.register(SchemaType.PROTOBUF, proto, `${run}-proto-value`);
    // Confluent's wire format, byte by byte: magic 0, the id, the zigzag-varint index array, the message.
    const header = Buffer.alloc(5);
    header.writeInt32BE(id, 1);
    const order = Buffer.from(Order.encode(Order.create({ id: 'o-7', total: 7 })).finish());
    const refund = Buffer.from(Refund.encode(Refund.create({ orderId: 'o-7', cents: 250 })).finish());
    const orders = await decodeBatch({ value: protobufDecoder({ type: Order }) }, [
      { value: Buffer.concat([header, Buffer.from([0]), order]) },
    ]);
    expect(orders.data.map((d) => Order.toObject(d as protobuf.Message))).toEqual([{ id: 'o-7', total: 7 }]);
    const refunds = await decodeBatch(
      { value: protobufDecoder({ type: Refund, eventRecordFormat: 'SOURCE' }) },
      [
        { value: Buffer.concat([header, Buffer.from([2, 2]), refund]) },
        // SOURCE: framing removed by Lambda, with and without the index array left in place.
        {
          value: Buffer.concat([Buffer.from([2, 2]), refund]),
          valueSchemaMetadata: { dataFormat: 'PROTOBUF', schemaId: String(id) },
        },
        { value: refund, valueSchemaMetadata: { dataFormat: 'PROTOBUF', schemaId: String(id) } },
      ],
    );
    expect(refunds.failed).toEqual({});
    expect(refunds.data.map((d) => Refund.toObject(d as protobuf.Message))).toEqual([
      { orderId: 'o-7', cents: 250 },
      { orderId: 'o-7', cents: 250 },
      { orderId: 'o-7', cents: 250 },
    ]);
  });
});
