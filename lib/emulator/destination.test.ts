import { describe, expect, it } from 'vitest';
import type { KafkaEvent, KafkaEventRecord } from '../kafka-event/types.ts';
import type { EventHeader } from './batch.ts';
import {
  buildBatchFailureEnvelope,
  buildFailureEnvelope,
  buildS3FailureEnvelope,
  type FailureContext,
  qualifiedFunctionArn,
} from './destination.ts';
import { createDestinationSender, parseDestination } from './destination-sender.ts';
import { InvalidMappingSettingError } from './errors.ts';
import { resolveMappingSettings } from './settings.ts';

const msk: EventHeader = {
  eventSource: 'aws:kafka',
  eventSourceArn: 'arn:aws:kafka:eu-west-1:111122223333:cluster/orders/0f3c-uuid-1',
  bootstrapServers: 'b-1:9098,b-2:9098',
};
const selfManaged: EventHeader = { eventSource: 'SelfManagedKafka', bootstrapServers: '127.0.0.1:9092' };
const FUNCTION = 'arn:aws:lambda:eu-west-1:111122223333:function:orders';

function record(partition: number, offset: number, key: string | null = 'k'): KafkaEventRecord {
  return {
    topic: 'order-events',
    partition,
    offset,
    timestamp: 1_764_400_000_000 + offset,
    timestampType: 'CREATE_TIME',
    key: key === null ? null : Buffer.from(key).toString('base64'),
    value: Buffer.from(`{"seq":${offset}}`).toString('base64'),
    headers: [],
  };
}

const exhausted: FailureContext = {
  condition: 'RetryAttemptsExhausted',
  requestId: 'req-1',
  functionArn: FUNCTION,
  invokeCount: 11,
  response: { functionError: 'Unhandled' },
};

describe('Kafka-topic envelope (one per failed record)', () => {
  it('spells the condition RetriesExhausted and qualifies the function ARN with $LATEST, as the Kafka-destination page shows', () => {
    const envelope = buildFailureEnvelope(msk, record(3, 1041), exhausted);
    expect(envelope.requestContext).toEqual({
      requestId: 'req-1',
      functionArn: `${FUNCTION}:$LATEST`,
      condition: 'RetriesExhausted',
      approximateInvokeCount: 11,
    });
    expect(envelope.responseContext).toEqual({
      statusCode: 200,
      executedVersion: '$LATEST',
      functionError: 'Unhandled',
    });
    expect(envelope.version).toBe('1.0');
    expect(new Date(envelope.timestamp).toISOString()).toBe(envelope.timestamp);
    expect(envelope.KafkaBatchInfo).toEqual({
      batchSize: 1,
      eventSourceArn: msk.eventSourceArn,
      bootstrapServers: msk.bootstrapServers,
      payloadSize: Buffer.byteLength(JSON.stringify(envelope.payload)),
      recordInfo: { offset: '1041', timestamp: new Date(1_764_400_001_041).toISOString() },
    });
    expect(envelope.payload).toEqual({ ...msk, records: { 'order-events-3': [record(3, 1041)] } });
  });

  it('keeps the other conditions, and responseContext null for a record never invoked', () => {
    const tooLarge = buildFailureEnvelope(selfManaged, record(0, 5), {
      condition: 'MaximumPayloadSizeExceeded',
      requestId: 'req-2',
      functionArn: FUNCTION,
      invokeCount: 0,
    });
    expect(tooLarge.requestContext.condition).toBe('MaximumPayloadSizeExceeded');
    expect(tooLarge.responseContext).toBeNull();
    expect(tooLarge.KafkaBatchInfo).not.toHaveProperty('eventSourceArn');
  });
});

describe('qualifiedFunctionArn', () => {
  it('adds $LATEST to an unqualified ARN and leaves a qualified one alone', () => {
    expect(qualifiedFunctionArn(FUNCTION)).toBe(`${FUNCTION}:$LATEST`);
    expect(qualifiedFunctionArn(`${FUNCTION}:live`)).toBe(`${FUNCTION}:live`);
    expect(qualifiedFunctionArn(`${FUNCTION}:7`)).toBe(`${FUNCTION}:7`);
  });
});

