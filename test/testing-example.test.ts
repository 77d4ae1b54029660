// The README's "Testing helpers" example, verbatim.

import { failedOffsets, invokeHandler, kafkaEvent } from 'kafka-lambda/testing';
import { describe, expect, it } from 'vitest';
import { createHandler } from '../functions/orders/handler.ts';
import { simulatedReservations } from '../functions/orders/reservations.ts';

const order = (orderId: string) => ({ orderId, customerId: 'c-1', items: [{ sku: 'tea', quantity: 1 }] });

describe('orders handler', () => {
  it('reports an invalid order and the records after it in its partition', async () => {
    const event = kafkaEvent({
      topic: 'order-events',
      partitions: 2,
      records: [
        { partition: 0, value: order('o-1') },
        { partition: 0, value: { orderId: 'o-2' } }, // invalid: no customer, no items
        { partition: 0, value: order('o-3') },
        { partition: 1, value: order('o-4') },
      ],
    });
    const handler = createHandler(simulatedReservations());

    const response = await invokeHandler(handler, event, { timeoutMs: 5_000 });

    expect(failedOffsets(response, event)).toEqual({ 'order-events-0': [1, 2] });
  });
});
