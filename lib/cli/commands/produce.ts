import { accessSync, constants, createReadStream, readFileSync, statSync } from 'node:fs';
import { addAbortSignal } from 'node:stream';
import { type Command, InvalidArgumentError, Option } from 'commander';
import kafkajs, { type IHeaders, Kafka, type Message } from 'kafkajs';
import { partitionForKey } from '../../testing/partitioner.ts';
import { addClusterOptions, type ClusterOptions, reachCluster } from '../cluster.ts';
import { displayUrl } from '../display-url.ts';
import { CliError } from '../errors.ts';
import { integerOption, reportUsageErrorsAsJson, topicOption, USAGE_EXIT_CODE } from '../usage.ts';
import { expandTemplate, headerOption, repeated, templateOption } from './event.ts';

interface ProduceOptions extends ClusterOptions {
  topic: string;
  file?: string;
  keyField?: string;
  key?: string;
  header: Array<[string, string]>;
  partition?: number;
  count?: number;
  value?: string;
  valueFile?: Buffer;
  tombstone?: boolean;
  rate?: number;
  partitions: number;
  json?: boolean;
  valueAvro?: string;
  valueProto?: string;
  type?: string;
  protoPath: string[];
  valueJsonSchema?: string;
  schemaRegistry?: string;
  subject?: string;
}

/**
 * A schema option's reading of a record's JSON text (`parse`, which keeps the digits of an Avro long
 * beyond 2^53 − 1), and its encoding of the value into a Confluent-framed record value (`encode`,
 * throwing naming the problem, not the value).
 */
interface ValueEncoder {
  parse(text: string): unknown;
  encode(value: unknown): Buffer;
}

/**
 * A schema option's values: encoded and framed with the schema's id, which the registry gives when
 * `register` is called (the schema is registered once the first record fits it). A value encoded
 * before then carries id 0 in its framing until {@link stampSchemaId} writes the id in.
 */
interface SchemaValues extends ValueEncoder {
  register(): Promise<number>;
}

/** Records sent to the broker in one request at most (and sooner when the input pauses). */
const MAX_BATCH_RECORDS = 500;
/** How long a partial batch waits for more input before it is sent. */
const LINGER_MS = 20;
/** Longest wait for the schema registry to register a schema. */
const REGISTRY_TIMEOUT_MS = 10_000;
/**
 * Kafka's default `max.message.bytes` (1 MB and the 12 bytes of log overhead): the largest record batch a
 * topic takes, when its own setting cannot be read.
 */
const KAFKA_DEFAULT_MAX_MESSAGE_BYTES = 1_048_588;
/** A record batch's header (Kafka's `RECORD_BATCH_OVERHEAD`, log overhead included). */
const RECORD_BATCH_OVERHEAD = 61;
/** A record's framing in a batch at most (length, attributes, deltas, key and value lengths: varints). */
const RECORD_OVERHEAD = 36;
/** A header's framing at most (its name's and value's lengths). */
const HEADER_OVERHEAD = 10;

/**
 * A line of input (or a generated value) cannot become a record. Names the line, never its content.
 *
 * @example
 * ```ts
 * throw new ProduceInputError('line 7: not a JSON object, so it has no "id" field for the key');
 * ```
 */
export class ProduceInputError extends CliError {}

/** One record to send, with the partition chosen up front so that each batch's offsets are known. */
interface OutgoingRecord {
  partition: number;
  message: Message;
  /** Its size in a record batch, at most. */
  bytes: number;
}

/**
 * Where one batch's records of one partition landed: `firstOffset..lastOffset` (a produce request
 * appends each partition's records contiguously).
 *
 * @example
 * ```ts
 * const landed: LandedRange = { partition: 0, firstOffset: 12, lastOffset: 16, records: 5 };
 * ```
 */
export interface LandedRange {
  partition: number;
  firstOffset: number;
  lastOffset: number;
  records: number;
}

/**
 * What `produce --json` prints, one object whatever happens: whether it went through (`ok`; else `error`
 * says why, as stderr does), the topic, whether produce created it, and every batch's ranges (after a bad
 * input line, those of the records before it).
 *
 * @example
 * ```ts
 * const summary = JSON.parse(stdout) as ProduceSummary; // summary.ok, summary.batches[0].firstOffset
 * ```
 */
export interface ProduceSummary {
  ok: boolean;
  /** Why produce stopped (`ok: false`): the message it writes to stderr. */
  error?: { message: string };
  /** The topic written to; absent after a usage error (an unknown flag, a bad value), where none is read. */
  topic?: string;
  created: boolean;
  records: number;
  batches: LandedRange[];
  /** Per partition: the first and last offset written by this run, and how many records. */
  partitions: LandedRange[];
}

function positiveNumber(value: string): number {
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number) || number <= 0) {
    throw new InvalidArgumentError('must be a number > 0');
  }
  return number;
}

function readableFile(path: string): string {
  if (path === '-') return path;
  try {
    accessSync(path, constants.R_OK);
  } catch (error) {
    throw new InvalidArgumentError(`cannot read it: ${(error as Error).message}`);
  }
  // Checked here, not when reading: a missing topic would be created first.
  if (statSync(path).isDirectory()) throw new InvalidArgumentError('a folder, not a file');
  return path;
}