describe('SQS/SNS envelope (one per failed batch)', () => {
  const records = [record(1, 20), record(0, 7), record(0, 8), record(0, 9)];

  it('describes each partition by first/last offset and timestamp, as strings, without the records', () => {
    const envelope = buildBatchFailureEnvelope(msk, records, exhausted);
    expect(envelope.requestContext).toEqual({
      requestId: 'req-1',
      functionArn: FUNCTION,
      condition: 'RetryAttemptsExhausted',
      approximateInvokeCount: 11,
    });
    expect(envelope.responseContext).toEqual({
      statusCode: 200,
      executedVersion: '$LATEST',
      functionError: 'Unhandled',
    });
    expect(envelope.version).toBe('1.0');
    expect(envelope.KafkaBatchInfo.batchSize).toBe(4);
    expect(envelope.KafkaBatchInfo.eventSourceArn).toBe(msk.eventSourceArn);
    expect(envelope.KafkaBatchInfo.bootstrapServers).toBe(msk.bootstrapServers);
    expect(envelope.KafkaBatchInfo.recordsInfo).toEqual({
      'order-events-0': {
        firstRecordOffset: '7',
        lastRecordOffset: '9',
        firstRecordTimestamp: new Date(1_764_400_000_007).toISOString(),
        lastRecordTimestamp: new Date(1_764_400_000_009).toISOString(),
      },
      'order-events-1': {
        firstRecordOffset: '20',
        lastRecordOffset: '20',
        firstRecordTimestamp: new Date(1_764_400_000_020).toISOString(),
        lastRecordTimestamp: new Date(1_764_400_000_020).toISOString(),
      },
    });
    expect(Object.keys(envelope)).toEqual([
      'requestContext',
      'responseContext',
      'version',
      'timestamp',
      'KafkaBatchInfo',
    ]);
    expect(JSON.stringify(envelope)).not.toContain(records[0]!.value);
  });

  it('gives payloadSize as the bytes of the event those records make', () => {
    const s3 = buildS3FailureEnvelope(msk, records, exhausted);
    const sqs = buildBatchFailureEnvelope(msk, records, exhausted);
    expect(sqs.KafkaBatchInfo.payloadSize).toBe(Buffer.byteLength(s3.payload));
  });
});

describe('S3 envelope', () => {
  it('is the SQS envelope plus the whole event as an escaped JSON string', () => {
    const records = [record(0, 7), record(0, 8, null)];
    const envelope = buildS3FailureEnvelope(msk, records, exhausted);
    const { payload, ...metadata } = envelope;
    expect({ ...metadata, timestamp: 't' }).toEqual({
      ...buildBatchFailureEnvelope(msk, records, exhausted),
      timestamp: 't',
    });
    expect(typeof payload).toBe('string');
    const event = JSON.parse(payload) as KafkaEvent;
    expect(event).toEqual({ ...msk, records: { 'order-events-0': records } });
  });
});

