import { describe, expect, it } from 'vitest';
import { demoOrders, ORDER_COUNT, ORDER_PARTITIONS } from './orders.ts';

describe('the demo orders', () => {
  const orders = demoOrders();

  it('are the same on every call: the demo predicts offsets the self-check compares against', () => {
    expect(demoOrders()).toEqual(orders);
    expect(orders).toHaveLength(ORDER_COUNT);
  });

  it('fill each partition from offset 0 without gaps, in produce order', () => {
    for (let partition = 0; partition < ORDER_PARTITIONS; partition++) {
      const offsets = orders.filter((order) => order.partition === partition).map((order) => order.offset);
      expect(offsets).toEqual(offsets.map((_, i) => i));
    }
  });

  it('hold three poison records the orders function must reject, each with why', () => {
    const poison = orders.filter((order) => order.poison);
    expect(poison.map((order) => order.poison)).toEqual(['value is not JSON', 'quantity 0', 'no customer']);
    for (const order of poison) expect(order.orderId).toBeUndefined();
    expect(() => JSON.parse(poison[0]!.value)).toThrow(SyntaxError);
  });

  it('refuse only valid orders once, never two in one partition within a batch of 10', () => {
    const refused = orders.filter((order) => order.refusedOnce);
    expect(refused.length).toBeGreaterThan(0);
    for (const order of refused) {
      expect(order.poison).toBeUndefined();
      expect(JSON.parse(order.value).orderId).toBe(order.orderId);
    }
    for (let partition = 0; partition < ORDER_PARTITIONS; partition++) {
      const offsets = refused.filter((order) => order.partition === partition).map((order) => order.offset);
      for (let i = 1; i < offsets.length; i++) expect(offsets[i]! - offsets[i - 1]!).toBeGreaterThan(10);
    }
  });
});
