import type { Context } from 'aws-lambda';
import { describe, expectTypeOf, it } from 'vitest';
import type { KafkaBatchResponse, MskKafkaEvent, SelfManagedKafkaEvent } from '../kafka-event/types.ts';
import { failedOffsets, invokeHandler, kafkaEvent } from './index.ts';

describe('kafka-lambda/testing types', () => {
  it('types the event by its source', () => {
    expectTypeOf(kafkaEvent({ topic: 't', records: [] })).toEqualTypeOf<MskKafkaEvent>();
    expectTypeOf(
      kafkaEvent({ topic: 't', records: [], eventSource: 'aws:kafka' }),
    ).toEqualTypeOf<MskKafkaEvent>();
    expectTypeOf(
      kafkaEvent({ topic: 't', records: [], eventSource: 'SelfManagedKafka' }),
    ).toEqualTypeOf<SelfManagedKafkaEvent>();
    expectTypeOf(
      kafkaEvent({ topic: 't', records: [], eventSource: 'aws:SelfManagedKafka' }),
    ).toEqualTypeOf<SelfManagedKafkaEvent>();
  });

  it('accepts plain values, bytes, objects and null for keys and values; strings or bytes for headers', () => {
    interface Order {
      orderId: string;
    }
    const order: Order = { orderId: 'o-1' };
    kafkaEvent({
      topic: 't',
      records: [
        { value: order, key: 'k' },
        { value: Buffer.from('x'), key: null, headers: [['h', Uint8Array.of(1)]] },
        { value: null, headers: { h: ['a', 'b'], g: 'c' } },
      ],
    });
    // @ts-expect-error a header value is a string or bytes, not a number
    kafkaEvent({ topic: 't', records: [{ value: 'v', headers: { h: 1 } }] });
    // @ts-expect-error value is required (null for a tombstone)
    kafkaEvent({ topic: 't', records: [{ key: 'k' }] });
  });

  it("resolves invokeHandler to the handler's response type", () => {
    const handler = async (_event: MskKafkaEvent, _context: Context): Promise<KafkaBatchResponse> => ({
      batchItemFailures: [],
    });
    const event = kafkaEvent({ topic: 't', records: [] });
    expectTypeOf(invokeHandler(handler, event)).toEqualTypeOf<Promise<KafkaBatchResponse>>();
    expectTypeOf(failedOffsets({}, event)).toEqualTypeOf<Record<string, number[]>>();
    // @ts-expect-error a self-managed event is not what this handler takes
    invokeHandler(handler, kafkaEvent({ topic: 't', records: [], eventSource: 'SelfManagedKafka' }));
  });
});
