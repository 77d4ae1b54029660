import middy from '@middy/core';
import { kafkaBatch } from 'kafka-lambda';
import * as v from 'valibot';

/** An order as its producers publish it. A record that does not match is a poison record: reported, not retried forever. */
export const OrderSchema = v.object({
  orderId: v.pipe(v.string(), v.nonEmpty()),
  quantity: v.pipe(v.number(), v.integer(), v.minValue(1)),
});

/** The Lambda entry point: one call of `onRecord` per Kafka record, a partial batch response by offset. */
export const handler = middy().use(
  kafkaBatch({
    value: OrderSchema, // record.data is a typed order
    onRecord: async (record) => {
      console.log(
        `order ${record.data.orderId}: ${record.data.quantity} (${record.topic}-${record.partition}@${record.offset})`,
      );
    },
  }),
);
