import type { IHeaders, KafkaMessage } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { consumedRecord, formatRecord } from './commands/consume.ts';
import { recogniseFailureEnvelope } from './dead-letter.ts';

const failedRecord = {
  topic: 'order-events',
  partition: 3,
  offset: 1041,
  timestamp: 1764410399900,
  timestampType: 'CREATE_TIME',
  key: Buffer.from('c-7').toString('base64'),
  value: Buffer.from('{"orderId":"o-1005"}').toString('base64'),
  headers: [{ source: [99, 108, 105] }],
};

/** The Kafka-destination message: one per failed record, `recordInfo`, the one-record event as `payload`. */
const kafkaForm = {
  requestContext: {
    requestId: 'r-1',
    functionArn: 'arn:aws:lambda:eu-west-1:111122223333:function:orders',
    condition: 'RetriesExhausted',
    approximateInvokeCount: 3,
  },
  responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
  version: '1.0',
  timestamp: '2026-11-29T10:00:00.000Z',
  KafkaBatchInfo: {
    batchSize: 1,
    bootstrapServers: 'b-1:9098',
    payloadSize: 400,
    recordInfo: { offset: '1041', timestamp: '2026-11-29T09:59:59.900Z' },
  },
  payload: {
    eventSource: 'aws:kafka',
    bootstrapServers: 'b-1:9098',
    records: { 'order-events-3': [failedRecord] },
  },
};

/** The SQS/SNS message: one per batch, `recordsInfo` by `<topic>-<partition>`, no payload. */
const batchForm = {
  requestContext: {
    requestId: 'r-2',
    functionArn: 'arn:…',
    condition: 'RetryAttemptsExhausted',
    approximateInvokeCount: 11,
  },
  responseContext: null,
  version: '1.0',
  timestamp: '2026-11-29T10:00:00.000Z',
  KafkaBatchInfo: {
    batchSize: 5,
    bootstrapServers: 'b-1:9098',
    payloadSize: 1520,
    recordsInfo: {
      'order-events-3': { firstRecordOffset: '1041', lastRecordOffset: '1042' },
      'my-topic-with-dashes-10': { firstRecordOffset: '7', lastRecordOffset: '9' },
    },
  },
};

describe('recogniseFailureEnvelope', () => {
  it('reads the Kafka-destination message: origin, condition, invocations and the record', () => {
    expect(recogniseFailureEnvelope(kafkaForm)).toEqual([
      {
        topic: 'order-events',
        partition: 3,
        firstOffset: 1041,
        lastOffset: 1041,
        condition: 'RetriesExhausted',
        invocations: 3,
        functionError: 'Unhandled',
        record: failedRecord,
      },
    ]);
  });

  it('accepts the payload as an escaped JSON string (S3 form)', () => {
    const [failure] = recogniseFailureEnvelope({ ...kafkaForm, payload: JSON.stringify(kafkaForm.payload) })!;
    expect(failure).toMatchObject({
      topic: 'order-events',
      partition: 3,
      firstOffset: 1041,
      record: failedRecord,
    });
  });

  it('reads the per-batch message: one entry per partition, topic names with dashes kept whole', () => {
    expect(recogniseFailureEnvelope(batchForm)).toEqual([
      expect.objectContaining({
        topic: 'order-events',
        partition: 3,
        firstOffset: 1041,
        lastOffset: 1042,
        invocations: 11,
      }),
      expect.objectContaining({
        topic: 'my-topic-with-dashes',
        partition: 10,
        firstOffset: 7,
        lastOffset: 9,
      }),
    ]);
    expect(recogniseFailureEnvelope(batchForm)![0]!.functionError).toBeUndefined();
  });

  it.each([
    ['an order', { orderId: 'o-1' }],
    ['an array', [kafkaForm]],
    ['no condition', { ...kafkaForm, requestContext: { approximateInvokeCount: 3 } }],
    ['no batch info', { ...kafkaForm, KafkaBatchInfo: undefined }],
    ['a bad offset', { ...kafkaForm, KafkaBatchInfo: { recordInfo: { offset: 'x' } }, payload: {} }],
    [
      'a recordsInfo key without partition',
      { ...batchForm, KafkaBatchInfo: { recordsInfo: { orders: { firstRecordOffset: '1' } } } },
    ],
  ])('is not fooled by %s', (_, value) => {
    expect(recogniseFailureEnvelope(value)).toBeUndefined();
  });
});

const message = (value: Buffer | null, key: Buffer | null, headers: IHeaders = {}): KafkaMessage => ({
  key,
  value,
  headers,
  offset: '5',
  timestamp: '1764410399900',
  attributes: 0,
});

describe('formatRecord', () => {
  it('prints a value as it is, quoting only what would break the line or the key=value words', () => {
    const show = (m: KafkaMessage) => formatRecord(consumedRecord('orders', 0, m), m.value, false);
    expect(
      show(message(Buffer.from('{"id": 1}'), Buffer.from('c 7'), { 'x=y': Buffer.from('a]b') })),
    ).toEqual(['orders-0@5 key="c 7" ["x=y"="a]b"] {"id": 1}']);
    expect(show(message(Buffer.from('two\nlines'), null))).toEqual(['orders-0@5 "two\\nlines"']);
    expect(show(message(null, Buffer.from([0xff])))).toEqual(['orders-0@5 key=base64:/w== (tombstone)']);
  });

  it('prints a dead-letter record as its origin, and with -v the failed record decoded', () => {
    const value = Buffer.from(JSON.stringify(kafkaForm));
    const record = consumedRecord('orders-dlq', 0, message(value, Buffer.from('c-7')));
    expect(formatRecord(record, value, false)).toEqual([
      'orders-dlq-0@5 failed order-events-3@1041 RetriesExhausted after 3 invocation(s) (Unhandled) key=c-7',
    ]);
    expect(formatRecord(record, value, true)).toEqual([
      'orders-dlq-0@5 failed order-events-3@1041 RetriesExhausted after 3 invocation(s) (Unhandled) key=c-7',
      '  record key=c-7 [source=cli] {"orderId":"o-1005"}',
    ]);
  });
});