function binaryFile(path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    throw new InvalidArgumentError(`cannot read it: ${(error as Error).message}`);
  }
}

/**
 * `kafka-lambda produce`: puts records on a topic, from JSON lines (stdin or `--file`) or generated
 * (`--count`, `--value` with `{i}`), at a steady `--rate` if asked; prints where each batch landed.
 *
 * @example
 * ```ts
 * registerProduceCommand(program); // kafka-lambda produce --topic orders --count 100 --value '{"id":"o-{i}"}'
 * ```
 */
export function registerProduceCommand(program: Command): void {
  const command = program
    .command('produce')
    .description('put records on a topic: JSON lines from stdin or a file, or generated with a counter')
    .requiredOption('-t, --topic <topic>', 'the topic to write to (created when missing)', topicOption)
    .addOption(
      new Option('--file <path>', 'read one value per line from this file ("-": stdin, the default)')
        .argParser(readableFile)
        .conflicts(['count', 'value', 'valueFile', 'tombstone']),
    )
    .addOption(
      new Option('--key-field <name>', 'key each record with this field of its JSON value').conflicts([
        'key',
        'tombstone',
      ]),
    )
    .option(
      '--key <template>',
      'key of every record ({i} is the record index, {i%N} modulo N)',
      templateOption,
    )
    .option(
      '--header <name=value>',
      'add a header to every record (repeatable; {i} placeholders)',
      headerOption,
      [],
    )
    .option('--partition <n>', 'write every record to this partition', integerOption(0))
    .option(
      '--count <n>',
      'generate n records (--value alone: 1; --rate alone: until Ctrl-C)',
      integerOption(1),
    )
    .option(
      '--value <template>',
      'generated value (default {"index":{i}}); {i} is the record index, {i%N} modulo N',
      templateOption,
    )
    .addOption(
      new Option('--value-file <path>', 'generated value: the bytes of this file, as they are (binary)')
        .argParser(binaryFile)
        .conflicts('value'),
    )
    .addOption(
      new Option(
        '--tombstone',
        'generate tombstones: records of --key with a null value (a delete on a compacted topic)',
      ).conflicts(['value', 'valueFile', 'valueAvro', 'valueProto', 'valueJsonSchema']),
    )
    .option('--rate <records/s>', 'send at this steady rate instead of as fast as possible', positiveNumber)
    .option('--partitions <n>', 'partitions of the topic when produce creates it', integerOption(1, 1_000), 3)
    .option(
      '--json',
      'print one JSON object instead of lines: ok, error (when it failed), every batch, every partition',
    )
    .addOption(
      new Option('--value-avro <file.avsc>', 'encode each value (JSON) with this Avro schema').conflicts([
        'valueProto',
        'valueJsonSchema',
        'valueFile',
      ]),
    )
    .addOption(
      new Option(
        '--value-proto <file.proto>',
        'encode each value (JSON) as a Protobuf message of --type',
      ).conflicts(['valueJsonSchema', 'valueFile']),
    )
    .option('--type <message>', 'the Protobuf message type of --value-proto, e.g. shop.Order')
    .option(
      '--proto-path <dir>',
      "a folder --value-proto's imports are looked for in, after the importing file's own (repeatable; protoc's -I; default: the working directory)",
      repeated,
      [],
    )
    .addOption(
      new Option(
        '--value-json-schema <file.json>',
        'check each value (JSON) against this JSON Schema',
      ).conflicts('valueFile'),
    )
    .addOption(
      new Option(
        '--schema-registry <url>',
        'with a schema: register it in this Confluent-compatible registry and frame each value with its id',
      ).env('SCHEMA_REGISTRY_URL'),
    )
    .option('--subject <name>', 'with a schema: the registry subject (default <topic>-value)')
    .addHelpText(
      'after',
      `
Records without a key are spread round-robin over the partitions; keyed records go where Kafka's default
partitioner puts them. Blank input lines are skipped; a value that is not JSON is sent as its text (a line
that is not UTF-8 text stops produce: send binary values with --value-file). Input without a record, or
whose first record cannot be sent (no --key-field, does not fit the schema, too large), is refused before
the topic is created. Errors name input lines and generated records from 1.

Examples:
  $ kafka-lambda produce --topic orders --count 100 --value '{"id":"o-{i}","amount":{i}}' --key 'c-{i%5}'
  $ kafka-lambda produce --topic orders --file orders.jsonl --key-field id --header source=cli
  $ kafka-lambda produce --topic orders --rate 50 --value '{"id":"o-{i}"}'      # until Ctrl-C
  $ kafka-lambda produce --topic orders --tombstone --key o-7                   # delete o-7 (compaction)
  $ kafka-lambda produce --topic orders --file orders.jsonl --value-avro order.avsc --schema-registry "$SCHEMA_REGISTRY_URL"
With --value-avro, --value-proto (and --type) or --value-json-schema, each value is JSON encoded with the
schema and framed as Confluent's serializers frame it (magic byte, schema id, Protobuf message indexes); the
schema is registered under --subject once the first record fits it, before the topic is created (an
existing identical schema keeps its id). The files a .proto imports are registered first, each under a
subject named as the import (Confluent's default), and referenced by the schema, except the files
Confluent's registry knows by name, as its serializer: google/protobuf's well-known types, google/type/*.proto
and confluent/*.proto (read from --proto-path). Values are JSON as event --help says (Avro bytes as base64…).
Exit codes: 0 sent, 1 the cluster failed, 2 invalid flags or input (records before a bad line were sent);
with --json, stdout holds one object either way: {"ok":false,"error":{"message":…},…} on a failure
(a usage error too: an unknown flag or a bad value, without "topic")`,
    );
  reportUsageErrorsAsJson(command, (message) =>
    process.stdout.write(
      `${JSON.stringify({ ok: false, error: { message }, created: false, records: 0, batches: [], partitions: [] })}\n`,
    ),
  );
  addClusterOptions(command).action(async (options: ProduceOptions) => {
    process.exitCode = await produce(options);
  });
}