describe('parseDestination', () => {
  it('accepts kafka://, SQS, SNS and S3 ARNs and callbacks', () => {
    expect(parseDestination('kafka://orders-dlq', 'orders')).toEqual({ kind: 'kafka', topic: 'orders-dlq' });
    expect(parseDestination('arn:aws:sqs:eu-west-1:111122223333:orders-dlq', 'orders')).toEqual({
      kind: 'sqs',
      arn: 'arn:aws:sqs:eu-west-1:111122223333:orders-dlq',
      region: 'eu-west-1',
      queueName: 'orders-dlq',
    });
    // Queues of other partitions: the Region read from the ARN.
    for (const [arn, region] of [
      ['arn:aws-us-gov:sqs:us-gov-west-1:111122223333:q', 'us-gov-west-1'],
      ['arn:aws:sqs:eusc-de-east-1:111122223333:q', 'eusc-de-east-1'],
    ])
      expect(parseDestination(arn!, 'orders')).toMatchObject({ kind: 'sqs', region });
    expect(parseDestination('arn:aws:sns:eu-west-1:111122223333:alerts', 'orders')).toEqual({
      kind: 'sns',
      arn: 'arn:aws:sns:eu-west-1:111122223333:alerts',
    });
    expect(parseDestination('arn:aws:s3:::failed-batches', 'orders')).toEqual({
      kind: 's3',
      arn: 'arn:aws:s3:::failed-batches',
      bucket: 'failed-batches',
    });
    const callback = () => {};
    expect(parseDestination(callback, 'orders')).toEqual({ kind: 'callback', send: callback });
  });

  it.each([
    ['kafka://orders', 'must differ from the source topic'],
    ['kafka://', 'expected kafka://<topic>'],
    ['arn:aws:sqs:us-east-1:1:q', 'expected kafka://<topic>'],
    ['arn:aws:sqs:us-east-1:111122223333:q.fifo', 'a FIFO queue cannot be a destination'],
    ['arn:aws:lambda:us-east-1:111122223333:function:f', 'expected kafka://<topic>'],
    ['arn:aws:s3:::Bad_Bucket', 'expected kafka://<topic>'],
    ['https://sqs.us-east-1.amazonaws.com/111122223333/q', 'expected kafka://<topic>'],
  ])('refuses %s', (onFailure, message) => {
    const error = (() => {
      try {
        resolveMappingSettings({ topic: 'orders', onFailure });
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(InvalidMappingSettingError);
    expect((error as InvalidMappingSettingError).setting).toBe('onFailure');
    expect((error as Error).message).toContain(message);
  });

  it('caps infinite retries at 10 with an ARN destination too', () => {
    expect(
      resolveMappingSettings({ topic: 'orders', onFailure: 'arn:aws:sqs:eu-west-1:111122223333:dlq' })
        .retryLimit,
    ).toBe(10);
  });
});

describe('SNS and S3 senders (no local server: the message or object goes to a function)', () => {
  const kafka = undefined as never;
  const records = [record(2, 40), record(2, 41)];

  it('SNS publishes the SQS envelope as the message, once per batch', async () => {
    const published: Array<{ topicArn: string; message: string }> = [];
    const arn = 'arn:aws:sns:eu-west-1:111122223333:alerts';
    const sender = createDestinationSender(
      parseDestination(arn, 'orders'),
      msk,
      { sns: (message) => void published.push(message) },
      kafka,
    );
    await sender.open();
    await sender.send(records.map((record) => ({ record, failure: exhausted })));
    await sender.close();
    expect(published).toHaveLength(1);
    expect(published[0]!.topicArn).toBe(arn);
    const envelope = JSON.parse(published[0]!.message);
    expect({ ...envelope, timestamp: 't' }).toEqual({
      ...buildBatchFailureEnvelope(msk, records, exhausted),
      timestamp: 't',
    });
  });

  it('S3 puts the envelope with the payload into the bucket, once per batch', async () => {
    const objects: Array<{ bucket: string; body: string }> = [];
    const sender = createDestinationSender(
      parseDestination('arn:aws:s3:::failed-batches', 'orders'),
      msk,
      { s3: (object) => void objects.push(object) },
      kafka,
    );
    await sender.send(records.map((record) => ({ record, failure: exhausted })));
    expect(objects.map((o) => o.bucket)).toEqual(['failed-batches']);
    const envelope = JSON.parse(objects[0]!.body);
    expect(JSON.parse(envelope.payload)).toEqual({ ...msk, records: { 'order-events-2': records } });
    expect(envelope.KafkaBatchInfo.recordsInfo['order-events-2']).toMatchObject({
      firstRecordOffset: '40',
      lastRecordOffset: '41',
    });
  });

  it.each([
    ['arn:aws:sqs:eu-west-1:111122223333:dlq', 'destinations.sqsEndpoint'],
    ['arn:aws:sns:eu-west-1:111122223333:alerts', 'destinations.sns'],
    ['arn:aws:s3:::failed-batches', 'destinations.s3'],
  ])('%s without a local target is refused up front', (arn, message) => {
    expect(() => createDestinationSender(parseDestination(arn, 'orders'), msk, {}, kafka)).toThrow(
      new RegExp(`onFailure: .*${message.replace('.', '\\.')}`),
    );
  });
});
