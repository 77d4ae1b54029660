import type { StandardSchemaV1 } from '@standard-schema/spec';
import { custom } from 'valibot';
import { describeValue } from '../kafka-event/rules.ts';
import type {
  LambdaContext as Context,
  MskEventSource,
  SelfManagedEventSource,
} from '../kafka-event/types.ts';
import { defineOptions, type OptionsSpec, unchecked } from '../options/options.ts';
import type { KafkaPoisonRecordError } from './errors.ts';
import type { KafkaBatchLogger, KafkaBatchMetrics } from './log.ts';
import type { KafkaRecord } from './record.ts';

/**
 * How records may run in parallel:
 * - `'partition'` (default): one record at a time per partition, in offset order; partitions in parallel.
 * - `'key'`: records with the same key in offset order, different keys in parallel (records without
 *   a key are independent of each other), until a record fails (see below).
 * - `'none'`: any record may run alongside any other, until a record fails (see below).
 *
 * In every ordering, once a record fails no record of its partition at a later offset starts,
 * whatever its key: they are reported. Lambda resumes the partition from the lowest reported offset,
 * so they come back anyway; running them now would repeat their side effects on every retry (with
 * a poison record and unlimited retries, until it ages out of the topic) and run them before the
 * failed record. Records of the partition already running when the failure happens complete
 * normally (a success is redelivered with the rest; at-least-once). Other partitions go on.
 *
 * @example
 * ```ts
 * kafkaBatch({ ordering: 'key', concurrency: 50, onRecord });
 * ```
 */
export type KafkaOrdering = 'partition' | 'key' | 'none';

/**
 * Where an invocation's records come from, as its event says: the kind of trigger, the MSK cluster and
 * the brokers. For a function that more than one trigger invokes (clusters, environments).
 *
 * @example
 * ```ts
 * onRecord: (record, { source }) => archive.put(source.eventSourceArn ?? 'self-managed', record.raw),
 * ```
 */
export interface KafkaBatchSource {
  /** `'aws:kafka'` for Amazon MSK; `'SelfManagedKafka'` (or `'aws:SelfManagedKafka'`) otherwise. */
  readonly eventSource: MskEventSource | SelfManagedEventSource;
  /** The MSK cluster's ARN (its VPC connection's, cross-account); `undefined` for self-managed Kafka. */
  readonly eventSourceArn: string | undefined;
  /** The event's comma-separated `bootstrapServers`, one `host:port` each; empty when it has none. */
  readonly bootstrapServers: readonly string[];
}

/**
 * What a handler gets besides its record(s): an `AbortSignal` that fires at the invocation's deadline
 * (pass it to fetch and AWS SDK calls), the Lambda context, and where the records come from. One
 * object per invocation.
 *
 * @example
 * ```ts
 * onRecord: (record, { signal }) => fetch(url, { method: 'POST', body: record.text(), signal }),
 * ```
 */
export interface KafkaBatchContext {
  /** Aborted at the invocation's deadline (less `timeoutReserveMs`). */
  readonly signal: AbortSignal;
  /** The Lambda context of the invocation. */
  readonly context: Context;
  /** Where the records come from. */
  readonly source: KafkaBatchSource;
}

/**
 * Processes one record. Returning (or resolving) means success; throwing (or rejecting) anything,
 * `Error` or not, means the record failed: it and the later records of its partition that did not
 * complete are reported (see {@link KafkaOrdering}).
 *
 * @example
 * ```ts
 * const onRecord: KafkaRecordHandler<Order> = async (record, { signal }) => {
 *   await payments.charge(record.data, { signal });
 * };
 * ```
 */
export type KafkaRecordHandler<TValue = unknown, TKey = string | null> = (
  record: KafkaRecord<TValue, TKey>,
  batch: KafkaBatchContext,
) => unknown;

