import { type Admin, type Consumer, type EachBatchPayload, Kafka, type KafkaConfig, logLevel } from 'kafkajs';
import { LAMBDA_LIMITS } from '../kafka-event/limits.ts';
import { checkHandlerModule } from '../lambda-runtime/check-module.ts';
import { HandlerNotFoundError, loadErrorResponse } from '../lambda-runtime/load-handler.ts';
import { unthrowing } from '../lambda-runtime/unthrowing.ts';
import {
  type BatchPart,
  batchEvent,
  type EventHeader,
  eventOverhead,
  type PartitionQueue,
  type PendingRecord,
  recordCount,
  type TombstoneValue,
  takeBatch,
  toPendingRecord,
} from './batch.ts';
import {
  CommitCoalescer,
  type CommittedOffset,
  filteredCommitOffset,
  type PartitionOffset,
} from './commits.ts';
import type { FailureCondition, FailureContext } from './destination.ts';
import {
  createDestinationSender,
  type DestinationSender,
  type DestinationTargets,
} from './destination-sender.ts';
import {
  EmulatorStateError,
  FunctionLoadError,
  InvalidMappingSettingError,
  InvokeRequestError,
  RecordTooLargeError,
} from './errors.ts';
import { deliveries, FailureOutbox, type HeldFailure } from './failure-outbox.ts';
import { createInvoker, type Invoker, type MappingFunction, newRequestId } from './invoke.ts';
import { type BatchOutcome, interpretResult } from './response.ts';
import {
  backoffDelayMs,
  DEFAULT_RETRY_BACKOFF,
  decideAfterFailure,
  type Redelivery,
  type RetryPolicy,
  type RetryReason,
  splitAged,
  type Work,
} from './retry-policy.ts';
import { createSchemaResolver, resolveBatchSchemas, type SchemaResolver } from './schema-registry.ts';
import {
  type EventSourceMappingSettings,
  type ResolvedMappingSettings,
  resolveMappingSettings,
} from './settings.ts';
import { ChangeSignal } from './signal.ts';
import {
  countInvocation,
  newCounters,
  partitionStats,
  recordsCommittedPast,
  type StartPosition,
  startPositions,
} from './stats.ts';

/**
 * Options of {@link createLocalEventSourceMapping}: the settings of the emulated event source mapping
 * (Lambda's names), the function, and how to reach the cluster.
 *
 * @example
 * ```ts
 * const options: LocalEventSourceMappingOptions = {
 *   brokers: ['127.0.0.1:9092'],
 *   topic: 'orders',
 *   consumerGroupId: 'orders-processor',
 *   reportBatchItemFailures: true,
 *   function: { handler },
 * };
 * ```
 */
export interface LocalEventSourceMappingOptions extends EventSourceMappingSettings {
  /** Bootstrap servers (`host:port`). */
  brokers: string[];
  /** Extra kafkajs client settings (ssl, sasl, …). */
  kafka?: Omit<KafkaConfig, 'brokers'>;
  /**
   * The function: a local handler (a function, or a module reference such as `src/handler.ts#handler`,
   * whose relative path is resolved from `process.cwd()`: the directory the tests run from, not the
   * folder of the test file), or a function called through the Lambda Invoke API.
   */
  function: MappingFunction;
  /**
   * Whether `start()` first checks that a module reference in `function.handler` loads (default `true`):
   * it loads the module once, in a throwaway sandbox environment whose output is discarded (or in this
   * process with `inProcess`, where the module stays loaded for the invocations), and rejects with
   * {@link FunctionLoadError} when the reference names no module or no function in it, or the module
   * fails in its init phase; before that check passes, the mapping neither connects nor joins its group.
   * Lambda itself would run such a function and fail every invocation (`Runtime.ImportModuleError`, …),
   * then drop or commit past the records once the retries ran out: `false` emulates that (the first
   * invocation loads the module), and spares a module's init code its extra run in the sandbox. A handler
   * given as a function, or a function called through the Invoke API, is never checked.
   */
  checkModule?: boolean;
  redelivery?: Redelivery;
  /**
   * How a tombstone's value is written in events: `"value": null` (`'null'`, the default) or no `value`
   * field (`'absent'`). Lambda events have been seen both ways; test the handler under both.
   */
  tombstoneValue?: TombstoneValue;
  /** Where ARN on-failure destinations go locally: an SQS endpoint (ElasticMQ), SNS and S3 functions. */
  destinations?: DestinationTargets;
  /** Delay before retry n is `min(initialMs · 2^(n−1), maxMs)` (default 100 ms … 5 s). */
  retryBackoff?: { initialMs: number; maxMs: number };
  /**
   * Called for every invocation, retry, destination record, commit and error. What it throws is thrown
   * again outside the emulator (an uncaught exception), after the emulator has carried on.
   */
  onEvent?: (event: MappingEvent) => void;
}

/**
 * What happened, for progress displays and tests.
 *
 * @example
 * ```ts
 * onEvent: (event) => { if (event.type === 'destination') console.log(event.partition, event.offset); }
 * ```
 */
export type MappingEvent =
  | {
      type: 'invoke';
      requestId: string;
      /** 1 for the first attempt of a batch. */
      attempt: number;
      records: number;
      /** First and last offset per `<topic>-<partition>`. */
      offsets: Record<string, [number, number]>;
      durationMs: number;
      outcome: BatchOutcome['kind'];
      /** The error type or invalid-response reason, for failed invocations. */
      detail?: string;
      /**
       * A function error's message, as the function wrote it (it may quote a record: `describeEvent`'s
       * log line leaves it out, as Lambda's trigger logs none).
       */
      errorMessage?: string;
      /**
       * A function error's stack trace as Lambda's Node.js runtime logs it (the `stack` of its
       * `ERROR Invoke Error` line): a header line `<type>: <message>` (which, like `errorMessage`, may
       * quote a record), then the frames. Only when the runtime reported one: a handler in the sandbox or
       * in this process that threw or rejected with an `Error` (not through the Invoke API). Its frames
       * only, without the header, are what `describeEvent(event, { trace: true })` shows.
       *
       * @example
       * ```ts
       * trace: ["TypeError: Cannot read properties of undefined (reading 'amount')", '    at handler (file:///app/functions/orders/handler.ts:12:31)']
       * ```
       */
      trace?: string[];
      /** Reported failed records, for partial failures. */
      failedRecords?: number;
    }
  | {
      type: 'retry';
      attempt: number;
      records: number;
      /** Where each partition resumes. */
      fromOffsets: Record<string, number>;
      reason: 'function-error' | 'invalid-response' | 'partial';
    }
  | {
      /**
       * A batch (or a piece of one) that failed as a whole is split in two, each half invoked in turn
       * (`bisectBatchOnFunctionError`). Not a retry: the halves keep the retries the batch had used.
       */
      type: 'bisect';
      /** Records of the batch split. */
      records: number;
      /** Records of the first half (the lower offsets), then of the second. */
      halves: [number, number];
      /** Where each partition of the batch starts. */
      fromOffsets: Record<string, number>;
      /** Retries the batch had used; each half starts with as many. */
      retriesUsed: number;
      /** `maximumRetryAttempts` as applied (`Infinity` for -1 without a destination). */
      retryLimit: number;
    }
  | {
      /**
       * A record given to the on-failure destination (or dropped). Each partition's come in offset order,
       * whatever made them fail and when: one that failed before its batch was invoked (too old, refused
       * by the schema registry) waits until the records before it are done.
       */
      type: 'destination';
      partition: string;
      offset: number;
      condition: FailureCondition;
      /**
       * `false` when the destination took the record. Otherwise it was dropped, as Lambda drops it, and
       * this says why: no on-failure destination is configured, or delivering to it failed
       * {@link DESTINATION_DELIVERY_ATTEMPTS} times (each failure is an `error` event before this one).
       */
      dropped: false | 'no-destination' | 'delivery-failed';
    }
  | { type: 'commit'; offsets: Record<string, number> }
  | { type: 'error'; error: Error };

