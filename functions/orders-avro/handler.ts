import middy from '@middy/core';
import { kafkaBatch } from 'kafka-lambda';
import { avroDecoder } from 'kafka-lambda/avro';
import { confluentSchemaRegistry, type SchemaRegistryClient } from 'kafka-lambda/schema-registry';
import { type AvroOrder, ORDER_AVRO_SCHEMA } from './order-schema.ts';

/**
 * Settings of the Avro orders consumer: the registry that resolves writer schemas by id (none: the
 * schema in code reads every record) and, when the trigger has a schema registry, its
 * `EventRecordFormat`.
 *
 * @example
 * ```ts
 * const settings: AvroOrdersSettings = { eventRecordFormat: 'JSON' };
 * ```
 */
export interface AvroOrdersSettings {
  registry?: SchemaRegistryClient;
  eventRecordFormat?: 'JSON' | 'SOURCE';
}

/**
 * Reads Avro orders in every wire situation: Confluent- or Glue-framed bytes (no registry on the
 * trigger) or the trigger's `JSON`/`SOURCE` format. An order whose schema is unknown or whose bytes do
 * not decode is a poison record (`SCHEMA_NOT_FOUND` / `DESERIALIZATION_ERROR`), reported as failed with what follows it.
 *
 * @example
 * ```ts
 * const handler = createAvroOrdersHandler({}, async (order) => console.log(order.orderId));
 * ```
 */
export function createAvroOrdersHandler(
  settings: AvroOrdersSettings,
  onOrder: (order: AvroOrder) => Promise<void>,
) {
  return middy().use(
    kafkaBatch({
      value: avroDecoder<AvroOrder>({
        schema: ORDER_AVRO_SCHEMA,
        ...(settings.registry ? { registry: settings.registry } : {}),
        ...(settings.eventRecordFormat ? { eventRecordFormat: settings.eventRecordFormat } : {}),
      }),
      onRecord: async (record) => {
        if (record.data !== null) await onOrder(record.data);
      },
    }),
  );
}

/**
 * The settings from the environment: `SCHEMA_REGISTRY_URL` (a Confluent-compatible registry; with
 * `SCHEMA_REGISTRY_USERNAME`/`SCHEMA_REGISTRY_PASSWORD` for basic auth) and `EVENT_RECORD_FORMAT`
 * (`JSON` or `SOURCE`, the trigger's setting when it has a registry).
 *
 * @example
 * ```ts
 * const settings = avroOrdersSettingsFromEnv({ SCHEMA_REGISTRY_URL: 'http://127.0.0.1:8081/apis/ccompat/v7' });
 * ```
 */
export function avroOrdersSettingsFromEnv(env: Record<string, string | undefined>): AvroOrdersSettings {
  const format = env.EVENT_RECORD_FORMAT;
  if (format !== undefined && format !== 'JSON' && format !== 'SOURCE')
    throw new TypeError(`EVENT_RECORD_FORMAT must be JSON or SOURCE, not ${format}`);
  const url = env.SCHEMA_REGISTRY_URL;
  const username = env.SCHEMA_REGISTRY_USERNAME;
  const password = env.SCHEMA_REGISTRY_PASSWORD;
  return {
    ...(url
      ? {
          registry: confluentSchemaRegistry({
            url,
            ...(username && password ? { auth: { username, password } } : {}),
          }),
        }
      : {}),
    ...(format ? { eventRecordFormat: format } : {}),
  };
}

/**
 * The Lambda entry point: logs each order (module scope keeps the registry's schema cache warm).
 *
 * @example
 * ```sh
 * EVENT_RECORD_FORMAT=JSON kafka-lambda invoke functions/orders-avro/handler.ts --event test/events/schema-avro-json.json
 * ```
 */
export const handler = createAvroOrdersHandler(avroOrdersSettingsFromEnv(process.env), async (order) => {
  console.info(JSON.stringify({ message: 'order received', orderId: order.orderId, total: order.total }));
});
