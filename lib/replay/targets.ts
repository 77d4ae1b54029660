import { ReplayInputError } from './errors.ts';

/**
 * Kafka's longest topic name (`--topic` and plan-file topics alike).
 *
 * @example
 * ```ts
 * if (topic.length > MAX_TOPIC_LENGTH) throw new ReplayInputError('topic name too long');
 * ```
 */
export const MAX_TOPIC_LENGTH = 249;

/**
 * Most entries a plan file may hold: well above any topic's partition count, far below a plan whose
 * answer would not fit a Lambda response.
 *
 * @example
 * ```ts
 * parsePlanFile(text).length <= MAX_PLAN_ENTRIES; // always
 * ```
 */
export const MAX_PLAN_ENTRIES = 10_000;

/**
 * java.time's `Duration.parse` pattern (JDK 17, which Kafka's `--by-duration` calls): an optional sign,
 * then days, hours, minutes and seconds each with a sign of its own, a fraction of up to nine digits after
 * a dot or a comma (`PT1.S` included), case-insensitive. Groups: sign, days, T-part, hours, minutes,
 * seconds, fraction.
 */
const JAVA_DURATION =
  /^([-+]?)P(?:([-+]?\d+)D)?(T(?:([-+]?\d+)H)?(?:([-+]?\d+)M)?(?:([-+]?\d+)(?:[.,](\d{0,9}))?S)?)?$/i;

/**
 * Parses a duration: ISO 8601 as Kafka's `--by-duration` takes it (java.time's `Duration.parse`:
 * `PnDTnHnMn.nS`, e.g. `PT1H30M`, `P1D`, a leading `+`, a decimal comma, a sign on any part, so
 * `P1DT-1H` is 23 hours) or a number of milliseconds. A negative total (`-PT1H`: a time in the future,
 * which Kafka's tool plans to the log end) is refused and names `--to-latest`. A duration longer than
 * the time since the epoch is valid: its instant is then before the epoch and plans to the earliest
 * offset with a warning.
 *
 * @example
 * ```ts
 * parseDuration('PT1H30M'); // 5_400_000
 * ```
 */
export function parseDuration(duration: string | number): number {
  if (typeof duration === 'number') {
    if (!Number.isFinite(duration) || duration < 0) {
      throw new ReplayInputError(`duration must be a non-negative number of milliseconds, got ${duration}`);
    }
    return duration;
  }
  const match = JAVA_DURATION.exec(duration.trim());
  const [, sign, days, timePart, hours, minutes, seconds, fraction] = match ?? [];
  // As Duration.parse: a `T` needs a part after it, and a duration needs at least one part.
  if (
    !match ||
    (timePart !== undefined && (hours ?? minutes ?? seconds) === undefined) ||
    (days ?? timePart) === undefined
  ) {
    throw new ReplayInputError(
      `duration "${clip(duration)}" is not ISO 8601 like PT1H30M, P1DT12H or PT0.5S (days, hours, minutes, seconds)`,
    );
  }
  // The fraction takes the seconds' sign (`PT-0.5S` is half a second back), as Duration.parse does.
  const fractionMs = Number(`0.${fraction || '0'}`) * 1000 * (seconds?.startsWith('-') ? -1 : 1);
  const ms = Math.round(
    (((Number(days ?? 0) * 24 + Number(hours ?? 0)) * 60 + Number(minutes ?? 0)) * 60 +
      Number(seconds ?? 0)) *
      1000 +
      fractionMs,
  );
  if (!Number.isFinite(ms)) throw new ReplayInputError(`duration "${clip(duration)}" is too long to compute`);
  const total = sign === '-' ? -ms : ms;
  if (total < 0) {
    throw new ReplayInputError(
      `duration "${clip(duration)}" is negative: it names a time in the future; use --to-latest for the log end`,
    );
  }
  return total === 0 ? 0 : total;
}

// Zone: Z, ±HH, ±HHMM or ±HH:MM; none means UTC (below). Kafka 3.9's tool reads a ±HHMM zone by its
// hours alone (its fallback pattern `X`): +0530 is +05:00 there, +05:30 here, as ISO 8601 says.
const ISO_TIME =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:(Z)|([+-])(\d{2})(?::?(\d{2}))?)?$/i;

/** The largest time value a Date holds: https://tc39.es/ecma262/#sec-time-values-and-time-range */
const MAX_EPOCH_MS = 8.64e15;

