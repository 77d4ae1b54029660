/**
 * The event Lambda's Kafka trigger (event source mapping) sends, and the response it reads back.
 * Shapes follow the AWS documentation; `@types/aws-lambda` types `key` as always present and has no
 * batch-response type, hence these.
 */

/**
 * `eventSource` of an Amazon MSK trigger.
 *
 * @example
 * ```ts
 * const source: MskEventSource = 'aws:kafka';
 * ```
 */
export type MskEventSource = 'aws:kafka';
/**
 * `eventSource` of a self-managed Kafka trigger (both spellings occur in the wild).
 *
 * @example
 * ```ts
 * const sources: SelfManagedEventSource[] = ['SelfManagedKafka', 'aws:SelfManagedKafka'];
 * ```
 */
export type SelfManagedEventSource = 'SelfManagedKafka' | 'aws:SelfManagedKafka';

/**
 * A header as Lambda sends it: one key, its value as an array of signed bytes (−128..127).
 *
 * @example
 * ```ts
 * const header: KafkaEventHeader = { 'trace-id': [97, 98, 99] }; // 'abc'
 * ```
 */
export type KafkaEventHeader = Record<string, number[]>;

/**
 * Schema registry metadata, present only when the trigger has a schema registry configured.
 *
 * @example
 * ```ts
 * const metadata: KafkaSchemaMetadata = { dataFormat: 'AVRO', schemaId: '17' };
 * ```
 */
export interface KafkaSchemaMetadata {
  dataFormat: string;
  schemaId?: string;
}

/**
 * One Kafka record inside a Lambda Kafka event.
 *
 * @example
 * ```ts
 * const record: KafkaEventRecord = {
 *   topic: 'orders', partition: 0, offset: 7, timestamp: 1764400000000, timestampType: 'CREATE_TIME',
 *   key: null, value: 'eyJpZCI6N30=', headers: [{ 'trace-id': [97, 98, 99] }],
 * };
 * ```
 */
export interface KafkaEventRecord {
  topic: string;
  partition: number;
  offset: number;
  /** Epoch milliseconds. */
  timestamp: number;
  timestampType: 'CREATE_TIME' | 'LOG_APPEND_TIME' | string;
  /** Base64; absent or null when the record has no key. */
  key?: string | null;
  /** Base64; absent or null for a tombstone. */
  value?: string | null;
  /** Absent or `null` (as Powertools' types allow) when the record has none. */
  headers?: KafkaEventHeader[] | null;
  keySchemaMetadata?: KafkaSchemaMetadata;
  valueSchemaMetadata?: KafkaSchemaMetadata;
}

/**
 * The payload of a Kafka-triggered invocation. `records` is keyed `"<topic>-<partition>"`; each value
 * holds that partition's records in offset order.
 *
 * @example
 * ```ts
 * const event: KafkaEvent = {
 *   eventSource: 'aws:kafka',
 *   eventSourceArn: 'arn:aws:kafka:eu-west-1:111122223333:cluster/orders/uuid',
 *   bootstrapServers: 'b-1.orders:9098',
 *   records: { 'orders-0': [{ topic: 'orders', partition: 0, offset: 7, timestamp: 1764400000000,
 *     timestampType: 'CREATE_TIME', key: null, value: 'eyJpZCI6N30=', headers: [] }] },
 * };
 * ```
 */
export type KafkaEvent = MskKafkaEvent | SelfManagedKafkaEvent;

/**
 * An Amazon MSK trigger's event.
 *
 * @example
 * ```ts
 * if (event.eventSource === 'aws:kafka') console.log(event.eventSourceArn); // event is an MskKafkaEvent here
 * ```
 */
export interface MskKafkaEvent {
  eventSource: MskEventSource;
  /** The cluster's ARN (or the VPC connection's, cross-account). */
  eventSourceArn: string;
  /** Comma-separated `host:port` list. */
  bootstrapServers: string;
  records: Record<string, KafkaEventRecord[]>;
}

