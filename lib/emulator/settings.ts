import { randomUUID } from 'node:crypto';
import { custom, type GenericSchema } from 'valibot';
import { LAMBDA_LIMITS } from '../kafka-event/limits.ts';
import { defineOptions, unchecked } from '../options/options.ts';
import type { FailureEnvelope } from './destination.ts';
import { type Destination, parseDestination } from './destination-sender.ts';
import type { LocalEventSourceMappingOptions } from './emulator.ts';
import { InvalidMappingSettingError } from './errors.ts';
import { compileFilterCriteria, type FilterCriteria, type RecordFilter } from './filter.ts';
import { resolveSchemaRegistry, type SchemaRegistryConfig } from './schema-registry.ts';

/**
 * Where a Kafka trigger starts reading when its consumer group has no valid committed offset.
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
  /**
   * The single topic the mapping reads. It must exist before `start()`, which checks it and rejects with
   * an `InvalidMappingSettingError` naming `topic` (the emulator never creates it, even on a broker that
   * creates topics on demand: create it with `ensureTopics` from `kafka-lambda/broker`).
   */
  topic: string;
  /** The consumer group (1–200 chars). Lambda generates a unique one when unset; set it explicitly. */
  consumerGroupId?: string;
  /** Records per invocation at most, 1–10,000 (default 100). */
  batchSize?: number;
  /** How long to gather records, whole seconds 0–300 (default 0.5 s for Kafka). */
  maximumBatchingWindowInSeconds?: number;
  /**
   * Used only for partitions the group has no valid committed offset for: none, or one outside the log
   * (below its start after retention, or past its end). Default TRIM_HORIZON.
   */
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
   *
   * A `kafka://` topic must exist before `start()`, which checks it and rejects with an
   * `InvalidMappingSettingError` naming `onFailure` otherwise: the emulator never creates it (create it
   * with `ensureTopics` from `kafka-lambda/broker`, as `kafka-lambda dev` does on a local broker). A topic
   * deleted while the mapping runs is not created again either: each delivery to it fails (an `error`
   * event per attempt), and after three attempts the failed records are dropped, as Lambda drops records
   * it could not deliver (a `destination` event with `dropped: 'delivery-failed'`, counted in
   * `droppedRecords`), and committed past.
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
  /**
   * Lambda's provisioned mode (`ProvisionedPollerConfig`), which the deployed stack uses. Each poller runs
   * at most 5 invocations at once, so the mapping runs at most 5 × `maximumPollers` at once (and never
   * more than one per partition). Lambda scales between the two bounds on its own schedule, which AWS
   * does not document: locally the mapping may use the most Lambda could reach. Without it (on-demand
   * mode, whose starting number of pollers AWS does not document either) one invocation per partition
   * may run at once.
   */
  provisionedPollerConfig?: ProvisionedPollerConfig;
}

/**
 * Lambda's `ProvisionedPollerConfig` for a Kafka trigger, with the names CloudFormation and the CDK use.
 *
 * @example
 * ```ts
 * const pollers: ProvisionedPollerConfig = { minimumPollers: 1, maximumPollers: 3 }; // the stack's
 * ```
 */
export interface ProvisionedPollerConfig {
  /** 1–200; default 1. */
  minimumPollers?: number;
  /** 1–2,000, at least `minimumPollers`; default 200. */
  maximumPollers?: number;
  /** Pollers shared with other mappings of this name (`PollerGroupName`): checked, no effect locally. */
  pollerGroupName?: string;
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
  /** Invocations that may run at once: 5 per provisioned poller at the most, `Infinity` on demand. */
  maxConcurrentInvocations: number;
}

