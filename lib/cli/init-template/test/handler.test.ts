import { failedOffsets, invokeHandler, kafkaEvent } from 'kafka-lambda/testing';
import { describe, expect, it } from 'vitest';
import { handler } from '../src/handler.ts';

describe('handler', () => {
  it('reports an invalid order and the records after it in its partition', async () => {
    const event = kafkaEvent({
      topic: 'orders',
      partitions: 2,
      records: [
        { partition: 0, value: { orderId: 'o-1', quantity: 1 } },
        { partition: 0, value: { orderId: 'o-2' } }, // invalid: no quantity
        { partition: 0, value: { orderId: 'o-3', quantity: 2 } },
        { partition: 1, value: { orderId: 'o-4', quantity: 3 } },
      ],
    });

    const response = await invokeHandler(handler, event, { timeoutMs: 5_000 });

    expect(failedOffsets(response, event)).toEqual({ 'orders-0': [1, 2] });
  });
});
