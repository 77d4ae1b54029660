import { readFileSync } from 'node:fs';
import { type Command, InvalidArgumentError, Option } from 'commander';
// Not in the testing entry: the schema encoder imports avsc, protobufjs and Ajv (optional peers), which load
// only when a schema option is given (valueEncoder).
import { parseTimestamp } from '../../replay/targets.ts';
import {
  InvalidEventInputError,
  type KafkaRecordInput,
  kafkaEvent,
  LAMBDA_LIMITS,
} from '../../testing/index.ts';
import type { EncodedValue, SchemaWire } from '../../testing/schema-encode.ts';
import { brokerEntryProblem } from '../broker-entry.ts';
import { exitWithUsageCode, integerOption, invalidArgument, USAGE_EXIT_CODE } from '../usage.ts';

const PLACEHOLDER = /\{i(?:%(\d+))?\}/g;

interface EventOptions {
  topic: string;
  partitions: number;
  count: number;
  value?: string;
  valueFile?: (index: number) => string | Uint8Array;
  key?: string;
  header: Array<[string, string]>;
  selfManaged?: boolean;
  eventSourceArn?: string;
  bootstrapServers?: string;
  startOffset: number;
  timestamp?: number;
  /** The schema options hold their file's path and text (read as the option is parsed). */
  valueAvro?: SchemaFile;
  valueProto?: SchemaFile;
  valueJsonSchema?: SchemaFile;
  type?: string;
  protoPath: string[];
  format: SchemaWire;
  schemaId?: string;
}

