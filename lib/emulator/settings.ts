import { randomUUID } from 'node:crypto';
import type { FailureEnvelope } from './destination.ts';
import { type Destination, parseDestination } from './destination-sender.ts';
import { InvalidMappingSettingError } from './errors.ts';
import { compileFilterCriteria, type FilterCriteria, type RecordFilter } from './filter.ts';
import { resolveSchemaRegistry, type SchemaRegistryConfig } from './schema-registry.ts';

/**
 * Where a Kafka trigger starts reading when its consumer group has no committed offset.
 *
 * @example
 * ```ts
 * const position: StartingPosition = 'AT_TIMESTAMP'; // with startingPositionTimestamp (Unix seconds)
 * ```
 */
export type StartingPosition = 'TRIM_HORIZON' | 'LATEST' | 'AT_TIMESTAMP';

/**
 * Receives one failure envelope per failed record, the one a `kafka://` destination would get (the
 * callback form of an on-failure destination).
 *
 * @example
 * ```ts
 * const onFailure: FailureCallback = (envelope) => { deadLetters.push(envelope); };
 * ```
 */
export type FailureCallback = (envelope: FailureEnvelope) => Promise<void> | void;

/**
 * The settings of a Kafka event source mapping, with Lambda's names, ranges and defaults.
 *
 * @example
 * ```ts
 * const settings: EventSourceMappingSettings = {
 *   topic: 'orders',
 *   consumerGroupId: 'orders-processor',
 *   batchSize: 100,
 *   reportBatchItemFailures: true,
 *   maximumRetryAttempts: 3,
 *   onFailure: 'kafka://orders-dlq',
 * };
 * ```
 */
export interface EventSourceMappingSettings {
  /** The single topic the mapping reads. */
  topic: string;
  /** The consumer group (1–200 chars). Lambda generates a unique one when unset; set it explicitly. */
  consumerGroupId?: string;
  /** Records per invocation at most, 1–10,000 (default 100). */
  batchSize?: number;
  /** How long to gather records, whole seconds 0–300 (default 0.5 s for Kafka). */
  maximumBatchingWindowInSeconds?: number;
  /** Used only for partitions the group has no committed offset for (default TRIM_HORIZON). */
  startingPosition?: StartingPosition;
  /** Unix seconds, not in the future; required with AT_TIMESTAMP. */
  startingPositionTimestamp?: number;
  /** Read `batchItemFailures` from the function's response (`FunctionResponseTypes: ["ReportBatchItemFailures"]`). */
  reportBatchItemFailures?: boolean;
  /** −1 (infinite, the default) or 0–10,000; −1 with an on-failure destination means 10. */
  maximumRetryAttempts?: number;
  /** −1 (the default, no limit) or 60–604,800. Older records go to the destination, or are skipped. */
  maximumRecordAgeInSeconds?: number;
  /** Split a batch in two and retry the halves separately when the function errors. */
  bisectBatchOnFunctionError?: boolean;
  /**
   * `kafka://<topic>` in the same cluster (one envelope message per failed record), an SQS queue, SNS
   * topic or S3 bucket ARN (one envelope per failed batch; see `destinations`), or a callback.
   */
  onFailure?: string | FailureCallback;
  /** Event flavour: Amazon MSK (`aws:kafka`, with `eventSourceArn`) or self-managed (default `msk`). */
  eventSource?: 'msk' | 'self-managed';
  /** The MSK cluster ARN put in events (a local placeholder by default). */
  eventSourceArn?: string;
  /**
   * Lambda's `FilterCriteria` (filters on the record's `value`): records that match no filter are not
   * delivered and are committed past.
   */
  filterCriteria?: FilterCriteria;
  /**
   * Lambda's `SchemaRegistryConfig` (a Confluent-compatible registry URL as `SchemaRegistryURI`,
   * `EventRecordFormat`, `SchemaValidationConfigs`): records are resolved and deserialized before they
   * are invoked; unknown schemas and undecodable records go to the destination with `SCHEMA_NOT_FOUND` /
   * `DESERIALIZATION_ERROR`. Filters then apply to the deserialized value.
   */
  schemaRegistry?: SchemaRegistryConfig;
}

/**
 * Settings after validation, defaults applied.
 *
 * @example
 * ```ts
 * const { batchSize, retryLimit } = resolveMappingSettings({ topic: 'orders' }); // 100, Infinity
 * ```
 */
export interface ResolvedMappingSettings {
  topic: string;
  consumerGroupId: string;
  batchSize: number;
  batchingWindowMs: number;
  startingPosition: StartingPosition;
  startingPositionTimestamp?: number;
  reportBatchItemFailures: boolean;
  /** Retries after the first attempt; `Infinity` for −1 without a destination. */
  retryLimit: number;
  /** Milliseconds, or `Infinity`. */
  maximumRecordAgeMs: number;
  bisectBatchOnFunctionError: boolean;
  destination?: Destination;
  eventSource: 'msk' | 'self-managed';
  eventSourceArn: string;
  /** Set when `filterCriteria` has filters: whether a record's value is delivered. */
  filter?: RecordFilter;
  schemaRegistry?: SchemaRegistryConfig;
}

