/**
 * What error text may say about a record: parsers and schema libraries quote the data they refused, so
 * their messages are replaced with where the problem is, and a path keeps only what a schema declares.
 * Used by the middleware's own errors and by the log line of any error a handler throws.
 */
import type { StandardSchemaV1 } from '@standard-schema/spec';

/** A name a schema declares, or a class name: an identifier of at most 64 characters. */
export const DECLARED_NAME = /^[A-Za-z_$][A-Za-z0-9_$]{0,63}$/;

/**
 * @internal The cause of a `KafkaRecordDecodeError` for a value `JSON.parse` refused (and of the
 * CLI's refusal of a JSON file, which names what it read as `quoted`): a `SyntaxError` keeping only
 * where parsing stopped. The parser's own error cannot be the cause: its message (and its stack's
 * first line) quotes the text around the problem, payload bytes or secrets that a logger printing
 * causes (Node's `console.error`, Powertools' Logger) would write out. V8 gives the position for most
 * problems but not for an unexpected token (`Unexpected token 'x', "…" is not valid JSON`): given the
 * `text` parsed, the position is then found by {@link jsonStopOffset}, without quoting it.
 *
 * @example
 * ```ts
 * jsonSyntaxCause(new SyntaxError('Unexpected token \'o\', "oops" is not valid JSON')).message;
 * // 'JSON.parse failed (its message is withheld: it quotes the value)'
 * jsonSyntaxCause(error, 'the event', '{"a": x}').message;
 * // 'JSON.parse failed at position 6 (line 1 column 7) (its message is withheld: it quotes the event)'
 * ```
 */
export function jsonSyntaxCause(error: unknown, quoted = 'the value', text?: string): SyntaxError {
  return new SyntaxError(jsonParseProblem(error instanceof SyntaxError ? error.message : '', quoted, text));
}

function jsonParseProblem(message: string, quoted: string, text?: string): string {
  // V8 writes "… in JSON at position 47 (line 3 column 1)", the line and column for multi-line text.
  let where = / at (position \d+(?: \(line \d+ column \d+\))?)/.exec(message)?.[1];
  if (where === undefined && text !== undefined) {
    const offset = jsonStopOffset(text);
    if (offset !== undefined) where = `position ${offset} (${lineAndColumn(text, offset)})`;
  }
  return `JSON.parse failed${where === undefined ? '' : ` at ${where}`} (its message is withheld: it quotes ${quoted})`;
}

/** `line L column C` of an offset, both from 1, lines ending at `\n`, `\r\n` or `\r` (as V8 counts them). */
function lineAndColumn(text: string, offset: number): string {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x0a || (c === 0x0d && text.charCodeAt(i + 1) !== 0x0a)) {
      line++;
      lineStart = i + 1;
    }
  }
  return `line ${line} column ${offset - lineStart + 1}`;
}

/** What the scanner expects next (see {@link jsonStopOffset}). */
const Expect = {
  /** A value (the text's, an array element's after `,`, a property's after `:`). */
  Value: 0,
  /** After `[`: a value or `]`. */
  FirstElement: 1,
  /** After `{`: a property name or `}`. */
  FirstKey: 2,
  /** After `,` in an object: a property name. */
  Key: 3,
  /** After a property name: `:`. */
  Colon: 4,
  /** After a value: `,` or the container's end, or the end of the text at the top. */
  AfterValue: 5,
} as const;

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isHex = (c: number) => isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

/**
 * @internal Where a JSON text stops being valid: the offset of the first UTF-16 code unit that no
 * JSON text can have there (the text before it is the start of some JSON text, the text up to it is
 * not), or `text.length` when the text ends too soon; `undefined` for valid JSON (RFC 8259, as
 * `JSON.parse` reads it). Nothing of the text is kept: for error messages that must not quote it. An
 * explicit stack, so deep nesting does not overflow. Meant for the failure path of `JSON.parse`.
 *
 * @example
 * ```ts
 * jsonStopOffset('{"a": 1}'); // undefined
 * jsonStopOffset('{"a": x}'); // 6
 * jsonStopOffset('[1, 2'); // 5
 * ```
 */
