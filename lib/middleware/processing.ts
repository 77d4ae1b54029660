import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { ParsedKafkaEvent } from '../kafka-event/parse.ts';
import type { LambdaContext as Context, KafkaBatchResponse, KafkaEventRecord } from '../kafka-event/types.ts';
import { KafkaBatchFailedError, KafkaPoisonRecordError, type RecordPosition } from './errors.ts';
import { describeError, type KafkaBatchLogger, type KafkaBatchMetrics } from './log.ts';
import { addBatchMetrics } from './metrics.ts';
import type {
  KafkaBatchContext,
  KafkaBatchSource,
  KafkaDecoder,
  KafkaOrdering,
  KafkaPartitionHandler,
  KafkaPoisonPolicy,
  KafkaRecordHandler,
} from './options.ts';
import { fillRecordData, KafkaRecord } from './record.ts';
import { FAILED, NOT_STARTED, PROCESSED, type RecordOutcome, RUNNING, SKIPPED } from './record-state.ts';
import { partialBatchResponse } from './response.ts';
import { BATCH_SUMMARY_MESSAGE, batchSummary } from './summary.ts';
import { isThenable } from './thenable.ts';
import { validateField } from './validate-field.ts';

/** The options after validation and defaults: what one invocation runs with. */
export interface BatchConfig {
  ordering: KafkaOrdering;
  concurrency: number;
  onRecord: KafkaRecordHandler<unknown, unknown> | undefined;
  onPartition: KafkaPartitionHandler<unknown, unknown> | undefined;
  valueSchema: StandardSchemaV1 | undefined;
  keySchema: StandardSchemaV1 | undefined;
  /** Set instead of the schema when the option is a {@link KafkaDecoder}. */
  valueDecoder?: KafkaDecoder<unknown> | undefined;
  keyDecoder?: KafkaDecoder<unknown> | undefined;
  onPoison: KafkaPoisonPolicy;
  timeoutReserveMs: number;
  throwOnBatchFailure: boolean;
  /** Never throws (see `safeLogger`): a failing logger must not fail records. */
  logger: KafkaBatchLogger;
  metrics: KafkaBatchMetrics | undefined;
}

/** The longest delay `setTimeout` honours (a signed 32-bit millisecond count). */
const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

/** Returned by `#start` when the handler returned a promise (left in `#pending`); not a record state. */
const PENDING = 5;

/** A record as the scheduler sees it: the key's and value's types are the handler's business. */
type UntypedKafkaRecord = KafkaRecord<unknown, unknown>;

interface Partition {
  id: string;
  topic: string;
  partition: number;
  /** As in the event: a record is wrapped (and decoded) only when it starts, and dropped after. */
  records: KafkaEventRecord[];
  offsets: number[];
  status: Uint8Array;
  /**
   * Lowest offset that failed so far (+∞ while none did). No record above it starts: Lambda resumes
   * the partition from the lowest reported offset, so those records come back anyway, and running
   * them now would only repeat their side effects (on every retry) and run them before the failed one.
   */
  failedOffset: number;
}

/** Records that must run one after another: a partition, or one key of a partition. */
interface Lane {
  partition: Partition;
  /** Positions in `partition.records`; `undefined` = all of them. */
  positions: number[] | undefined;
}

/**
 * The processing of one invocation's batch: schedules records under the ordering and concurrency
 * bound, watches the deadline, and, when done, answers with the partial batch response (response.ts),
 * the summary line (summary.ts) and the metrics (metrics.ts). Written without per-record closures: the
 * sync path of a record costs no promise at all.
 */
