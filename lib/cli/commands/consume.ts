import { randomBytes } from 'node:crypto';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { type Consumer, Kafka, type KafkaMessage } from 'kafkajs';
import type { KafkaEventRecord } from '../../emulator/index.ts';
import { addClusterOptions, type ClusterOptions, reachCluster } from '../cluster.ts';
import { type FailedRecords, recogniseFailureEnvelope } from '../dead-letter.ts';
import { integerOption, reportUsageErrorsAsJson, topicOption, USAGE_EXIT_CODE } from '../usage.ts';

interface ConsumeOptions extends ClusterOptions {
  topic: string;
  fromBeginning?: boolean;
  max?: number;
  follow?: boolean;
  partition?: number;
  offset?: number;
  group?: string;
  verbose?: boolean;
  json?: boolean;
}

/**
 * Bytes as `consume` shows them: UTF-8 text, or `{ base64 }` when they are not valid UTF-8.
 *
 * @example
 * ```ts
 * const shown: ShownBytes = { base64: 'AAEC' };
 * ```
 */
export type ShownBytes = string | { base64: string };

/**
 * One record as `consume --json` prints it (one JSON object per line). `value` is the parsed JSON when
 * the value is JSON text (`valueFormat: 'json'`), else its text or `{ base64 }`.
 *
 * @example
 * ```ts
 * const record = JSON.parse(line) as ConsumedRecord; // record.value.id when the values are JSON objects
 * ```
 */
export interface ConsumedRecord {
  topic: string;
  partition: number;
  offset: number;
  timestamp: string;
  key: ShownBytes | null;
  headers: Array<[string, ShownBytes | null]>;
  value: unknown;
  valueFormat: 'json' | 'text' | 'binary' | 'null';
  /** Present when the record is one of Lambda's on-failure messages (a dead-letter record). */
  failure?: Array<Omit<FailedRecords, 'record'> & { record?: DecodedEventRecord }>;
}