/**
 * Processes one partition's run of records at once (bulk writes), in offset order. The array is the
 * handler's own copy: sort it (group by customer before a bulk write), filter or empty it as you like.
 * Contract:
 * - return nothing (or an empty iterable): every record of the run succeeded;
 * - return the records that failed (e.g. a bulk API's rejected items), in any order: the middleware
 *   matches them by identity (or, for a copy, by topic, partition and offset), never by their index,
 *   and reports the lowest-offset one **and every later record of the run** (the partition resumes
 *   from there);
 * - return anything that is not a record of the run (a record of another partition, an index):
 *   the whole run is reported and an error line names the partition;
 * - throw: the whole run failed and is reported.
 *
 * @example
 * ```ts
 * const onPartition: KafkaPartitionHandler<Order> = async (records, { signal }) => {
 *   const rejected = await warehouse.bulkInsert(records.map((r) => r.data), { signal });
 *   return rejected.map((index) => records[index]!);
 * };
 * ```
 */
export type KafkaPartitionHandler<TValue = unknown, TKey = string | null> = (
  records: KafkaRecord<TValue, TKey>[],
  batch: KafkaBatchContext,
  // `void` as well as `undefined`: a bulk write's `async (records) => { await put(records); }` or
  // `(records) => put(records)` returning `Promise<void>` is the "return nothing" case.
  // biome-ignore lint/suspicious/noConfusingVoidType: a handler that returns nothing is typed void
) => void | Iterable<KafkaRecord<TValue, TKey>> | PromiseLike<void | Iterable<KafkaRecord<TValue, TKey>>>;

/**
 * What to do with a poison record (its key or value cannot be decoded as asked, or fails the schema;
 * a record the event does not encode as Lambda does is never poison: see `KafkaRecordEncodingError`).
 * A poison record never fails the batch or another partition. Policies:
 * - `'report'` (default): report it like any failure; Lambda retries it (until it ages out of the
 *   topic). Its partition stops there, as after any failure and in every ordering (see
 *   {@link KafkaOrdering}): the later records of the partition are reported too, and come back with it;
 * - `'skip'`: count and log it, then treat it as done (it is not retried);
 * - a function: hand it over (e.g. to your own dead-letter topic or queue), then treat it as done; if
 *   the function throws, the record is reported instead.
 *
 * @example
 * ```ts
 * onPoison: async (record, error) => sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: JSON.stringify({ record: record.raw, error: error.message }) })),
 * ```
 */
export type KafkaPoisonPolicy =
  | 'report'
  | 'skip'
  | ((
      record: KafkaRecord<unknown, unknown>,
      error: KafkaPoisonRecordError,
      batch: KafkaBatchContext,
    ) => unknown);

/**
 * Turns a record's key or value bytes into data, for formats a Standard Schema cannot read (Avro,
 * Protobuf, schema-registry framing): given as the `key` or `value` option instead of a Standard
 * Schema; its output is `record.keyData` / `record.data`. The decoders of `kafka-lambda/avro`,
 * `kafka-lambda/protobuf` and `kafka-lambda/json-schema` implement it (and validate their output with
 * a Standard Schema); the middleware itself imports no decoding library.
 *
 * `decode` gets the bytes (`null` for a null or absent key or value: a tombstone), the record (its
 * position and schema metadata) and the invocation's signal (aborted at the deadline: pass it to any
 * request). It returns the data, or a promise of it (only when it must fetch something, e.g. a writer
 * schema; the sync path costs no promise). A {@link KafkaPoisonRecordError} it throws makes the record
 * poison (`onPoison`); any other error fails the record like a handler's error (it is retried). Its
 * errors must not quote the bytes.
 *
 * @example
 * ```ts
 * const upperCase: KafkaDecoder<string | null> = {
 *   kind: 'kafka-decoder',
 *   decode: (bytes) => (bytes === null ? null : bytes.toString('latin1').toUpperCase()),
 * };
 * kafkaBatch({ value: upperCase, onRecord: (record) => console.log(record.data) });
 * ```
 */
export interface KafkaDecoder<TOutput> {
  /** Tells a decoder from a Standard Schema. */
  readonly kind: 'kafka-decoder';
  decode(
    bytes: Buffer | null,
    record: KafkaRecord<unknown, unknown>,
    field: 'key' | 'value',
    signal: AbortSignal,
  ): TOutput | Promise<TOutput>;
}

/**
 * The options shared by both handler shapes ({@link KafkaRecordOptions} and {@link KafkaPartitionOptions}):
 * decoding of keys and values, poison and logging policies.
 *
 * @example
 * ```ts
 * const common: KafkaBatchCommonOptions<Order, string> = { value: OrderSchema, key: v.string() };
 * kafkaBatch({ ...common, onRecord: (record) => ship(record.data) });
 * ```
 */
