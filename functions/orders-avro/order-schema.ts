/**
 * The Avro schema of the orders the `orders-avro` function reads (the reader schema: records of any
 * compatible writer version are resolved into it). The same schema as `test/events/schemas/order.avsc`,
 * which the sample events are encoded with (a test keeps the two equal).
 *
 * @example
 * ```ts
 * avroDecoder({ schema: ORDER_AVRO_SCHEMA });
 * ```
 */
export const ORDER_AVRO_SCHEMA = {
  type: 'record',
  name: 'Order',
  namespace: 'shop',
  fields: [
    { name: 'orderId', type: 'string' },
    { name: 'customerId', type: 'string' },
    { name: 'total', type: 'double' },
  ],
} as const;

/**
 * An order as the function receives it.
 *
 * @example
 * ```ts
 * const order: AvroOrder = { orderId: 'o-1', customerId: 'c-1', total: 12.5 };
 * ```
 */
export interface AvroOrder {
  orderId: string;
  customerId: string;
  total: number;
}
