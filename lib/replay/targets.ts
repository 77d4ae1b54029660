import { ReplayInputError } from './errors.ts';

/**
 * Parses a duration: ISO 8601 as Kafka's `--by-duration` takes it (`PnDTnHnMn.nS`, e.g. `PT1H30M`, `P1D`)
 * or a number of milliseconds.
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
  const match = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d{1,3})?)S)?)?$/i.exec(duration.trim());
  const [, days, hours, minutes, seconds] = match ?? [];
  if (!match || (days ?? hours ?? minutes ?? seconds) === undefined || /T$/i.test(duration.trim())) {
    throw new ReplayInputError(
      `duration "${duration}" is not ISO 8601 like PT1H30M, P1DT12H or PT0.5S (days, hours, minutes, seconds)`,
    );
  }
  return Math.round(
    ((Number(days ?? 0) * 24 + Number(hours ?? 0)) * 60 + Number(minutes ?? 0)) * 60_000 +
      Number(seconds ?? 0) * 1000,
  );
}

/**
 * Parses a timestamp: ISO 8601 with an explicit zone (`Z` or `+01:00`; a zone-less time would mean
 * different instants on a laptop and in a Lambda) or epoch milliseconds.
 *
 * @example
 * ```ts
 * parseTimestamp('2026-11-29T10:00:00Z'); // 1795946400000
 * ```
 */
export function parseTimestamp(timestamp: string | number): number {
  if (typeof timestamp === 'number' || /^\d+$/.test(timestamp.trim())) {
    const ms = Number(timestamp);
    if (!Number.isSafeInteger(ms) || ms < 0) {
      throw new ReplayInputError(`timestamp must be non-negative epoch milliseconds, got ${timestamp}`);
    }
    return ms;
  }
  const text = timestamp.trim();
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i.test(text)) {
    throw new ReplayInputError(
      `timestamp "${timestamp}" is not ISO 8601 with a zone (e.g. 2026-11-29T10:00:00Z or 2026-11-29T11:00:00+01:00) nor epoch milliseconds`,
    );
  }
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) throw new ReplayInputError(`timestamp "${timestamp}" is not a valid date`);
  return ms;
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
 * blank lines and `#` comments are skipped). Names the line of any malformed entry.
 *
 * @example
 * ```ts
 * parsePlanFile('orders,0,1041\norders,1,977\n'); // [{ topic: 'orders', partition: 0, offset: 1041 }, …]
 * ```
 */
export function parsePlanFile(text: string): PlanFileEntry[] {
  const entries: PlanFileEntry[] = [];
  const seen = new Set<string>();
  for (const [index, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const cells = line.split(',').map((cell) => cell.trim());
    const [topic, partition, offset] = cells;
    if (cells.length !== 3 || !topic || !/^\d+$/.test(partition ?? '') || !/^\d+$/.test(offset ?? '')) {
      throw new ReplayInputError(
        `plan file line ${index + 1} is not "topic,partition,offset" with non-negative integers: ${line}`,
      );
    }
    const key = `${topic}\u0000${partition}`;
    if (seen.has(key)) {
      throw new ReplayInputError(`plan file line ${index + 1} repeats ${topic} partition ${partition}`);
    }
    seen.add(key);
    entries.push({ topic, partition: Number(partition), offset: Number(offset) });
  }
  if (entries.length === 0) throw new ReplayInputError('plan file has no entries');
  return entries;
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
  if (topic === '' || list.some((p) => !/^\s*\d+\s*$/.test(p))) {
    throw new ReplayInputError(`"${spec}" is not "topic" or "topic:partition,partition,…"`);
  }
  return { topic, partitions: [...new Set(list.map(Number))].sort((a, b) => a - b) };
}
