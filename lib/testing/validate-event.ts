import * as v from 'valibot';
import { LAMBDA_LIMITS } from '../kafka-event/limits.ts';
import { type EventIssue, parseKafkaEvent } from '../kafka-event/parse.ts';
import { isBase64, readPosition, usesUrlSafeAlphabet } from '../kafka-event/rules.ts';
import type { KafkaEvent } from '../kafka-event/types.ts';
import { partitionKey } from '../kafka-event/types.ts';
import { KafkaTestingError } from './errors.ts';

export type { EventIssue } from '../kafka-event/parse.ts';

/**
 * The value is not a Kafka event as Lambda sends it; `issues` lists every problem found.
 *
 * @example
 * ```ts
 * try { validateKafkaEvent(json); } catch (e) { if (e instanceof InvalidKafkaEventError) console.error(e.issues); }
 * ```
 */
export class InvalidKafkaEventError extends KafkaTestingError {
  /** Always `'InvalidKafkaEventError'`. */
  override readonly name: string = 'InvalidKafkaEventError';
  /** Every problem found, each with its path in the event; the message shows the first five. */
  readonly issues: readonly EventIssue[];
  /** @param issues - The problems found (at least one). */
  constructor(issues: readonly EventIssue[]) {
    const shown = issues.slice(0, 5).map((issue) => `${issue.path || '(event)'}: ${issue.message}`);
    if (issues.length > shown.length) shown.push(`…and ${issues.length - shown.length} more`);
    super(`not a valid Kafka event: ${shown.join('; ')}`);
    this.issues = issues;
  }
}

/**
 * Options of {@link validateKafkaEvent}.
 *
 * @example
 * ```ts
 * validateKafkaEvent(capturedEvent, { allowKeyMismatch: true });
 * ```
 */
export interface ValidateEventOptions {
  /**
   * Accept a `records` key that differs from its records' `<topic>-<partition>` (public fixtures show
   * such events; Lambda is not known to send them, yet handlers must build identifiers from the record).
   */
  allowKeyMismatch?: boolean | undefined;
  /**
   * What passes:
   * - `'lambda'` (default): an event exactly as Lambda sends it; anything else is an issue, but for
   *   what public sample events commonly do (a repeated offset, the `aws:SelfManagedKafka` spelling,
   *   the URL-safe base64 alphabet), which are warnings;
   * - `'middleware'`: every event `kafkaBatch` accepts (the same rules: it throws `KafkaEventError`
   *   exactly for the events refused here); what Lambda would not send, such as a record whose value is
   *   not base64 (reported for retry by `kafkaBatch`) or a digit-string offset, becomes a warning.
   *   `kafka-lambda invoke` checks its event this way.
   */
  accept?: 'lambda' | 'middleware' | undefined;
  /**
   * Receives each warning: what any event may do though Lambda never does it (a partition repeating an
   * offset, as public sample events do; a payload above Lambda's 6 MB limit), and under
   * `accept: 'middleware'` what Lambda would not send. Default: `console.warn`.
   */
  onWarning?: ((warning: EventIssue) => void) | undefined;
}

const TOPIC = /^(?!\.{1,2}$)[a-zA-Z0-9._-]{1,249}$/;
const SERVERS = /^[^,\s]+:\d{1,5}(?:,[^,\s]+:\d{1,5})*$/;

// Every schema and action below has a message of its own: valibot's default messages quote the value
// received ('Expected number but received "…"': a key's or a header's bytes), which would reach
// InvalidKafkaEventError's message and invoke's warnings; and a schema's own message wins over those an
// app may set globally (@valibot/i18n), https://valibot.dev/guides/internationalization/.
const notAField = 'is not a field Lambda sends';
/**
 * A strict object's message: a key it does not declare, a key it requires that is absent (valibot
 * reports both on the object's schema, the path naming the key), or its type.
 */
const objectOf = (what: string) => (issue: v.StrictObjectIssue) => {
  if (issue.expected === 'never') return notAField;
  if (issue.received === 'undefined' && issue.expected.startsWith('"'))
    return 'is missing: Lambda always sends it';
  return `must be ${what}`;
};

