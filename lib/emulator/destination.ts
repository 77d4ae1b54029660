import type { KafkaEventRecord } from '../kafka-event/types.ts';
import type { EventHeader } from './batch.ts';

// Envelope shapes, field by field, from the Lambda developer guide:
// - SQS, SNS and S3 ("SNS and SQS example invocation record", "S3 destination example invocation record"):
//   https://docs.aws.amazon.com/lambda/latest/dg/kafka-on-failure.html
// - Kafka topic ("Record format for a Kafka destination", "Partition key behavior"):
//   https://docs.aws.amazon.com/lambda/latest/dg/kafka-on-failure-destination.html

/**
 * Why records went to the on-failure destination, as the SQS/SNS/S3 page spells it.
 * `RetryAttemptsExhausted` and `MaximumPayloadSizeExceeded` are documented; AWS documents no name for
 * the record-age case, so `RecordAgeExceeded` is ours. The Kafka-topic page spells the first one
 * `RetriesExhausted` (see {@link KafkaFailureCondition}).
 *
 * @example
 * ```ts
 * if (envelope.requestContext.condition === 'RetryAttemptsExhausted') alert(envelope.KafkaBatchInfo.recordsInfo);
 * ```
 */
export type FailureCondition =
  | 'RetryAttemptsExhausted'
  | 'MaximumPayloadSizeExceeded'
  | 'RecordAgeExceeded'
  | SchemaFailureCondition;

/**
 * Why a trigger with a schema registry sends a record to the destination without invoking: its schema
 * is not in the registry, or its bytes do not deserialize with it
 * (https://docs.aws.amazon.com/lambda/latest/dg/services-consume-kafka-events.html).
 *
 * @example
 * ```ts
 * const reason: SchemaFailureCondition = 'SCHEMA_NOT_FOUND';
 * ```
 */
export type SchemaFailureCondition = 'SCHEMA_NOT_FOUND' | 'DESERIALIZATION_ERROR';

/**
 * The condition in a Kafka-topic destination's envelope: that page's example writes
 * `RetriesExhausted` where the SQS/SNS/S3 page writes `RetryAttemptsExhausted`.
 *
 * @example
 * ```ts
 * const exhausted = (envelope: FailureEnvelope) => envelope.requestContext.condition === 'RetriesExhausted';
 * ```
 */
export type KafkaFailureCondition =
  | 'RetriesExhausted'
  | 'MaximumPayloadSizeExceeded'
  | 'RecordAgeExceeded'
  | SchemaFailureCondition;

/**
 * `requestContext` of every envelope: the last invocation's request id, the function and why.
 *
 * @example
 * ```ts
 * const context: FailureRequestContext<FailureCondition> = { requestId, functionArn, condition: 'RetryAttemptsExhausted', approximateInvokeCount: 3 };
 * ```
 */
export interface FailureRequestContext<Condition extends string> {
  requestId: string;
  functionArn: string;
  condition: Condition;
  approximateInvokeCount: number;
}

/**
 * `responseContext` of every envelope: `null` when the records were never invoked (too large for
 * an event, or too old before their first invocation).
 *
 * @example
 * ```ts
 * const response: FailureResponseContext = { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' };
 * ```
 */
export type FailureResponseContext = {
  statusCode: number;
  executedVersion: string;
  functionError?: string;
} | null;

/**
 * The message Lambda writes to a `kafka://` on-failure destination for one failed record (also what a
 * callback destination receives): `KafkaBatchInfo.batchSize: 1`, `recordInfo`, and the one-record
 * event as `payload`. It is produced with the failed record's key.
 *
 * @example
 * ```ts
 * const envelope = JSON.parse(message.value.toString()) as FailureEnvelope;
 * envelope.payload.records; // { 'orders-3': [ the failed record ] }
 * ```
 */