async function produce(options: ProduceOptions): Promise<number> {
  const summary: ProduceSummary = {
    ok: true,
    topic: options.topic,
    created: false,
    records: 0,
    batches: [],
    partitions: [],
  };
  const fail = (code: number, message: string) => {
    process.stderr.write(`kafka-lambda produce: ${message}\n`);
    summary.ok = false;
    summary.error = { message };
    return code;
  };
  let progress: { sends: number } | undefined;
  let exitCode: number;
  try {
    exitCode = await produceRecords(options, summary, fail, (sends) => {
      progress = sends;
    });
  } catch (error) {
    // With --json, stdout still gets its one object; without, the error goes to the CLI's handler.
    if (!options.json) throw error;
    exitCode = fail(1, error instanceof Error ? error.message : String(error));
  }
  summary.partitions = perPartition(summary.batches);
  if (options.json) {
    const { ok, error, ...rest } = summary;
    process.stdout.write(`${JSON.stringify({ ok, ...(error ? { error } : {}), ...rest })}\n`);
  } else if (progress) {
    process.stdout.write(
      `produced ${summary.records} record(s) to ${options.topic} in ${progress.sends} batch(es)${summary.partitions.length > 0 ? `: ${summary.partitions.map((p) => `${options.topic}-${p.partition}@${p.firstOffset}..${p.lastOffset}`).join(' ')}` : ''}\n`,
    );
  }
  return exitCode;
}

/**
 * Checks what can be checked before touching the cluster, then reads the first record before creating
 * the topic (no input: nothing created), and sends; `summary` collects where the batches landed.
 * `started` is called once records may be sent, with the count of sends it keeps up to date.
 */