/**
 * Per-partition progress.
 *
 * @example
 * ```ts
 * for (const p of emulator.stats().partitions) console.log(p.partition, p.committed, p.lag);
 * ```
 */
export interface PartitionStats {
  partition: number;
  /** Offset this mapping committed last (the next record to read), `undefined` before its first commit. */
  committed: number | undefined;
  /**
   * The partition's high watermark (one past its last record), as `start()` found it, then as the latest
   * fetch reported it (no request of its own). Known for every assigned partition, an empty one too.
   */
  highWatermark: number | undefined;
  /**
   * Records up to the high watermark not committed yet: from the last commit, else from where the group
   * stood when the partition was assigned, so 0 on a partition holding nothing to do (an empty or idle
   * one). `undefined` only for a moment after a rebalance hands this mapping a partition, while it looks
   * up where the group stands on it.
   */
  lag: number | undefined;
}

/**
 * Counters since `start()`.
 *
 * @example
 * ```ts
 * const { invocations, retries, splits, destinationRecords } = emulator.stats();
 * ```
 */
export interface MappingStats {
  invocations: number;
  /** Records sent in invocations, retries included. */
  recordsInvoked: number;
  /** Records committed past. */
  recordsCommitted: number;
  functionErrors: number;
  invalidResponses: number;
  partialFailures: number;
  /** Invocations again of a batch that failed (or of what is left of it). A bisect split is not one. */
  retries: number;
  /**
   * Batches split in two after a function error (`bisectBatchOnFunctionError`): a split uses none of
   * the retries, so it is counted here and not in `retries`.
   */
  splits: number;
  destinationRecords: number;
  /**
   * Records Lambda's `DroppedEventCount` would count: given up on with no destination configured, or
   * whose delivery to it failed. Committed past: lost unless replayed from Kafka.
   */
  droppedRecords: number;
  /** Records that matched no filter of `filterCriteria`: never delivered, committed past. */
  recordsFiltered: number;
  /**
   * The partitions this mapping is assigned (at its latest join), in partition order: one a rebalance gave
   * to another member of the group is left out, and listed again once it is handed back. After `stop()`,
   * those it was assigned when it stopped.
   */
  partitions: PartitionStats[];
}

/**
 * Options of {@link LocalEventSourceMapping.stop}.
 *
 * @example
 * ```ts
 * await emulator.stop({ abandon: true }); // as if the process died: nothing more is committed
 * ```
 */
export interface StopOptions {
  /**
   * Abandon in-flight batches: nothing more is committed or sent to the destination, as if the
   * process died; the sandbox environments running their invocations end. By default in-flight
   * invocations finish and their results are committed; an abandoning stop during such a stop stops
   * that wait.
   */
  abandon?: boolean;
}

/**
 * A running emulation of Lambda's Kafka event source mapping.
 *
 * @example
 * ```ts
 * const emulator = createLocalEventSourceMapping({ brokers, topic: 'orders', function: { handler } });
 * await emulator.start();
 * // …
 * await emulator.stop();
 * ```
 */