const base64 = v.nullish(
  v.pipe(v.string('must be a base64 string'), v.check(isBase64, 'must be base64 (with padding)')),
);
// Whether a partition or offset is usable at all is parseKafkaEvent's rule; here only what Lambda sends.
const position = v.number('must be a number, as Lambda sends it (kafkaBatch also accepts a digit string)');
const signedByte = v.pipe(
  v.number('must be a signed byte (−128..127)'),
  v.integer('must be an integer'),
  v.minValue(-128, 'must be a signed byte (−128..127)'),
  v.maxValue(127, 'must be a signed byte (−128..127)'),
);
const header = v.pipe(
  v.record(
    v.string('a header name must be a string'),
    v.array(signedByte, 'a header value must be an array of signed bytes'),
    'a header must be an object with exactly one key',
  ),
  v.check((entry) => Object.keys(entry).length === 1, 'a header must be an object with exactly one key'),
);
const schemaMetadata = v.strictObject(
  {
    dataFormat: v.pipe(v.string('must be a string'), v.nonEmpty('must not be empty')),
    schemaId: v.optional(v.string('must be a string')),
  },
  objectOf('an object with dataFormat and an optional schemaId'),
);
const record = v.strictObject(
  {
    topic: v.pipe(
      v.string('must be a Kafka topic name'),
      v.regex(TOPIC, 'must be a Kafka topic name (1–249 of a-z A-Z 0-9 . _ -)'),
    ),
    partition: position,
    offset: position,
    timestamp: v.pipe(v.number('must be epoch milliseconds'), v.safeInteger('must be epoch milliseconds')),
    timestampType: v.picklist(
      ['CREATE_TIME', 'LOG_APPEND_TIME', 'NO_TIMESTAMP_TYPE'],
      'must be CREATE_TIME, LOG_APPEND_TIME or NO_TIMESTAMP_TYPE',
    ),
    key: v.optional(base64),
    value: v.optional(base64),
    headers: v.optional(v.array(header, 'must be an array of headers')),
    keySchemaMetadata: v.optional(schemaMetadata),
    valueSchemaMetadata: v.optional(schemaMetadata),
  },
  objectOf('a record object'),
);
const records = v.record(
  v.string('a records key must be a string'),
  v.pipe(
    v.array(record, 'a partition entry must be an array of records'),
    v.nonEmpty('a partition entry must hold at least one record'),
  ),
  'must be an object keyed by "<topic>-<partition>"',
);
const bootstrapServers = v.pipe(
  v.string('must be a comma-separated host:port list'),
  v.regex(SERVERS, 'must be a comma-separated host:port list'),
);
const eventSchema = v.variant(
  'eventSource',
  [
    v.strictObject(
      {
        eventSource: v.literal('aws:kafka', 'must be "aws:kafka"'),
        eventSourceArn: v.pipe(
          v.string('must be an MSK ARN'),
          v.regex(/^arn:aws[a-z-]*:kafka:/, 'must be an MSK ARN'),
        ),
        bootstrapServers,
        records,
      },
      objectOf('an object'),
    ),
    v.strictObject(
      {
        eventSource: v.picklist(
          ['SelfManagedKafka', 'aws:SelfManagedKafka'],
          'must be "SelfManagedKafka" or "aws:SelfManagedKafka"',
        ),
        bootstrapServers,
        records,
      },
      objectOf('an object'),
    ),
  ],
  'eventSource must be "aws:kafka", "SelfManagedKafka" or "aws:SelfManagedKafka"',
);

/**
 * Checks that a value is a Kafka event and returns it typed. By default it must be exactly as Lambda
 * sends it: the fields and their types, base64 keys and values, signed-byte headers, each `records`
 * key equal to its records' `<topic>-<partition>`, offsets ascending within a partition. With
 * `accept: 'middleware'` it must be what `kafkaBatch` accepts, by the same rules
 * (`lib/kafka-event/parse.ts`). Either way a partition may repeat an offset (public sample events do):
 * that, a key or value in the URL-safe base64 alphabet (decoded all the same) and an event above
 * Lambda's 6 MB payload limit are warnings. Use it on hand-written fixtures and captured events.
 *
 * @example
 * ```ts
 * const event = validateKafkaEvent(JSON.parse(await readFile('test/events/msk-order-events.json', 'utf8')));
 * ```
 * @throws InvalidKafkaEventError listing every problem with its path.
 */