export class BatchProcessing {
  readonly #config: BatchConfig;
  readonly #partitions: Partition[];
  readonly #recordCount: number;
  readonly #oldestTimestamp: number;
  readonly #startedAt = Date.now();
  /** From the context; `NaN` without one (no deadline). */
  readonly #remainingAtStart: number;
  readonly #deadline: number;
  readonly #abort = new AbortController();
  readonly #batch: KafkaBatchContext;
  /** Whether a decoder or schema reads the key (the value) before the handler runs. */
  readonly #readsKey: boolean;
  readonly #readsValue: boolean;
  /** The value's decoder when nothing reads the key. */
  readonly #valueDecoderAlone: KafkaDecoder<unknown> | undefined;
  #lanes: Lane[] = [];
  #nextLane = 0;
  // Cursor of 'none' ordering: partition index and record position.
  #nextPartition = 0;
  #nextPosition = 0;
  #stopped = false;
  #timedOut = false;
  #untilCheck = 0;
  #checkEvery = 1;
  #lastCheck = 0;
  #onExpire: (() => void) | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #pending: PromiseLike<unknown> | undefined;
  /** The record `#runSettled` stopped at, and its outcome (`PENDING`: the handler's promise is in `#pending`). */
  #heldRecord: UntypedKafkaRecord | undefined;
  #heldOutcome: Promise<RecordOutcome> | typeof PENDING | undefined;
  /** Set when a worker failed unexpectedly (a bug of the middleware): `execute()` rethrows it. */
  #failure: { error: unknown } | undefined;