export interface LocalEventSourceMapping {
  /** The consumer group (generated when not given). */
  readonly consumerGroupId: string;
  readonly topic: string;
  /**
   * Checks that the function loads (a module reference, see
   * {@link LocalEventSourceMappingOptions.checkModule}), connects, checks that the topic and a `kafka://`
   * on-failure destination exist, applies the starting position, joins the group; resolves once
   * partitions are assigned. A failed check rejects before anything is read or committed.
   *
   * @throws FunctionLoadError when the module reference names no module or no function, or the module
   *   fails in its init phase.
   * @throws InvalidMappingSettingError naming `topic` when the topic does not exist (the emulator never
   *   creates it, even on a broker that creates topics on demand), or `onFailure` when its `kafka://`
   *   topic does not exist.
   * @throws EmulatorStateError when the emulator was started before.
   */
  start(): Promise<void>;
  /** Stops polling; see {@link StopOptions}. Idempotent: a call while a stop is under way waits for that stop (abandoning it first with `abandon`). */
  stop(options?: StopOptions): Promise<void>;
  stats(): MappingStats;
  /**
   * The function's code changed, as after Lambda's UpdateFunctionCode: its next invocations start in new
   * execution environments, which load its files as they are now (cold starts); invocations running
   * finish on the old code. What `kafka-lambda dev --watch` calls when a file changes.
   *
   * @throws EmulatorStateError unless the function is a module reference run in the sandbox (a module
   * imported in this process, a handler function or a deployed function cannot be reloaded here).
   */
  updateFunctionCode(): void;
  /**
   * Resolves once the group's committed offsets reach the topic's end offsets as of the call (every
   * record produced before it is done). Waits on the emulator's progress, not a polling loop. Rejects
   * with {@link EmulatorStateError} if the emulator stops first, or its consumer crashes for good.
   */
  idle(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

interface PartitionState {
  partition: number;
  key: string;
  queue: PartitionQueue;
  bytes: number;
  /** The next offset to queue: records below it are queued or done; `undefined` after a (re)join. */
  expected: number | undefined;
  /** Batches (or an oversized record) holding this partition; at most one is in flight per partition. */
  holds: number;
  paused: boolean;
  /** The first offset fetched since the (re)join: where the group stood, before our first commit. */
  base: number | undefined;
  /**
   * The partition was revoked while a batch held it: that batch commits nothing more for it (the
   * member that owns it now may be ahead) and stops invoking its records (they are that member's).
   */
  revoked: boolean;
  /** The last record queued since the (re)join. */
  lastQueued: number | undefined;
  /** One past the last record that matched no filter, since the (re)join. */
  filteredEnd: number | undefined;
  /**
   * The last record fetched since the (re)join and where the next fetch continues from (one past the
   * fetch's last offset): a fetch starting there gives its first record this one as `previousOffset`.
   */
  lastFetched: { offset: number | undefined; next: number } | undefined;
  /**
   * Where the group stood when the partition was assigned (looked up by `start()`, or after a rejoin):
   * the lag of a partition nothing has been fetched from (an idle one). `undefined` while a lookup after a
   * rejoin is under way.
   */
  start: number | undefined;
  /** From `start()`'s lookup (or a rejoin's), then from every fetch: no request of its own. */
  highWatermark: number | undefined;
}

/** How a piece of work ended: done, the emulator stopped, bisected, or exhausted with records left for a fresh batch. */
type Ending =
  | { kind: 'done' }
  | { kind: 'stopped' }
  | { kind: 'bisect'; halves: Work[] }
  | { kind: 'leftovers'; parts: BatchPart[] };

const MAX_BUFFERED_BYTES = 16 * 1024 * 1024;

/**
 * Attempts to deliver to the on-failure destination before the records are dropped. Lambda documents
 * the drop, not how often it tries first. The event source mapping metrics
 * (https://docs.aws.amazon.com/lambda/latest/dg/monitoring-metrics-types.html#event-source-mapping-metrics),
 * under `OnFailureDestinationDeliveredEventCount`: "If delivery to the destination fails, Lambda handles
 * metrics as follows: Lambda doesn't emit the OnFailureDestinationDeliveredEventCount metric. For the
 * DestinationDeliveryFailures metric, Lambda emits a 1. For the DroppedEventCount metric, Lambda emits a
 * number equal to the number of events that failed delivery." — and `DroppedEventCount` is "The number
 * of events that Lambda dropped due to expiry or retry exhaustion". (`OnFailureDestinationDeliveryErrorCount`,
 * Kafka's `ErrorCount` group, is listed on that page without a description.) Three attempts with the
 * retry back-off ride out a destination that blinks without holding the partition for long.
 */
const DESTINATION_DELIVERY_ATTEMPTS = 3;

/**
 * Longest wait of `idle()` between two looks at the emulator's progress. Progress (a commit, a released
 * partition, a stop) wakes it at once; the bound only keeps a missed wake-up from stalling it.
 */
const IDLE_RECHECK_MS = 1_000;

/**
 * Creates an emulator of Lambda's Kafka event source mapping: it polls the topic in a real consumer
 * group, invokes the function with events shaped byte-for-byte as Lambda's, interprets results
 * (partial batch responses, retries, bisect, record age, on-failure destination) and commits only
 * what Lambda would commit.
 *
 * @example
 * ```ts
 * const emulator = createLocalEventSourceMapping({
 *   brokers: ['127.0.0.1:9092'],
 *   topic: 'orders',
 *   consumerGroupId: 'orders-processor',
 *   reportBatchItemFailures: true,
 *   maximumRetryAttempts: 3,
 *   onFailure: 'kafka://orders-dlq',
 *   function: { handler, timeoutSeconds: 30 },
 * });
 * await emulator.start();
 * ```
 * @throws InvalidMappingSettingError when a setting is outside Lambda's rules.
 */
export function createLocalEventSourceMapping(
  options: LocalEventSourceMappingOptions,
): LocalEventSourceMapping {
  return new TriggerEmulator(options, resolveMappingSettings(options), createInvoker(options.function));
}

/**
 * The trigger emulator: consumer lifecycle, batching window and scheduling, and carrying out the
 * retry policy's decisions (retry-policy.ts) and the commits (commits.ts).
 */
class TriggerEmulator implements LocalEventSourceMapping {
  readonly consumerGroupId: string;
  readonly topic: string;
  readonly #options: LocalEventSourceMappingOptions;
  readonly #onEvent: ((event: MappingEvent) => void) | undefined;
  readonly #settings: ResolvedMappingSettings;
  readonly #retryPolicy: RetryPolicy;
  readonly #invoker: Invoker;
  readonly #kafka: Kafka;
  readonly #header: EventHeader;
  readonly #overhead: number;
  readonly #partitions = new Map<number, PartitionState>();
  readonly #inFlight = new Set<Promise<void>>();
  /** Batches being carried to their end: each is one invocation at a time (see #processBatch). */
  #batchesInFlight = 0;
  #consumer: Consumer | undefined;
  readonly #commits: CommitCoalescer;
  readonly #destination: DestinationSender | undefined;
  /** The trigger's schema registry: records are resolved and deserialized before they are invoked. */
  readonly #schemas: SchemaResolver | undefined;
  #state: 'new' | 'running' | 'stopping' | 'stopped' = 'new';
  /** Settles once a stop() has finished (set by the first stop() call). */
  #stopped: Promise<void> | undefined;
  #abandoned = false;
  /** Resolved when the emulator is abandoned, even while a stop waits for the in-flight batches. */
  readonly #abandoning = Promise.withResolvers<void>();
  /** The consumer crashed and kafkajs will not restart it: nothing more is fetched. */
  #consumerDead = false;
  #windowTimer: NodeJS.Timeout | undefined;
  #windowOpenedAt: number | undefined;
  #rotation = 0;
  /** Ends the retry delays early once the emulator stops. */
  readonly #stopping = new ChangeSignal();
  /** Wakes idle() when progress may have been made: a settled commit, a released partition, a stop. */
  readonly #progress = new ChangeSignal();
  readonly #stats = newCounters();
  /** The directory a module reference is resolved from: the sandbox's (see createSandbox), when created. */
  readonly #cwd = process.cwd();
  /** The partitions assigned at the last join. */
  #assigned = new Set<number>();
  /** Where the group stood on each partition as `start()` found it, for the first join's partitions. */
  #startPositions: Map<number, StartPosition> | undefined;
  /** Lookups of where the group stands on partitions assigned at a rejoin (for stats): awaited by stop(). */
  readonly #lookups = new Set<Promise<void>>();

  constructor(options: LocalEventSourceMappingOptions, settings: ResolvedMappingSettings, invoker: Invoker) {
    this.#options = options;
    // An exception of onEvent (a test's assertion, a display's bug) must not stop the emulator midway
    // through its bookkeeping: it is thrown again apart.
    this.#onEvent = options.onEvent && unthrowing(options.onEvent);
    this.#settings = settings;
    this.#invoker = invoker;
    this.consumerGroupId = settings.consumerGroupId;
    this.topic = settings.topic;
    this.#retryPolicy = {
      retryLimit: settings.retryLimit,
      bisectBatchOnFunctionError: settings.bisectBatchOnFunctionError,
      redelivery: options.redelivery ?? 'from-lowest',
    };
    this.#kafka = new Kafka({
      clientId: 'kafka-lambda-esm',
      logLevel: logLevel.NOTHING,
      ...options.kafka,
      brokers: options.brokers,
    });
    const bootstrapServers = options.brokers.join(',');
    this.#header =
      settings.eventSource === 'msk'
        ? { eventSource: 'aws:kafka', eventSourceArn: settings.eventSourceArn, bootstrapServers }
        : { eventSource: 'SelfManagedKafka', bootstrapServers };
    this.#overhead = eventOverhead(this.#header);
    this.#destination =
      settings.destination &&
      createDestinationSender(settings.destination, this.#header, options.destinations ?? {}, this.#kafka);
    this.#schemas = settings.schemaRegistry && createSchemaResolver(settings.schemaRegistry);
    this.#commits = new CommitCoalescer({
      // Commits are wanted only by batches, which exist once the consumer runs.
      commit: (offsets) =>
        this.#consumer!.commitOffsets(
          offsets.map(({ partition, offset }) => ({ topic: this.topic, partition, offset: String(offset) })),
        ),
      onCommitted: (offsets) => this.#committed(offsets),
      onError: (error) => this.#emit({ type: 'error', error }),
      mayRetry: () => this.#state === 'running',
      onSettled: () => this.#progress.notify(),
    });
  }

  async start(): Promise<void> {
    if (this.#state !== 'new')
      throw new EmulatorStateError(`cannot start a trigger emulator that is ${this.#state}`);
    this.#state = 'running';
    const settings = this.#settings;
    try {
      await this.#checkModule();
      // The destination first: a queue found missing must leave the group as it was (#prepareGroup
      // commits starting positions).
      await this.#destination?.open();
      await this.#prepareGroup();
      const consumer = this.#kafka.consumer({
        groupId: settings.consumerGroupId,
        allowAutoTopicCreation: false,
        // A short long-poll keeps stop() responsive: leaving the group waits for the fetch in flight.
        maxWaitTimeInMs: 50,
        // Fetch responses of at most 1 MB (kafkajs: 10 MB) reach the first invocation sooner and keep
        // fewer decoded records waiting; Kafka still returns a larger record batch whole (KIP-74), and
        // batches up to Lambda's 6 MB fill from several fetches. Measured: about 20% less time for
        // 100,000 records (emulator.bench.ts).
        maxBytes: 1024 * 1024,
        retry: {
          retries: 8,
          initialRetryTime: 200,
          maxRetryTime: 5_000,
          restartOnFailure: async () => this.#state === 'running',
        },
      });
      this.#consumer = consumer;
      const joined = new Promise<void>((resolve) => {
        consumer.on(consumer.events.GROUP_JOIN, (event) => {
          this.#onJoin(event.payload.memberAssignment[settings.topic] ?? []);
          resolve();
        });
      });
      consumer.on(consumer.events.CRASH, (event) => {
        this.#emit({ type: 'error', error: event.payload.error });
        if (!event.payload.restart) {
          this.#consumerDead = true;
          this.#progress.notify();
        }
      });
      await consumer.connect();
      await consumer.subscribe({
        topic: settings.topic,
        fromBeginning: settings.startingPosition !== 'LATEST',
      });
      await consumer.run({
        autoCommit: false,
        partitionsConsumedConcurrently: 1,
        eachBatch: (payload) => this.#onFetched(payload),
      });
      await joined;
    } catch (error) {
      await this.stop({ abandon: true });
      throw error;
    }
  }

  /**
   * Checks a module reference loads (see {@link LocalEventSourceMappingOptions.checkModule}): in a
   * throwaway sandbox environment, as the sandbox would load it (same directory, environment and
   * settings), or in this process with `inProcess` (Node keeps the module: the invocations reuse it).
   *
   * @throws FunctionLoadError naming the reference and the runtime's error type and message.
   */
  async #checkModule(): Promise<void> {
    const fn = this.#options.function;
    if (this.#options.checkModule === false || !('handler' in fn) || typeof fn.handler !== 'string') return;
    const reference = fn.handler;
    const failure = await checkHandlerModule({
      handler: reference,
      ...(fn.inProcess ? { inProcess: true } : { cwd: this.#cwd }),
      timeoutSeconds: fn.timeoutSeconds ?? LAMBDA_LIMITS.kafkaFunctionTimeoutSeconds.default,
      ...(fn.functionName === undefined ? {} : { functionName: fn.functionName }),
      ...(fn.memoryLimitInMB === undefined ? {} : { memoryLimitInMB: fn.memoryLimitInMB }),
      ...(fn.environment ? { env: fn.environment } : {}),
    });
    if (!failure) return;
    const { errorType, errorMessage } = loadErrorResponse(failure);
    const where =
      failure instanceof HandlerNotFoundError && failure.lambdaErrorType === 'Runtime.ImportModuleError'
        ? ` (a relative path is resolved from the working directory, ${fn.inProcess ? process.cwd() : this.#cwd})`
        : '';
    throw new FunctionLoadError(reference, errorType, `${errorMessage}${where}`, { cause: failure });
  }

  /**
   * Before joining: checks that the source topic and a `kafka://` destination exist, commits the starting
   * position where it applies, and notes where the group stands on every partition (for
   * {@link MappingStats.partitions}).
   */
  async #prepareGroup(): Promise<void> {
    const admin: Admin = this.#kafka.admin();
    await admin.connect();
    try {
      await this.#checkSourceTopic(admin);
      await this.#checkDestinationTopic(admin);
      this.#startPositions = await this.#applyStartingPosition(admin);
    } finally {
      await admin.disconnect();
    }
  }

  /**
   * The source topic must exist. Without this check, `start()` failed after about 10 s of the admin
   * client's retries with kafkajs's "This server does not host this topic-partition", naming neither the
   * topic nor the setting (the consumer, which creates no topic, `allowAutoTopicCreation: false`, was
   * never reached). The metadata request asked here creates no topic either, even on a broker with
   * `auto.create.topics.enable`. Lambda's developer guide documents neither a wait nor an error for a
   * mapping whose topic is missing (its Kafka troubleshooting page,
   * https://docs.aws.amazon.com/lambda/latest/dg/with-kafka-troubleshoot.html, gives `LastProcessingResult`
   * messages for authentication and authorization failures, none for a missing topic), so the emulator
   * says so at once rather than wait for a topic a test or `dev` forgot to create.
   *
   * @throws InvalidMappingSettingError naming `topic` and the topic.
   */
  async #checkSourceTopic(admin: Admin): Promise<void> {
    const { topic } = this.#settings;
    const missing = await this.#missingTopic(admin, topic);
    if (!missing) return;
    throw new InvalidMappingSettingError(
      'topic',
      `the topic ${topic} does not exist on ${this.#options.brokers.join(',')}: create it first (for example with ensureTopics from kafka-lambda/broker); the emulator does not create it`,
      { cause: missing },
    );
  }

  /**
   * A `kafka://` destination must exist: the emulator does not create it (its producer creates no
   * topic, even on a broker that would: `allowAutoTopicCreation: false`), and every delivery to a missing
   * topic would fail, each failed record dropped after {@link DESTINATION_DELIVERY_ATTEMPTS} attempts.
   * Checked once: a topic deleted while the mapping runs is found by the deliveries (see `onFailure`).
   *
   * @throws InvalidMappingSettingError naming `onFailure` and the topic.
   */
  async #checkDestinationTopic(admin: Admin): Promise<void> {
    const destination = this.#settings.destination;
    if (destination?.kind !== 'kafka') return;
    const missing = await this.#missingTopic(admin, destination.topic);
    if (!missing) return;
    throw new InvalidMappingSettingError(
      'onFailure',
      `the destination topic ${destination.topic} does not exist on ${this.#options.brokers.join(',')}: create it first (for example with ensureTopics from kafka-lambda/broker); the emulator does not create it`,
      { cause: missing },
    );
  }

  /**
   * The broker's UNKNOWN_TOPIC_OR_PARTITION error when the cluster has no such topic, `undefined` when it
   * has: asked without creating it (an admin client's metadata request never does).
   */
  async #missingTopic(admin: Admin, topic: string): Promise<Error | undefined> {
    try {
      await admin.fetchTopicMetadata({ topics: [topic] });
      return undefined;
    } catch (error) {
      if ((error as { type?: unknown }).type !== 'UNKNOWN_TOPIC_OR_PARTITION') throw error;
      return error as Error;
    }
  }

  /**
   * Commits the starting position for the partitions whose committed offset is not valid: Lambda ignores
   * `StartingPosition` only "if Kafka finds a valid existing consumer group"
   * (https://docs.aws.amazon.com/lambda/latest/dg/kafka-consumer-group-id.html), so it applies to a
   * partition the group has no offset for and to one whose offset is outside the log (below its start
   * after retention or deleteRecords, or past its end), from which Kafka refuses to fetch
   * (OFFSET_OUT_OF_RANGE). AT_TIMESTAMP: the first offset at or after the timestamp (the log end when none
   * is); TRIM_HORIZON: the log start; LATEST: the log end. A partition with no offset is left to the
   * consumer for TRIM_HORIZON and LATEST (kafkajs's `fromBeginning` reset, which resolves the same
   * offsets). Committed here, before joining, the position is the group's own: kafkajs's reset of an
   * out-of-range offset would go to the earliest record whatever the starting position.
   * Returns where the group then stands on each partition.
   *
   * @throws when a position must be committed while other members of the group are running (kafkajs
   * `setOffsets` needs an empty group).
   */
  async #applyStartingPosition(admin: Admin): Promise<Map<number, StartPosition>> {
    const { topic, consumerGroupId, startingPosition, startingPositionTimestamp } = this.#settings;
    // The topic's offsets first: they load the cluster's metadata. A fresh admin asked for a group's
    // offsets first finds no broker to ask for the coordinator and waits out a retry (about 300 ms, a
    // third of a 100,000-record run: emulator.bench.ts).
    const logs = await admin.fetchTopicOffsets(topic);
    const [group] = await admin.fetchOffsets({ groupId: consumerGroupId, topics: [topic] });
    const committed = new Map(group?.partitions.map((p) => [p.partition, Number(p.offset)]));
    const fromEnd = startingPosition === 'LATEST';
    const invalid = logs.filter((log) => {
      const offset = committed.get(log.partition) ?? -1;
      if (offset < 0) return startingPosition === 'AT_TIMESTAMP';
      return offset < Number(log.low) || offset > Number(log.high);
    });
    if (invalid.length === 0) return startPositions(logs, committed, fromEnd);
    const wanted = new Set(invalid.map((log) => log.partition));
    const partitions =
      startingPosition === 'AT_TIMESTAMP'
        ? (await admin.fetchTopicOffsetsByTimestamp(topic, (startingPositionTimestamp ?? 0) * 1000))
            .filter((p) => wanted.has(p.partition))
            .map(({ partition, offset }) => ({ partition, offset }))
        : invalid.map((log) => ({ partition: log.partition, offset: fromEnd ? log.high : log.low }));
    await admin.setOffsets({ groupId: consumerGroupId, topic, partitions });
    for (const { partition, offset } of partitions) committed.set(partition, Number(offset));
    return startPositions(logs, committed, fromEnd);
  }

  /**
   * Looks up where the group stands on partitions assigned at a rejoin, for their lag before anything
   * is fetched from them: one admin request pair per rejoin, none on the fetch path. Best effort: a
   * failed lookup leaves their lag unknown until a fetch or a commit.
   */
  #lookUpStart(partitions: number[]): void {
    const lookup = (async () => {
      const admin = this.#kafka.admin();
      await admin.connect();
      try {
        const logs = await admin.fetchTopicOffsets(this.topic);
        const [group] = await admin.fetchOffsets({ groupId: this.consumerGroupId, topics: [this.topic] });
        const committed = new Map(group?.partitions.map((p) => [p.partition, Number(p.offset)]));
        const positions = startPositions(logs, committed, this.#settings.startingPosition === 'LATEST');
        for (const partition of partitions) {
          const found = positions.get(partition);
          const state = this.#partitions.get(partition);
          if (!found || !state || !this.#assigned.has(partition)) continue;
          state.start = found.position;
          state.highWatermark = Math.max(state.highWatermark ?? 0, found.highWatermark);
        }
      } finally {
        await admin.disconnect();
      }
    })().catch(() => {});
    this.#lookups.add(lookup);
    void lookup.finally(() => this.#lookups.delete(lookup));
  }

  #partition(partition: number): PartitionState {
    let state = this.#partitions.get(partition);
    if (!state) {
      state = {
        partition,
        key: `${this.topic}-${partition}`,
        queue: { partition, records: [] },
        bytes: 0,
        expected: undefined,
        holds: 0,
        paused: false,
        base: undefined,
        revoked: false,
        lastQueued: undefined,
        filteredEnd: undefined,
        lastFetched: undefined,
        start: undefined,
        highWatermark: undefined,
      };
      this.#partitions.set(partition, state);
    }
    return state;
  }

  /**
   * After a (re)join kafkajs fetches from the committed offsets again: drop what was buffered. A batch
   * still in flight keeps its partition held, so the refetched records wait for it (at-least-once).
   * kafkajs keeps a partition paused across a rejoin: with the buffer gone, resume it.
   */
  #onJoin(assigned: number[]): void {
    const paused: number[] = [];
    const kept = new Set(assigned);
    for (const state of this.#partitions.values()) {
      if (!kept.has(state.partition)) {
        state.revoked ||= state.holds > 0;
        this.#commits.forget(state.partition);
      }
      state.queue.records = [];
      state.bytes = 0;
      state.expected = undefined;
      if (state.paused) paused.push(state.partition);
      state.paused = false;
      state.base = undefined;
      state.lastQueued = undefined;
      state.filteredEnd = undefined;
      state.lastFetched = undefined;
    }
    if (paused.length > 0) this.#consumer?.resume([{ topic: this.topic, partitions: paused }]);
    // Where the group stands on each partition: as start() found it at the first join; a partition that is
    // new to this member at a rejoin may have been moved on by another member, so it is looked up again.
    const known = this.#startPositions;
    this.#startPositions = undefined;
    const added = assigned.filter((partition) => !this.#assigned.has(partition));
    this.#assigned = kept;
    for (const partition of assigned) {
      const state = this.#partition(partition);
      if (!known || !added.includes(partition)) continue;
      const found = known.get(partition);
      state.start = found?.position;
      state.highWatermark = found?.highWatermark;
    }
    if (!known && added.length > 0) {
      for (const partition of added) this.#partition(partition).start = undefined;
      this.#lookUpStart(added);
    }
    // At most one batch per partition is in flight, and no more than the pollers run: the function may
    // run that many times at once.
    this.#invoker.prepare(Math.min(assigned.length, this.#settings.maxConcurrentInvocations));
  }

  async #onFetched({ batch }: EachBatchPayload): Promise<void> {
    if (this.#state !== 'running') return;
    const state = this.#partition(batch.partition);
    state.highWatermark = Number(batch.highWatermark);
    const fetchedOffset = Number((batch as unknown as { fetchedOffset: string }).fetchedOffset);
    // Records below `from` are queued or done already (a refetch after a rejoin overlaps records put
    // back after an exhausted batch). A fetch starting past `expected` is taken as is: no batch is
    // refused here, so kafkajs moved past only records it never hands out (aborted transactions,
    // control records) or records no longer in the topic (an offset reset).
    const from = Math.max(state.expected ?? 0, (state.queue.records.at(-1)?.offset ?? -1) + 1);
    // Each record's neighbour below it, filtered out or not: kafkajs leaves out control records and
    // aborted transactions, which are no records to a reader. A fetch that does not start where the last
    // one ended (a refetch after a rejoin or a seek) knows no neighbour for its first record.
    let previous = state.lastFetched?.next === fetchedOffset ? state.lastFetched.offset : undefined;
    for (const message of batch.messages) {
      const offset = Number(message.offset);
      const before = previous;
      previous = offset;
      if (offset < from) continue;
      // Filters apply before batching: a record that matches none is never queued (Lambda fills
      // batches with matching records only) and is committed past once everything before it is done.
      // With a schema registry, filters see the deserialized value: they apply after resolution (#invokeUntilSettled).
      if (this.#settings.filter && !this.#schemas && !this.#settings.filter(message.value)) {
        state.filteredEnd = Number(message.offset) + 1;
        this.#stats.recordsFiltered++;
        continue;
      }
      const record = toPendingRecord(
        this.topic,
        batch.partition,
        message,
        this.#options.tombstoneValue,
        before,
      );
      state.lastQueued = record.offset;
      state.queue.records.push(record);
      state.bytes += record.bytes;
    }
    state.expected = Math.max(from, Number(batch.lastOffset()) + 1);
    state.lastFetched = { offset: previous, next: Number(batch.lastOffset()) + 1 };
    if (
      !state.paused &&
      (state.bytes > MAX_BUFFERED_BYTES ||
        state.queue.records.length >= Math.max(2 * this.#settings.batchSize, 1000))
    ) {
      state.paused = true;
      this.#consumer?.pause([{ topic: this.topic, partitions: [state.partition] }]);
    }
    if (state.base === undefined) state.base = fetchedOffset;
    this.#commitFiltered(state);
    this.#schedule();
  }

  #resumeIfDrained(state: PartitionState): void {
    if (
      state.paused &&
      state.queue.records.length < Math.max(this.#settings.batchSize, 500) &&
      state.bytes < MAX_BUFFERED_BYTES / 2
    ) {
      state.paused = false;
      if (this.#state === 'running')
        this.#consumer?.resume([{ topic: this.topic, partitions: [state.partition] }]);
    }
  }

  /** Forms batches from partitions with no batch in flight, honouring batch size, window and payload limit. */
  #schedule(): void {
    if (this.#state !== 'running') return;
    for (;;) {
      // Provisioned pollers run 5 invocations each at the most; a finished batch schedules again.
      if (this.#batchesInFlight >= this.#settings.maxConcurrentInvocations) return;
      const all = [...this.#partitions.values()];
      const start = this.#rotation++ % Math.max(all.length, 1);
      const free = [...all.slice(start), ...all.slice(0, start)].filter(
        (s) => s.holds === 0 && s.queue.records.length > 0,
      );
      if (free.length === 0) {
        this.#closeWindow();
        return;
      }
      let available = 0;
      let bytes = this.#overhead;
      for (const s of free) {
        available += s.queue.records.length;
        bytes += s.bytes;
      }
      const windowMs = this.#settings.batchingWindowMs;
      const now = Date.now();
      if (this.#windowOpenedAt === undefined) this.#windowOpenedAt = now;
      const waited = now - this.#windowOpenedAt;
      if (available < this.#settings.batchSize && bytes < LAMBDA_LIMITS.payloadBytes && waited < windowMs) {
        if (!this.#windowTimer) {
          this.#windowTimer = setTimeout(() => {
            this.#windowTimer = undefined;
            this.#schedule();
          }, windowMs - waited);
        }
        return;
      }
      this.#closeWindow();
      const taken = takeBatch(
        free.map((s) => s.queue),
        this.topic,
        this.#settings.batchSize,
        this.#overhead,
      );
      for (const part of taken.parts) {
        const s = this.#partitions.get(part.partition)!;
        s.holds++;
        for (const record of part.records) s.bytes -= record.bytes;
        this.#resumeIfDrained(s);
      }
      if (taken.oversized) {
        this.#track(this.#oversized(taken.oversized));
        continue;
      }
      this.#track(this.#processCounted(taken.parts));
    }
  }

  /** {@link #processBatch}, counted against the invocations the pollers may run at once. */
  async #processCounted(batch: BatchPart[]): Promise<void> {
    this.#batchesInFlight++;
    try {
      await this.#processBatch(batch);
    } finally {
      const wasFull = this.#batchesInFlight >= this.#settings.maxConcurrentInvocations;
      this.#batchesInFlight--;
      // The batch's #release looked for the next batches while it still counted: a full mapping looks again.
      if (wasFull) queueMicrotask(() => this.#schedule());
    }
  }

  #closeWindow(): void {
    clearTimeout(this.#windowTimer);
    this.#windowTimer = undefined;
    this.#windowOpenedAt = undefined;
  }

  #track(work: Promise<void>): void {
    const tracked = work.catch((error: unknown) => {
      this.#emit({ type: 'error', error: error instanceof Error ? error : new Error(String(error)) });
    });
    this.#inFlight.add(tracked);
    void tracked.finally(() => this.#inFlight.delete(tracked));
  }

  /** A record that cannot fit in any event: destination if configured, else its partition stays blocked. */
  async #oversized(record: PendingRecord): Promise<void> {
    const state = this.#partition(record.partition);
    state.queue.records.shift();
    state.bytes -= record.bytes;
    state.holds++;
    if (!this.#settings.destination) {
      // Never released: the partition stays blocked at this record, as nothing can deliver it.
      this.#emit({
        type: 'error',
        error: new RecordTooLargeError(state.key, record.offset, record.bytes, LAMBDA_LIMITS.payloadBytes),
      });
      return;
    }
    const outbox = new FailureOutbox();
    outbox.hold([record], {
      condition: 'MaximumPayloadSizeExceeded',
      requestId: newRequestId(),
      functionArn: this.#invoker.functionArn,
      invokeCount: 0,
    });
    await this.#settle(outbox, [{ partition: record.partition, offset: record.offset + 1 }]);
    this.#release(record.partition);
  }

  /**
   * Carries one taken batch to its end. Its work runs one piece at a time, in offset order per
   * partition: bisected halves in turn, and the records left after an exhausted partial failure
   * before anything later of their partition, so no commit passes a record that has not been invoked.
   * The batch holds each of its partitions until no piece left holds records of it. Its failed records
   * wait in its outbox until the commit that passes them (see failure-outbox.ts): each partition's
   * reach the destination in offset order.
   */
  async #processBatch(batch: BatchPart[]): Promise<void> {
    const work: Work[] = [{ parts: batch, attempts: 0 }];
    const outbox = new FailureOutbox();
    const held = new Set(batch.map((part) => part.partition));
    const pending = () => new Set(work.flatMap((piece) => piece.parts.map((part) => part.partition)));
    let piece: Work | undefined;
    try {
      for (piece = work.shift(); piece; piece = work.shift()) {
        const ending = await this.#invokeUntilSettled(piece, outbox);
        if (ending.kind === 'stopped') return;
        if (ending.kind === 'bisect') work.unshift(...ending.halves);
        if (ending.kind === 'leftovers') {
          // A fresh batch: ahead of later work of the partition, else back at the head of its queue
          // (with the failed records after them that no commit has passed yet, to fail again there).
          const later = pending();
          for (const part of ending.parts)
            if (!later.has(part.partition)) this.#putBack([...part.records, ...outbox.drain(part.partition)]);
          const first = ending.parts.filter((part) => later.has(part.partition));
          if (first.length > 0) work.unshift({ parts: first, attempts: 0 });
        }
        const still = pending();
        for (const partition of held) {
          if (still.has(partition)) continue;
          held.delete(partition);
          // Every failed record is passed by a commit before its partition is done with; one that was
          // not goes back to its queue rather than be passed by a later batch's commit undelivered.
          this.#putBack(outbox.drain(partition));
          this.#release(partition);
        }
      }
    } catch (error) {
      // Something failed outside the function (a bug here, a callback that threw): the records not
      // settled go back to the head of their queues, in offset order, to be invoked again (failed ones
      // not delivered yet to fail again); released without them, later batches would commit past them.
      const unsettled = new Map<number, PendingRecord[]>();
      for (const unfinished of [piece, ...work])
        for (const part of unfinished?.parts ?? [])
          unsettled.set(part.partition, [...(unsettled.get(part.partition) ?? []), ...part.records]);
      for (const partition of outbox.partitions())
        unsettled.set(partition, [...(unsettled.get(partition) ?? []), ...outbox.drain(partition)]);
      for (const records of unsettled.values()) this.#putBack(records);
      throw error;
    } finally {
      for (const partition of held) this.#release(partition);
    }
  }

  /**
   * Invokes one piece of work until it is settled: invoke, interpret, and carry out the retry policy's
   * decision (commit what succeeded, retry the rest or bisect, and on exhaustion hold failures for the
   * destination and commit past them).
   */
  async #invokeUntilSettled(
    { parts: initial, attempts: failedAttempts }: Work,
    outbox: FailureOutbox,
  ): Promise<Ending> {
    let parts = initial;
    let attempts = failedAttempts;
    let requestFailures = 0;
    for (;;) {
      if (this.#state !== 'running') return { kind: 'stopped' };
      // A revoked partition's records belong to the member that owns it now.
      parts = parts.filter((part) => !this.#partition(part.partition).revoked);
      const kept = await this.#dropAged(parts, attempts, outbox);
      if (!kept) return { kind: 'stopped' };
      parts = kept;
      if (this.#schemas) {
        const resolved = await this.#resolveSchemas(this.#schemas, parts, ++requestFailures, outbox);
        if (resolved === 'retry') continue;
        if (!resolved) return { kind: 'stopped' };
        requestFailures = 0;
        parts = resolved;
      }
      if (parts.length === 0) return { kind: 'done' };
      const requestId = newRequestId();
      const event = batchEvent(this.#header, this.topic, parts);
      const started = Date.now();
      let result: Awaited<ReturnType<Invoker['invoke']>>;
      try {
        result = await this.#invoker.invoke(event, requestId);
      } catch (error) {
        if (!(error instanceof InvokeRequestError)) throw error;
        this.#emit({ type: 'error', error });
        await this.#sleep(this.#backoff(++requestFailures));
        continue;
      }
      if (this.#abandoned) return { kind: 'stopped' };
      const outcome = interpretResult(result, this.topic, parts, this.#settings.reportBatchItemFailures);
      this.#recordInvocation(outcome, parts, requestId, attempts + 1, Date.now() - started);
      if (outcome.kind === 'success') {
        const settled = await this.#settle(
          outbox,
          parts.map((part) => ({ partition: part.partition, offset: part.end })),
        );
        return settled ? { kind: 'done' } : { kind: 'stopped' };
      }
      const decision = decideAfterFailure({ parts, attempts }, outcome, this.#retryPolicy);
      if (!(await this.#settle(outbox, decision.commit))) return { kind: 'stopped' };
      if (decision.kind === 'bisect') {
        this.#bisected(
          decision.halves.map((half) => half.parts),
          attempts,
        );
        await this.#sleep(this.#backoff(attempts));
        return { kind: 'bisect', halves: decision.halves };
      }
      if (decision.kind === 'exhausted') {
        const { requestId: lambdaRequestId, executedVersion } = result.ranAs ?? {};
        outbox.hold(decision.failed, {
          condition: 'RetryAttemptsExhausted',
          requestId: lambdaRequestId ?? requestId,
          functionArn: this.#invoker.functionArn,
          // approximateInvokeCount: the invocations of the piece that ran out of retries (its first
          // attempt and its retries), not those of the larger batches a bisect split it from. AWS shows
          // only an example (11 after 10 retries, kafka-on-failure.html) and defines no count under
          // bisect; exhaustion.int.test.ts pins this reading (a poison record bisected out of 100: 4
          // with 3 retries).
          invokeCount: decision.attempts,
          response: {
            ...(outcome.kind === 'function-error' ? { functionError: 'Unhandled' } : {}),
            ...(executedVersion ? { executedVersion } : {}),
          },
        });
        if (!(await this.#settle(outbox, decision.commitAfterSend))) return { kind: 'stopped' };
        return decision.leftovers.length > 0
          ? { kind: 'leftovers', parts: decision.leftovers }
          : { kind: 'done' };
      }
      ({ parts, attempts } = decision.next);
      this.#retried(parts, attempts, decision.reason);
      await this.#sleep(this.#backoff(attempts));
    }
  }

  /**
   * Puts records of one partition back at the head of its queue, in offset order, dropping queued
   * copies of them (refetched after a rejoin). Not for a revoked partition: its records are another
   * member's now.
   */
  #putBack(records: PendingRecord[]): void {
    const last = records.reduce<PendingRecord | undefined>(
      (a, r) => (a && a.offset > r.offset ? a : r),
      undefined,
    );
    if (!last || this.#state !== 'running') return;
    const state = this.#partition(last.partition);
    if (state.revoked) return;
    const back = [...records].sort((a, b) => a.offset - b.offset);
    state.queue.records = [...back, ...state.queue.records.filter((r) => r.offset > last.offset)];
    state.bytes = state.queue.records.reduce((n, r) => n + r.bytes, 0);
  }

  /**
   * Records older than `maximumRecordAgeInSeconds` are not invoked: held for the destination (or to be
   * skipped), then committed past with their part. Returns the parts left to invoke, `undefined` when
   * the emulator stopped first.
   */
  async #dropAged(
    parts: BatchPart[],
    attempts: number,
    outbox: FailureOutbox,
  ): Promise<BatchPart[] | undefined> {
    if (this.#settings.maximumRecordAgeMs === Number.POSITIVE_INFINITY) return parts;
    const { aged, kept, commitAfterSend } = splitAged(parts, Date.now() - this.#settings.maximumRecordAgeMs);
    if (aged.length === 0) return parts;
    outbox.hold(aged, {
      condition: 'RecordAgeExceeded',
      requestId: newRequestId(),
      functionArn: this.#invoker.functionArn,
      invokeCount: attempts,
      ...(attempts > 0 ? { response: {} } : {}),
    });
    if (!(await this.#settle(outbox, commitAfterSend))) return undefined;
    return kept;
  }

  /**
   * Resolves and deserializes the parts' records in the schema registry, as the trigger does before
   * invoking: records it cannot resolve or decode are held for the destination (`SCHEMA_NOT_FOUND`,
   * `DESERIALIZATION_ERROR`) and committed past with their part; filters then see the decoded value.
   * `'retry'` when the registry could not be asked (after a backoff); `undefined` when the emulator stopped.
   */
  async #resolveSchemas(
    schemas: SchemaResolver,
    parts: BatchPart[],
    attempt: number,
    outbox: FailureOutbox,
  ): Promise<BatchPart[] | 'retry' | undefined> {
    let outcome: Awaited<ReturnType<typeof resolveBatchSchemas>>;
    try {
      outcome = await resolveBatchSchemas(parts, schemas, this.#settings.filter);
    } catch (error) {
      this.#emit({ type: 'error', error: error instanceof Error ? error : new Error(String(error)) });
      await this.#sleep(this.#backoff(attempt));
      return 'retry';
    }
    this.#stats.recordsFiltered += outcome.filtered;
    const failures = new Map<FailureCondition, FailureContext>();
    for (const { record, reason } of outcome.failed) {
      let failure = failures.get(reason);
      if (!failure) {
        failure = {
          condition: reason,
          requestId: newRequestId(),
          functionArn: this.#invoker.functionArn,
          invokeCount: 0,
        };
        failures.set(reason, failure);
      }
      outbox.hold([record], failure);
    }
    const kept: BatchPart[] = [];
    const emptied: PartitionOffset[] = [];
    for (const part of outcome.parts) {
      if (part.records.length === 0) emptied.push({ partition: part.partition, offset: part.end });
      else kept.push(part);
    }
    if (!(await this.#settle(outbox, emptied))) return undefined;
    return kept;
  }

  /**
   * Commits the partitions to these offsets once the failed records the commits pass are delivered, in
   * offset order per partition. False when the emulator stops first (nothing is committed then).
   */
  async #settle(outbox: FailureOutbox, offsets: PartitionOffset[]): Promise<boolean> {
    // A revoked partition is another member's: its failed records are delivered by that member.
    const owned = offsets.filter(({ partition }) => !this.#partition(partition).revoked);
    const due = outbox.take(owned);
    for (const delivery of deliveries(due, this.#destination?.perRecord ?? true)) {
      if (!(await this.#sendToDestination(delivery))) return false;
    }
    this.#commitAll(owned);
    return true;
  }

  /**
   * Sends one delivery to the destination (see {@link deliveries}). Dropped, as Lambda drops it, when
   * none is configured or when delivery still fails after {@link DESTINATION_DELIVERY_ATTEMPTS}
   * attempts: "For the DroppedEventCount metric, Lambda emits a number equal to the number of events
   * that failed delivery" and moves on
   * (https://docs.aws.amazon.com/lambda/latest/dg/monitoring-metrics-types.html#event-source-mapping-metrics,
   * quoted at {@link DESTINATION_DELIVERY_ATTEMPTS}).
   * False when the emulator stops first (then nothing may be committed).
   */
  async #sendToDestination(delivery: HeldFailure[]): Promise<boolean> {
    const destination = this.#destination;
    let dropped: false | 'no-destination' | 'delivery-failed' = destination ? false : 'no-destination';
    for (let attempt = 1; destination && delivery.length > 0; attempt++) {
      if (this.#abandoned || (attempt > 1 && this.#state !== 'running')) return false;
      try {
        await destination.send(delivery.map(({ record, failure }) => ({ record: record.encoded, failure })));
        break;
      } catch (error) {
        this.#emit({ type: 'error', error: error instanceof Error ? error : new Error(String(error)) });
        if (attempt === DESTINATION_DELIVERY_ATTEMPTS) {
          dropped = 'delivery-failed';
          break;
        }
        await this.#sleep(this.#backoff(attempt));
      }
    }
    for (const { record, failure } of delivery) {
      if (dropped) this.#stats.droppedRecords++;
      else this.#stats.destinationRecords++;
      this.#emit({
        type: 'destination',
        partition: `${this.topic}-${record.partition}`,
        offset: record.offset,
        condition: failure.condition,
        dropped,
      });
    }
    return true;
  }

  #recordInvocation(
    outcome: BatchOutcome,
    parts: BatchPart[],
    requestId: string,
    attempt: number,
    durationMs: number,
  ): void {
    const records = recordCount(parts);
    countInvocation(this.#stats, outcome, records);
    if (!this.#onEvent) return;
    const offsets: Record<string, [number, number]> = {};
    for (const part of parts) {
      offsets[`${this.topic}-${part.partition}`] = [
        part.records[0]!.offset,
        part.records[part.records.length - 1]!.offset,
      ];
    }
    this.#emit({
      type: 'invoke',
      requestId,
      attempt,
      records,
      offsets,
      durationMs,
      outcome: outcome.kind,
      ...(outcome.kind === 'function-error'
        ? {
            detail: outcome.errorType,
            errorMessage: outcome.errorMessage,
            ...(outcome.trace?.length ? { trace: outcome.trace } : {}),
          }
        : {}),
      ...(outcome.kind === 'invalid-response' ? { detail: outcome.reason } : {}),
      ...(outcome.kind === 'partial'
        ? { failedRecords: [...outcome.failed.values()].reduce((n, list) => n + list.length, 0) }
        : {}),
    });
  }

  #retried(parts: BatchPart[], attempt: number, reason: RetryReason): void {
    this.#stats.retries++;
    if (!this.#onEvent) return;
    this.#emit({
      type: 'retry',
      attempt,
      records: recordCount(parts),
      fromOffsets: this.#fromOffsets(parts),
      reason,
    });
  }

  #bisected(halves: BatchPart[][], retriesUsed: number): void {
    this.#stats.splits++;
    if (!this.#onEvent) return;
    const [first = [], second = []] = halves;
    this.#emit({
      type: 'bisect',
      records: recordCount(first) + recordCount(second),
      halves: [recordCount(first), recordCount(second)],
      fromOffsets: this.#fromOffsets([...first, ...second]),
      retriesUsed,
      retryLimit: this.#retryPolicy.retryLimit,
    });
  }

  /** Where each partition of these parts starts (the first part of a partition holds its lowest offset). */
  #fromOffsets(parts: readonly BatchPart[]): Record<string, number> {
    const fromOffsets: Record<string, number> = {};
    for (const part of parts) fromOffsets[`${this.topic}-${part.partition}`] ??= part.records[0]!.offset;
    return fromOffsets;
  }

  #backoff(attempt: number): number {
    return backoffDelayMs(attempt, this.#options.retryBackoff ?? DEFAULT_RETRY_BACKOFF);
  }

  /** Ends a batch's hold on a partition; its queue may form the next batch. */
  #release(partition: number): void {
    const state = this.#partition(partition);
    if (--state.holds === 0) state.revoked = false;
    this.#commitFiltered(state);
    this.#progress.notify();
    queueMicrotask(() => this.#schedule());
  }

  /** Commits past trailing records that matched no filter, once that passes no record still to be done. */
  #commitFiltered(state: PartitionState): void {
    const offset = filteredCommitOffset({
      filteredEnd: state.filteredEnd,
      lastQueued: state.lastQueued,
      busy: state.holds > 0 || state.queue.records.length > 0,
      wanted: this.#commits.wanted(state.partition),
    });
    if (offset !== undefined) this.#commit(state.partition, offset);
  }

  #commitAll(offsets: PartitionOffset[]): void {
    for (const { partition, offset } of offsets) this.#commit(partition, offset);
  }

  #commit(partition: number, offset: number): void {
    if (this.#partition(partition).revoked) return;
    this.#commits.want(partition, offset);
  }

  /** After a commit request succeeded: count the records committed past, tell. */
  #committed(offsets: CommittedOffset[]): void {
    const committed: Record<string, number> = {};
    for (const { partition, offset, previous } of offsets) {
      const state = this.#partition(partition);
      this.#stats.recordsCommitted += recordsCommittedPast(offset, previous, state.base);
      committed[state.key] = offset;
    }
    this.#emit({ type: 'commit', offsets: committed });
  }

  /** A delay that ends early when the emulator stops. */
  #sleep(ms: number): Promise<void> {
    if (this.#state !== 'running') return Promise.resolve();
    return this.#stopping.wait(ms);
  }

  #emit(event: MappingEvent): void {
    this.#onEvent?.(event);
  }

  updateFunctionCode(): void {
    if (!this.#invoker.update())
      throw new EmulatorStateError(
        'updateFunctionCode needs the function as a module reference run in the sandbox (not inProcess, not a handler function or a deployed function)',
      );
  }

  stats(): MappingStats {
    return {
      ...this.#stats,
      // #partitions keeps the state of a partition lost in a rebalance (a batch may still hold it): not ours.
      partitions: [...this.#partitions.values()]
        .filter((s) => this.#assigned.has(s.partition))
        .sort((a, b) => a.partition - b.partition)
        .map((s) => partitionStats({ ...s, committed: this.#commits.committed(s.partition) })),
    };
  }

  async idle(): Promise<void> {
    const admin = this.#kafka.admin();
    await admin.connect();
    let targets: Array<{ partition: number; end: number; committed: number }>;
    try {
      // In this order, as in #applyStartingPosition: the group's offsets asked first wait out a retry.
      const ends = await admin.fetchTopicOffsets(this.topic);
      const [group] = await admin.fetchOffsets({ groupId: this.consumerGroupId, topics: [this.topic] });
      const committed = new Map(group?.partitions.map((p) => [p.partition, Number(p.offset)]));
      // A partition holding no record (never written, or all deleted) has nothing to wait for.
      targets = ends
        .filter((p) => Number(p.high) > Number(p.low))
        .map((p) => ({
          partition: p.partition,
          end: Number(p.high),
          committed: committed.get(p.partition) ?? -1,
        }));
    } finally {
      await admin.disconnect();
    }
    for (;;) {
      if (this.#state !== 'running')
        throw new EmulatorStateError(`the trigger emulator is ${this.#state}, it will not become idle`);
      if (this.#consumerDead)
        throw new EmulatorStateError(
          "the trigger emulator's consumer crashed for good, it will not become idle",
        );
      const done = targets.every(({ partition, end, committed }) => {
        const state = this.#partitions.get(partition);
        return Math.max(committed, this.#commits.committed(partition) ?? -1) >= end && !state?.holds;
      });
      if (done && !this.#commits.busy) return;
      // Looking is synchronous: a change can only come after it, and wakes this wait.
      await this.#progress.wait(IDLE_RECHECK_MS);
    }
  }

  stop(options: StopOptions = {}): Promise<void> {
    if (this.#state === 'stopped' || this.#state === 'new') {
      this.#state = 'stopped';
      return Promise.resolve();
    }
    // A stop already under way: wait for it, whatever it ends with. Abandoning (a second Ctrl-C) stops its
    // wait for the in-flight batches.
    if (this.#stopped) {
      if (options.abandon) this.#abandon();
      return this.#stopped.catch(() => {});
    }
    this.#stopped = this.#stop(options);
    return this.#stopped;
  }

  #abandon(): void {
    this.#abandoned = true;
    this.#commits.abandon();
    this.#abandoning.resolve();
  }

  async #stop(options: StopOptions): Promise<void> {
    this.#state = 'stopping';
    this.#progress.notify();
    this.#closeWindow();
    this.#commits.cancelRetry();
    this.#stopping.notify();
    if (options.abandon) this.#abandon();
    else {
      await Promise.race([Promise.allSettled([...this.#inFlight]), this.#abandoning.promise]);
      await this.#commits.flush();
    }
    // Nothing is invoked any more: the function's environments end while the consumer leaves its group
    // (an abandoned invocation running in one ends with it).
    const closingInvoker = this.#invoker.close();
    closingInvoker.catch(() => {}); // awaited below, once the consumer has left
    try {
      await this.#consumer?.disconnect();
      await this.#destination?.close();
    } finally {
      await closingInvoker;
      // A rejoin's lookup (stats only) ends with its admin client: none is left connected.
      await Promise.allSettled([...this.#lookups]);
      this.#state = 'stopped';
    }
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }
}