export function validateKafkaEvent(value: unknown, options: ValidateEventOptions = {}): KafkaEvent {
  const errors: EventIssue[] = [];
  // validateKafkaEvent's paths start at the event itself: '' is the event (parseKafkaEvent's 'event').
  const parsed = parseKafkaEvent(value, (issue) =>
    errors.push(issue.path === 'event' ? { ...issue, path: '' } : issue),
  );
  const deviations: EventIssue[] = [];
  const warnings: EventIssue[] = [];
  // An event that is not an object, or has no records object, has nothing more to check.
  if (!errors.some((error) => error.path === '' || error.path === 'records')) {
    const result = v.safeParse(eventSchema, value);
    if (!result.success) {
      for (const issue of result.issues) {
        const path = formatPath(issue.path);
        // Each problem once: parseKafkaEvent's message already says what is wrong with this field.
        if (!errors.some((error) => path === error.path || path.startsWith(`${error.path}.`)))
          deviations.push({ path, message: issue.message });
      }
    }
    deviations.push(...partitionIssues(value as KafkaEvent, options));
  }
  for (const warning of parsed.warnings) {
    // Offsets going down are a deviation, listed per record by partitionIssues.
    if (warning.kind === 'repeatedOffset' || options.accept === 'middleware')
      warnings.push({ path: warning.path, message: warning.message });
  }
  if (errors.length === 0) warnings.push(...urlSafeWarnings(value as KafkaEvent));
  // Lambda's guide shows "SelfManagedKafka" (https://docs.aws.amazon.com/lambda/latest/dg/with-kafka.html);
  // the prefixed spelling comes from community samples: accepted, as kafkaBatch accepts it, but noted.
  if ((value as { eventSource?: unknown } | null)?.eventSource === 'aws:SelfManagedKafka')
    warnings.push({
      path: 'eventSource',
      message: 'is "aws:SelfManagedKafka", a spelling of community samples: Lambda sends "SelfManagedKafka"',
    });
  const size = errors.length === 0 ? Buffer.byteLength(JSON.stringify(value)) : 0;
  if (size > LAMBDA_LIMITS.payloadBytes)
    warnings.push({
      path: '',
      message: `the event is ${(size / 2 ** 20).toFixed(1)} MB of JSON, above Lambda's 6 MB payload limit: Lambda never sends a batch this large`,
    });
  const issues = options.accept === 'middleware' ? errors : [...errors, ...deviations];
  if (issues.length > 0) throw new InvalidKafkaEventError(issues);
  const onWarning =
    options.onWarning ??
    ((warning: EventIssue) => console.warn(`warning: ${warning.path || '(event)'}: ${warning.message}`));
  // A deviation's message says what Lambda sends ("must be …"); as a warning it also says it was accepted.
  const accepted = (deviation: EventIssue): EventIssue => ({
    path: deviation.path,
    message: `${deviation.message}, as Lambda sends it; kafkaBatch reads this one all the same`,
  });
  for (const warning of options.accept === 'middleware'
    ? [...deviations.map(accepted), ...warnings]
    : warnings)
    onWarning(warning);
  // The input itself, not a copy: callers keep identity and a large event is not duplicated.
  return value as KafkaEvent;
}

function partitionIssues(event: KafkaEvent, options: ValidateEventOptions): EventIssue[] {
  const issues: EventIssue[] = [];
  const lastOffset = new Map<string, number>();
  for (const [mapKey, partitionRecords] of Object.entries(event.records)) {
    if (!Array.isArray(partitionRecords) || partitionRecords.length === 0) continue;
    const first = partitionRecords[0];
    const firstPartition = readPosition(first?.partition);
    if (typeof first?.topic !== 'string' || firstPartition === undefined) continue; // an error already
    const actual = partitionKey(first.topic, firstPartition);
    if (actual !== mapKey && !options.allowKeyMismatch) {
      issues.push({
        path: `records[${JSON.stringify(mapKey)}]`,
        message: `key does not match its records' topic and partition (${JSON.stringify(actual)})`,
      });
    }
    partitionRecords.forEach((entry, index) => {
      const offset = readPosition(entry?.offset);
      const partition = readPosition(entry?.partition);
      if (offset === undefined || partition === undefined || typeof entry.topic !== 'string') return; // an error already
      const path = `records[${JSON.stringify(mapKey)}][${index}]`;
      const own = partitionKey(entry.topic, partition);
      if (own !== actual) {
        issues.push({ path, message: `is ${own}, but the first record of this entry is ${actual}` });
      }
      const previous = lastOffset.get(own);
      if (previous !== undefined && offset < previous) {
        issues.push({
          path: `${path}.offset`,
          message: `${offset} is below the previous offset of ${own} (${previous})`,
        });
      }
      lastOffset.set(own, Math.max(offset, previous ?? -1));
    });
  }
  return issues;
}

/** Keys and values in the URL-safe base64 alphabet: kafkaBatch decodes them, but Lambda writes the standard one. */
function urlSafeWarnings(event: KafkaEvent): EventIssue[] {
  const warnings: EventIssue[] = [];
  for (const [mapKey, partitionRecords] of Object.entries(event.records)) {
    if (!Array.isArray(partitionRecords)) continue;
    partitionRecords.forEach((entry, index) => {
      for (const field of ['key', 'value'] as const) {
        const text: unknown = entry?.[field];
        if (typeof text === 'string' && isBase64(text) && usesUrlSafeAlphabet(text))
          warnings.push({
            path: `records[${JSON.stringify(mapKey)}][${index}].${field}`,
            message:
              'is base64 in the URL-safe alphabet (- and _): Lambda writes the standard one (+ and /); kafkaBatch decodes both',
          });
      }
    });
  }
  return warnings;
}

/** `records["orders-0"][2].offset`: a `records` key is always quoted, as the event checks write it. */
function formatPath(path: readonly { key: unknown }[] | undefined): string {
  let out = '';
  for (const { key } of path ?? []) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (typeof key === 'string' && out !== 'records' && /^[A-Za-z_$][\w$]*$/.test(key))
      out += out ? `.${key}` : key;
    else out += `[${JSON.stringify(key)}]`;
  }
  return out;
}
