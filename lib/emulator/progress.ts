import { withheldMessage } from '../middleware/withheld.ts';
import type { MappingEvent, MappingStats } from './emulator.ts';

/**
 * A stats snapshot with the time it was taken.
 *
 * @example
 * ```ts
 * const sample: ProgressSample = { at: Date.now(), stats: mapping.stats() };
 * ```
 */
export interface ProgressSample {
  at: number;
  stats: MappingStats;
}

const number = new Intl.NumberFormat('en-US');

/**
 * One progress line: records/s committed since the previous sample, total lag with the lagging
 * partitions, failures, retries, bisect splits (once there are some: a split is not a retry) and
 * records sent to the destination. Cut to `width` when given.
 *
 * @example
 * ```ts
 * formatProgress(previous, { at: Date.now(), stats: mapping.stats() }, process.stdout.columns);
 * // '1,250 rec/s · committed 40,000 · lag 320 (p1 200, p4 120) · failed batches 3 · retries 5 · to destination 1'
 * ```
 */
export function formatProgress(
  previous: ProgressSample | undefined,
  current: ProgressSample,
  width?: number,
): string {
  const { stats } = current;
  const seconds = previous ? (current.at - previous.at) / 1000 : 0;
  const rate =
    previous && seconds > 0
      ? Math.round((stats.recordsCommitted - previous.stats.recordsCommitted) / seconds)
      : 0;
  const lagging = stats.partitions
    .filter((p) => (p.lag ?? 0) > 0)
    .sort((a, b) => (b.lag ?? 0) - (a.lag ?? 0));
  const lag = lagging.reduce((n, p) => n + (p.lag ?? 0), 0);
  const lagText =
    lagging.length === 0
      ? 'lag 0'
      : `lag ${number.format(lag)} (${lagging.map((p) => `p${p.partition} ${number.format(p.lag ?? 0)}`).join(', ')})`;
  const failedBatches = stats.functionErrors + stats.invalidResponses + stats.partialFailures;
  const line = [
    `${number.format(rate)} rec/s`,
    `committed ${number.format(stats.recordsCommitted)}`,
    lagText,
    `failed batches ${number.format(failedBatches)}`,
    `retries ${number.format(stats.retries)}`,
    ...(stats.splits > 0 ? [`splits ${number.format(stats.splits)}`] : []),
    `to destination ${number.format(stats.destinationRecords)}`,
    // Only when some were: a dropped record is lost unless replayed from Kafka, worth its own word.
    ...(stats.droppedRecords > 0 ? [`dropped ${number.format(stats.droppedRecords)}`] : []),
  ].join(' · ');
  return width !== undefined && line.length > width ? `${line.slice(0, Math.max(width - 1, 0))}…` : line;
}

/** The most of a function error's message a line shows. */
const MESSAGE_LIMIT = 500;

/**
 * A function error's message as a line shows it, after its type: the function's own words, as Lambda
 * logs them (`ERROR Invoke Error {…}`), on one line; the request id Lambda puts before a runtime
 * error's message left out (`Runtime exited with error: exit status 3`). A `JSON.parse` error's message
 * quotes the text parsed, a record's bytes: it reads as the middleware logs it, where parsing stopped.
 */
function shownMessage(errorType: string, message: string | undefined): string {
  if (!message) return '';
  const own = withheldMessage({}, errorType, message) ?? message.replace(/^RequestId: \S+ Error: /, '');
  const line = own.replace(/\s*\n\s*/g, ' ').trim();
  return `: ${line.length > MESSAGE_LIMIT ? `${line.slice(0, MESSAGE_LIMIT - 1)}…` : line}`;
}

/** The most stack frames shown under a failed invocation's line (V8 records 10 by default). */
const FRAME_LIMIT = 10;

/**
 * A function error's stack frames, as lines to print under its line: each `at …` frame of the trace
 * indented by four spaces, at most {@link FRAME_LIMIT} of them (then how many more there were). The
 * trace's header (`<type>: <message>`, the message on one line or several) is left out, whatever its
 * lines look like: the line above says it, the message withheld where it quotes a record.
 */
