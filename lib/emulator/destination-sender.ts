import type { SQSClient } from '@aws-sdk/client-sqs';
import type { Kafka, Producer } from 'kafkajs';
import { LAMBDA_LIMITS } from '../kafka-event/limits.ts';
import type { KafkaEventRecord } from '../kafka-event/types.ts';
import type { EventHeader } from './batch.ts';
import {
  buildBatchFailureEnvelope,
  buildFailureEnvelope,
  buildS3FailureEnvelope,
  type FailureContext,
} from './destination.ts';
import { InvalidMappingSettingError } from './errors.ts';
import type { FailedRecord } from './failure-outbox.ts';
import type { FailureCallback } from './settings.ts';

/**
 * An on-failure destination after validation, from `DestinationConfig.OnFailure.Destination`
 * (`kafka://<topic>` or an SQS, SNS or S3 ARN) or a callback.
 *
 * @example
 * ```ts
 * const destination: Destination = { kind: 'sqs', arn, region: 'eu-west-1', queueName: 'orders-dlq' };
 * ```
 */
export type Destination =
  | { kind: 'kafka'; topic: string }
  | { kind: 'callback'; send: FailureCallback }
  | { kind: 'sqs'; arn: string; region: string; queueName: string }
  | { kind: 'sns'; arn: string }
  | { kind: 's3'; arn: string; bucket: string };

/**
 * Where ARN destinations are delivered locally. SQS goes to a real SQS-compatible server (ElasticMQ,
 * `kafka-lambda/elasticmq`); SNS and S3 have no local server here, so the message Lambda would
 * publish, or the object it would write, is handed to a function.
 *
 * @example
 * ```ts
 * const destinations: DestinationTargets = { sqsEndpoint: sqs.endpoint, s3: ({ body }) => objects.push(body) };
 * ```
 */
export interface DestinationTargets {
  /** SQS API endpoint for `arn:aws:sqs:…` destinations; the queue is found by name (`GetQueueUrl`). */
  sqsEndpoint?: string;
  /** Gets what Lambda publishes (`sns:Publish`) for `arn:aws:sns:…`: the SQS envelope as JSON. */
  sns?: (message: { topicArn: string; message: string }) => Promise<void> | void;
  /** Gets what Lambda puts (`s3:PutObject`) for `arn:aws:s3:::bucket`: the envelope with `payload`, as JSON. */
  s3?: (object: { bucket: string; body: string }) => Promise<void> | void;
}

/**
 * Delivers failure envelopes to one destination: per record to Kafka topics and callbacks, per
 * failed batch to SQS, SNS and S3.
 *
 * @example
 * ```ts
 * const sender = createDestinationSender(destination, header, targets, kafka);
 * await sender.open();
 * await sender.send(records.map((record) => ({ record, failure })));
 * ```
 */
export interface DestinationSender {
  /**
   * One message per record (`kafka://`, a callback): a delivery may mix records that failed for
   * different reasons. Otherwise one message per delivery, whose records share one failure.
   */
  readonly perRecord: boolean;
  /** Connects what needs a connection (the Kafka producer). */
  open(): Promise<void>;
  /**
   * One delivery, in the order given (a `kafka://` topic gets the messages in one request, in that
   * order); throws when it failed (the caller retries: nothing may be committed before it succeeds).
   * Without {@link perRecord}, the message describes every record with the first record's failure.
   */
  send(failures: readonly FailedRecord[]): Promise<void>;
  close(): Promise<void>;
}

const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };
const PARTITION = 'aws[a-zA-Z0-9-]*';
const REGION = '(?:eusc-)?[a-z]{2}(?:-gov|-iso[a-z]?)?-[a-z]+-\\d';
const SQS_ARN = new RegExp(`^arn:${PARTITION}:sqs:(${REGION}):\\d{12}:([A-Za-z0-9_-]{1,80})$`);
const SNS_ARN = new RegExp(`^arn:${PARTITION}:sns:${REGION}:\\d{12}:[A-Za-z0-9_-]{1,256}$`);
const S3_ARN = new RegExp(`^arn:${PARTITION}:s3:::([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])$`);
const KAFKA = new RegExp(`^kafka://(${LAMBDA_LIMITS.names.topic.source.slice(1, -1)})$`);

/**
 * Validates `onFailure`: `kafka://<topic>` (not the source topic), an SQS queue, SNS topic or S3
 * bucket ARN (the destinations Lambda accepts for Kafka, per
 * https://docs.aws.amazon.com/lambda/latest/api/API_OnFailure.html), or a callback.
 *
 * @example
 * ```ts
 * parseDestination('arn:aws:sqs:eu-west-1:111122223333:orders-dlq', 'orders'); // { kind: 'sqs', queueName: 'orders-dlq', … }
 * ```
 * @throws InvalidMappingSettingError naming `onFailure`.
 */