/**
 * Parses a timestamp: ISO 8601 or epoch milliseconds. A time without a zone is UTC, as
 * `kafka-consumer-groups --to-datetime` reads it (its documented format is `YYYY-MM-DDTHH:mm:SS.sss`;
 * Kafka's `Utils.getDateTime` appends `Z` to a zone-less time), so a plan made on a laptop in any time
 * zone and one made in a Lambda function agree. Strict: a day the month does not have (`2026-02-30`),
 * hour 24, minute or second 60, an offset past ±18:00 (java.time's limit) are refused rather than
 * rolled over. A fraction is read as ISO 8601 says (`.1` is 100 ms; Kafka 3.9's tool reads it as 1 ms, so
 * give three digits, as its format does, for both to agree), to the millisecond. An instant
 * before the epoch (`0000-01-01T00:00:00Z`) is returned as is (negative); the plan clamps it to the
 * earliest offset with a warning.
 *
 * @example
 * ```ts
 * parseTimestamp('2026-11-29T10:00:00Z'); // 1795946400000
 * parseTimestamp('2026-11-29T10:00:00.000'); // the same instant: no zone is UTC
 * ```
 */
export function parseTimestamp(timestamp: string | number): number {
  if (typeof timestamp === 'number' || /^\d+$/.test(timestamp.trim())) {
    const ms = Number(timestamp);
    if (!Number.isSafeInteger(ms) || ms < 0) {
      throw new ReplayInputError(
        `timestamp must be non-negative epoch milliseconds, got ${clip(String(timestamp))}`,
      );
    }
    // A time past the last one a Date can hold (ECMA-262's time value range, year 275760) names no
    // record and cannot be shown in the plan's notes.
    if (ms > MAX_EPOCH_MS) {
      throw new ReplayInputError(
        `timestamp ${ms} is later than any time a date can hold (${MAX_EPOCH_MS} ms, in the year 275760)`,
      );
    }
    return ms;
  }
  const text = timestamp.trim();
  const match = ISO_TIME.exec(text);
  if (!match) {
    throw new ReplayInputError(
      `timestamp "${clip(timestamp)}" is not ISO 8601 (e.g. 2026-11-29T10:00:00Z, 2026-11-29T11:00:00.000+01:00, or 2026-11-29T10:00:00.000 for UTC) nor epoch milliseconds`,
    );
  }
  const [
    ,
    year,
    month,
    day,
    hour,
    minute,
    second = '0',
    fraction = '',
    ,
    sign,
    zoneHours,
    zoneMinutes = '00',
  ] = match;
  const [y, mo, d, h, mi, se] = [year, month, day, hour, minute, second].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const invalid = (what: string) => new ReplayInputError(`timestamp "${clip(timestamp)}": ${what}`);
  if (mo < 1 || mo > 12) throw invalid(`there is no month ${month}`);
  const daysInMonth = new Date(Date.UTC(2000, mo, 0)).getUTCDate() - (mo === 2 && !isLeapYear(y) ? 1 : 0);
  if (d < 1 || d > daysInMonth) throw invalid(`${year}-${month} has no day ${day}`);
  if (h > 23) throw invalid(`hour ${hour} is not 00..23`);
  if (mi > 59) throw invalid(`minute ${minute} is not 00..59`);
  if (se > 59) throw invalid(`second ${second} is not 00..59`);
  let offsetMinutes = 0;
  if (sign !== undefined) {
    const zh = Number(zoneHours);
    const zm = Number(zoneMinutes);
    if (zm > 59 || zh * 60 + zm > 18 * 60)
      throw invalid(`zone offset ${sign}${zoneHours}:${zoneMinutes} is not within ±18:00`);
    offsetMinutes = (sign === '-' ? -1 : 1) * (zh * 60 + zm);
  }
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d); // unlike Date.UTC, years 0..99 stay themselves
  date.setUTCHours(h, mi, se, Number(fraction.padEnd(3, '0').slice(0, 3)));
  return date.getTime() - offsetMinutes * 60_000;
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/** Quotes at most the start of an input in a message. */
function clip(text: string): string {
  return text.length > 64 ? `${text.slice(0, 64)}…` : text;
}

/**
 * One line of a plan file: the shape `kafka-consumer-groups --reset-offsets --export` writes.
 *
 * @example
 * ```ts
 * const entry: PlanFileEntry = { topic: 'orders', partition: 0, offset: 1041 };
 * ```
 */
export interface PlanFileEntry {
  topic: string;
  partition: number;
  offset: number;
}