/**
 * A self-managed Kafka trigger's event (no `eventSourceArn`).
 *
 * @example
 * ```ts
 * const event: SelfManagedKafkaEvent = {
 *   eventSource: 'SelfManagedKafka',
 *   bootstrapServers: 'kafka-1.example.com:9092,kafka-2.example.com:9092',
 *   records: { 'orders-0': [] },
 * };
 * ```
 */
export interface SelfManagedKafkaEvent {
  eventSource: SelfManagedEventSource;
  bootstrapServers: string;
  records: Record<string, KafkaEventRecord[]>;
}

/**
 * Identifies one record in a partial batch response.
 *
 * @example
 * ```ts
 * const id: KafkaItemIdentifier = { partition: 'orders-3', offset: 1042 };
 * ```
 */
export interface KafkaItemIdentifier {
  /** `"<topic>-<partition>"`, the same form as the event's `records` keys. */
  partition: string;
  offset: number;
}

/**
 * One failed record in a partial batch response.
 *
 * @example
 * ```ts
 * const failure: KafkaBatchItemFailure = { itemIdentifier: { partition: 'orders-3', offset: 1042 } };
 * ```
 */
export interface KafkaBatchItemFailure {
  itemIdentifier: KafkaItemIdentifier;
}

/**
 * The partial batch response a Kafka-triggered function returns (with `ReportBatchItemFailures`
 * enabled on the trigger). An empty list means the whole batch succeeded.
 *
 * @example
 * ```ts
 * const response: KafkaBatchResponse = {
 *   batchItemFailures: [{ itemIdentifier: { partition: 'orders-3', offset: 1042 } }],
 * };
 * ```
 */
export interface KafkaBatchResponse {
  batchItemFailures: KafkaBatchItemFailure[];
}

/**
 * The `"<topic>-<partition>"` string Lambda uses for a partition, built from the record's own fields
 * (public fixtures exist whose map key disagrees with the record).
 *
 * @example
 * ```ts
 * partitionKey('order-events', 3); // 'order-events-3'
 * ```
 */
export function partitionKey(topic: string, partition: number): string {
  return `${topic}-${partition}`;
}

/**
 * The invocation context Lambda's Node.js runtime passes a handler, as this package's public types use it:
 * the same shape as `Context` in `@types/aws-lambda` (either is assignable to the other), declared here so
 * that a user's types resolve without that package.
 *
 * @example
 * ```ts
 * const remainingMs = (context: LambdaContext) => context.getRemainingTimeInMillis();
 * ```
 */
export interface LambdaContext {
  callbackWaitsForEmptyEventLoop: boolean;
  functionName: string;
  functionVersion: string;
  invokedFunctionArn: string;
  memoryLimitInMB: string;
  awsRequestId: string;
  logGroupName: string;
  logStreamName: string;
  identity?: { cognitoIdentityId: string; cognitoIdentityPoolId: string } | undefined;
  clientContext?: LambdaClientContext | undefined;
  tenantId?: string | undefined;
  getRemainingTimeInMillis(): number;
  /** @deprecated Return a promise instead (the runtime's legacy callback API). */
  done(error?: Error, result?: unknown): void;
  /** @deprecated Reject a promise instead (the runtime's legacy callback API). */
  fail(error: Error | string): void;
  /** @deprecated Resolve a promise instead (the runtime's legacy callback API). */
  succeed(messageOrObject: unknown, object?: unknown): void;
}

/**
 * The mobile SDK client context of {@link LambdaContext} (absent for Kafka-triggered invocations).
 *
 * @example
 * ```ts
 * const platform = (context: LambdaContext) => context.clientContext?.env.platform;
 * ```
 */
export interface LambdaClientContext {
  client: {
    installationId: string;
    appTitle: string;
    appVersionName: string;
    appVersionCode: string;
    appPackageName: string;
  };
  custom?: unknown;
  env: { platformVersion: string; platform: string; make: string; model: string; locale: string };
}