async function produceRecords(
  options: ProduceOptions,
  summary: ProduceSummary,
  fail: (code: number, message: string) => number,
  started: (progress: { sends: number }) => void,
): Promise<number> {
  const generated =
    options.count !== undefined ||
    options.value !== undefined ||
    options.valueFile !== undefined ||
    options.tombstone === true;
  if (options.tombstone && options.key === undefined)
    return fail(
      USAGE_EXIT_CODE,
      '--tombstone needs --key: a tombstone deletes the records of its key (a compacted topic refuses a record without one)',
    );
  if (!generated && options.file === undefined && process.stdin.isTTY) {
    process.stderr.write('reading JSON lines from the terminal (Ctrl-D to end)…\n');
  }
  // Schema flags are checked (and the schema compiled) first: a usage error needs no cluster.
  let schema: SchemaValues | undefined;
  try {
    schema = await schemaValueEncoder(options);
  } catch (error) {
    if (error instanceof ProduceInputError) return fail(USAGE_EXIT_CODE, error.message);
    throw error;
  }
  const cluster = await reachCluster(options, 'produce');
  if ('exitCode' in cluster) return fail(cluster.exitCode, cluster.message);

  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    // The first record is read, and checked as every record is (its key field, its encoding with the
    // schema), before the schema is registered and the topic created: input without one, or with a
    // first one that cannot be sent, registers and creates nothing.
    const input = preparedRecords(
      generated ? generatedValues(options) : inputLines(options.file, stop.signal),
      options,
      schema,
    );
    let first: IteratorResult<PreparedRecord>;
    try {
      first = await input.next();
    } catch (error) {
      if (!(error instanceof ProduceInputError)) throw error;
      return fail(USAGE_EXIT_CODE, `${error.message}; nothing was sent`);
    }
    if (first.done)
      return fail(
        USAGE_EXIT_CODE,
        `no records ${options.file === undefined || options.file === '-' ? 'on stdin' : `in ${options.file}`} (blank lines are skipped): nothing was sent`,
      );

    if (schema !== undefined) {
      let schemaId: number;
      try {
        schemaId = await schema.register();
      } catch (error) {
        await input.return(undefined);
        if (error instanceof SchemaRegistrationError) return fail(1, `${error.message}; nothing was sent`);
        throw error;
      }
      stampSchemaId(first.value, schemaId);
    }

    const kafka = new Kafka(cluster.kafkaConfig('kafka-lambda-produce'));
    let topic: Awaited<ReturnType<typeof ensureTopic>>;
    try {
      topic = await ensureTopic(kafka, options.topic, options.partitions, options.partition, first.value);
    } catch (error) {
      // Nothing more is read: the input is let go (a terminal or pipe would keep produce waiting).
      await input.return(undefined);
      if (!(error instanceof ProduceInputError)) throw error;
      return fail(USAGE_EXIT_CODE, error.message);
    }
    const { partitionCount, created, maxMessageBytes } = topic;
    summary.created = created;
    if (created) {
      process.stderr.write(
        `created topic ${options.topic} (${partitionCount} partitions) on ${cluster.origin}\n`,
      );
    }

    const producer = kafka.producer({ allowAutoTopicCreation: false });
    await producer.connect();
    const progress = { sends: 0 };
    started(progress);
    try {
      const records = placedRecords(
        paced(withFirst(first.value, input), options.rate, stop.signal),
        options,
        partitionCount,
        maxMessageBytes,
      );
      await inBatches(records, maxMessageBytes, async (batch) => {
        const landed = await sendBatch(producer, options.topic, batch);
        progress.sends++;
        summary.records += batch.length;
        summary.batches.push(...landed);
        if (!options.json) {
          for (const range of landed) {
            process.stdout.write(
              `sent ${range.records} record(s) to ${options.topic}-${range.partition}@${range.firstOffset}..${range.lastOffset}\n`,
            );
          }
        }
      });
    } catch (error) {
      if (!(error instanceof ProduceInputError)) throw error;
      return fail(USAGE_EXIT_CODE, `${error.message}; ${summary.records} record(s) before it were sent`);
    } finally {
      await producer.disconnect();
    }
    return 0;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/** `first`, then the rest of `iterator`; closing this closes the iterator (and the input it reads). */
async function* withFirst<T>(first: T, iterator: AsyncIterator<T>): AsyncGenerator<T> {
  let done = false;
  try {
    yield first;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
    done = true;
  } finally {
    if (!done) await iterator.return?.();
  }
}

/**
 * The topic's partition count and max.message.bytes, creating it with `partitions` when missing. A
 * `partition` (`--partition`) it does not have, or a `first` record above the max.message.bytes it would
 * be created with (the brokers' message.max.bytes, when they let it be read), is a
 * {@link ProduceInputError}, checked before creating it.
 */
async function ensureTopic(
  kafka: Kafka,
  topic: string,
  partitions: number,
  partition: number | undefined,
  first: PreparedRecord,
): Promise<{ partitionCount: number; created: boolean; maxMessageBytes: number }> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    let created = false;
    if (!(await admin.listTopics()).includes(topic)) {
      if (partition !== undefined && partition >= partitions)
        throw new ProduceInputError(
          `--partition ${partition}: topic ${topic} does not exist, and produce would create it with ${partitions} partition(s) (--partitions), 0 to ${partitions - 1}: give --partitions ${partition + 1} or more; nothing was created`,
        );
      const brokerMaxBytes = await brokersMessageMaxBytes(admin);
      const problem =
        brokerMaxBytes === undefined
          ? undefined
          : tooLarge(
              first,
              brokerMaxBytes,
              `the brokers' message.max.bytes (${brokerMaxBytes.toLocaleString('en-US')}), which ${topic} would be created with,`,
            );
      if (problem) throw new ProduceInputError(`${problem}; nothing was created`);
      created = await admin.createTopics({
        topics: [{ topic, numPartitions: partitions }],
        waitForLeaders: true,
      });
    }
    const metadata = await admin.fetchTopicMetadata({ topics: [topic] });
    // A principal allowed to write may not be allowed to read the topic's settings: Kafka's default then.
    const configs = await admin
      .describeConfigs({
        resources: [
          { type: kafkajs.ConfigResourceTypes.TOPIC, name: topic, configNames: ['max.message.bytes'] },
        ],
        includeSynonyms: false,
      })
      .catch(() => undefined);
    const maxMessageBytes = Number(configs?.resources[0]?.configEntries[0]?.configValue);
    const partitionCount = metadata.topics[0]!.partitions.length;
    if (partition !== undefined && partition >= partitionCount)
      throw new ProduceInputError(
        `--partition ${partition}: ${topic} has partitions 0 to ${partitionCount - 1}`,
      );
    return {
      partitionCount,
      created,
      maxMessageBytes: Number.isSafeInteger(maxMessageBytes)
        ? maxMessageBytes
        : KAFKA_DEFAULT_MAX_MESSAGE_BYTES,
    };
  } finally {
    await admin.disconnect();
  }
}