/** A failed record from an on-failure message's payload, with key, headers and value decoded. */
interface DecodedEventRecord {
  key: ShownBytes | null;
  headers: Array<[string, ShownBytes]>;
  value: unknown;
  valueFormat: ConsumedRecord['valueFormat'];
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** `--group`: Kafka takes any group id but an empty one. */
function groupOption(value: string): string {
  if (value === '') throw new InvalidArgumentError('must not be empty (Kafka refuses an empty group id)');
  return value;
}

function showBytes(bytes: Buffer | null | undefined): ShownBytes | null {
  if (bytes === null || bytes === undefined) return null;
  try {
    return utf8.decode(bytes);
  } catch {
    return { base64: bytes.toString('base64') };
  }
}

function showValue(bytes: Buffer | null | undefined): Pick<ConsumedRecord, 'value' | 'valueFormat'> {
  const shown = showBytes(bytes);
  if (shown === null) return { value: null, valueFormat: 'null' };
  if (typeof shown !== 'string') return { value: shown, valueFormat: 'binary' };
  try {
    return { value: JSON.parse(shown), valueFormat: 'json' };
  } catch {
    return { value: shown, valueFormat: 'text' };
  }
}

function decodeEventRecord(record: KafkaEventRecord): DecodedEventRecord {
  const bytes = (base64: string | null | undefined) =>
    typeof base64 === 'string' ? Buffer.from(base64, 'base64') : null;
  return {
    key: showBytes(bytes(record.key)),
    headers: (record.headers ?? []).flatMap((header) =>
      Object.entries(header).map(([name, signed]): [string, ShownBytes] => [
        name,
        showBytes(Buffer.from(Int8Array.from(signed).buffer)) ?? '',
      ]),
    ),
    ...showValue(bytes(record.value)),
  };
}

/**
 * A consumed record as data: key, headers and value decoded; a dead-letter record's origin recognised.
 *
 * @example
 * ```ts
 * const record = consumedRecord('orders', 0, message); // in eachBatch
 * ```
 */
export function consumedRecord(topic: string, partition: number, message: KafkaMessage): ConsumedRecord {
  const headers: ConsumedRecord['headers'] = [];
  for (const [name, value] of Object.entries(message.headers ?? {})) {
    for (const one of Array.isArray(value) ? value : [value]) {
      headers.push([name, showBytes(one == null ? null : Buffer.from(one))]);
    }
  }
  const shown = showValue(message.value);
  const failures = shown.valueFormat === 'json' ? recogniseFailureEnvelope(shown.value) : undefined;
  return {
    topic,
    partition,
    offset: Number(message.offset),
    timestamp: new Date(Number(message.timestamp)).toISOString(),
    key: showBytes(message.key),
    headers,
    ...shown,
    ...(failures
      ? {
          failure: failures.map(({ record, ...failure }) => ({
            ...failure,
            ...(record ? { record: decodeEventRecord(record) } : {}),
          })),
        }
      : {}),
  };
}

/**
 * What the text form prints for what has no text: a null value (a tombstone), an empty one, and a
 * null header value. A key, header or value whose text is one of them is printed quoted.
 */
const TOMBSTONE = '(tombstone)';
const EMPTY = '(empty)';
const NULL_HEADER = '(null)';
const MARKERS = new Set([TOMBSTONE, EMPTY, NULL_HEADER]);

/** Text on one line, readable and unambiguous: quoted (JSON) when it holds spaces, `=`, `]` or control characters. */
function word(shown: ShownBytes | null): string {
  if (shown === null) return NULL_HEADER;
  if (typeof shown !== 'string') return `base64:${shown.base64}`;
  return shown === '' || MARKERS.has(shown) || /[\s=\]"\p{Cc}]/u.test(shown) ? JSON.stringify(shown) : shown;
}

/**
 * A value at the end of a line: as it is (one line), quoted only when it holds a line break or control
 * character or reads as a marker; a tombstone is `(tombstone)`, an empty value `(empty)`.
 */
function rest(value: unknown, format: ConsumedRecord['valueFormat'], text: ShownBytes | null): string {
  if (format === 'null') return TOMBSTONE;
  if (format === 'binary') return `base64:${(value as { base64: string }).base64}`;
  const raw = text as string;
  if (raw === '') return EMPTY;
  return MARKERS.has(raw) || /\p{Cc}/u.test(raw.replace(/\t/g, '')) ? JSON.stringify(raw) : raw;
}

/**
 * The lines `consume` prints for a record: `<topic>-<partition>@<offset> key=<key> [<name>=<value> …] <value>`
 * with the value as it is (a tombstone `(tombstone)`, an empty value `(empty)`, no key: no `key=`); for a dead-letter record, one line per failed source partition (where it came
 * from, the condition and the invocations) and, with `verbose`, the failed record decoded below it.
 *
 * @example
 * ```ts
 * formatRecord(record, message.value, false); // ['orders-0@5 key=o-5 [source=cli] {"id":"o-5"}']
 * ```
 */
export function formatRecord(record: ConsumedRecord, value: Buffer | null, verbose: boolean): string[] {
  const at = `${record.topic}-${record.partition}@${record.offset}`;
  const key = record.key === null ? '' : ` key=${word(record.key)}`;
  const headers =
    record.headers.length === 0
      ? ''
      : ` [${record.headers.map(([n, v]) => `${word(n)}=${word(v)}`).join(' ')}]`;
  if (!record.failure) {
    return [`${at}${key}${headers} ${rest(record.value, record.valueFormat, showBytes(value))}`];
  }
  const lines: string[] = [];
  for (const failure of record.failure) {
    const range =
      failure.firstOffset === failure.lastOffset
        ? `${failure.firstOffset}`
        : `${failure.firstOffset}..${failure.lastOffset}`;
    const invocations =
      failure.invocations === undefined ? '' : ` after ${failure.invocations} invocation(s)`;
    const functionError = failure.functionError ? ` (${failure.functionError})` : '';
    lines.push(
      `${at} failed ${failure.topic}-${failure.partition}@${range} ${failure.condition}${invocations}${functionError}${key}`,
    );
    if (verbose && failure.record) {
      const r = failure.record;
      const rKey = r.key === null ? '' : ` key=${word(r.key)}`;
      const rHeaders =
        r.headers.length === 0 ? '' : ` [${r.headers.map(([n, v]) => `${word(n)}=${word(v)}`).join(' ')}]`;
      const rValue =
        r.valueFormat === 'json'
          ? JSON.stringify(r.value)
          : r.valueFormat === 'text'
            ? rest(r.value, 'text', r.value as string)
            : rest(r.value, r.valueFormat, null);
      lines.push(`  record${rKey}${rHeaders} ${rValue}`);
    }
  }
  return lines;
}

const EXAMPLES = `
Without --follow, consume prints the records on the topic now (from the beginning, or from the group's
committed offsets with --group) and exits; with --follow it keeps printing new ones until Ctrl-C (from now
on, unless --from-beginning). Without --group nothing is committed. Lambda's on-failure messages (a
dead-letter topic) are shown as the failed record's origin, condition and invocations; -v adds the record.
A tombstone (null value) prints as (tombstone), an empty value as (empty), a null header value as (null);
a value whose text is one of these is quoted. --json prints every record exactly, one object a line; a
failure (a usage error too) ends them with {"ok":false,"error":{"message":…}}, the message stderr has.

Examples:
  $ kafka-lambda consume --topic orders --max 10
  $ kafka-lambda consume --topic orders-dlq -v
  $ kafka-lambda consume --topic orders --partition 1 --offset 40 --follow
  $ kafka-lambda consume --topic orders --group audit --json | jq .value
Exit codes: 0 done, 1 the cluster failed, 2 invalid flags or unknown topic/partition`;

/**
 * `kafka-lambda consume`: prints a topic's records (values as they are, keys and headers decoded), and
 * recognises Lambda's on-failure messages so that a dead-letter topic reads at a glance.
 *
 * @example
 * ```ts
 * registerConsumeCommand(program); // kafka-lambda consume --topic orders-dlq -v
 * ```
 */
export function registerConsumeCommand(program: Command): void {
  const command = program
    .command('consume')
    .description(
      "print a topic's records; a dead-letter topic's records show where each failed record came from",
    )
    .requiredOption('-t, --topic <topic>', 'the topic to read', topicOption)
    .option('--from-beginning', 'with --follow: start at the beginning (without --follow it always does)')
    .option('--max <n>', 'stop after n records', integerOption(1))
    .option('-f, --follow', 'keep printing new records until Ctrl-C')
    .addOption(
      new Option('--partition <n>', 'only this partition').argParser(integerOption(0)).conflicts('group'),
    )
    .addOption(
      new Option('--offset <n>', 'start at this offset (needs --partition)')
        .argParser(integerOption(0))
        .conflicts(['group', 'fromBeginning']),
    )
    .option(
      '-g, --group <id>',
      'read as this consumer group: start at its committed offsets and commit',
      groupOption,
    )
    .option('-v, --verbose', 'show the failed record inside each on-failure message, decoded')
    .option('--json', 'one JSON object per record (a failure: {"ok":false,"error":{"message":…}})')
    .addHelpText('after', EXAMPLES);
  reportUsageErrorsAsJson(command, printFailure);
  addClusterOptions(command).action(async (options: ConsumeOptions) => {
    try {
      process.exitCode = await consume(options);
    } catch (error) {
      // With --json, stdout still ends with the failure's object; without, the CLI's handler reports it.
      if (!options.json) throw error;
      const message = error instanceof Error ? error.message : String(error);
      process.stderr.write(`kafka-lambda consume: ${message}\n`);
      printFailure(message);
      process.exitCode = 1;
    }
  });
}

/** `consume --json`'s last line when it fails, after the records it printed. */
function printFailure(message: string): void {
  process.stdout.write(`${JSON.stringify({ ok: false, error: { message } })}\n`);
}

/** Where reading one partition starts and (without --follow) ends. */
interface PartitionRange {
  start: number;
  /** The high watermark when consume started; `undefined` with --follow. */
  end: number | undefined;
}

async function consume(options: ConsumeOptions): Promise<number> {
  const fail = (code: number, message: string) => {
    process.stderr.write(`kafka-lambda consume: ${message}\n`);
    if (options.json) printFailure(message);
    return code;
  };
  if (options.offset !== undefined && options.partition === undefined) {
    return fail(USAGE_EXIT_CODE, '--offset needs --partition');
  }
  const cluster = await reachCluster(options, 'consume');
  if ('exitCode' in cluster) return fail(cluster.exitCode, cluster.message);
  const kafka = new Kafka(cluster.kafkaConfig('kafka-lambda-consume'));
  const ranges = await partitionRanges(kafka, options);
  if (typeof ranges === 'string') return fail(USAGE_EXIT_CODE, ranges);

  let printed = 0;
  const pending = new Set(
    [...ranges].filter(([, r]) => r.end === undefined || r.start < r.end).map(([p]) => p),
  );
  const finish = () => {
    if (!options.follow && pending.size === 0) stop();
  };
  let stop: () => void = () => {};
  const stopped = new Promise<void>((resolve) => {
    stop = resolve;
  });
  if (!options.follow && pending.size === 0) return summarise(printed, options);

  const consumer: Consumer = kafka.consumer({
    // Without --group: a group of its own that never commits (Kafka's consumers need a group id).
    groupId: options.group ?? `kafka-lambda-consume-${randomBytes(6).toString('hex')}`,
    allowAutoTopicCreation: false,
    maxWaitTimeInMs: 250,
  });
  const next = new Map([...ranges].map(([p, r]) => [p, r.start]));
  const reached = (partition: number, position: number) => {
    next.set(partition, position);
    const end = ranges.get(partition)?.end;
    if (end !== undefined && position >= end && pending.delete(partition)) finish();
  };
  // Batches of control records only (transactions) print nothing but move the position.
  consumer.on(consumer.events.END_BATCH_PROCESS, ({ payload }) => {
    if (payload.topic === options.topic && ranges.has(payload.partition)) {
      reached(payload.partition, Math.max(next.get(payload.partition)!, Number(payload.lastOffset) + 1));
    }
  });
  // kafkajs gives up (a crash it will not restart from): report it instead of waiting forever.
  let crashed: Error | undefined;
  consumer.on(consumer.events.CRASH, ({ payload }) => {
    if (payload.restart) return;
    crashed = payload.error;
    stop();
  });
  const onSignal = () => stop();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    await consumer.connect();
    await consumer.subscribe({ topic: options.topic, fromBeginning: true });
    await consumer.run({
      autoCommit: options.group !== undefined,
      autoCommitThreshold: 1,
      eachBatchAutoResolve: false,
      eachBatch: async ({ batch, resolveOffset, isRunning, isStale }) => {
        const range = ranges.get(batch.partition);
        if (!range) return;
        for (const message of batch.messages) {
          if (!isRunning() || isStale() || (options.max !== undefined && printed >= options.max)) break;
          const offset = Number(message.offset);
          if (offset < next.get(batch.partition)!) continue;
          if (range.end !== undefined && offset >= range.end) {
            reached(batch.partition, offset);
            break;
          }
          const record = consumedRecord(batch.topic, batch.partition, message);
          process.stdout.write(
            options.json
              ? `${JSON.stringify(record)}\n`
              : `${formatRecord(record, message.value, options.verbose === true).join('\n')}\n`,
          );
          printed++;
          resolveOffset(message.offset);
          reached(batch.partition, offset + 1);
          if (options.max !== undefined && printed >= options.max) {
            stop();
            break;
          }
        }
      },
    });
    // Every read starts where consume computed (the group's offsets, the beginning, --offset or the end);
    // records of partitions not selected are ignored, and nothing is committed without --group.
    for (const [partition, range] of ranges)
      consumer.seek({ topic: options.topic, partition, offset: String(range.start) });
    if (options.follow) {
      const from = [...ranges].map(([partition, range]) => `${options.topic}-${partition}@${range.start}`);
      process.stderr.write(`following from ${from.join(' ')} (Ctrl-C to stop)\n`);
    }
    await stopped;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await consumer.disconnect();
  }
  if (crashed) return fail(1, `${crashed.message} (after ${printed} record(s))`);
  return summarise(printed, options);
}

