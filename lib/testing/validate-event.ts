import * as v from 'valibot';
import type { KafkaEvent } from '../kafka-event/types.ts';
import { partitionKey } from '../kafka-event/types.ts';

/**
 * One problem found by {@link validateKafkaEvent}: where and what.
 *
 * @example
 * ```ts
 * const issue: EventIssue = { path: 'records["orders-0"][2].offset', message: 'must be ≥ 0' };
 * ```
 */
export interface EventIssue {
  path: string;
  message: string;
}

/**
 * The value is not a Kafka event as Lambda sends it; `issues` lists every problem found.
 *
 * @example
 * ```ts
 * try { validateKafkaEvent(json); } catch (e) { if (e instanceof InvalidKafkaEventError) console.error(e.issues); }
 * ```
 */
export class InvalidKafkaEventError extends Error {
  override readonly name = 'InvalidKafkaEventError';
  readonly issues: readonly EventIssue[];
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
  allowKeyMismatch?: boolean;
}

// Canonical base64 with padding, as Lambda writes keys and values.
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const TOPIC = /^(?!\.{1,2}$)[a-zA-Z0-9._-]{1,249}$/;
const SERVERS = /^[^,\s]+:\d{1,5}(?:,[^,\s]+:\d{1,5})*$/;

const base64 = v.nullish(v.pipe(v.string(), v.regex(BASE64, 'must be base64 (with padding)')));
const signedByte = v.pipe(
  v.number(),
  v.integer('must be an integer'),
  v.minValue(-128, 'must be a signed byte (−128..127)'),
  v.maxValue(127, 'must be a signed byte (−128..127)'),
);
const header = v.pipe(
  v.record(v.string(), v.array(signedByte, 'a header value must be an array of signed bytes')),
  v.check((entry) => Object.keys(entry).length === 1, 'a header must be an object with exactly one key'),
);
const schemaMetadata = v.strictObject({
  dataFormat: v.pipe(v.string(), v.nonEmpty('must not be empty')),
  schemaId: v.optional(v.string()),
});
const record = v.strictObject({
  topic: v.pipe(v.string(), v.regex(TOPIC, 'must be a Kafka topic name (1–249 of a-z A-Z 0-9 . _ -)')),
  partition: v.pipe(v.number(), v.safeInteger('must be an integer'), v.minValue(0, 'must be ≥ 0')),
  offset: v.pipe(v.number(), v.safeInteger('must be an integer'), v.minValue(0, 'must be ≥ 0')),
  timestamp: v.pipe(v.number(), v.safeInteger('must be epoch milliseconds')),
  timestampType: v.picklist(['CREATE_TIME', 'LOG_APPEND_TIME', 'NO_TIMESTAMP_TYPE']),
  key: v.optional(base64),
  value: v.optional(base64),
  headers: v.optional(v.array(header)),
  keySchemaMetadata: v.optional(schemaMetadata),
  valueSchemaMetadata: v.optional(schemaMetadata),
});
const records = v.record(
  v.string(),
  v.pipe(v.array(record), v.nonEmpty('a partition entry must hold at least one record')),
);
const bootstrapServers = v.pipe(v.string(), v.regex(SERVERS, 'must be a comma-separated host:port list'));
const eventSchema = v.variant(
  'eventSource',
  [
    v.strictObject({
      eventSource: v.literal('aws:kafka'),
      eventSourceArn: v.pipe(v.string(), v.regex(/^arn:aws[a-z-]*:kafka:/, 'must be an MSK ARN')),
      bootstrapServers,
      records,
    }),
    v.strictObject({
      eventSource: v.picklist(['SelfManagedKafka', 'aws:SelfManagedKafka']),
      bootstrapServers,
      records,
    }),
  ],
  'eventSource must be "aws:kafka", "SelfManagedKafka" or "aws:SelfManagedKafka"',
);

/**
 * Checks that a value is a Kafka event exactly as Lambda sends it, and returns it typed: the fields
 * and their types, base64 keys and values, signed-byte headers, each `records` key equal to its
 * records' `<topic>-<partition>`, offsets ascending within a partition. Use it on hand-written
 * fixtures and captured events.
 *
 * @example
 * ```ts
 * const event = validateKafkaEvent(JSON.parse(await readFile('test/events/msk-order-events.json', 'utf8')));
 * ```
 * @throws InvalidKafkaEventError listing every problem with its path.
 */
export function validateKafkaEvent(value: unknown, options: ValidateEventOptions = {}): KafkaEvent {
  const result = v.safeParse(eventSchema, value);
  if (!result.success) {
    throw new InvalidKafkaEventError(
      result.issues.map((issue) => ({ path: formatPath(issue.path), message: issue.message })),
    );
  }
  // The input itself, not valibot's copy: callers keep identity and a large event is not duplicated.
  const event = value as KafkaEvent;
  const issues = partitionIssues(event, options);
  if (issues.length > 0) throw new InvalidKafkaEventError(issues);
  return event;
}

function partitionIssues(event: KafkaEvent, options: ValidateEventOptions): EventIssue[] {
  const issues: EventIssue[] = [];
  const lastOffset = new Map<string, number>();
  for (const [mapKey, run] of Object.entries(event.records)) {
    const first = run[0]!;
    const actual = partitionKey(first.topic, first.partition);
    if (actual !== mapKey && !options.allowKeyMismatch) {
      issues.push({
        path: `records[${JSON.stringify(mapKey)}]`,
        message: `key does not match its records' topic and partition (${JSON.stringify(actual)})`,
      });
    }
    run.forEach((entry, index) => {
      const path = `records[${JSON.stringify(mapKey)}][${index}]`;
      const own = partitionKey(entry.topic, entry.partition);
      if (own !== actual) {
        issues.push({ path, message: `is ${own}, but the first record of this entry is ${actual}` });
      }
      const previous = lastOffset.get(own);
      if (previous !== undefined && entry.offset <= previous) {
        issues.push({
          path: `${path}.offset`,
          message: `${entry.offset} is not above the previous offset of ${own} (${previous})`,
        });
      }
      lastOffset.set(own, Math.max(entry.offset, previous ?? -1));
    });
  }
  return issues;
}

function formatPath(path: readonly { key: unknown }[] | undefined): string {
  let out = '';
  for (const { key } of path ?? []) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (typeof key === 'string' && /^[A-Za-z_$][\w$]*$/.test(key)) out += out ? `.${key}` : key;
    else out += `[${JSON.stringify(key)}]`;
  }
  return out;
}
