import type { KafkaEventRecord } from '../kafka-event/types.ts';
import type { EventHeader } from './batch.ts';

/**
 * Why a record went to the on-failure destination. `RetryAttemptsExhausted` and
 * `MaximumPayloadSizeExceeded` are documented; AWS documents no name for the record-age case, so
 * `RecordAgeExceeded` is ours. Consumers should also accept `RetriesExhausted` (seen in one AWS example).
 *
 * @example
 * ```ts
 * if (envelope.requestContext.condition === 'RetryAttemptsExhausted') alert(envelope.KafkaBatchInfo.recordInfo);
 * ```
 */
export type FailureCondition = 'RetryAttemptsExhausted' | 'MaximumPayloadSizeExceeded' | 'RecordAgeExceeded';

/**
 * The message Lambda writes to a `kafka://` on-failure destination for one failed record: the
 * invocation record with `KafkaBatchInfo.batchSize: 1`, `recordInfo` and the one-record event as `payload`.
 *
 * @example
 * ```ts
 * const envelope = JSON.parse(message.value.toString()) as FailureEnvelope;
 * envelope.payload.records; // { 'orders-3': [ the failed record ] }
 * ```
 */
export interface FailureEnvelope {
  requestContext: {
    requestId: string;
    functionArn: string;
    condition: FailureCondition;
    approximateInvokeCount: number;
  };
  /** `null` when the record was never invoked (too large, too old before its first invocation). */
  responseContext: { statusCode: number; executedVersion: string; functionError?: string } | null;
  version: '1.0';
  timestamp: string;
  KafkaBatchInfo: {
    batchSize: 1;
    eventSourceArn?: string;
    bootstrapServers: string;
    payloadSize: number;
    recordInfo: { offset: string; timestamp: string };
  };
  payload: EventHeader & { records: Record<string, KafkaEventRecord[]> };
}

/**
 * What the emulator knows about the last invocation of a failed record.
 *
 * @example
 * ```ts
 * const failure: FailureContext = { condition: 'RetryAttemptsExhausted', requestId, functionArn, invokeCount: 3, response: {} };
 * ```
 */
export interface FailureContext {
  condition: FailureCondition;
  requestId: string;
  functionArn: string;
  invokeCount: number;
  /** `undefined` when never invoked; `functionError` set when the last attempt was a function error. */
  response?: { functionError?: string };
}

/**
 * Builds the on-failure envelope Lambda sends for one record.
 *
 * @example
 * ```ts
 * buildFailureEnvelope(header, record, { condition: 'RetryAttemptsExhausted', requestId, functionArn, invokeCount: 4, response: {} });
 * ```
 */
export function buildFailureEnvelope(
  header: EventHeader,
  record: KafkaEventRecord,
  failure: FailureContext,
): FailureEnvelope {
  const payload = { ...header, records: { [`${record.topic}-${record.partition}`]: [record] } };
  return {
    requestContext: {
      requestId: failure.requestId,
      functionArn: failure.functionArn,
      condition: failure.condition,
      approximateInvokeCount: failure.invokeCount,
    },
    responseContext: failure.response
      ? {
          statusCode: 200,
          executedVersion: '$LATEST',
          ...(failure.response.functionError ? { functionError: failure.response.functionError } : {}),
        }
      : null,
    version: '1.0',
    timestamp: new Date().toISOString(),
    KafkaBatchInfo: {
      batchSize: 1,
      ...(header.eventSourceArn ? { eventSourceArn: header.eventSourceArn } : {}),
      bootstrapServers: header.bootstrapServers,
      payloadSize: Buffer.byteLength(JSON.stringify(payload)),
      recordInfo: { offset: String(record.offset), timestamp: new Date(record.timestamp).toISOString() },
    },
    payload,
  };
}