export function parseDestination(onFailure: string | FailureCallback, sourceTopic: string): Destination {
  if (typeof onFailure === 'function') return { kind: 'callback', send: onFailure };
  const kafka = KAFKA.exec(onFailure);
  if (kafka) {
    if (kafka[1] === sourceTopic) {
      throw new InvalidMappingSettingError(
        'onFailure',
        'the destination topic must differ from the source topic',
      );
    }
    return { kind: 'kafka', topic: kafka[1]! };
  }
  if (/^arn:[^:]+:sqs:.*\.fifo$/.test(onFailure)) {
    // Lambda's destinations take standard queues only: "FIFO queues cannot be used"
    // (https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-properties-lambda-eventinvokeconfig-destinationconfig.html).
    throw new InvalidMappingSettingError('onFailure', `a FIFO queue cannot be a destination: ${onFailure}`);
  }
  const sqs = SQS_ARN.exec(onFailure);
  if (sqs) return { kind: 'sqs', arn: onFailure, region: sqs[1]!, queueName: sqs[2]! };
  if (SNS_ARN.test(onFailure)) return { kind: 'sns', arn: onFailure };
  const s3 = S3_ARN.exec(onFailure);
  if (s3) return { kind: 's3', arn: onFailure, bucket: s3[1]! };
  throw new InvalidMappingSettingError(
    'onFailure',
    `expected kafka://<topic>, or an SQS queue, SNS topic or S3 bucket ARN, got ${JSON.stringify(onFailure)}`,
  );
}

/**
 * Creates the sender for the trigger emulator's on-failure destination.
 *
 * @example
 * ```ts
 * const sender = createDestinationSender({ kind: 'kafka', topic: 'orders-dlq' }, header, {}, kafka);
 * ```
 * @throws InvalidMappingSettingError when an ARN destination has no local target in `targets`.
 */
export function createDestinationSender(
  destination: Destination,
  header: EventHeader,
  targets: DestinationTargets,
  kafka: Kafka,
): DestinationSender {
  const nothing = async () => {};
  switch (destination.kind) {
    case 'callback':
      return {
        perRecord: true,
        open: nothing,
        close: nothing,
        async send(failures) {
          for (const { record, failure } of failures)
            await destination.send(buildFailureEnvelope(header, record, failure));
        },
      };
    case 'kafka': {
      let producer: Producer | undefined;
      return {
        perRecord: true,
        async open() {
          producer = kafka.producer({ allowAutoTopicCreation: false });
          await producer.connect();
        },
        async close() {
          await producer?.disconnect();
        },
        async send(failures) {
          // The original key, so that the default partitioner spreads keyless records (kafka-ofd-partitioning).
          await producer!.send({
            topic: destination.topic,
            messages: failures.map(({ record, failure }) => ({
              key: typeof record.key === 'string' ? Buffer.from(record.key, 'base64') : null,
              value: JSON.stringify(buildFailureEnvelope(header, record, failure)),
            })),
          });
        },
      };
    }
    case 'sqs':
      return sqsSender(destination, header, targets.sqsEndpoint);
    case 'sns': {
      const publish = required(
        targets.sns,
        'an SNS destination needs destinations.sns (no local SNS server)',
      );
      return {
        perRecord: false,
        open: nothing,
        close: nothing,
        async send(failures) {
          const envelope = buildBatchFailureEnvelope(header, ...batchOf(failures));
          await publish({ topicArn: destination.arn, message: JSON.stringify(envelope) });
        },
      };
    }
    case 's3': {
      const put = required(targets.s3, 'an S3 destination needs destinations.s3 (no local S3 server)');
      return {
        perRecord: false,
        open: nothing,
        close: nothing,
        async send(failures) {
          const envelope = buildS3FailureEnvelope(header, ...batchOf(failures));
          await put({ bucket: destination.bucket, body: JSON.stringify(envelope) });
        },
      };
    }
  }
}

/** The records of a per-batch delivery and their (shared) failure. */
function batchOf(failures: readonly FailedRecord[]): [KafkaEventRecord[], FailureContext] {
  return [failures.map((failed) => failed.record), failures[0]!.failure];
}

function required<T>(target: T | undefined, message: string): T {
  if (target === undefined) throw new InvalidMappingSettingError('onFailure', message);
  return target;
}

function sqsSender(
  destination: Extract<Destination, { kind: 'sqs' }>,
  header: EventHeader,
  endpoint: string | undefined,
): DestinationSender {
  const sqsEndpoint = required(
    endpoint,
    'an SQS destination needs destinations.sqsEndpoint (an SQS-compatible server such as ElasticMQ: kafka-lambda sqs start)',
  );
  let client: SQSClient | undefined;
  let queueUrl: string | undefined;
  const sdk = () => import('@aws-sdk/client-sqs');
  return {
    perRecord: false,
    async open() {
      const { SQSClient, GetQueueUrlCommand, QueueDoesNotExist } = await sdk();
      client = new SQSClient({
        endpoint: sqsEndpoint,
        region: destination.region,
        credentials: LOCAL_CREDENTIALS,
      });
      // Found now, as the kafka:// topic is: a missing queue would otherwise show only when the first
      // failed batch is sent, and its records be dropped after the delivery's retries.
      const server = new URL(sqsEndpoint).host;
      try {
        queueUrl = (await client.send(new GetQueueUrlCommand({ QueueName: destination.queueName }))).QueueUrl;
      } catch (error) {
        throw new InvalidMappingSettingError(
          'onFailure',
          error instanceof QueueDoesNotExist
            ? `the SQS queue ${destination.queueName} does not exist on the SQS server at ${server}: create it first (kafka-lambda sqs start --queue ${destination.queueName})`
            : `the SQS server at ${server} could not be asked for the queue ${destination.queueName} (${(error as { code?: string }).code ?? (error as Error).name})`,
          { cause: error },
        );
      }
    },
    async close() {
      client?.destroy();
    },
    async send(failures) {
      const { SendMessageCommand } = await sdk();
      const body = JSON.stringify(buildBatchFailureEnvelope(header, ...batchOf(failures)));
      await client!.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));
    },
  };
}
