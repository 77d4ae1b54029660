import middy from '@middy/core';
import { kafkaBatch } from 'kafka-lambda';
import { OrderSchema } from './order.ts';
import { type Reservations, reservationsFromEnv } from './reservations.ts';

/**
 * Reserves stock for each order on the topic; a failed reservation is retried by Lambda, in order.
 *
 * @example
 * ```ts
 * const handler = createHandler({ reserve: async () => {} }); // tests inject the downstream
 * ```
 */
export function createHandler(reservations: Reservations) {
  return middy().use(
    kafkaBatch({
      value: OrderSchema, // record.data is a typed Order; an invalid order is a poison record
      onRecord: async (record, { signal }) => {
        await reservations.reserve(record.data, { signal });
      },
    }),
  );
}

/**
 * The Lambda entry point (downstream from `RESERVATIONS_URL`, or a simulation).
 *
 * @example
 * ```sh
 * kafka-lambda invoke functions/orders/handler.ts --event test/events/msk-order-events.json
 * ```
 */
export const handler = createHandler(reservationsFromEnv(process.env));