function summarise(printed: number, options: ConsumeOptions): number {
  if (!options.json) process.stderr.write(`${printed} record(s) from ${options.topic}\n`);
  return 0;
}

/**
 * Each partition to read, where it starts and (without --follow) where it ends; or why it cannot be read.
 */
async function partitionRanges(
  kafka: Kafka,
  options: ConsumeOptions,
): Promise<Map<number, PartitionRange> | string> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    if (!(await admin.listTopics()).includes(options.topic)) return `topic ${options.topic} does not exist`;
    const offsets = await admin.fetchTopicOffsets(options.topic);
    const selected = offsets.filter(
      (o) => options.partition === undefined || o.partition === options.partition,
    );
    if (selected.length === 0) {
      return `--partition ${options.partition}: ${options.topic} has partitions 0 to ${offsets.length - 1}`;
    }
    const committed = new Map<number, number>();
    if (options.group !== undefined) {
      const [topic] = await admin.fetchOffsets({ groupId: options.group, topics: [options.topic] });
      for (const p of topic?.partitions ?? [])
        if (Number(p.offset) >= 0) committed.set(p.partition, Number(p.offset));
    }
    const ranges = new Map<number, PartitionRange>();
    for (const o of selected) {
      const low = Number(o.low);
      const high = Number(o.high);
      const start =
        options.offset ??
        committed.get(o.partition) ??
        (options.follow && !options.fromBeginning ? high : low);
      ranges.set(o.partition, {
        start: Math.min(Math.max(start, low), high),
        end: options.follow ? undefined : high,
      });
    }
    return ranges;
  } finally {
    await admin.disconnect();
  }
}