/** `--timestamp`: ISO 8601 (no zone is UTC, as the replay options read it) or epoch milliseconds. */
function recordTime(value: string): number {
  let ms: number;
  try {
    ms = parseTimestamp(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
  if (ms < 0)
    throw new InvalidArgumentError('must not be before 1970 (Kafka timestamps are epoch milliseconds)');
  // Epoch seconds of this century read as milliseconds would be January 1970: almost surely a mistake.
  if (/^\d+$/.test(value.trim()) && ms >= 1e9 && ms < 1e11)
    throw new InvalidArgumentError(
      `looks like epoch seconds (${new Date(ms * 1000).toISOString()}): Kafka timestamps are epoch milliseconds, give ${ms * 1000} or an ISO 8601 time`,
    );
  return ms;
}

// The shapes Lambda's events carry: an MSK cluster ARN, and brokers as host:port.
// https://docs.aws.amazon.com/lambda/latest/dg/with-msk.html
function clusterArn(value: string): string {
  if (!/^arn:aws[a-z-]*:kafka:[a-z0-9-]+:\d{12}:cluster\/[^/]+\/[^/]+$/.test(value))
    throw new InvalidArgumentError(
      'must be an MSK cluster ARN, arn:aws:kafka:<region>:<account>:cluster/<name>/<uuid>',
    );
  return value;
}

/**
 * What is wrong with `--bootstrap-servers`, or `undefined`. Checked in the action, not by commander,
 * whose message would quote the value: an entry may carry a user name and password.
 */
function bootstrapServersProblem(value: string): string | undefined {
  const entries = value.split(',');
  for (const [index, entry] of entries.entries()) {
    const problem = entry === '' ? 'is empty' : brokerEntryProblem(entry, '--bootstrap-servers');
    if (problem) return `--bootstrap-servers: entry ${index + 1} of ${entries.length} ${problem}`;
  }
  return undefined;
}

/**
 * The schema options' encoder of JSON values, or `undefined` when no schema option is given. The
 * encoding libraries (avsc, protobufjs, Ajv) load only then: every other command starts without them.
 */
async function valueEncoder(options: EventOptions): Promise<((text: string) => EncodedValue) | undefined> {
  const given = [
    ['avro', options.valueAvro],
    ['protobuf', options.valueProto],
    ['json-schema', options.valueJsonSchema],
  ] as const;
  const chosen = given.filter(([, schema]) => schema !== undefined);
  if (chosen.length === 0) return undefined;
  const { SchemaEncodeError, parseValueJson, schemaEncoder } = await import('../../testing/schema-encode.ts');
  if (chosen.length > 1)
    throw new SchemaEncodeError('give one of --value-avro, --value-proto, --value-json-schema');
  const [format, schema] = chosen[0]!;
  const encode = schemaEncoder({
    format,
    schema: schema!.text,
    schemaPath: schema!.path,
    ...(options.protoPath.length > 0 ? { importPaths: options.protoPath } : {}),
    ...(options.type ? { type: options.type } : {}),
    wire: options.format,
    ...(options.schemaId ? { schemaId: options.schemaId } : {}),
  });
  return (text) => {
    let value: unknown;
    try {
      // An Avro long beyond 2^53 − 1 keeps its digits (a bigint), which JSON.parse would round.
      value = parseValueJson(text, format);
    } catch (error) {
      throw new SchemaEncodeError('with a schema, --value must be JSON (the value to encode)', {
        cause: error,
      });
    }
    return encode(value);
  };
}

/**
 * Expands `{i}` (the record's index) and `{i%N}` (the index modulo N) in a template; other braces stay
 * as they are, so JSON templates need no escaping.
 *
 * @example
 * ```ts
 * expandTemplate('{"orderId":"o-{i}","customer":"c-{i%3}"}', 4); // '{"orderId":"o-4","customer":"c-1"}'
 * ```
 */
export function expandTemplate(template: string, index: number): string {
  return template.replace(PLACEHOLDER, (_, modulo: string | undefined) =>
    String(modulo === undefined ? index : index % Number(modulo)),
  );
}

/**
 * A commander option parser for a template: `{i%N}` needs a whole N ≥ 1 (`{i%0}`, `{i%-1}`, `{i%x}` are
 * refused rather than sent as NaN or as they are).
 *
 * @example
 * ```ts
 * command.option('--value <template>', 'record value', templateOption);
 * ```
 */
export function templateOption(value: string): string {
  for (const [, modulo] of value.matchAll(/\{i%([^}]*)\}/g)) {
    if (!/^\d+$/.test(modulo!) || Number(modulo) === 0)
      throw new InvalidArgumentError('{i%N} needs a whole number N ≥ 1');
  }
  return value;
}

/**
 * A commander option parser for `--header name=value`, repeatable: the value is a template.
 *
 * @example
 * ```ts
 * command.option('--header <name=value>', 'add a header (repeatable)', headerOption, []);
 * ```
 */
export function headerOption(value: string, previous: Array<[string, string]>): Array<[string, string]> {
  const equals = value.indexOf('=');
  if (equals <= 0) throw new InvalidArgumentError('must be name=value (the name not empty)');
  return [...previous, [value.slice(0, equals), templateOption(value.slice(equals + 1))]];
}

function file(path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    throw invalidArgument(`cannot read it: ${(error as Error).message}`, error);
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** `--value-file`: the file as a template when it is UTF-8 text, else its bytes as they are (Avro, Protobuf…). */
function fileValue(path: string): (index: number) => string | Uint8Array {
  const bytes = file(path);
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return () => bytes;
  }
  templateOption(text);
  return (index) => expandTemplate(text, index);
}

/** A schema file given to a schema option: its path (named in errors about it) and its text. */
interface SchemaFile {
  path: string;
  text: string;
}

/** A schema option: the schema file, read. */
function schemaFile(path: string): SchemaFile {
  return { path, text: file(path).toString('utf8') };
}

/**
 * A commander option parser for a repeatable option: each value appended.
 *
 * @example
 * ```ts
 * command.option('--proto-path <dir>', 'a folder imports are looked for in (repeatable)', repeated, []);
 * ```
 */
export function repeated(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** A `SchemaEncodeError` of the lazily loaded encoder module (a value that does not fit, a bad schema). */
function isSchemaEncodeError(error: unknown): error is Error {
  return error instanceof Error && error.name === 'SchemaEncodeError';
}

/**
 * `kafka-lambda event`: prints a sample Kafka event, so nobody has to hand-write base64.
 *
 * @example
 * ```ts
 * registerEventCommand(program); // kafka-lambda event --topic orders --partitions 3 --count 10
 * ```
 */
export function registerEventCommand(program: Command): void {
  program
    .command('event')
    .description(
      'print a Kafka event exactly as Lambda sends it (base64 keys and values), for invoke and tests',
    )
    .requiredOption('--topic <name>', 'topic name')
    .option('--partitions <n>', 'partitions to spread the records over', integerOption(1, 100_000), 1)
    .option(
      '--count <n>',
      `number of records (at most ${LAMBDA_LIMITS.batchSize.max}, Lambda's largest batch)`,
      integerOption(1, LAMBDA_LIMITS.batchSize.max),
      1,
    )
    .option(
      '--value <template>',
      'record value (default {"index":{i}}); {i} is the record index, {i%N} the index modulo N',
      templateOption,
    )
    .addOption(
      new Option(
        '--value-file <path>',
        'record value from a file (a template if it is UTF-8 text, else bytes as they are)',
      )
        .argParser(fileValue)
        .conflicts('value'),
    )
    .option(
      '--key <template>',
      'record key (same placeholders); keyed records go to partitions as Kafka places them, others round-robin',
      templateOption,
    )
    .option(
      '--header <name=value>',
      'add a header (repeatable; same placeholders in the value)',
      headerOption,
      [],
    )
    .option(
      '--self-managed',
      'a self-managed Kafka event (eventSource "SelfManagedKafka") instead of Amazon MSK',
    )
    .option('--value-avro <file.avsc>', 'encode each --value (JSON) with this Avro schema', schemaFile)
    .option(
      '--value-proto <file.proto>',
      'encode each --value (JSON) as a Protobuf message (with --type)',
      schemaFile,
    )
    .option('--type <message>', 'the Protobuf message type of --value-proto, e.g. shop.Order')
    .option(
      '--proto-path <dir>',
      "a folder --value-proto's imports are looked for in, after the importing file's own (repeatable; protoc's -I; default: the working directory)",
      repeated,
      [],
    )
    .option(
      '--value-json-schema <file.json>',
      'check each --value (JSON) against this JSON Schema',
      schemaFile,
    )
    .addOption(
      new Option(
        '--format <wire>',
        "with a schema: json or source (the trigger's EventRecordFormat, with valueSchemaMetadata), confluent or glue (no registry on the trigger: the producer's framing)",
      )
        .choices(['json', 'source', 'confluent', 'glue'])
        .default('confluent'),
    )
    .option(
      '--schema-id <id>',
      'with a schema: the writer schema id (Confluent: a number, default 1; Glue: a UUID)',
    )
    .option('--start-offset <n>', 'offset of the first record of each partition', integerOption(0), 0)
    .option(
      '--timestamp <time>',
      'timestamp of the first record: ISO 8601 (no zone is UTC) or epoch milliseconds (default: now)',
      recordTime,
    )
    .option('--event-source-arn <arn>', "the MSK cluster's ARN (default: a sample one)", clusterArn)
    .option(
      '--bootstrap-servers <list>',
      'the brokers, host:port[,host:port…] (default: sample MSK or self-managed ones)',
    )
    .addHelpText(
      'after',
      `
Example:
  $ kafka-lambda event --topic order-events --partitions 3 --count 6 \\
      --key 'customer-{i%4}' --value '{"orderId":"o-{i}","items":[{"sku":"tea","quantity":1}]}' > event.json

Values with a schema are JSON: Avro bytes, fixed and decimal values as base64 text (a decimal's unscaled
two's-complement integer), as the emulator prints them; Protobuf in proto3's JSON mapping (field names as
in the .proto or lowerCamelCase, 64-bit integers as numbers or strings, bytes as base64, a Timestamp as
RFC 3339 text or {"seconds","nanos"}, a Duration as "1.5s"). A .proto file's imports are read from its own
folder, then from the --proto-path folders (as protoc's -I; without one, the working directory);
google/protobuf/*.proto are the well-known types protobufjs ships; Google's common types
(google/type/*.proto), which protobufjs does not ship, come from a --proto-path folder. An Avro long beyond
2^53 - 1 keeps the digits written in the JSON.

Exit codes:
  0  the event is printed (above Lambda's 6 MB payload limit: with a warning on stderr)
  2  invalid flags or input: an unreadable file, a schema that does not compile (or whose library,
     avsc, protobufjs or ajv, is not installed), a value that does not fit the schema`,
    )
    .exitOverride(exitWithUsageCode)
    .action(async (options: EventOptions, command: Command) => {
      // Options of the schema encoding mean nothing without a schema: refused rather than ignored.
      const given = (name: string) => !['default', undefined].includes(command.getOptionValueSource(name));
      const needing = [
        ['format', '--format', options.valueAvro ?? options.valueProto ?? options.valueJsonSchema],
        ['schemaId', '--schema-id', options.valueAvro ?? options.valueProto ?? options.valueJsonSchema],
        ['type', '--type', options.valueProto],
        ['protoPath', '--proto-path', options.valueProto],
      ] as const;
      for (const [name, flag, schema] of needing) {
        if (given(name) && schema === undefined) {
          console.error(
            `error: ${flag} needs ${name === 'type' ? '--value-proto (it names its message type)' : name === 'protoPath' ? "--value-proto (it is where the .proto file's imports are)" : 'a schema: --value-avro, --value-proto or --value-json-schema'}`,
          );
          process.exitCode = USAGE_EXIT_CODE;
          return;
        }
      }
      const serversProblem =
        options.bootstrapServers === undefined
          ? undefined
          : bootstrapServersProblem(options.bootstrapServers);
      if (serversProblem) {
        console.error(`error: ${serversProblem}`);
        process.exitCode = USAGE_EXIT_CODE;
        return;
      }
      let encoder: Awaited<ReturnType<typeof valueEncoder>>;
      try {
        encoder = await valueEncoder(options);
      } catch (error) {
        if (!isSchemaEncodeError(error)) throw error;
        // A schema that does not compile is named with where and what, never quoted (schemaEncoder).
        console.error(`error: ${error.message}`);
        process.exitCode = USAGE_EXIT_CODE;
        return;
      }
      const valueAt =
        options.valueFile ?? ((index: number) => expandTemplate(options.value ?? '{"index":{i}}', index));
      let event: ReturnType<typeof kafkaEvent>;
      try {
        const records = Array.from({ length: options.count }, (_, i): KafkaRecordInput => {
          const raw = valueAt(i);
          const encoded = encoder?.(typeof raw === 'string' ? raw : Buffer.from(raw).toString('utf8'));
          return {
            value: encoded ? encoded.bytes : raw,
            ...(encoded?.schemaMetadata ? { valueSchemaMetadata: encoded.schemaMetadata } : {}),
            ...(options.key === undefined ? {} : { key: expandTemplate(options.key, i) }),
            headers: options.header.map(([name, value]) => [name, expandTemplate(value, i)] as const),
          };
        });
        event = kafkaEvent({
          topic: options.topic,
          partitions: options.partitions,
          startOffset: options.startOffset,
          timestamp: options.timestamp,
          eventSource: options.selfManaged ? 'SelfManagedKafka' : 'aws:kafka',
          ...(options.eventSourceArn === undefined ? {} : { eventSourceArn: options.eventSourceArn }),
          ...(options.bootstrapServers === undefined ? {} : { bootstrapServers: options.bootstrapServers }),
          records,
        });
      } catch (error) {
        if (!(error instanceof InvalidEventInputError) && !isSchemaEncodeError(error)) throw error;
        console.error(`error: ${error.message}`);
        process.exitCode = USAGE_EXIT_CODE;
        return;
      }
      // Lambda's limit applies to the payload as sent (compact JSON), not to the pretty print below.
      const size = Buffer.byteLength(JSON.stringify(event));
      if (size > LAMBDA_LIMITS.payloadBytes) {
        console.error(
          `warning: the event is ${(size / 1024 / 1024).toFixed(1)} MB; Lambda never sends more than 6 MB in one invocation`,
        );
      }
      // Header bytes on one line each; nothing else in an event holds a bracket or a bare number list.
      const pretty = JSON.stringify(event, null, 2).replace(
        /\[\n\s+(-?\d+(?:,\n\s+-?\d+)*)\n\s+\]/g,
        (_, bytes: string) => `[${bytes.split(/,\n\s+/).join(', ')}]`,
      );
      process.stdout.write(`${pretty}\n`);
    });
}
