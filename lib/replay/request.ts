import * as v from 'valibot';
import { findControlCharacter } from '../text/control-characters.ts';
import { ReplayInputError } from './errors.ts';
import { listSome } from './list.ts';
import {
  MAX_PLAN_ENTRIES,
  MAX_TOPIC_LENGTH,
  parseDuration,
  parsePlanFile,
  parseTimestamp,
} from './targets.ts';
import type { ReplayTarget } from './types.ts';

const offset = v.pipe(
  v.number(),
  v.integer('must be an integer'),
  v.minValue(0, 'must not be negative'),
  v.maxValue(Number.MAX_SAFE_INTEGER, 'must be at most 2^53 − 1'),
);
const name = (max: number) => v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(max));
/** A check that `parse` accepts the text; its issue is the parser's own message (what is wrong, where). */
const parsed = <T extends string | number>(parse: (input: T) => unknown, fallback: string) =>
  v.check(
    (input: T) => problem(parse, input) === undefined,
    (issue: v.CheckIssue<T>) => problem(parse, issue.input as T) ?? fallback,
  );
function problem<T>(parse: (input: T) => unknown, input: T): string | undefined {
  try {
    parse(input);
    return undefined;
  } catch (error) {
    return error instanceof ReplayInputError ? error.message : undefined;
  }
}

/**
 * Why a reason is refused: the control character it has (escape codes, newlines, carriage returns would
 * recolour or rewrite operators' terminals where the audit trail is shown), and where.
 */
export function controlCharacterIssue(reason: string): string {
  const found = findControlCharacter(reason);
  return `must not contain control characters (found ${found?.codePoint} at character ${(found?.index ?? 0) + 1}): it is shown in terminals; accents and emoji are fine`;
}

/** Largest plan file content accepted: room for the most entries a plan may have, on long lines. */
const MAX_PLAN_FILE_CHARS = 4_000_000;

/**
 * The target fields of a request; exactly one must be present.
 *
 * @example
 * ```ts
 * const given = TARGET_FIELDS.filter((field) => request[field] !== undefined); // ['toEarliest']
 * ```
 */
export const TARGET_FIELDS = [
  'toOffset',
  'toOffsets',
  'toDatetime',
  'byDuration',
  'toEarliest',
  'toLatest',
  'toCurrent',
  'shiftBy',
  'fromFile',
] as const;

/**
 * A replay request as JSON, field for field the flags of `kafka-lambda replay` (and of
 * `kafka-consumer-groups --reset-offsets`): the replay function's input and what `--function` sends.
 * Exactly one target field; `execute: true` applies it (dry run otherwise).
 *
 * @example
 * ```ts
 * const request = v.parse(ReplayRequestSchema, { mapping: '14e0db71-…', toDatetime: '2026-11-29T10:00:00Z', execute: true, reason: 'INC-42' });
 * ```
 */
export const ReplayRequestSchema = v.pipe(
  v.strictObject({
    /** Event source mapping UUID (the group and topic are the mapping's). */
    mapping: v.optional(name(64)),
    /** Consumer group id, for a replay without a mapping (or to confirm the mapping's). */
    group: v.optional(name(255)),
    topic: v.optional(name(MAX_TOPIC_LENGTH)),
    partitions: v.optional(
      v.pipe(
        v.array(offset),
        v.minLength(1, 'must name at least one partition'),
        v.maxLength(MAX_PLAN_ENTRIES, `must name at most ${MAX_PLAN_ENTRIES} partitions`),
      ),
    ),
    toOffset: v.optional(offset),
    toOffsets: v.optional(
      v.pipe(
        v.array(v.strictObject({ partition: offset, offset })),
        v.minLength(1, 'must give at least one offset'),
        v.maxLength(MAX_PLAN_ENTRIES, `must give at most ${MAX_PLAN_ENTRIES} offsets`),
      ),
    ),
    toDatetime: v.optional(
      v.union([
        v.pipe(
          v.string(),
          parsed<string>(
            parseTimestamp,
            'must be ISO 8601 (2026-11-29T10:00:00Z; no zone is UTC) or epoch ms',
          ),
        ),
        v.pipe(offset, parsed<number>(parseTimestamp, 'must be epoch milliseconds')),
      ]),
    ),
    byDuration: v.optional(
      v.pipe(v.string(), parsed<string>(parseDuration, 'must be an ISO 8601 duration like PT1H30M or P1D')),
    ),
    toEarliest: v.optional(v.literal(true)),
    toLatest: v.optional(v.literal(true)),
    toCurrent: v.optional(v.literal(true)),
    shiftBy: v.optional(
      v.pipe(
        v.number(),
        v.integer('must be an integer'),
        v.minValue(-Number.MAX_SAFE_INTEGER, 'must be within ±(2^53 − 1)'),
        v.maxValue(Number.MAX_SAFE_INTEGER, 'must be within ±(2^53 − 1)'),
      ),
    ),
    /** Plan file content: `topic,partition,offset` lines, as `kafka-consumer-groups --export` writes. */
    fromFile: v.optional(
      v.pipe(
        v.string(),
        v.maxLength(MAX_PLAN_FILE_CHARS, `must be at most ${MAX_PLAN_FILE_CHARS} characters`),
        parsed(parsePlanFile, 'must be topic,partition,offset lines'),
      ),
    ),
    execute: v.optional(v.boolean(), false),
    strict: v.optional(v.boolean(), false),
    /** Stored in the audit metadata and shown in operators' terminals: no control characters. */
    reason: v.optional(
      v.pipe(
        v.string(),
        v.maxLength(500),
        v.check(
          (reason) => findControlCharacter(reason) === undefined,
          (issue) => controlCharacterIssue(issue.input as string),
        ),
      ),
    ),
  }),
  v.check(
    (r) => TARGET_FIELDS.filter((field) => r[field] !== undefined).length === 1,
    `give exactly one target: ${TARGET_FIELDS.join(', ')}`,
  ),
);