  constructor(config: BatchConfig, event: ParsedKafkaEvent, context: Context, source: KafkaBatchSource) {
    this.#config = config;
    this.#recordCount = event.recordCount;
    this.#oldestTimestamp = event.oldestTimestamp;
    this.#partitions = event.partitions.map((p) => ({
      ...p,
      status: new Uint8Array(p.records.length),
      failedOffset: Number.POSITIVE_INFINITY,
    }));
    const remaining =
      typeof context?.getRemainingTimeInMillis === 'function'
        ? context.getRemainingTimeInMillis()
        : Number.NaN;
    this.#remainingAtStart = remaining;
    this.#deadline = Number.isFinite(remaining)
      ? this.#startedAt + remaining - config.timeoutReserveMs
      : Number.POSITIVE_INFINITY;
    this.#batch = { signal: this.#abort.signal, context, source };
    this.#readsKey = config.keyDecoder !== undefined || config.keySchema !== undefined;
    this.#readsValue = config.valueDecoder !== undefined || config.valueSchema !== undefined;
    this.#valueDecoderAlone = this.#readsKey ? undefined : config.valueDecoder;
  }

  /**
   * Runs the batch until every record settled or the deadline passed. Never rejects for a record;
   * rejects only if the middleware itself failed, after stopping the processing (see {@link #halt}).
   */
  async execute(): Promise<void> {
    const config = this.#config;
    if (this.#deadline <= Date.now()) {
      // Otherwise only `timedOut` in the summary would hint that no record can ever be processed
      // (function timeout ≤ reserve); a slow outer middleware can cause it too, so it is no error.
      if (this.#remainingAtStart <= config.timeoutReserveMs)
        config.logger.warn(
          'Kafka batch not started: the invocation has no time left beyond timeoutReserveMs',
          {
            remainingTimeMs: this.#remainingAtStart,
            timeoutReserveMs: config.timeoutReserveMs,
          },
        );
      this.#expire();
      return;
    }
    let laneCount: number;
    if (config.onPartition !== undefined || config.ordering === 'partition') {
      this.#lanes = this.#partitions.map((partition) => ({ partition, positions: undefined }));
      laneCount = this.#lanes.length;
    } else if (config.ordering === 'key') {
      this.#lanes = keyLanes(this.#partitions);
      laneCount = this.#lanes.length;
    } else laneCount = this.#recordCount;
    const workers: Promise<void>[] = [];
    const count = Math.min(config.concurrency, laneCount);
    for (let i = 0; i < count && !this.#stopped; i++) {
      const worker =
        config.onPartition !== undefined
          ? this.#workPartitionRuns(config.onPartition)
          : config.ordering === 'none'
            ? this.#workUnordered()
            : this.#workLanes();
      workers.push(worker.catch((error: unknown) => this.#halt(error)));
    }
    // Workers never reject (see above): `all` settles once each has finished its record in flight.
    const all = Promise.all(workers);
    // The deadline passed while synchronous records ran: a worker may still await a handler that
    // never settles, so do not wait for the workers.
    if (this.#stopped) return;
    if (this.#deadline === Number.POSITIVE_INFINITY) await all;
    else {
      const expired = new Promise<void>((resolve) => {
        this.#onExpire = resolve;
      });
      this.#armTimer();
      try {
        await Promise.race([all, expired]);
      } finally {
        clearTimeout(this.#timer);
      }
    }
    if (this.#failure !== undefined) throw this.#failure.error;
  }

  /** Builds the response, logs the summary line and adds the metrics. */
  finish(): KafkaBatchResponse {
    // Late settlements (after the deadline) must not change what was reported.
    this.#stopped = true;
    const { response, tally } = partialBatchResponse(this.#partitions);
    const config = this.#config;
    const summary = batchSummary({
      recordCount: this.#recordCount,
      tally,
      reported: response.batchItemFailures.length,
      partitionCount: this.#partitions.length,
      oldestTimestamp: this.#oldestTimestamp,
      startedAt: this.#startedAt,
      finishedAt: Date.now(),
      timedOut: this.#timedOut,
      ordering: config.onPartition ? 'partition-run' : config.ordering,
    });
    config.logger.info(BATCH_SUMMARY_MESSAGE, summary);
    if (config.metrics !== undefined) addBatchMetrics(config.metrics, summary, config.logger);
    if (config.throwOnBatchFailure && this.#recordCount > 0 && tally.processed + tally.skipped === 0)
      throw new KafkaBatchFailedError(this.#recordCount, tally.failed, this.#timedOut);
    return response;
  }

  /**
   * Sets the deadline timer. Node fires a delay above 2^31−1 ms after 1 ms instead (with a
   * `TimeoutOverflowWarning`), which would time out every record: a longer wait is covered by
   * successive timers of at most that length.
   */
  #armTimer(): void {
    const wait = Math.max(0, this.#deadline - Date.now());
    const beyondLimit = wait > MAX_TIMER_DELAY_MS;
    this.#timer = setTimeout(
      () => (beyondLimit ? this.#armTimer() : this.#expire()),
      beyondLimit ? MAX_TIMER_DELAY_MS : wait,
    );
  }

  #expire(): void {
    if (!this.#stopped) {
      this.#stopped = true;
      this.#timedOut = true;
      this.#abort.abort(new DOMException('The Lambda invocation is about to time out', 'TimeoutError'));
    }
    // Also after a halt: execute() waits for the records in flight only until the deadline.
    this.#onExpire?.();
  }

  /**
   * A worker failed outside any record (a bug of the middleware, never a handler's error): stop
   * starting records and abort the signal at once. Otherwise the other workers would go on starting
   * records of an invocation that has failed — in Lambda after the next thaw, alongside the retry of
   * the same records.
   */
  #halt(error: unknown): void {
    this.#failure ??= { error };
    if (this.#stopped) return;
    this.#stopped = true;
    this.#abort.abort(new DOMException('The Kafka batch failed and will be retried', 'AbortError'));
  }

  /**
   * True (and expires the processing) once the deadline has passed; called before each start. The timer
   * cannot fire while synchronous handlers run back to back, so the clock is read here too: before
   * every record while records are slow, every 16th at most while they take well under a millisecond.
   */
  #pastDeadline(): boolean {
    if (this.#stopped) return true;
    if (--this.#untilCheck > 0) return false;
    const now = Date.now();
    if (now >= this.#deadline) {
      this.#expire();
      return true;
    }
    this.#checkEvery = now - this.#lastCheck < 1 ? Math.min(this.#checkEvery * 2, 16) : 1;
    this.#untilCheck = this.#checkEvery;
    this.#lastCheck = now;
    return false;
  }

  async #workLanes(): Promise<void> {
    const onRecord = this.#config.onRecord!;
    for (;;) {
      const lane = this.#lanes[this.#nextLane++];
      if (lane === undefined) return;
      const { partition, positions } = lane;
      const { records, status } = partition;
      const length = positions === undefined ? records.length : positions.length;
      for (let j = 0; j < length; j++) {
        j = this.#runSettled(partition, positions, j, onRecord);
        if (j < 0) return;
        if (j === length) break;
        // Record j has not settled yet: it is awaited here.
        const i = positions === undefined ? j : positions[j]!;
        const record = this.#heldRecord!;
        let outcome: RecordOutcome | Promise<RecordOutcome> | typeof PENDING = this.#heldOutcome!;
        // The handler's promise is awaited here, not in a wrapper: one promise per async record. This
        // "start, await, fail" block is repeated in #workUnordered on purpose: a method shared by both
        // (returning the outcome, or the promise of an async method awaiting the handler) costs one more
        // promise and microtask hop per async record. Measured in one process, alternating 60 times
        // (10,000 records, concurrency 16, a handler resolving at once), shared/inline medians:
        // 'partition' 1.08 and 1.13, 'none' 1.16 and 1.11, 'key' 1.03 and 0.92 (noise); the sync path
        // is the same code either way. middleware.bench.ts's CPU path (sync handler) cannot show it.
        if (outcome === PENDING) {
          const pending = this.#pending!;
          try {
            await pending;
            outcome = PROCESSED;
          } catch (error) {
            outcome = this.#fail(record, error);
          }
        }
        if (typeof outcome !== 'number') outcome = await outcome;
        if (this.#stopped) return;
        status[i] = outcome;
        if (outcome === FAILED) {
          failedAt(partition, i);
          break;
        }
      }
    }
  }

  /**
   * Runs a lane's records from position `from` for as long as each settles synchronously (a synchronous
   * handler and decoder: the usual case), in a plain loop rather than in the async worker's: measured
   * 0.02-0.06x of the hand loop faster in the decoders bench (medians of 8 runs). Returns the lane's
   * length when it is done (or stopped at a failed record), -1 when the processing stopped, or the
   * position of a record that has not settled, that record and its outcome left in `#heldRecord` and
   * `#heldOutcome` for the caller to read at once.
   */
  #runSettled(
    partition: Partition,
    positions: number[] | undefined,
    from: number,
    onRecord: KafkaRecordHandler<unknown, unknown>,
  ): number {
    const { records, offsets, status, topic } = partition;
    const length = positions === undefined ? records.length : positions.length;
    for (let j = from; j < length; j++) {
      const i = positions === undefined ? j : positions[j]!;
      // In 'key' ordering another key of the partition may have failed (see Partition.failedOffset).
      if (offsets[i]! > partition.failedOffset) return length;
      if (this.#pastDeadline()) return -1;
      status[i] = RUNNING;
      const record = new KafkaRecord(records[i]!, topic, partition.partition, offsets[i]!);
      const outcome = this.#start(record, onRecord);
      if (outcome === PENDING || typeof outcome !== 'number') {
        this.#heldRecord = record;
        this.#heldOutcome = outcome;
        return j;
      }
      if (this.#stopped) return -1;
      status[i] = outcome;
      if (outcome === FAILED) {
        failedAt(partition, i);
        return length;
      }
    }
    return length;
  }

  async #workUnordered(): Promise<void> {
    const onRecord = this.#config.onRecord!;
    const partitions = this.#partitions;
    for (;;) {
      let partition = partitions[this.#nextPartition];
      while (partition !== undefined && this.#nextPosition >= partition.records.length) {
        partition = partitions[++this.#nextPartition];
        this.#nextPosition = 0;
      }
      if (partition === undefined) return;
      const i = this.#nextPosition++;
      if (partition.offsets[i]! > partition.failedOffset) continue;
      if (this.#pastDeadline()) return;
      partition.status[i] = RUNNING;
      const record = new KafkaRecord(
        partition.records[i]!,
        partition.topic,
        partition.partition,
        partition.offsets[i]!,
      );
      // Inline for speed, as in #workLanes (see there).
      let outcome = this.#start(record, onRecord);
      if (outcome === PENDING) {
        const pending = this.#pending!;
        try {
          await pending;
          outcome = PROCESSED;
        } catch (error) {
          outcome = this.#fail(record, error);
        }
      }
      if (typeof outcome !== 'number') outcome = await outcome;
      if (this.#stopped) return;
      partition.status[i] = outcome;
      if (outcome === FAILED) failedAt(partition, i);
    }
  }

  async #workPartitionRuns(onPartition: KafkaPartitionHandler<unknown, unknown>): Promise<void> {
    for (;;) {
      const lane = this.#lanes[this.#nextLane++];
      if (lane === undefined) return;
      if (this.#pastDeadline()) return;
      const { records, offsets, status, topic, partition } = lane.partition;
      const partitionRun: UntypedKafkaRecord[] = [];
      const positions: number[] = [];
      for (let i = 0; i < records.length; i++) {
        const record = new KafkaRecord(records[i]!, topic, partition, offsets[i]!);
        status[i] = RUNNING;
        let outcome: RecordOutcome | Promise<RecordOutcome> = PROCESSED;
        try {
          const prepared = this.#prepare(record);
          if (prepared !== undefined) await prepared;
        } catch (error) {
          outcome = this.#fail(record, error);
          if (typeof outcome !== 'number') outcome = await outcome;
        }
        if (this.#stopped) return;
        if (outcome === PROCESSED) {
          partitionRun.push(record);
          positions.push(i);
        } else {
          status[i] = outcome;
          if (outcome === FAILED) {
            // Stop collecting: the partition resumes from the poison record, so later records wait.
            for (let k = i + 1; k < records.length; k++) status[k] = NOT_STARTED;
            break;
          }
        }
      }
      if (partitionRun.length > 0)
        await this.#handlePartitionRun(onPartition, lane.partition, partitionRun, positions);
      if (this.#stopped) return;
    }
  }

  async #handlePartitionRun(
    onPartition: KafkaPartitionHandler<unknown, unknown>,
    partition: Partition,
    partitionRun: UntypedKafkaRecord[],
    positions: number[],
  ): Promise<void> {
    const { status } = partition;
    // Indexes into `partitionRun` of the records the handler returned; `undefined` = the whole run failed.
    let failed: Set<number> | undefined = new Set();
    let foreign = 0;
    try {
      // The handler gets its own array: it may sort it (grouping for a bulk write) or change it.
      // Returned records are matched to `partitionRun` by identity or position, never by their index.
      const result = await onPartition(partitionRun.slice(), this.#batch);
      if (this.#stopped) return;
      if (result != null) {
        let index: PartitionRunIndex | undefined;
        for (const item of result) {
          index ??= indexPartitionRun(partitionRun, partition, positions);
          const k = index.find(item);
          if (k === undefined) foreign++;
          else failed.add(k);
        }
      }
    } catch (error) {
      if (this.#stopped) return;
      failed = undefined;
      this.#logFailure(this.#position(partition, positions[0]!), error, 'Kafka partition run failed');
    }
    if (foreign > 0) {
      // What the handler meant cannot be known: the whole run is retried rather than a record lost.
      this.#config.logger.error(
        'Kafka partition handler returned records not in its run: whole run reported',
        {
          partition: partition.id,
          foreignRecords: foreign,
        },
      );
      failed = undefined;
    }
    let firstFailed = partitionRun.length;
    if (failed === undefined) firstFailed = 0;
    else for (const k of failed) if (k < firstFailed) firstFailed = k;
    if (failed !== undefined && firstFailed < partitionRun.length) {
      this.#config.logger.error('Kafka partition run reported failed records', {
        ...this.#position(partition, positions[firstFailed]!),
        failedRecords: failed.size,
      });
    }
    for (let k = 0; k < partitionRun.length; k++) {
      status[positions[k]!] =
        k < firstFailed ? PROCESSED : failed === undefined || failed.has(k) ? FAILED : NOT_STARTED;
    }
  }

  /** Where the record at `i` is, from the event: a handler may have changed the record's own fields. */
  #position(partition: Partition, i: number): RecordPosition {
    return { topic: partition.topic, partition: partition.partition, offset: partition.offsets[i]! };
  }

  /**
   * Starts one record: returns its outcome, a promise of it, or {@link PENDING} with the handler's
   * own promise left in `#pending` (read synchronously by the caller, which awaits it).
   */
  #start(
    record: UntypedKafkaRecord,
    onRecord: KafkaRecordHandler<unknown, unknown>,
  ): RecordOutcome | Promise<RecordOutcome> | typeof PENDING {
    try {
      const prepared = this.#prepare(record);
      if (prepared !== undefined) return this.#startPrepared(record, prepared, onRecord);
      const result = onRecord(record, this.#batch);
      if (result === undefined || !isThenable(result)) return PROCESSED;
      this.#pending = result;
      return PENDING;
    } catch (error) {
      return this.#fail(record, error);
    }
  }

  async #startPrepared(
    record: UntypedKafkaRecord,
    prepared: Promise<void>,
    onRecord: KafkaRecordHandler<unknown, unknown>,
  ): Promise<RecordOutcome> {
    try {
      await prepared;
      if (this.#stopped) return FAILED;
      await onRecord(record, this.#batch);
      return PROCESSED;
    } catch (error) {
      return this.#fail(record, error);
    }
  }

  /**
   * Fills the key's, then the value's data slot from its decoder or schema, before the handler runs; a
   * promise only if one of them answered with one.
   */
  #prepare(record: UntypedKafkaRecord): Promise<void> | undefined {
    // A value decoder alone, the usual decoder setup, goes straight to it: going through #readField's
    // choices cost 0.01-0.05x of the hand loop in the decoders bench (medians of 8 runs).
    const valueDecoder = this.#valueDecoderAlone;
    if (valueDecoder !== undefined)
      return keepDecoded(
        record,
        'value',
        valueDecoder.decode(record.value ?? null, record, 'value', this.#batch.signal),
      );
    if (this.#readsKey) {
      const key = this.#readField(record, 'key');
      if (key !== undefined) return this.#readsValue ? key.then(() => this.#readField(record, 'value')) : key;
    }
    return this.#readsValue ? this.#readField(record, 'value') : undefined;
  }

  /** Fills the key's or value's data slot from its decoder or schema; a promise only if it answered with one. */
  #readField(record: UntypedKafkaRecord, field: 'key' | 'value'): Promise<void> | undefined {
    const isKey = field === 'key';
    const config = this.#config;
    const decoder = isKey ? config.keyDecoder : config.valueDecoder;
    if (decoder !== undefined)
      return keepDecoded(
        record,
        field,
        decoder.decode((isKey ? record.key : record.value) ?? null, record, field, this.#batch.signal),
      );
    const schema = (isKey ? config.keySchema : config.valueSchema)!;
    const input = isKey ? keyText(record) : record.json();
    return (
      validateField(
        schema,
        input,
        record,
        field,
        (output) => fillRecordData(record, field, output),
        // A null input is a record without the field, or (a value only) the JSON text `null`; the
        // value's bytes are decoded already (json() read them).
        input === null && (isKey || record.value == null),
      ) ?? undefined
    );
  }

  /** Decides a failed record's outcome: poison records follow `onPoison`, others are reported. */
  #fail(record: UntypedKafkaRecord, error: unknown): RecordOutcome | Promise<RecordOutcome> {
    if (this.#stopped) return FAILED;
    if (!isPoison(error)) {
      this.#logFailure(record, error, 'Kafka record failed');
      return FAILED;
    }
    const policy = this.#config.onPoison;
    if (policy === 'report') {
      this.#logFailure(record, error, 'Kafka poison record reported');
      return FAILED;
    }
    if (policy === 'skip') {
      this.#logFailure(record, error, 'Kafka poison record skipped', 'warn');
      return SKIPPED;
    }
    return this.#handOver(record, error, policy);
  }

  async #handOver(
    record: UntypedKafkaRecord,
    error: KafkaPoisonRecordError,
    policy: Exclude<KafkaPoisonPolicy, string>,
  ): Promise<RecordOutcome> {
    try {
      await policy(record, error, this.#batch);
      this.#logFailure(record, error, 'Kafka poison record handed to onPoison', 'warn');
      return SKIPPED;
    } catch (handOverError) {
      this.#logFailure(record, error, 'Kafka poison record reported: onPoison failed');
      this.#logFailure(record, handOverError, 'Kafka onPoison failed');
      return FAILED;
    }
  }

  #logFailure(
    record: RecordPosition,
    error: unknown,
    message: string,
    level: 'warn' | 'error' = 'error',
  ): void {
    if (this.#stopped) return;
    this.#config.logger[level](message, {
      topic: record.topic,
      partition: record.partition,
      offset: record.offset,
      ...describeError(error),
    });
  }
}

/** `instanceof` itself throws for some thrown values (a revoked proxy): those are not poison. */
function isPoison(error: unknown): error is KafkaPoisonRecordError {
  try {
    return error instanceof KafkaPoisonRecordError;
  } catch {
    return false;
  }
}

/** Notes the failure of the record at position `i`: see {@link Partition.failedOffset}. */
function failedAt(partition: Partition, i: number): void {
  const offset = partition.offsets[i]!;
  if (offset < partition.failedOffset) partition.failedOffset = offset;
}

/** Finds a record the partition handler returned in its run: see {@link indexPartitionRun}. */
interface PartitionRunIndex {
  /** The index in the run of `item`, or `undefined` if it is not a record of the run. */
  find(item: unknown): number | undefined;
}

/**
 * Indexes a partition run for matching the records its handler returned: by identity first, then, for
 * a stand-in object (a copy the handler made), by its topic, partition and offset. Nothing else
 * matches: a number is not taken for an offset, since a handler returning its bulk API's indexes
 * instead of records would otherwise name the wrong ones.
 */
function indexPartitionRun(
  partitionRun: UntypedKafkaRecord[],
  partition: Partition,
  positions: number[],
): PartitionRunIndex {
  const byRecord = new Map<unknown, number>();
  const byOffset = new Map<number, number>();
  for (let k = 0; k < partitionRun.length; k++) {
    byRecord.set(partitionRun[k], k);
    const offset = partition.offsets[positions[k]!]!;
    if (!byOffset.has(offset)) byOffset.set(offset, k);
  }
  return {
    find(item) {
      const k = byRecord.get(item);
      if (k !== undefined || typeof item !== 'object' || item === null) return k;
      const { topic, partition: number, offset } = item as Partial<RecordPosition>;
      if (topic !== partition.topic || number !== partition.partition || typeof offset !== 'number')
        return undefined;
      return byOffset.get(offset);
    },
  };
}

/** Groups each partition's records by key, in order of first appearance; keyless records stand alone. */
function keyLanes(partitions: Partition[]): Lane[] {
  const lanes: Lane[] = [];
  for (const partition of partitions) {
    const byKey = new Map<string, number[]>();
    const { records } = partition;
    for (let i = 0; i < records.length; i++) {
      const key: unknown = records[i]!.key;
      if (typeof key !== 'string') {
        lanes.push({ partition, positions: [i] });
        continue;
      }
      const positions = byKey.get(key);
      if (positions !== undefined) positions.push(i);
      else {
        const created = [i];
        byKey.set(key, created);
        lanes.push({ partition, positions: created });
      }
    }
  }
  return lanes;
}

/** Keeps a decoder's output in the record's slot; a promise only if the decoder answered with one. */
function keepDecoded(
  record: UntypedKafkaRecord,
  field: 'key' | 'value',
  decoded: unknown,
): Promise<void> | undefined {
  if (isThenable(decoded))
    return Promise.resolve(decoded).then((data: unknown) => fillRecordData(record, field, data));
  fillRecordData(record, field, decoded);
  return undefined;
}

function keyText(record: UntypedKafkaRecord): string | null {
  const key = record.key;
  return key == null ? null : key.toString('utf8');
}