/** A value to send and where it came from (for error messages: a line number, never the content). */
interface SourceValue {
  /** `null`: a tombstone (`--tombstone`). */
  value: Buffer | null;
  /** `line 7` or `record 7`, both counted from 1. */
  position: string;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Non-blank lines (ended by LF or CRLF) of the file or stdin, as their bytes; Ctrl-C (`signal`) ends the
 * input like an end of file. A line that is not UTF-8 is refused: sent as text it would be changed.
 */
async function* inputLines(file: string | undefined, signal: AbortSignal): AsyncGenerator<SourceValue> {
  const input = file === undefined || file === '-' ? process.stdin : createReadStream(file);
  let line = 0;
  const take = (bytes: Buffer): SourceValue | undefined => {
    line++;
    const value = bytes.at(-1) === 0x0d ? bytes.subarray(0, -1) : bytes;
    let text: string;
    try {
      text = utf8.decode(value);
    } catch {
      throw new ProduceInputError(
        `line ${line}: not UTF-8 text (produce sends lines of text; a binary value: --value-file)`,
      );
    }
    return text.trim() === '' ? undefined : { value, position: `line ${line}` };
  };
  let pending: Buffer[] = [];
  try {
    for await (const chunk of addAbortSignal(signal, input) as AsyncIterable<Buffer>) {
      let start = 0;
      for (let end = chunk.indexOf(0x0a); end !== -1; end = chunk.indexOf(0x0a, start)) {
        const value = take(Buffer.concat([...pending, chunk.subarray(start, end)]));
        pending = [];
        start = end + 1;
        if (value) yield value;
      }
      pending.push(chunk.subarray(start));
    }
  } catch (error) {
    if (!signal.aborted) throw error;
    return;
  }
  const last = take(Buffer.concat(pending));
  if (last) yield last;
}

async function* generatedValues(options: ProduceOptions): AsyncGenerator<SourceValue> {
  // --rate without --count: a steady stream until Ctrl-C.
  const count = options.count ?? (options.rate === undefined ? 1 : Number.POSITIVE_INFINITY);
  for (let i = 0; i < count; i++) {
    yield {
      value: options.tombstone
        ? null
        : (options.valueFile ?? Buffer.from(expandTemplate(options.value ?? '{"index":{i}}', i))),
      position: `record ${i + 1}`,
    };
  }
}

/** Passes values on at `rate` per second (as fast as possible without one) until `signal` aborts. */
async function* paced<T>(
  values: AsyncIterable<T>,
  rate: number | undefined,
  signal: AbortSignal,
): AsyncGenerator<T> {
  const started = performance.now();
  let index = 0;
  for await (const value of values) {
    if (signal.aborted) return;
    if (rate !== undefined) {
      const wait = started + (index * 1000) / rate - performance.now();
      if (wait >= 1) await new Promise((resolve) => setTimeout(resolve, wait));
      if (signal.aborted) return;
    }
    index++;
    yield value;
  }
}

/**
 * The brokers' `message.max.bytes` (what a topic created now gets as its max.message.bytes), as the
 * controller answers it; undefined when it cannot be read (a principal not allowed to).
 */
async function brokersMessageMaxBytes(admin: import('kafkajs').Admin): Promise<number | undefined> {
  try {
    const { controller, brokers } = await admin.describeCluster();
    const nodeId = controller ?? brokers[0]?.nodeId;
    if (nodeId === undefined || nodeId === null) return undefined;
    const configs = await admin.describeConfigs({
      resources: [
        {
          type: kafkajs.ConfigResourceTypes.BROKER,
          name: String(nodeId),
          configNames: ['message.max.bytes'],
        },
      ],
      includeSynonyms: false,
    });
    const value = Number(configs.resources[0]?.configEntries[0]?.configValue);
    return Number.isSafeInteger(value) && value > 0 ? value : undefined;
  } catch {
    return undefined;
  }
}

/** A record's key, value (encoded with the schema, if any) and headers, checked; not yet placed. */
interface PreparedRecord {
  key: Buffer | null;
  value: Buffer | null;
  headers: IHeaders;
  /** Bytes of key, value and headers (the headers with their framing). */
  size: number;
  /** `line 7` or `record 7`, for errors. */
  position: string;
}

/**
 * Why `record` cannot go into a topic of `maxMessageBytes` (the broker refuses the whole request of a
 * batch holding it), or undefined when it fits; `limit` names where that figure comes from.
 */
function tooLarge(
  record: PreparedRecord,
  maxMessageBytes: number,
  limit = `the topic's max.message.bytes (${maxMessageBytes.toLocaleString('en-US')})`,
): string | undefined {
  if (RECORD_BATCH_OVERHEAD + RECORD_OVERHEAD + record.size <= maxMessageBytes) return undefined;
  return `${record.position}: ${record.size.toLocaleString('en-US')} bytes of key, value and headers, above what ${limit} lets through with Kafka's framing`;
}

/**
 * Each value with its key (`--key-field`, `--key`), headers and encoded value: every check of a record
 * that needs no topic, so that the first record is checked before the topic is created.
 */
async function* preparedRecords(
  values: AsyncIterable<SourceValue>,
  options: ProduceOptions,
  encoder: ValueEncoder | undefined,
): AsyncGenerator<PreparedRecord> {
  let index = 0;
  for await (const { value, position } of values) {
    const key =
      options.keyField !== undefined
        ? keyFromField(value, options.keyField, position)
        : options.key !== undefined
          ? Buffer.from(expandTemplate(options.key, index))
          : null;
    const headers: IHeaders = {};
    let headerBytes = 0;
    for (const [name, template] of options.header) {
      const expanded = expandTemplate(template, index);
      headerBytes += HEADER_OVERHEAD + Buffer.byteLength(name) + Buffer.byteLength(expanded);
      const existing = headers[name];
      headers[name] =
        existing === undefined ? expanded : [...(Array.isArray(existing) ? existing : [existing]), expanded];
    }
    index++;
    const encoded = encoder === undefined || value === null ? value : encodeValue(encoder, value, position);
    const size = (key?.length ?? 0) + (encoded?.length ?? 0) + headerBytes;
    yield { key, value: encoded, headers, size, position };
  }
}

/** Each record with its partition, refused when above the topic's max.message.bytes. */
async function* placedRecords(
  records: AsyncIterable<PreparedRecord>,
  options: ProduceOptions,
  partitionCount: number,
  maxMessageBytes: number,
): AsyncGenerator<OutgoingRecord> {
  // Keyless records: round-robin from a random partition, so that one-record runs spread too.
  let next = Math.floor(Math.random() * partitionCount);
  for await (const record of records) {
    const { key, value, headers } = record;
    const partition =
      options.partition ?? (key === null ? next++ % partitionCount : partitionForKey(key, partitionCount));
    // Refused here, before it is sent: the broker refuses the whole request of a batch holding it.
    const problem = tooLarge(record, maxMessageBytes);
    if (problem) throw new ProduceInputError(problem);
    yield { partition, message: { key, value, headers, partition }, bytes: RECORD_OVERHEAD + record.size };
  }
}

function encodeValue(encoder: ValueEncoder, value: Buffer, position: string): Buffer {
  let parsed: unknown;
  try {
    parsed = encoder.parse(value.toString());
  } catch {
    throw new ProduceInputError(`${position}: not JSON, so it cannot be encoded with the schema`);
  }
  try {
    return encoder.encode(parsed);
  } catch (error) {
    // The encoder's message names the schema paths that do not fit, never the value.
    throw new ProduceInputError(`${position}: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * The registry could not be asked, or refused the schema: exit 1, like an unreachable cluster.
 *
 * @example
 * ```ts
 * throw new SchemaRegistrationError('the schema registry at http://127.0.0.1:8081 answered 409');
 * ```
 */
export class SchemaRegistrationError extends CliError {}

const SCHEMA_TYPES = { avro: 'AVRO', protobuf: 'PROTOBUF', 'json-schema': 'JSON' } as const;

/**
 * With a schema option: reads and compiles the schema (and the files a .proto imports), and returns
 * its values' encoder and the registration, which registers the schema under the subject (Confluent's
 * `POST /subjects/{subject}/versions`, which answers an identical schema's existing id), after the files
 * it imports. The encoding libraries load only then (see `event`).
 */
async function schemaValueEncoder(options: ProduceOptions): Promise<SchemaValues | undefined> {
  const chosen = (
    [
      ['avro', options.valueAvro],
      ['protobuf', options.valueProto],
      ['json-schema', options.valueJsonSchema],
    ] as const
  ).filter(([, path]) => path !== undefined);
  if (chosen.length === 0) {
    if (options.type !== undefined || options.subject !== undefined)
      throw new ProduceInputError(
        '--type and --subject go with --value-avro, --value-proto or --value-json-schema',
      );
    if (options.protoPath.length > 0)
      throw new ProduceInputError(
        "--proto-path goes with --value-proto (it is where the .proto file's imports are)",
      );
    return undefined;
  }
  const [format, path] = chosen[0]!;
  if (!options.schemaRegistry)
    throw new ProduceInputError(
      `--value-${format === 'protobuf' ? 'proto' : format} needs --schema-registry <url> (or SCHEMA_REGISTRY_URL)`,
    );
  refuseCredentialsIn(options.schemaRegistry);
  if (format === 'protobuf' && options.type === undefined)
    throw new ProduceInputError('--value-proto needs --type <message>, e.g. --type shop.Order');
  if (format !== 'protobuf' && options.protoPath.length > 0)
    throw new ProduceInputError(
      "--proto-path goes with --value-proto (it is where the .proto file's imports are)",
    );
  let schema: string;
  try {
    schema = readFileSync(path!, 'utf8');
  } catch (error) {
    throw new ProduceInputError(`cannot read ${path}: ${(error as Error).message}`, { cause: error });
  }
  const { SchemaEncodeError, parseValueJson, protoImports, schemaEncoder } = await import(
    '../../testing/schema-encode.ts'
  );
  const encoderOptions = {
    format,
    schema,
    schemaPath: path!,
    ...(options.protoPath.length > 0 ? { importPaths: options.protoPath } : {}),
    ...(options.type ? { type: options.type } : {}),
  };
  let encode: ReturnType<typeof schemaEncoder>;
  let imported: ReturnType<typeof protoImports> = { imports: [], references: [] };
  try {
    // Compiled before anything is registered: a schema that does not compile is not put in the registry.
    // Its values are encoded without framing, which is added here with the registry's id.
    encode = schemaEncoder({ ...encoderOptions, wire: 'source', schemaId: '1' });
    if (format === 'protobuf') imported = protoImports(encoderOptions);
  } catch (error) {
    // Its message names the file and where, never quoting it.
    if (error instanceof SchemaEncodeError) throw new ProduceInputError(error.message, { cause: error });
    throw error;
  }
  const registry = options.schemaRegistry;
  const subject = options.subject ?? `${options.topic}-value`;
  let schemaId = 0;
  return {
    // An Avro long beyond 2^53 − 1 keeps its digits (a bigint), which JSON.parse would round.
    parse: (text) => parseValueJson(text, format),
    encode: (value) => {
      const header = Buffer.alloc(5);
      header.writeUInt32BE(schemaId, 1);
      return Buffer.concat([header, encode(value).bytes]);
    },
    register: async () => {
      // The files the .proto imports first, each under a subject named as the import, as Confluent's
      // serializer registers them (its default reference subject name strategy).
      const versions = new Map<string, number>();
      const referencesOf = (names: readonly string[]) =>
        names.map((name) => ({ name, subject: name, version: versions.get(name)! }));
      for (const file of imported.imports) {
        const references = referencesOf(file.references);
        const registered = await registerSchema(registry, file.name, 'PROTOBUF', file.schema, references, {
          version: true,
        });
        versions.set(file.name, registered.version);
        process.stderr.write(
          `registered ${file.path} as version ${registered.version} of subject ${file.name} (imported by the schema)\n`,
        );
      }
      const registered = await registerSchema(
        registry,
        subject,
        SCHEMA_TYPES[format],
        schema,
        referencesOf(imported.references),
      );
      process.stderr.write(`registered ${path} as schema ${registered.id} (subject ${subject})\n`);
      schemaId = registered.id;
      return schemaId;
    },
  };
}

/** Writes the schema id into the framing of a value encoded before the schema was registered. */
function stampSchemaId(record: PreparedRecord, schemaId: number): void {
  record.value?.writeUInt32BE(schemaId, 1);
}

/**
 * Refuses a registry URL with a user name or password, naming the option, never the URL: produce sends
 * no credentials (fetch refuses such a URL anyway), and the URL would end up in error messages.
 */
function refuseCredentialsIn(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ProduceInputError('--schema-registry (or SCHEMA_REGISTRY_URL) is not a URL');
  }
  if (parsed.username || parsed.password)
    throw new ProduceInputError(
      '--schema-registry (or SCHEMA_REGISTRY_URL) has a user name or password in it: produce sends no credentials to the registry; give its URL without them',
    );
}

/** A schema reference of Confluent's API: the name the schema uses, and the subject version it is. */
interface SchemaReference {
  name: string;
  subject: string;
  version: number;
}

/**
 * Registers a schema under a subject (`POST /subjects/{subject}/versions`) and, with `version`, asks
 * which version of the subject it is (`POST /subjects/{subject}`, which finds a registered schema): a
 * schema that references it names that version.
 */
async function registerSchema(
  url: string,
  subject: string,
  schemaType: (typeof SCHEMA_TYPES)[keyof typeof SCHEMA_TYPES],
  schema: string,
  references: readonly SchemaReference[],
  { version: askVersion = false } = {},
): Promise<{ id: number; version: number }> {
  const base = url.replace(/\/+$/, '');
  // Confluent's API leaves schemaType out for Avro, its original format, and references out when none.
  const body = JSON.stringify({
    schema,
    ...(schemaType === 'AVRO' ? {} : { schemaType }),
    ...(references.length > 0 ? { references } : {}),
  });
  const ask = async (path: string): Promise<{ [key: string]: unknown }> => {
    let response: Response;
    try {
      response = await fetch(`${base}/subjects/${encodeURIComponent(subject)}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/vnd.schemaregistry.v1+json' },
        body,
        signal: AbortSignal.timeout(REGISTRY_TIMEOUT_MS),
      });
    } catch (error) {
      throw new SchemaRegistrationError(`the schema registry at ${displayUrl(base)} cannot be reached`, {
        cause: error,
      });
    }
    const answer = (await response.json().catch(() => undefined)) as { [key: string]: unknown } | undefined;
    if (!response.ok || typeof answer !== 'object' || answer === null)
      throw new SchemaRegistrationError(
        `the schema registry at ${displayUrl(base)} did not register the schema for subject ${subject} (HTTP ${response.status}${typeof answer?.message === 'string' ? `: ${answer.message}` : ''})`,
      );
    return answer;
  };
  const { id } = await ask('/versions');
  if (typeof id !== 'number')
    throw new SchemaRegistrationError(
      `the schema registry at ${displayUrl(base)} did not register the schema for subject ${subject} (no id in its answer)`,
    );
  // The version matters only to a schema that references this one (an imported .proto file).
  if (!askVersion) return { id, version: 0 };
  const { version } = await ask('');
  if (typeof version !== 'number')
    throw new SchemaRegistrationError(
      `the schema registry at ${displayUrl(base)} did not say which version of subject ${subject} the schema is`,
    );
  return { id, version };
}