const TOPIC = /^[a-zA-Z0-9._-]{1,249}$/;
const GROUP = /^[a-zA-Z0-9\-/*:_+=.@]{1,200}$/;
const LOCAL_CLUSTER_ARN =
  'arn:aws:kafka:us-east-1:000000000000:cluster/local/00000000-0000-0000-0000-000000000000-1';

function integerIn(setting: string, value: number, min: number, max: number, extra = ''): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new InvalidMappingSettingError(setting, `must be an integer ${extra}${min}–${max}, got ${value}`);
  }
  return value;
}

/**
 * Validates event source mapping settings against Lambda's rules and applies Lambda's defaults.
 *
 * @example
 * ```ts
 * const resolved = resolveMappingSettings({ topic: 'orders', maximumRetryAttempts: -1, onFailure: 'kafka://dlq' });
 * resolved.retryLimit; // 10: −1 with a destination is capped
 * ```
 * @throws InvalidMappingSettingError naming the first invalid setting.
 */
export function resolveMappingSettings(settings: EventSourceMappingSettings): ResolvedMappingSettings {
  if (typeof settings.topic !== 'string' || !TOPIC.test(settings.topic)) {
    throw new InvalidMappingSettingError(
      'topic',
      `not a valid Kafka topic name: ${JSON.stringify(settings.topic)}`,
    );
  }
  const consumerGroupId = settings.consumerGroupId ?? randomUUID();
  if (!GROUP.test(consumerGroupId)) {
    throw new InvalidMappingSettingError(
      'consumerGroupId',
      'must be 1–200 characters of [a-zA-Z0-9-/*:_+=.@]',
    );
  }
  const batchSize = integerIn('batchSize', settings.batchSize ?? 100, 1, 10_000);
  const window = settings.maximumBatchingWindowInSeconds;
  const batchingWindowMs =
    window === undefined ? 500 : integerIn('maximumBatchingWindowInSeconds', window, 0, 300) * 1000;
  const startingPosition = settings.startingPosition ?? 'TRIM_HORIZON';
  if (!['TRIM_HORIZON', 'LATEST', 'AT_TIMESTAMP'].includes(startingPosition)) {
    throw new InvalidMappingSettingError(
      'startingPosition',
      `must be TRIM_HORIZON, LATEST or AT_TIMESTAMP, got ${String(startingPosition)}`,
    );
  }
  const timestamp = settings.startingPositionTimestamp;
  if (startingPosition === 'AT_TIMESTAMP') {
    if (timestamp === undefined || !Number.isFinite(timestamp) || timestamp < 0) {
      throw new InvalidMappingSettingError(
        'startingPositionTimestamp',
        'required (Unix seconds) with AT_TIMESTAMP',
      );
    }
    if (timestamp > Date.now() / 1000) {
      throw new InvalidMappingSettingError('startingPositionTimestamp', 'must not be in the future');
    }
  } else if (timestamp !== undefined) {
    throw new InvalidMappingSettingError('startingPositionTimestamp', 'only allowed with AT_TIMESTAMP');
  }

  const destination =
    settings.onFailure === undefined ? undefined : parseDestination(settings.onFailure, settings.topic);

  const retries = settings.maximumRetryAttempts ?? -1;
  if (retries !== -1) integerIn('maximumRetryAttempts', retries, 0, 10_000, '−1 or ');
  const retryLimit = retries === -1 ? (destination ? 10 : Number.POSITIVE_INFINITY) : retries;

  const age = settings.maximumRecordAgeInSeconds ?? -1;
  if (age !== -1) integerIn('maximumRecordAgeInSeconds', age, 60, 604_800, '−1 or ');

  const eventSource = settings.eventSource ?? 'msk';
  if (eventSource !== 'msk' && eventSource !== 'self-managed') {
    throw new InvalidMappingSettingError(
      'eventSource',
      `must be msk or self-managed, got ${String(eventSource)}`,
    );
  }
  return {
    topic: settings.topic,
    consumerGroupId,
    batchSize,
    batchingWindowMs,
    startingPosition,
    ...(timestamp === undefined ? {} : { startingPositionTimestamp: timestamp }),
    reportBatchItemFailures: settings.reportBatchItemFailures ?? false,
    retryLimit,
    maximumRecordAgeMs: age === -1 ? Number.POSITIVE_INFINITY : age * 1000,
    bisectBatchOnFunctionError: settings.bisectBatchOnFunctionError ?? false,
    ...(destination ? { destination } : {}),
    eventSource,
    eventSourceArn: settings.eventSourceArn ?? LOCAL_CLUSTER_ARN,
    ...(settings.filterCriteria && settings.filterCriteria.Filters?.length !== 0
      ? { filter: compileFilterCriteria(settings.filterCriteria) }
      : {}),
    ...(settings.schemaRegistry === undefined
      ? {}
      : { schemaRegistry: resolveSchemaRegistry(settings.schemaRegistry) }),
  };
}
