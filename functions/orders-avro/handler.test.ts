import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { failedOffsets, invokeHandler } from 'kafka-lambda/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { KafkaEvent } from '../../lib/kafka-event/types.ts';
import { type AvroOrdersSettings, avroOrdersSettingsFromEnv, createAvroOrdersHandler } from './handler.ts';
import { type AvroOrder, ORDER_AVRO_SCHEMA } from './order-schema.ts';

const root = join(import.meta.dirname, '../..');
const sample = (name: string) =>
  JSON.parse(readFileSync(join(root, 'test/events', name), 'utf8')) as KafkaEvent;
const ORDERS = ['o-2001', 'o-2002', 'o-2003'];

beforeAll(() => {
  for (const level of ['info', 'warn', 'error'] as const)
    vi.spyOn(console, level).mockImplementation(() => {});
});
afterAll(() => vi.restoreAllMocks());

async function run(settings: AvroOrdersSettings, event: KafkaEvent) {
  const orders: AvroOrder[] = [];
  const response = await invokeHandler(
    createAvroOrdersHandler(settings, async (order) => void orders.push(order)),
    event,
  );
  return { orders, failed: failedOffsets(response, event) };
}

describe('orders-avro function', () => {
  it('reads its schema: the one the sample events are encoded with', () => {
    expect(JSON.parse(readFileSync(join(root, 'test/events/schemas/order.avsc'), 'utf8'))).toEqual(
      ORDER_AVRO_SCHEMA,
    );
  });

  it.each([
    ['schema-avro-confluent.json', {}],
    ['schema-avro-glue.json', {}],
    ['schema-avro-json.json', { eventRecordFormat: 'JSON' }],
    ['schema-avro-source.json', { eventRecordFormat: 'SOURCE' }],
  ] as const)('reads every order of %s', async (name, settings) => {
    const { orders, failed } = await run(settings, sample(name));
    expect(failed).toEqual({});
    expect(orders.map((o) => o.orderId)).toEqual(ORDERS);
  });

  it("reports an undecodable order with the rest of its partition (kafkaBatch's default), after the ones before it", async () => {
    const event = sample('schema-avro-confluent.json');
    const [, second] = Object.values(event.records)[0]!;
    second!.value = Buffer.from([0, 0, 0, 0, 17, 0xff]).toString('base64');
    const { orders, failed } = await run({}, event);
    expect(orders.map((o) => o.orderId)).toEqual(['o-2001']);
    expect(failed).toEqual({ 'orders-0': [501, 502] });
  });

  it('takes its registry and format from the environment and refuses a bad format', () => {
    const settings = avroOrdersSettingsFromEnv({
      SCHEMA_REGISTRY_URL: 'http://127.0.0.1:8081/apis/ccompat/v7',
      EVENT_RECORD_FORMAT: 'SOURCE',
    });
    expect(settings.registry?.registry).toBe('confluent');
    expect(settings.eventRecordFormat).toBe('SOURCE');
    expect(avroOrdersSettingsFromEnv({})).toEqual({});
    expect(() => avroOrdersSettingsFromEnv({ EVENT_RECORD_FORMAT: 'AVRO' })).toThrow(/JSON or SOURCE/);
  });
});