export function jsonStopOffset(text: string): number | undefined {
  const end = text.length;
  /** Open containers: `true` for an object, `false` for an array. */
  const open: boolean[] = [];
  let expect: (typeof Expect)[keyof typeof Expect] = Expect.Value;
  let i = 0;
  for (;;) {
    while (i < end && isSpace(text.charCodeAt(i))) i++;
    if (i === end) return expect === Expect.AfterValue && open.length === 0 ? undefined : end;
    const c = text.charCodeAt(i);
    switch (expect) {
      case Expect.AfterValue: {
        if (open.length === 0) return i;
        const inObject = open[open.length - 1]!;
        if (c === 0x2c /* , */) {
          expect = inObject ? Expect.Key : Expect.Value;
          i++;
        } else if (c === (inObject ? 0x7d /* } */ : 0x5d) /* ] */) {
          open.pop();
          i++;
        } else return i;
        continue;
      }
      case Expect.Colon:
        if (c !== 0x3a /* : */) return i;
        expect = Expect.Value;
        i++;
        continue;
      case Expect.FirstKey:
      case Expect.Key:
        if (c === 0x7d /* } */ && expect === Expect.FirstKey) {
          open.pop();
          expect = Expect.AfterValue;
          i++;
          continue;
        }
        if (c !== 0x22 /* " */) return i;
        {
          const after = scanString(text, i);
          if (after < 0) return ~after;
          i = after;
        }
        expect = Expect.Colon;
        continue;
      case Expect.FirstElement:
        if (c === 0x5d /* ] */) {
          open.pop();
          expect = Expect.AfterValue;
          i++;
          continue;
        }
        break;
      case Expect.Value:
        break;
    }
    // A value.
    if (c === 0x7b /* { */) {
      open.push(true);
      expect = Expect.FirstKey;
      i++;
      continue;
    }
    if (c === 0x5b /* [ */) {
      open.push(false);
      expect = Expect.FirstElement;
      i++;
      continue;
    }
    const after =
      c === 0x22
        ? scanString(text, i)
        : c === 0x2d || isDigit(c)
          ? scanNumber(text, i)
          : c === 0x74
            ? scanWord(text, i, 'true')
            : c === 0x66
              ? scanWord(text, i, 'false')
              : c === 0x6e
                ? scanWord(text, i, 'null')
                : ~i;
    if (after < 0) return ~after;
    i = after;
    expect = Expect.AfterValue;
  }
}

/** The offset after the string starting at `start` (its `"`), or `~offset` of where it went wrong. */
function scanString(text: string, start: number): number {
  const end = text.length;
  let i = start + 1;
  while (i < end) {
    const c = text.charCodeAt(i);
    if (c === 0x22) return i + 1;
    if (c < 0x20) return ~i;
    if (c !== 0x5c /* \ */) {
      i++;
      continue;
    }
    i++;
    if (i === end) return ~end;
    const escaped = text.charCodeAt(i);
    if (escaped === 0x75 /* u */) {
      for (let k = 1; k <= 4; k++) {
        if (i + k === end) return ~end;
        if (!isHex(text.charCodeAt(i + k))) return ~(i + k);
      }
      i += 5;
    } else if ('"\\/bfnrt'.includes(text[i]!)) i++;
    else return ~i;
  }
  return ~end;
}

/** The offset after the number starting at `start`, or `~offset` of where it went wrong. */
function scanNumber(text: string, start: number): number {
  const end = text.length;
  let i = start;
  const digits = () => {
    const from = i;
    while (i < end && isDigit(text.charCodeAt(i))) i++;
    return i > from;
  };
  if (text.charCodeAt(i) === 0x2d) i++;
  if (i === end) return ~end;
  if (text.charCodeAt(i) === 0x30) {
    i++;
    // No leading zeros: a digit after a first 0 can start no number.
    if (i < end && isDigit(text.charCodeAt(i))) return ~i;
  } else if (!digits()) return ~i;
  if (i < end && text.charCodeAt(i) === 0x2e /* . */) {
    i++;
    if (!digits()) return ~i;
  }
  if (i < end && (text.charCodeAt(i) | 0x20) === 0x65 /* e, E */) {
    i++;
    if (i < end && (text.charCodeAt(i) === 0x2b || text.charCodeAt(i) === 0x2d)) i++;
    if (!digits()) return ~i;
  }
  return i;
}