/** `JSON.rawJSON` and `JSON.isRawJSON`: in Node since 21, not yet in TypeScript's es2024 lib. */
const { rawJSON, isRawJSON } = JSON as unknown as {
  rawJSON(text: string): object;
  isRawJSON(value: unknown): boolean;
};

function keyFromField(value: Buffer | null, field: string, position: string): Buffer | null {
  if (value === null)
    throw new ProduceInputError(`${position}: a tombstone has no "${field}" field for the key (--key-field)`);
  let parsed: unknown;
  try {
    // Every number keeps the text the line gives it ("id": 9007199254740993 keys as those digits, not as
    // the double nearest them): the reviver's source text, re-emitted as is by JSON.stringify through
    // JSON.rawJSON (TC39 "JSON.parse source text access", in Node since 21).
    parsed = JSON.parse(value.toString(), (_key, parsedValue: unknown, context?: { source?: string }) =>
      typeof parsedValue === 'number' && context?.source !== undefined
        ? rawJSON(context.source)
        : parsedValue,
    );
  } catch {
    throw new ProduceInputError(
      `${position}: not JSON, so it has no "${field}" field for the key (--key-field)`,
    );
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || isRawJSON(parsed)) {
    throw new ProduceInputError(
      `${position}: not a JSON object, so it has no "${field}" field for the key (--key-field)`,
    );
  }
  if (!Object.hasOwn(parsed, field)) {
    throw new ProduceInputError(`${position}: no "${field}" field for the key (--key-field)`);
  }
  const key = (parsed as Record<string, unknown>)[field];
  if (key === null) return null;
  return Buffer.from(typeof key === 'string' ? key : JSON.stringify(key));
}