/**
 * Parses a plan file in the CSV shape of `kafka-consumer-groups` (`topic,partition,offset` per line;
 * blank lines and `#` comments are skipped). A malformed line is refused with its number and what is
 * wrong with it (columns missing or extra, a partition or offset that is not a non-negative integer,
 * a topic name longer than Kafka allows, a partition given twice, binary content), never quoting it.
 * At most {@link MAX_PLAN_ENTRIES} entries.
 *
 * @example
 * ```ts
 * parsePlanFile('orders,0,1041\norders,1,977\n'); // [{ topic: 'orders', partition: 0, offset: 1041 }, …]
 * ```
 */
export function parsePlanFile(text: string): PlanFileEntry[] {
  const entries: PlanFileEntry[] = [];
  const firstLine = new Map<string, number>();
  for (const [index, raw] of text.split(/\r?\n/).entries()) {
    const at = `plan file line ${index + 1}`;
    if (isBinary(raw)) {
      throw new ReplayInputError(
        `${at} has binary content: a plan file is text, topic,partition,offset per line`,
      );
    }
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    if (entries.length === MAX_PLAN_ENTRIES) {
      throw new ReplayInputError(`plan file has more than ${MAX_PLAN_ENTRIES} entries (line ${index + 1})`);
    }
    // Kafka's tool reads the file with a CSV reader, which takes a quoted cell ("orders") as its text.
    const cells = line.split(',').map((cell) => cell.trim().replace(/^"(.*)"$/, '$1'));
    if (cells.length !== 3) {
      throw new ReplayInputError(
        `${at} has ${cells.length} column(s)${cells.length > 3 ? ' (an extra column)' : ''}; expected 3: topic,partition,offset${cells.length === 4 ? " (Kafka's tool writes group,topic,partition,offset when it exports several groups: export the one group)" : ''}`,
      );
    }
    const [topic, partition, offset] = cells as [string, string, string];
    if (topic === '') throw new ReplayInputError(`${at}: the topic is empty`);
    if (topic.length > MAX_TOPIC_LENGTH) {
      throw new ReplayInputError(
        `${at}: the topic name is longer than Kafka's ${MAX_TOPIC_LENGTH} characters`,
      );
    }
    const partitionNumber = nonNegativeInteger(partition, `${at}: the partition`);
    const offsetNumber = nonNegativeInteger(offset, `${at}: the offset`);
    const key = `${topic}\u0000${partitionNumber}`;
    const first = firstLine.get(key);
    if (first !== undefined) {
      throw new ReplayInputError(
        `${at} repeats ${topic.length > 64 ? 'its topic' : topic} partition ${partitionNumber} (first given on line ${first})`,
      );
    }
    firstLine.set(key, index + 1);
    entries.push({ topic, partition: partitionNumber, offset: offsetNumber });
  }
  if (entries.length === 0) throw new ReplayInputError('plan file has no entries');
  return entries;
}

/** Control characters (NUL among them; tabs aside) or bytes that were not UTF-8 (decoded as U+FFFD). */
function isBinary(line: string): boolean {
  for (let i = 0; i < line.length; i++) {
    const code = line.charCodeAt(i);
    if ((code < 0x20 && code !== 0x09) || code === 0x7f || code === 0xfffd) return true;
  }
  return false;
}

function nonNegativeInteger(cell: string, what: string): number {
  if (/^-\d+$/.test(cell)) throw new ReplayInputError(`${what} is negative (${clip(cell)})`);
  if (!/^\d+$/.test(cell)) throw new ReplayInputError(`${what} is not a non-negative integer`);
  const value = Number(cell);
  if (!Number.isSafeInteger(value)) throw new ReplayInputError(`${what} is too large`);
  return value;
}

/**
 * Parses Kafka's `--topic` syntax: `orders` (all partitions) or `orders:0,2,5` (a subset).
 *
 * @example
 * ```ts
 * parseTopicPartitions('orders:0,2'); // { topic: 'orders', partitions: [0, 2] }
 * ```
 */
export function parseTopicPartitions(spec: string): { topic: string; partitions?: number[] } {
  const colon = spec.lastIndexOf(':');
  if (colon === -1) {
    if (spec.trim() === '') throw new ReplayInputError('topic name is empty');
    return { topic: spec.trim() };
  }
  const topic = spec.slice(0, colon).trim();
  const list = spec.slice(colon + 1).split(',');
  // A topic name never holds ':' (Kafka's alphabet is a-z A-Z 0-9 . _ -): `orders:1:2` is a typo.
  if (topic === '' || topic.includes(':') || list.some((p) => !/^\s*\d+\s*$/.test(p))) {
    throw new ReplayInputError(`"${spec}" is not "topic" or "topic:partition,partition,…"`);
  }
  return { topic, partitions: [...new Set(list.map(Number))].sort((a, b) => a - b) };
}
