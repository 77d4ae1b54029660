import type { KafkaEventRecord } from '../emulator/index.ts';

/**
 * Where a failed record (or, for the per-batch form, a run of records) came from and why it failed, as
 * read from one of Lambda's on-failure messages.
 *
 * @example
 * ```ts
 * const failure = recogniseFailureEnvelope(JSON.parse(value));
 * if (failure) console.log(`${failure.topic}-${failure.partition}@${failure.firstOffset}`);
 * ```
 */
export interface FailedRecords {
  topic: string;
  partition: number;
  firstOffset: number;
  /** Equal to `firstOffset` for the Kafka destination's per-record message. */
  lastOffset: number;
  /** `requestContext.condition`, e.g. `RetryAttemptsExhausted` (also seen spelt `RetriesExhausted`). */
  condition: string;
  /** `requestContext.approximateInvokeCount`; `undefined` when the message does not say. */
  invocations: number | undefined;
  /** `responseContext.functionError` of the last invocation (`Unhandled`…), when there was one. */
  functionError: string | undefined;
  /** The failed record itself: only in the Kafka destination's message, whose `payload` is a one-record event. */
  record: KafkaEventRecord | undefined;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const integer = (value: unknown): number | undefined => {
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof number === 'number' && Number.isSafeInteger(number) ? number : undefined;
};

/** `order-events-3` → topic `order-events`, partition 3 (topic names may hold dashes; the partition is last). */
function splitPartitionKey(key: string): { topic: string; partition: number } | undefined {
  const match = /^(.+)-(\d+)$/.exec(key);
  return match ? { topic: match[1]!, partition: Number(match[2]) } : undefined;
}

/**
 * Recognises Lambda's on-failure message for a Kafka event source, in both documented forms
 * (https://docs.aws.amazon.com/lambda/latest/dg/kafka-on-failure.html,
 * https://docs.aws.amazon.com/lambda/latest/dg/kafka-on-failure-destination.html):
 * - Kafka-topic destination, one message per failed record: `KafkaBatchInfo.recordInfo {offset, timestamp}`
 *   and `payload`, a one-record Kafka event object (which gives the topic, partition and the record);
 * - SQS/SNS (and S3 metadata), one message per batch: `KafkaBatchInfo.recordsInfo`, keyed `<topic>-<partition>`
 *   with `firstRecordOffset`/`lastRecordOffset`.
 * Returns one entry per source partition, or `undefined` when the value is not such a message.
 *
 * @example
 * ```ts
 * recogniseFailureEnvelope({ requestContext: { condition: 'RetryAttemptsExhausted', approximateInvokeCount: 3 },
 *   KafkaBatchInfo: { batchSize: 1, recordInfo: { offset: '7', timestamp: '…' } },
 *   payload: { records: { 'orders-1': [{ topic: 'orders', partition: 1, offset: 7, … }] } } });
 * // [{ topic: 'orders', partition: 1, firstOffset: 7, lastOffset: 7, condition: 'RetryAttemptsExhausted', invocations: 3, … }]
 * ```
 */
export function recogniseFailureEnvelope(value: unknown): FailedRecords[] | undefined {
  if (!isObject(value) || !isObject(value.requestContext) || !isObject(value.KafkaBatchInfo))
    return undefined;
  const { requestContext, KafkaBatchInfo: batch } = value;
  if (typeof requestContext.condition !== 'string') return undefined;
  const common = {
    condition: requestContext.condition,
    invocations: integer(requestContext.approximateInvokeCount),
    functionError:
      isObject(value.responseContext) && typeof value.responseContext.functionError === 'string'
        ? value.responseContext.functionError
        : undefined,
  };

  if (isObject(batch.recordInfo)) {
    // The payload is documented as an event object; accept it as a JSON string too (S3's escaped form).
    let payload: unknown = value.payload;
    if (typeof payload === 'string') {
      try {
        payload = JSON.parse(payload);
      } catch {
        payload = undefined;
      }
    }
    const records = isObject(payload) && isObject(payload.records) ? payload.records : {};
    const [key, partitionRecords] = Object.entries(records)[0] ?? [];
    const record =
      Array.isArray(partitionRecords) && isObject(partitionRecords[0])
        ? (partitionRecords[0] as unknown as KafkaEventRecord)
        : undefined;
    const source =
      record && typeof record.topic === 'string' && integer(record.partition) !== undefined
        ? { topic: record.topic, partition: integer(record.partition)! }
        : key === undefined
          ? undefined
          : splitPartitionKey(key);
    const offset = integer(batch.recordInfo.offset) ?? integer(record?.offset);
    if (!source || offset === undefined) return undefined;
    return [{ ...source, firstOffset: offset, lastOffset: offset, ...common, record }];
  }

  if (isObject(batch.recordsInfo)) {
    const failures: FailedRecords[] = [];
    for (const [key, info] of Object.entries(batch.recordsInfo)) {
      const source = splitPartitionKey(key);
      if (!source || !isObject(info)) return undefined;
      const firstOffset = integer(info.firstRecordOffset);
      const lastOffset = integer(info.lastRecordOffset) ?? firstOffset;
      if (firstOffset === undefined || lastOffset === undefined) return undefined;
      failures.push({ ...source, firstOffset, lastOffset, ...common, record: undefined });
    }
    return failures.length > 0 ? failures : undefined;
  }
  return undefined;
}