const GROUP = /^[a-zA-Z0-9\-/*:_+=.@]{1,200}$/;
const STARTING_POSITIONS: readonly unknown[] = [
  'TRIM_HORIZON',
  'LATEST',
  'AT_TIMESTAMP',
] satisfies StartingPosition[];
const LOCAL_CLUSTER_ARN =
  'arn:aws:kafka:us-east-1:000000000000:cluster/local/00000000-0000-0000-0000-000000000000-1';

/** An optional whole number in Lambda's range (`infinite`, Lambda's −1, allowed besides when given). */
function integerIn(range: { min: number; max: number; infinite?: number }): GenericSchema {
  const infinite = range.infinite === undefined ? '' : `${String(range.infinite).replace('-', '−')} or `;
  return custom(
    (value) =>
      value === undefined ||
      value === range.infinite ||
      (Number.isInteger(value) && (value as number) >= range.min && (value as number) <= range.max),
    (issue) => `must be an integer ${infinite}${range.min}–${range.max}, got ${String(issue.input)}`,
  );
}

const POLLERS = LAMBDA_LIMITS.provisionedPollers;
const POLLER_OPTIONS = defineOptions<ProvisionedPollerConfig>(
  {
    minimumPollers: integerIn(POLLERS.minimumPollers),
    maximumPollers: integerIn(POLLERS.maximumPollers),
    pollerGroupName: custom(
      (value) =>
        value === undefined || (typeof value === 'string' && LAMBDA_LIMITS.names.pollerGroupName.test(value)),
      'must be at most 128 characters of a-z A-Z 0-9 - _',
    ),
  },
  'provisionedPollerConfig',
);

const optionalBoolean = custom<boolean | undefined>(
  (value) => value === undefined || typeof value === 'boolean',
  (issue) => `must be true or false, got ${String(issue.input)}`,
);

/**
 * The settings and the emulator's own options, one schema each: `createLocalEventSourceMapping` hands its
 * whole options object over, so a key that is neither is a misspelling, refused with the nearest name.
 */
const TRIGGER_OPTIONS = defineOptions<LocalEventSourceMappingOptions>({
  topic: custom(
    (value) => typeof value === 'string' && LAMBDA_LIMITS.names.topic.test(value),
    (issue) =>
      `not a topic name a Kafka trigger accepts (2–249 of a-z A-Z 0-9 . _ -, not starting with a dot): ${JSON.stringify(issue.input)}`,
  ),
  consumerGroupId: custom(
    (value) => value === undefined || (typeof value === 'string' && GROUP.test(value)),
    'must be 1–200 characters of [a-zA-Z0-9-/*:_+=.@]',
  ),
  batchSize: integerIn(LAMBDA_LIMITS.batchSize),
  maximumBatchingWindowInSeconds: integerIn(LAMBDA_LIMITS.batchingWindowSeconds),
  startingPosition: custom(
    (value) => value === undefined || STARTING_POSITIONS.includes(value),
    (issue) => `must be TRIM_HORIZON, LATEST or AT_TIMESTAMP, got ${String(issue.input)}`,
  ),
  // Depends on startingPosition.
  startingPositionTimestamp: unchecked,
  reportBatchItemFailures: optionalBoolean,
  maximumRetryAttempts: integerIn(LAMBDA_LIMITS.maximumRetryAttempts),
  maximumRecordAgeInSeconds: integerIn(LAMBDA_LIMITS.maximumRecordAgeSeconds),
  bisectBatchOnFunctionError: optionalBoolean,
  // Depends on topic (a Kafka destination must differ from it).
  onFailure: unchecked,
  eventSource: custom(
    (value) => value === undefined || value === 'msk' || value === 'self-managed',
    (issue) => `must be msk or self-managed, got ${String(issue.input)}`,
  ),
  eventSourceArn: unchecked,
  // Compiled below, with the filter grammar's own errors.
  filterCriteria: unchecked,
  schemaRegistry: unchecked,
  provisionedPollerConfig: custom(
    (value) => value === undefined || (typeof value === 'object' && value !== null && !Array.isArray(value)),
    'must be an object: { minimumPollers, maximumPollers, pollerGroupName }',
  ),
  // The emulator's own options: used (and checked) by createLocalEventSourceMapping.
  brokers: unchecked,
  kafka: unchecked,
  function: unchecked,
  checkModule: optionalBoolean,
  redelivery: unchecked,
  destinations: unchecked,
  retryBackoff: unchecked,
  onEvent: unchecked,
  tombstoneValue: custom(
    (value) => value === undefined || value === 'null' || value === 'absent',
    (issue) => `must be 'null' or 'absent', got ${String(issue.input)}`,
  ),
});

/**
 * Validates event source mapping settings against Lambda's rules and applies Lambda's defaults. A key
 * that is neither a setting nor an option of `createLocalEventSourceMapping` is refused with the nearest
 * valid name.
 *
 * @example
 * ```ts
 * const resolved = resolveMappingSettings({ topic: 'orders', maximumRetryAttempts: -1, onFailure: 'kafka://dlq' });
 * resolved.retryLimit; // 10: −1 with a destination is capped
 * ```
 * @throws InvalidMappingSettingError naming the first invalid setting (or the unknown key).
 */
export function resolveMappingSettings(settings: EventSourceMappingSettings): ResolvedMappingSettings {
  TRIGGER_OPTIONS.check(settings, (problem) =>
    problem.key === undefined
      ? new InvalidMappingSettingError('settings', problem.message)
      : new InvalidMappingSettingError(problem.key, problem.message),
  );
  const consumerGroupId = settings.consumerGroupId ?? randomUUID();
  const batchSize = settings.batchSize ?? LAMBDA_LIMITS.batchSize.default;
  const window = settings.maximumBatchingWindowInSeconds;
  const batchingWindowMs =
    window === undefined ? LAMBDA_LIMITS.batchingWindowSeconds.defaultMs : window * 1000;
  const startingPosition = settings.startingPosition ?? 'TRIM_HORIZON';
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

  const { infinite, infiniteWithDestination } = LAMBDA_LIMITS.maximumRetryAttempts;
  const retries = settings.maximumRetryAttempts ?? infinite;
  const unbounded = destination ? infiniteWithDestination : Number.POSITIVE_INFINITY;
  const retryLimit = retries === infinite ? unbounded : retries;

  const age = settings.maximumRecordAgeInSeconds ?? LAMBDA_LIMITS.maximumRecordAgeSeconds.infinite;
  const maxConcurrentInvocations = concurrencyOf(settings.provisionedPollerConfig);
  const eventSource = settings.eventSource ?? 'msk';
  return {
    topic: settings.topic,
    consumerGroupId,
    batchSize,
    batchingWindowMs,
    startingPosition,
    ...(timestamp === undefined ? {} : { startingPositionTimestamp: timestamp }),
    reportBatchItemFailures: settings.reportBatchItemFailures ?? false,
    retryLimit,
    maximumRecordAgeMs:
      age === LAMBDA_LIMITS.maximumRecordAgeSeconds.infinite ? Number.POSITIVE_INFINITY : age * 1000,
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
    maxConcurrentInvocations,
  };
}

/**
 * The settings given that AWS offers only in provisioned mode (the Kafka pages of the Lambda guide:
 * error handling controls, Kafka on-failure destinations and schema registries are set "in provisioned
 * mode"; https://docs.aws.amazon.com/lambda/latest/dg/kafka-retry-configurations.html), by their API
 * names, when `provisionedPollerConfig` is not set. The emulator runs them either way; a mapping
 * deployed with them needs `ProvisionedPollerConfig`, as the stack's consumer construct sets.
 *
 * @example
 * ```ts
 * provisionedOnlySettings({ topic: 'orders', bisectBatchOnFunctionError: true }); // ['BisectBatchOnFunctionError']
 * ```
 */
export function provisionedOnlySettings(settings: EventSourceMappingSettings): string[] {
  if (settings.provisionedPollerConfig !== undefined) return [];
  const infinite = LAMBDA_LIMITS.maximumRetryAttempts.infinite;
  const given: [boolean, string][] = [
    [settings.reportBatchItemFailures === true, 'FunctionResponseTypes (ReportBatchItemFailures)'],
    [
      settings.maximumRetryAttempts !== undefined && settings.maximumRetryAttempts !== infinite,
      'MaximumRetryAttempts',
    ],
    [
      settings.maximumRecordAgeInSeconds !== undefined &&
        settings.maximumRecordAgeInSeconds !== LAMBDA_LIMITS.maximumRecordAgeSeconds.infinite,
      'MaximumRecordAgeInSeconds',
    ],
    [settings.bisectBatchOnFunctionError === true, 'BisectBatchOnFunctionError'],
    [
      typeof settings.onFailure === 'string' && settings.onFailure.startsWith('kafka://'),
      'DestinationConfig.OnFailure (a Kafka topic)',
    ],
    [settings.schemaRegistry !== undefined, 'SchemaRegistryConfig'],
  ];
  return given.filter(([set]) => set).map(([, name]) => name);
}

/** The invocations a mapping in this poller mode may run at once (see `provisionedPollerConfig`). */
function concurrencyOf(config: ProvisionedPollerConfig | undefined): number {
  if (config === undefined) return Number.POSITIVE_INFINITY;
  POLLER_OPTIONS.check(config, (problem) =>
    problem.key === undefined
      ? new InvalidMappingSettingError('provisionedPollerConfig', problem.message)
      : new InvalidMappingSettingError(`provisionedPollerConfig.${problem.key}`, problem.message),
  );
  const minimum = config.minimumPollers ?? POLLERS.minimumPollers.default;
  const maximum = config.maximumPollers ?? POLLERS.maximumPollers.default;
  if (maximum < minimum)
    throw new InvalidMappingSettingError(
      'provisionedPollerConfig',
      `maximumPollers (${maximum}) must be at least minimumPollers (${minimum})`,
    );
  return maximum * POLLERS.invocationsPerPoller;
}