/** The offset after `word` (true, false, null) at `start`, or `~offset` of the first character that differs. */
function scanWord(text: string, start: number, word: string): number {
  for (let k = 0; k < word.length; k++) {
    if (start + k === text.length) return ~text.length;
    if (text.charCodeAt(start + k) !== word.charCodeAt(k)) return ~(start + k);
  }
  return start + word.length;
}

/**
 * @internal A path into a key or value as an error shows it, segments joined with `.`: a declared
 * field's name and an array index stay, every segment that may come from the data itself is `*`.
 *
 * A key of the data is payload: a record's or map's key (valibot's `v.record`, zod's `z.record`), an
 * unknown key a strict object refuses. Valibot marks some of its path items (`type: 'map' | 'set'`;
 * `origin: 'key'` for a key checked as a key, https://valibot.dev/api/ObjectPathItem/), but a
 * record's value sits under an item like a declared field's, and other Standard Schema libraries put
 * a key in the path as a plain string: so a string shows only if it looks like a declared name (an
 * identifier of at most 64 characters), a number only if it can be an array index. A record key that
 * looks like an identifier still shows.
 *
 * @example
 * ```ts
 * shownPath(['items', 0, 'sku']); // 'items.0.sku'
 * shownPath(['prices', 'SECRET-PAYLOAD-123']); // 'prices.*'
 * ```
 */
export function shownPath(segments: readonly (PropertyKey | StandardSchemaV1.PathSegment)[]): string {
  return segments.map(shownSegment).join('.');
}

/** Array indices are below 2^32 − 1, the longest an array can be (https://tc39.es/ecma262/#array-index). */
const INDEX_LIMIT = 2 ** 32 - 1;

function shownSegment(segment: PropertyKey | StandardSchemaV1.PathSegment): string {
  let key = segment;
  if (typeof segment === 'object') {
    const item = segment as StandardSchemaV1.PathSegment & { type?: unknown; origin?: unknown };
    if (item.type === 'map' || item.type === 'set' || item.origin === 'key') return '*';
    key = item.key;
  }
  if (typeof key === 'number')
    return Number.isInteger(key) && key >= 0 && key < INDEX_LIMIT ? String(key) : '*';
  return typeof key === 'string' && DECLARED_NAME.test(key) ? key : '*';
}

/**
 * @internal The shown paths of a schema's issues ({@link shownPath}), each once, at most 10.
 *
 * @example
 * ```ts
 * issuePaths([{ message: 'Expected number', path: ['amount'] }]); // ['amount']
 * ```
 */
export function issuePaths(
  issues: readonly { readonly path?: readonly (PropertyKey | StandardSchemaV1.PathSegment)[] | undefined }[],
): string[] {
  const paths = new Set<string>();
  for (const issue of issues) {
    paths.add(shownPath(Array.isArray(issue?.path) ? issue.path : []));
    if (paths.size === 10) break;
  }
  return [...paths];
}

/**
 * @internal The message to log instead of a thrown error's own, when that one quotes data: the
 * `SyntaxError` of a `JSON.parse` (V8 quotes the text), and a schema library's error carrying an
 * `issues` list (zod's `ZodError`, valibot's `ValiError`: their messages quote the rejected values).
 * `undefined` for any other error: its message is the thrower's, logged as written.
 *
 * @example
 * ```ts
 * withheldMessage(error, 'SyntaxError', 'Unexpected token \'o\', "oops" is not valid JSON');
 * // 'JSON.parse failed (its message is withheld: it quotes the text parsed)'
 * ```
 */
export function withheldMessage(error: object, name: string, message: string): string | undefined {
  if (name === 'SyntaxError' && message.includes('JSON')) return jsonParseProblem(message, 'the text parsed');
  let issues: unknown;
  try {
    issues = (error as { issues?: unknown }).issues;
  } catch {
    return undefined;
  }
  if (!Array.isArray(issues) || issues.length === 0) return undefined;
  let paths: string[];
  try {
    paths = issuePaths(issues);
  } catch {
    paths = [];
  }
  const where = paths.length > 0 ? ` at ${paths.map((p) => p || '(root)').join(', ')}` : '';
  return `failed schema validation${where} (its message is withheld: it may quote the data)`;
}
