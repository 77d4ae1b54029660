// The demo's data: sample orders keyed by customer, a few of them poison, a few refused once by the
// warehouse. Pure data, so a unit test can pin what the demo's self-check relies on.
import { partitionForKey } from 'kafka-lambda/testing';

/** Partitions of the demo's orders topic. */
export const ORDER_PARTITIONS = 3;
/** Records the demo produces. */
export const ORDER_COUNT = 60;

const SKUS = ['coffee-beans-1kg', 'green-tea-100g', 'oat-milk-1l', 'dark-chocolate-200g', 'espresso-cups-x6'];

/** Records the orders function must reject as poison: where they sit in the sequence and why. */
const POISON = [
  { at: 9, kind: 'value is not JSON', value: '{"orderId":"o-1009","customerId":"c-3","items":[{"sku"' },
  {
    at: 23,
    kind: 'quantity 0',
    order: { orderId: 'o-1023', customerId: 'c-8', items: [{ sku: 'oat-milk-1l', quantity: 0 }] },
  },
  {
    at: 41,
    kind: 'no customer',
    order: { orderId: 'o-1041', items: [{ sku: 'green-tea-100g', quantity: 2 }] },
  },
];

/**
 * The warehouse refuses the orders at these offsets once with a 503 (a transient failure the retry recovers
 * from). Retries are counted per batch, so they sit more than a batch apart: several transient failures in
 * one batch could exhaust its retries and send a good order to the dead-letter topic.
 */
const FLAKY_OFFSETS = [4, 15];

/**
 * One record of the demo, with where it lands on a fresh topic (the partition the default partitioner
 * picks for its key, the offset counted per partition) and what the demo expects of it.
 *
 * @example
 * ```ts
 * const poison = demoOrders().filter((order) => order.poison);
 * ```
 */
export interface DemoOrder {
  partition: number;
  offset: number;
  key: string;
  value: string;
  /** Why the record is poison; absent for a valid order. */
  poison?: string;
  /** The order id of a valid order; absent for poison. */
  orderId?: string;
  /** The warehouse refuses this valid order once (HTTP 503) before it accepts it. */
  refusedOnce: boolean;
}

function sampleOrder(i: number) {
  const items = Array.from({ length: 1 + (i % 3) }, (_, k) => ({
    sku: SKUS[(i + k * 2) % SKUS.length]!,
    quantity: 1 + ((i + k) % 4),
  }));
  return {
    orderId: `o-${1000 + i}`,
    customerId: `c-${(i * 7) % 11}`,
    items,
    placedAt: new Date(Date.UTC(2026, 10, 29, 9, 0, i)).toISOString(),
  };
}

/**
 * The demo's {@link ORDER_COUNT} records in the order they are produced, keyed by customer.
 *
 * @example
 * ```ts
 * await producer.send({ topic, messages: demoOrders().map(({ partition, key, value }) => ({ partition, key, value })) });
 * ```
 */
export function demoOrders(): DemoOrder[] {
  const next = Array<number>(ORDER_PARTITIONS).fill(0);
  return Array.from({ length: ORDER_COUNT }, (_, i) => {
    const poison = POISON.find((p) => p.at === i);
    const order = sampleOrder(i);
    const key = poison?.order?.customerId ?? (poison?.order ? 'unknown' : order.customerId);
    const value = poison ? (poison.value ?? JSON.stringify(poison.order)) : JSON.stringify(order);
    const partition = partitionForKey(Buffer.from(key), ORDER_PARTITIONS);
    const offset = next[partition]!++;
    return poison
      ? { partition, offset, key, value, poison: poison.kind, refusedOnce: false }
      : {
          partition,
          offset,
          key,
          value,
          orderId: order.orderId,
          refusedOnce: FLAKY_OFFSETS.includes(offset),
        };
  });
}