function traceLines(trace: readonly string[], errorType: string, message: string | undefined): string[] {
  const header = (message ? `${errorType}: ${message}` : errorType).split('\n');
  const body = header.every((line, i) => trace[i] === line) ? trace.slice(header.length) : trace;
  const frames = body.map((line) => line.trim()).filter((line) => /^at\s/.test(line));
  const shown = frames.slice(0, FRAME_LIMIT).map((frame) => {
    const line = `    ${frame}`;
    return line.length > MESSAGE_LIMIT ? `${line.slice(0, MESSAGE_LIMIT - 1)}…` : line;
  });
  const more = frames.length - shown.length;
  return more > 0 ? [...shown, `    … ${more} more frame${more === 1 ? '' : 's'}`] : shown;
}

/**
 * A log line for the events worth a line of their own (failed invocations with the function's error
 * message, retries, bisect splits, destination records, errors); `undefined` for routine ones. Never includes record
 * contents of the toolkit's own.
 *
 * With `trace: true`, a function error's line is followed by the frames of its stack trace (when the
 * runtime reported one), one per line and indented, as the function's `ERROR Invoke Error` log line
 * would give them in Lambda.
 *
 * @example
 * ```ts
 * mapping = createLocalEventSourceMapping({ …, onEvent: (e) => { const line = describeEvent(e); if (line) console.log(line); } });
 * describeEvent(failed, { trace: true });
 * // 'function-error: TypeError: x is undefined (attempt 1; orders-0@10)\n    at handler (file:///app/functions/orders/handler.ts:12:31)'
 * ```
 */
export function describeEvent(event: MappingEvent, options: { trace?: boolean } = {}): string | undefined {
  const range = (offsets: Record<string, [number, number]>) =>
    Object.entries(offsets)
      .map(([key, [first, last]]) => (first === last ? `${key}@${first}` : `${key}@${first}..${last}`))
      .join(' ');
  switch (event.type) {
    case 'invoke':
      if (event.outcome === 'success') return undefined;
      if (event.outcome === 'partial') {
        return `partial failure: ${event.failedRecords} of ${event.records} records reported (attempt ${event.attempt}; ${range(event.offsets)})`;
      }
      if (event.outcome === 'function-error') {
        const line = `${event.outcome}: ${event.detail}${shownMessage(event.detail ?? '', event.errorMessage)} (attempt ${event.attempt}; ${range(event.offsets)})`;
        if (!options.trace || !event.trace) return line;
        return [line, ...traceLines(event.trace, event.detail ?? '', event.errorMessage)].join('\n');
      }
      return `${event.outcome}: ${event.detail} (attempt ${event.attempt}; ${range(event.offsets)})`;
    case 'retry':
      return `retry ${event.attempt} (${event.reason}) of ${event.records} records from ${Object.entries(
        event.fromOffsets,
      )
        .map(([key, offset]) => `${key}@${offset}`)
        .join(' ')}`;
    case 'bisect':
      return `bisect: ${event.records} records from ${Object.entries(event.fromOffsets)
        .map(([key, offset]) => `${key}@${offset}`)
        .join(' ')} split into ${event.halves[0]} + ${event.halves[1]}; retries used ${event.retriesUsed}${
        Number.isFinite(event.retryLimit) ? ` of ${event.retryLimit}` : ' (no limit)'
      }`;
    case 'destination':
      if (!event.dropped)
        return `${event.partition}@${event.offset} → on-failure destination (${event.condition})`;
      return event.dropped === 'delivery-failed'
        ? `${event.partition}@${event.offset} dropped: delivery to the on-failure destination failed (${event.condition})`
        : `${event.partition}@${event.offset} dropped: no on-failure destination is configured (${event.condition})`;
    case 'error':
      return `error: ${event.error.name}: ${event.error.message}`;
    case 'commit':
      return undefined;
  }
}
