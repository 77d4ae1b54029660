// Its types name Node's (Buffer…): declared here, so that a project without @types/node is told so.
/// <reference types="node" preserve="true" />
/**
 * Helpers for testing Kafka-triggered handlers: build events exactly as Lambda sends them, invoke a
 * handler with a Lambda-like context and timeout, read which offsets its response reports.
 *
 * @example
 * ```ts
 * import { failedOffsets, invokeHandler, kafkaEvent } from 'kafka-lambda/testing';
 *
 * const event = kafkaEvent({ topic: 'orders', records: [{ value: { id: 1 } }, { value: 'not json' }] });
 * expect(failedOffsets(await invokeHandler(handler, event), event)).toEqual({ 'orders-0': [1] });
 * ```
 */

export { LAMBDA_LIMITS } from '../kafka-event/limits.ts';
export type {
  KafkaEvent,
  KafkaEventHeader,
  KafkaEventRecord,
  KafkaSchemaMetadata,
  LambdaClientContext,
  LambdaContext,
  MskEventSource,
  MskKafkaEvent,
  SelfManagedEventSource,
  SelfManagedKafkaEvent,
} from '../kafka-event/types.ts';
export { createLambdaContext, type LambdaContextOptions } from '../lambda-runtime/context.ts';
// HandlerInitError's base class and the response it carries, so that both can be named and caught.
export { LambdaRuntimeError } from '../lambda-runtime/errors.ts';
export { HandlerInitError } from '../lambda-runtime/load-handler.ts';
export type { RuntimeErrorResponse } from '../lambda-runtime/runtime-error.ts';
export { failedOffsets, InvalidBatchResponseError } from './batch-response.ts';
export { KafkaTestingError } from './errors.ts';
export {
  type HeadersInput,
  type HeaderValue,
  InvalidEventInputError,
  type KafkaEventOptions,
  type KafkaRecordInput,
  kafkaEvent,
  type RecordPayload,
} from './event-builder.ts';
export {
  HandlerTimeoutError,
  InvalidInvokeOptionsError,
  type InvokableHandler,
  type InvokeOptions,
  invokeHandler,
  ResponseMarshalError,
} from './invoke-handler.ts';
export { partitionForKey } from './partitioner.ts';
export {
  type EventIssue,
  InvalidKafkaEventError,
  type ValidateEventOptions,
  validateKafkaEvent,
} from './validate-event.ts';
