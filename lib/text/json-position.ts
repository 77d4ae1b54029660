// Where a JSON text read from a file (the CLI's --event and --env-vars files, the testing helpers'
// schema files) stops being valid, for error messages that must not quote it: V8 names no position for
// an unexpected token. Never imported by the middleware, so that a consumer's bundle carries no JSON
// scanner.
import { lineAndColumn } from './line-column.ts';

/**
 * Where parsing `text` stops, as V8 writes it (`position 14 (line 2 column 7)`); undefined for valid JSON.
 *
 * @example
 * ```ts
 * jsonPosition('{"a":1,\n "b": x}'); // 'position 14 (line 2 column 7)'
 * ```
 */
export function jsonPosition(text: string): string | undefined {
  const offset = jsonStopOffset(text);
  return offset === undefined ? undefined : `position ${offset} (${lineAndColumn(text, offset)})`;
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
 * Where a JSON text stops being valid: the offset of the first UTF-16 code unit that no
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
 * The offset where the value at `path` (object keys and array indexes, as a JSON pointer's segments)
 * starts in a JSON text, for an error that says where in a file something is without quoting it;
 * `undefined` when the text has no value there (or is not JSON). A key given twice is its last
 * occurrence, the one `JSON.parse` keeps. Nothing of the text is kept.
 *
 * @example
 * ```ts
 * jsonValueOffset('{"a": [1, {"b": true}]}', ['a', 1, 'b']); // 16
 * ```
 */
export function jsonValueOffset(text: string, path: readonly (string | number)[]): number | undefined {
  let i = skipSpace(text, 0);
  for (const segment of path) {
    const c = text.charCodeAt(i);
    if (c === 0x7b /* { */ && typeof segment === 'string') {
      let found: number | undefined;
      i = skipSpace(text, i + 1);
      while (text.charCodeAt(i) === 0x22 /* " */) {
        const keyEnd = scanString(text, i);
        if (keyEnd < 0) return undefined;
        const key = JSON.parse(text.slice(i, keyEnd)) as string;
        i = skipSpace(text, keyEnd);
        if (text.charCodeAt(i) !== 0x3a /* : */) return undefined;
        i = skipSpace(text, i + 1);
        if (key === segment) found = i;
        const after = skipValue(text, i);
        if (after === undefined) return undefined;
        i = skipSpace(text, after);
        if (text.charCodeAt(i) !== 0x2c /* , */) break;
        i = skipSpace(text, i + 1);
      }
      if (found === undefined) return undefined;
      i = found;
    } else if (c === 0x5b /* [ */ && typeof segment === 'number') {
      i = skipSpace(text, i + 1);
      if (text.charCodeAt(i) === 0x5d /* ] */) return undefined;
      for (let k = 0; k < segment; k++) {
        const after = skipValue(text, i);
        if (after === undefined) return undefined;
        i = skipSpace(text, after);
        if (text.charCodeAt(i) !== 0x2c /* , */) return undefined;
        i = skipSpace(text, i + 1);
      }
    } else return undefined;
  }
  return i < text.length ? i : undefined;
}

function skipSpace(text: string, start: number): number {
  let i = start;
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  return i;
}

/** The offset after the value starting at `start` of a valid JSON text, or `undefined` if it is not one. */
function skipValue(text: string, start: number): number | undefined {
  let depth = 0;
  let i = start;
  do {
    const c = text.charCodeAt(i);
    if (i >= text.length) return undefined;
    if (c === 0x22) {
      const after = scanString(text, i);
      if (after < 0) return undefined;
      i = after;
    } else if (c === 0x7b || c === 0x5b) {
      depth++;
      i++;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
      i++;
    } else if (depth > 0) i++;
    else {
      // A number, true, false or null: up to the next delimiter.
      while (i < text.length && !isSpace(text.charCodeAt(i)) && !',}]'.includes(text[i]!)) i++;
      return i > start ? i : undefined;
    }
  } while (depth > 0);
  return depth === 0 ? i : undefined;
}