/**
 * A validated replay request.
 *
 * @example
 * ```ts
 * const request: ReplayRequest = parseReplayRequest({ group: 'g', topic: 'orders', toEarliest: true });
 * ```
 */
export type ReplayRequest = v.InferOutput<typeof ReplayRequestSchema>;

/**
 * The request did not validate; `issues` has one line per problem, each naming its field.
 *
 * @example
 * ```ts
 * catch (e) { if (e instanceof ReplayRequestError) for (const issue of e.issues) console.error(issue); }
 * ```
 */
export class ReplayRequestError extends ReplayInputError {
  /** Always `'ReplayRequestError'`. */
  override name = 'ReplayRequestError';
  /** One line per problem, each naming its field, e.g. `toOffset: must not be negative`. */
  readonly issues: string[];
  /** @param issues - One line per problem, each naming its field. */
  constructor(issues: string[]) {
    super(`invalid replay request: ${issues.join('; ')}`);
    this.issues = issues;
  }
}

/**
 * Validates a replay request (unknown fields, types, ranges, exactly one target).
 *
 * @throws {ReplayRequestError}
 * @example
 * ```ts
 * parseReplayRequest({ group: 'g', topic: 'orders', toOffset: -1 }); // throws: "toOffset: must not be negative"
 * ```
 */
export function parseReplayRequest(input: unknown): ReplayRequest {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    const got = input === null ? 'null' : Array.isArray(input) ? 'an array' : `a ${typeof input}`;
    throw new ReplayRequestError([`the request must be a JSON object (got ${got})`]);
  }
  const result = v.safeParse(ReplayRequestSchema, input);
  if (result.success) return result.output;
  throw new ReplayRequestError(
    result.issues.map((issue) => {
      const path = v.getDotPath(issue);
      const message =
        issue.type === 'strict_object' && issue.input !== undefined
          ? 'unknown field'
          : issue.kind === 'schema' && issue.received === 'undefined'
            ? 'is required'
            : issue.message;
      return path ? `${path}: ${message}` : message;
    }),
  );
}

/**
 * The topic a request names: its `topic`, or else the one topic of its plan file (a plan file naming
 * several topics is refused: a replay moves one topic's offsets).
 *
 * @throws {ReplayInputError}
 * @example
 * ```ts
 * requestTopic(parseReplayRequest({ group: 'g', fromFile: 'orders,0,5' })); // 'orders'
 * ```
 */
export function requestTopic(request: ReplayRequest): string | undefined {
  if (request.topic !== undefined || request.fromFile === undefined) return request.topic;
  const topics = [...new Set(parsePlanFile(request.fromFile).map((e) => e.topic))];
  if (topics.length > 1) {
    throw new ReplayInputError(
      `plan file names ${topics.length} topics (${listSome(topics)}): a replay moves one topic's offsets; split the file, or give the topic to use`,
    );
  }
  return topics[0];
}

/**
 * Turns a request's target fields into the core's target (and partition subset) for `topic`; a plan
 * file's lines must all be for that topic.
 *
 * @throws {ReplayInputError}
 * @example
 * ```ts
 * requestTarget(parseReplayRequest({ group: 'g', topic: 'orders', shiftBy: -100 }), 'orders'); // { target: { kind: 'shift', by: -100 } }
 * ```
 */
export function requestTarget(
  request: ReplayRequest,
  topic: string,
): { target: ReplayTarget; partitions?: number[] } {
  const partitions = request.partitions ? { partitions: request.partitions } : {};
  if (request.toOffset !== undefined)
    return { target: { kind: 'offset', offset: request.toOffset }, ...partitions };
  if (request.toOffsets) return { target: { kind: 'offsets', offsets: request.toOffsets }, ...partitions };
  if (request.toDatetime !== undefined)
    return { target: { kind: 'timestamp', timestamp: request.toDatetime }, ...partitions };
  if (request.byDuration !== undefined)
    return { target: { kind: 'duration', duration: request.byDuration }, ...partitions };
  if (request.toEarliest) return { target: { kind: 'earliest' }, ...partitions };
  if (request.toLatest) return { target: { kind: 'latest' }, ...partitions };
  if (request.toCurrent) return { target: { kind: 'current' }, ...partitions };
  if (request.shiftBy !== undefined) return { target: { kind: 'shift', by: request.shiftBy }, ...partitions };
  const entries = parsePlanFile(request.fromFile ?? '');
  const others = [...new Set(entries.filter((e) => e.topic !== topic).map((e) => e.topic))];
  if (others.length > 0) {
    throw new ReplayInputError(
      `plan file names topic(s) ${listSome(others)}; this replay is for "${topic}" only`,
    );
  }
  return {
    target: { kind: 'offsets', offsets: entries.map(({ partition, offset }) => ({ partition, offset })) },
    ...partitions,
  };
}