export interface KafkaBatchCommonOptions<TValue, TKey> {
  /**
   * Standard Schema (zod, valibot, arktype…) for the value, given `record.json()`; or a
   * {@link KafkaDecoder} given the value's bytes (Avro, Protobuf…). Typed as `record.data`.
   *
   * A tombstone (a record whose value is `null` or absent, as a compacted topic's deletes are) reaches
   * the schema as `null`. A schema that refuses `null` makes every tombstone a poison record
   * (`KafkaSchemaError`: "value is null (a tombstone…)"), and with the default `onPoison: 'report'`
   * its partition stops there on every retry. Accept `null` in the schema (`v.nullable(Order)`,
   * `z.nullable(Order)`: `record.data` is then `null` for a tombstone), or drop tombstones with
   * `onPoison: 'skip'` (which drops every other poison record too). The decoders of
   * `kafka-lambda/avro`, `/protobuf` and `/json-schema` give `null` for a tombstone without
   * validating it.
   *
   * @example
   * ```ts
   * kafkaBatch({
   *   value: v.nullable(OrderSchema),
   *   onRecord: (record) => (record.data === null ? orders.delete(record.keyData) : orders.put(record.data)),
   * });
   * ```
   */
  value?: StandardSchemaV1<unknown, TValue> | KafkaDecoder<TValue> | undefined;
  /**
   * Standard Schema for the key, given the key as UTF-8 text (`null` if none); or a
   * {@link KafkaDecoder} given the key's bytes. Typed as `record.keyData`.
   *
   * A record without a key reaches the schema as `null`: a schema that refuses `null` makes it a
   * poison record (`KafkaSchemaError`: "key is null…"), as for a tombstone's value. Use
   * `v.nullable(v.string())` (`z.string().nullable()`) when some producers send no key.
   */
  key?: StandardSchemaV1<unknown, TKey> | KafkaDecoder<TKey> | undefined;
  /** At most this many records (or partition runs) in flight at once. Default 16. */
  concurrency?: number | undefined;
  /** Default `'report'`. */
  onPoison?: KafkaPoisonPolicy | undefined;
  /**
   * Stop starting records, abort the signal and return when this much of the invocation's time is left
   * (from `context.getRemainingTimeInMillis()`); whatever did not complete is reported. Default 1000 ms.
   *
   * Keep it well below the function timeout: if no more than this is left when the middleware starts,
   * no record starts, every record is reported, and a warning line (`Kafka batch not started…`) is
   * logged. With a timeout ≤ the reserve that happens on every invocation, so the partitions never
   * advance. It is not an error, because a slow outer middleware (a cold secret fetch) can cause it
   * once; set `throwOnBatchFailure` to fail such invocations instead.
   */
  timeoutReserveMs?: number | undefined;
  /** Throw {@link KafkaBatchFailedError} instead of returning when no record succeeded. Default false. */
  throwOnBatchFailure?: boolean | undefined;
  /** Default: {@link jsonLogger}. */
  logger?: KafkaBatchLogger | undefined;
  /** A Powertools `Metrics` instance (or anything with `addMetric`). */
  metrics?: KafkaBatchMetrics | undefined;
}

/**
 * Options of {@link kafkaBatch} with a per-record handler.
 *
 * @example
 * ```ts
 * const options: KafkaRecordOptions<unknown, string | null> = { ordering: 'key', onRecord: (r) => audit(r.keyData) };
 * ```
 */
export interface KafkaRecordOptions<TValue, TKey> extends KafkaBatchCommonOptions<TValue, TKey> {
  /** Default `'partition'`; see {@link KafkaOrdering}. */
  ordering?: KafkaOrdering | undefined;
  onRecord: KafkaRecordHandler<TValue, TKey>;
  onPartition?: undefined;
}

/**
 * Options of {@link kafkaBatch} with a per-partition-run handler (partitions in parallel).
 *
 * @example
 * ```ts
 * const options: KafkaPartitionOptions<unknown, string | null> = { onPartition: (records) => table.bulkPut(records) };
 * ```
 */