export interface FailureEnvelope {
  requestContext: FailureRequestContext<KafkaFailureCondition>;
  responseContext: FailureResponseContext;
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
 * Where the failed records of one partition lie: offsets as strings, timestamps as ISO 8601.
 *
 * @example
 * ```ts
 * const { firstRecordOffset, lastRecordOffset } = envelope.KafkaBatchInfo.recordsInfo['orders-3']!;
 * ```
 */
export interface FailedRecordsInfo {
  firstRecordOffset: string;
  lastRecordOffset: string;
  firstRecordTimestamp: string;
  lastRecordTimestamp: string;
}

/**
 * The message Lambda sends to an SQS queue (the message body) or an SNS topic (the published
 * message) for one failed batch: metadata only, `recordsInfo` keyed `<topic>-<partition>`.
 *
 * @example
 * ```ts
 * const envelope = JSON.parse(message.Body!) as BatchFailureEnvelope;
 * envelope.KafkaBatchInfo.recordsInfo['orders-3']?.firstRecordOffset; // '1041'
 * ```
 */
export interface BatchFailureEnvelope {
  requestContext: FailureRequestContext<FailureCondition>;
  responseContext: FailureResponseContext;
  version: '1.0';
  timestamp: string;
  KafkaBatchInfo: {
    batchSize: number;
    eventSourceArn?: string;
    bootstrapServers: string;
    /** Bytes of the event holding the failed records. */
    payloadSize: number;
    recordsInfo: Record<string, FailedRecordsInfo>;
  };
}

/**
 * The object Lambda writes to an S3 destination: the SQS/SNS envelope plus `payload`, the whole
 * event as an escaped JSON string.
 *
 * @example
 * ```ts
 * const event = JSON.parse(envelope.payload) as KafkaEvent;
 * ```
 */
export interface S3FailureEnvelope extends BatchFailureEnvelope {
  payload: string;
}

/**
 * What the emulator knows about the last invocation of failed records.
 *
 * @example
 * ```ts
 * const failure: FailureContext = { condition: 'RetryAttemptsExhausted', requestId, functionArn, invokeCount: 3, response: {} };
 * ```
 */
export interface FailureContext {
  condition: FailureCondition;
  requestId: string;
  /** The function's ARN as invoked (unqualified for `$LATEST`). */
  functionArn: string;
  invokeCount: number;
  /**
   * `undefined` when never invoked; `functionError` set when the last attempt was a function error;
   * `executedVersion` as the Invoke API reported it (`$LATEST` when unset).
   */
  response?: { functionError?: string; executedVersion?: string };
}

/**
 * The function ARN as the Kafka-topic page shows it, qualified with the version that ran:
 * `…:function:my-function:$LATEST` for an unqualified invocation; a qualified ARN stays as it is.
 *
 * @example
 * ```ts
 * qualifiedFunctionArn('arn:aws:lambda:us-east-1:123456789012:function:orders'); // '…:function:orders:$LATEST'
 * ```
 */
export function qualifiedFunctionArn(functionArn: string): string {
  // arn:partition:lambda:region:account:function:name has 7 parts; an 8th is the qualifier.
  return functionArn.split(':').length === 7 ? `${functionArn}:$LATEST` : functionArn;
}

function responseContext(failure: FailureContext): FailureResponseContext {
  return failure.response
    ? {
        statusCode: 200,
        executedVersion: failure.response.executedVersion ?? '$LATEST',
        ...(failure.response.functionError ? { functionError: failure.response.functionError } : {}),
      }
    : null;
}

function kafkaCondition(condition: FailureCondition): KafkaFailureCondition {
  return condition === 'RetryAttemptsExhausted' ? 'RetriesExhausted' : condition;
}

/** The event Lambda would build from these records: `records` keyed `<topic>-<partition>`, offset order. */
function eventOf(
  header: EventHeader,
  records: readonly KafkaEventRecord[],
): EventHeader & { records: Record<string, KafkaEventRecord[]> } {
  const grouped: Record<string, KafkaEventRecord[]> = {};
  for (const record of [...records].sort((a, b) => a.partition - b.partition || a.offset - b.offset)) {
    const key = `${record.topic}-${record.partition}`;
    const partition = grouped[key];
    if (partition) partition.push(record);
    else grouped[key] = [record];
  }
  return { ...header, records: grouped };
}

/**
 * Builds the envelope Lambda produces to a `kafka://` destination for one failed record.
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
  const payload = eventOf(header, [record]);
  return {
    requestContext: {
      requestId: failure.requestId,
      functionArn: qualifiedFunctionArn(failure.functionArn),
      condition: kafkaCondition(failure.condition),
      approximateInvokeCount: failure.invokeCount,
    },
    responseContext: responseContext(failure),
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

/**
 * Builds the envelope Lambda sends to an SQS queue or SNS topic for one failed batch (no records in it).
 *
 * @example
 * ```ts
 * const body = JSON.stringify(buildBatchFailureEnvelope(header, records, failure));
 * ```
 */
export function buildBatchFailureEnvelope(
  header: EventHeader,
  records: readonly KafkaEventRecord[],
  failure: FailureContext,
): BatchFailureEnvelope {
  return batchEnvelope(header, eventOf(header, records), failure);
}

/**
 * Builds the object Lambda writes to an S3 destination for one failed batch: the SQS/SNS envelope
 * with the event as a JSON string in `payload`.
 *
 * @example
 * ```ts
 * const object = JSON.stringify(buildS3FailureEnvelope(header, records, failure));
 * ```
 */
export function buildS3FailureEnvelope(
  header: EventHeader,
  records: readonly KafkaEventRecord[],
  failure: FailureContext,
): S3FailureEnvelope {
  const event = eventOf(header, records);
  return { ...batchEnvelope(header, event, failure), payload: JSON.stringify(event) };
}

function batchEnvelope(
  header: EventHeader,
  event: EventHeader & { records: Record<string, KafkaEventRecord[]> },
  failure: FailureContext,
): BatchFailureEnvelope {
  const recordsInfo: Record<string, FailedRecordsInfo> = {};
  let batchSize = 0;
  for (const [partition, records] of Object.entries(event.records)) {
    const first = records[0]!;
    const last = records.at(-1)!;
    batchSize += records.length;
    recordsInfo[partition] = {
      firstRecordOffset: String(first.offset),
      lastRecordOffset: String(last.offset),
      firstRecordTimestamp: new Date(first.timestamp).toISOString(),
      lastRecordTimestamp: new Date(last.timestamp).toISOString(),
    };
  }
  return {
    requestContext: {
      requestId: failure.requestId,
      functionArn: failure.functionArn,
      condition: failure.condition,
      approximateInvokeCount: failure.invokeCount,
    },
    responseContext: responseContext(failure),
    version: '1.0',
    timestamp: new Date().toISOString(),
    KafkaBatchInfo: {
      batchSize,
      ...(header.eventSourceArn ? { eventSourceArn: header.eventSourceArn } : {}),
      bootstrapServers: header.bootstrapServers,
      payloadSize: Buffer.byteLength(JSON.stringify(event)),
      recordsInfo,
    },
  };
}
