import type {
  SelfManagedKafkaEvent as AwsSelfManagedKafkaEvent,
  Handler,
  MSKEvent,
  MSKHandler,
  SelfManagedKafkaHandler,
} from 'aws-lambda';
import { describe, expectTypeOf, it } from 'vitest';
import type { KafkaBatchResponse } from '../kafka-event/types.ts';
import { kafkaEvent } from './event-builder.ts';
import { invokeHandler } from './invoke-handler.ts';

// @types/aws-lambda types every handler with a third `callback` parameter; one declared that way but
// written async, without the parameter, is what Lambda's Node.js 24 runtime runs.
describe('invokeHandler with @types/aws-lambda handler types', () => {
  const msk = kafkaEvent({ topic: 'orders', records: [{ value: 'a' }] });
  const selfManaged = kafkaEvent({
    topic: 'orders',
    eventSource: 'SelfManagedKafka',
    records: [{ value: 'a' }],
  });

  it('accepts an MSKHandler and a SelfManagedKafkaHandler', () => {
    const onMsk: MSKHandler = async (event) => {
      console.log(Object.keys(event.records));
    };
    const onSelfManaged: SelfManagedKafkaHandler = async (event) => {
      console.log(event.bootstrapServers);
    };
    expectTypeOf(invokeHandler(onMsk, msk)).toEqualTypeOf<Promise<void>>();
    expectTypeOf(invokeHandler(onSelfManaged, selfManaged)).toEqualTypeOf<Promise<void>>();
  });

  it('accepts Handler<MSKEvent, KafkaBatchResponse> and resolves to its response type', () => {
    const handler: Handler<MSKEvent, KafkaBatchResponse> = async () => ({ batchItemFailures: [] });
    expectTypeOf(invokeHandler(handler, msk)).toEqualTypeOf<Promise<KafkaBatchResponse>>();
    const selfManagedHandler: Handler<AwsSelfManagedKafkaEvent, KafkaBatchResponse> = async () => ({
      batchItemFailures: [],
    });
    expectTypeOf(invokeHandler(selfManagedHandler, selfManaged)).toEqualTypeOf<Promise<KafkaBatchResponse>>();
  });

  it('still refuses an event the handler does not take', () => {
    const onMsk: MSKHandler = async () => {};
    // @ts-expect-error a number is not an MSK event
    invokeHandler(onMsk, 42);
    // @ts-expect-error a self-managed event is not an MSK event
    invokeHandler(onMsk, selfManaged);
  });
});