export interface KafkaPartitionOptions<TValue, TKey> extends KafkaBatchCommonOptions<TValue, TKey> {
  ordering?: 'partition' | undefined;
  onPartition: KafkaPartitionHandler<TValue, TKey>;
  onRecord?: undefined;
}

/**
 * Options of {@link kafkaBatch}: exactly one of `onRecord` and `onPartition`, plus the common options.
 *
 * @example
 * ```ts
 * const options: KafkaBatchOptions<Order> = { value: OrderSchema, onRecord: (record) => ship(record.data) };
 * ```
 */
export type KafkaBatchOptions<TValue = unknown, TKey = string | null> =
  | KafkaRecordOptions<TValue, TKey>
  | KafkaPartitionOptions<TValue, TKey>;

/** Whether `value` is a {@link KafkaDecoder} (rather than a Standard Schema). */
export function isKafkaDecoder(value: unknown): value is KafkaDecoder<unknown> {
  const candidate = value as { kind?: unknown; decode?: unknown } | null | undefined;
  return candidate?.kind === 'kafka-decoder' && typeof candidate.decode === 'function';
}

function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  return (
    typeof (value as { '~standard'?: { validate?: unknown } } | null | undefined)?.['~standard']?.validate ===
    'function'
  );
}

function hasMethods(value: unknown, methods: readonly string[]): boolean {
  return (
    ((typeof value === 'object' && value !== null) || typeof value === 'function') &&
    methods.every((method) => typeof (value as Record<string, unknown>)[method] === 'function')
  );
}

// `custom` only: the middleware is bundled into every consumer function, and valibot's other schemas
// would add to each bundle what a predicate already says. Nullish means "the default" where the
// middleware applies one with `??`.
const ORDERINGS: readonly unknown[] = ['partition', 'key', 'none'] satisfies KafkaOrdering[];
const decoding = (field: 'key' | 'value') =>
  custom<unknown>(
    (value) => value === undefined || isKafkaDecoder(value) || isStandardSchema(value),
    `${field} must be a Standard Schema (zod, valibot, arktype…) or a decoder (kafka-lambda/avro…)`,
  );

/**
 * The options {@link kafkaBatch} accepts, and what each may be: checked once, when `kafkaBatch()` is
 * called, never per invocation. The rules between options (exactly one handler; `onPartition` only with
 * `'partition'` ordering) are `kafkaBatch`'s own.
 */
export const KAFKA_BATCH_OPTIONS: OptionsSpec<KafkaBatchOptions<unknown, unknown>> = defineOptions<
  KafkaBatchOptions<unknown, unknown>
>({
  // Whether exactly one of them is a function is checked with both in hand.
  onRecord: unchecked,
  onPartition: unchecked,
  ordering: custom<KafkaOrdering | undefined>(
    (value) => value == null || ORDERINGS.includes(value),
    (issue) => `ordering must be 'partition', 'key' or 'none', not ${describeValue(issue.input)}`,
  ),
  concurrency: custom<number | undefined>(
    (value) => value == null || (Number.isSafeInteger(value) && (value as number) >= 1),
    (issue) => `concurrency must be a positive integer, not ${describeValue(issue.input)}`,
  ),
  timeoutReserveMs: custom<number | undefined>(
    (value) => value == null || (typeof value === 'number' && value >= 0 && Number.isFinite(value)),
    (issue) => `timeoutReserveMs must be a non-negative number, not ${describeValue(issue.input)}`,
  ),
  throwOnBatchFailure: custom<boolean | undefined>(
    (value) => value == null || typeof value === 'boolean',
    (issue) => `throwOnBatchFailure must be true or false, not ${describeValue(issue.input)}`,
  ),
  onPoison: custom<KafkaPoisonPolicy | undefined>(
    (value) => value == null || value === 'report' || value === 'skip' || typeof value === 'function',
    "onPoison must be 'report', 'skip' or a function",
  ),
  key: decoding('key'),
  value: decoding('value'),
  logger: custom<KafkaBatchLogger | undefined>(
    (value) => value === undefined || hasMethods(value, ['info', 'warn', 'error']),
    'logger must have info, warn and error methods',
  ),
  metrics: custom<KafkaBatchMetrics | undefined>(
    (value) => value === undefined || hasMethods(value, ['addMetric']),
    'metrics must have an addMetric method (a Powertools Metrics instance)',
  ),
});