/**
 * Sends records in batches of at most {@link MAX_BATCH_RECORDS} and `maxBytes` (the broker refuses a
 * partition's record batch above the topic's max.message.bytes), and sooner when the input pauses.
 */
async function inBatches(
  records: AsyncIterable<OutgoingRecord>,
  maxBytes: number,
  send: (batch: OutgoingRecord[]) => Promise<void>,
): Promise<void> {
  const iterator = records[Symbol.asyncIterator]();
  let batch: OutgoingRecord[] = [];
  let bytes = RECORD_BATCH_OVERHEAD;
  const flush = async () => {
    await send(batch);
    batch = [];
    bytes = RECORD_BATCH_OVERHEAD;
  };
  const next = () => {
    const promise = iterator.next();
    // Awaited on the next turn; a bad line may reject it while a batch is being sent meanwhile.
    promise.catch(() => {});
    return promise;
  };
  let pending = next();
  for (;;) {
    let timer: NodeJS.Timeout | undefined;
    const lingered = new Promise<'linger'>((resolve) => {
      timer = setTimeout(() => resolve('linger'), LINGER_MS);
    });
    let result: IteratorResult<OutgoingRecord> | 'linger';
    try {
      result = batch.length === 0 ? await pending : await Promise.race([pending, lingered]);
    } catch (error) {
      // A bad input line: what came before it is still sent (and reported).
      if (batch.length > 0) await send(batch);
      throw error;
    } finally {
      clearTimeout(timer);
    }
    if (result === 'linger') {
      await flush();
      continue;
    }
    if (result.done) break;
    pending = next();
    if (bytes + result.value.bytes > maxBytes) await flush();
    batch.push(result.value);
    bytes += result.value.bytes;
    if (batch.length >= MAX_BATCH_RECORDS) await flush();
  }
  if (batch.length > 0) await send(batch);
}

async function sendBatch(
  producer: import('kafkajs').Producer,
  topic: string,
  batch: OutgoingRecord[],
): Promise<LandedRange[]> {
  const counts = new Map<number, number>();
  for (const record of batch) counts.set(record.partition, (counts.get(record.partition) ?? 0) + 1);
  const metadata = await producer.send({ topic, messages: batch.map((record) => record.message) });
  return metadata
    .map((m) => {
      const records = counts.get(m.partition) ?? 0;
      const firstOffset = Number(m.baseOffset);
      return { partition: m.partition, firstOffset, lastOffset: firstOffset + records - 1, records };
    })
    .sort((a, b) => a.partition - b.partition);
}

function perPartition(batches: LandedRange[]): LandedRange[] {
  const byPartition = new Map<number, LandedRange>();
  for (const range of batches) {
    const seen = byPartition.get(range.partition);
    byPartition.set(
      range.partition,
      seen
        ? {
            partition: range.partition,
            firstOffset: Math.min(seen.firstOffset, range.firstOffset),
            lastOffset: Math.max(seen.lastOffset, range.lastOffset),
            records: seen.records + range.records,
          }
        : { ...range },
    );
  }
  return [...byPartition.values()].sort((a, b) => a.partition - b.partition);
}
