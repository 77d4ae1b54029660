import * as v from 'valibot';

/**
 * An order event as the shop publishes it. Valibot implements Standard Schema, so the middleware
 * validates each record with it and types `record.data` as {@link Order}.
 *
 * @example
 * ```ts
 * v.parse(OrderSchema, { orderId: 'o-1', customerId: 'c-7', items: [{ sku: 'tea', quantity: 2 }] });
 * ```
 */
export const OrderSchema = v.object({
  orderId: v.pipe(v.string(), v.nonEmpty()),
  customerId: v.pipe(v.string(), v.nonEmpty()),
  items: v.pipe(
    v.array(
      v.object({
        sku: v.pipe(v.string(), v.nonEmpty()),
        quantity: v.pipe(v.number(), v.integer(), v.minValue(1)),
      }),
    ),
    v.nonEmpty(),
  ),
});

/**
 * A validated order.
 *
 * @example
 * ```ts
 * const order: Order = { orderId: 'o-1', customerId: 'c-7', items: [{ sku: 'tea', quantity: 2 }] };
 * ```
 */
export type Order = v.InferOutput<typeof OrderSchema>;
