import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonSyntaxCause } from '../middleware/withheld.ts';
import { jsonPosition, jsonStopOffset, jsonValueOffset } from './json-position.ts';

/** V8's verdict on a text: parsed, ended too soon, or stopped at a position it names (or at a token it does not). */
function v8(text: string): { ok: true } | { ok: false; position: number | undefined; endOfInput: boolean } {
  try {
    JSON.parse(text);
    return { ok: true };
  } catch (error) {
    const message = (error as Error).message;
    const position = / at position (\d+)/.exec(message)?.[1];
    return {
      ok: false,
      position: position === undefined ? undefined : Number(position),
      endOfInput: message === 'Unexpected end of JSON input',
    };
  }
}

/**
 * Whether some JSON text starts with `prefix`, by V8: it parses, or V8 ran out of text (at its end, or
 * at a position equal to its length). Independent of the scanner under test.
 */
function isJsonPrefix(prefix: string): boolean {
  const verdict = v8(prefix);
  return verdict.ok || verdict.endOfInput || verdict.position === prefix.length;
}

const json = fc.json({ maxDepth: 4 });
const spaced = fc
  .tuple(json, fc.constantFrom(' ', '\t', 2), fc.constantFrom('', ' ', '\n', '\r\n', '\t'))
  .map(([text, indent, around]) => `${around}${JSON.stringify(JSON.parse(text), null, indent)}${around}`);
/** JSON with one edit (a character inserted, deleted or replaced, or the text cut): mostly invalid. */
const edited = fc
  .tuple(
    json,
    fc.nat(),
    fc.constantFrom('insert', 'delete', 'replace', 'cut'),
    fc.constantFrom(...'{}[],:"\\ x0-1.eE+tfnu\u0001\n'.split('')),
  )
  .map(([text, at, edit, char]) => {
    const i = at % (text.length + 1);
    if (edit === 'insert') return text.slice(0, i) + char + text.slice(i);
    if (edit === 'delete') return text.slice(0, i) + text.slice(i + 1);
    if (edit === 'replace') return text.slice(0, i) + char + text.slice(i + 1);
    return text.slice(0, i);
  });

describe('jsonStopOffset', () => {
  it('finds no position in valid JSON', () => {
    fc.assert(
      fc.property(fc.oneof(json, spaced), (text) => {
        expect(jsonStopOffset(text)).toBeUndefined();
      }),
      { numRuns: 500 },
    );
  });

  it('stops exactly where the text stops being the start of a JSON text, at the position V8 names when it names one', () => {
    fc.assert(
      fc.property(fc.oneof(edited, fc.string({ maxLength: 12 })), (text) => {
        const verdict = v8(text);
        const offset = jsonStopOffset(text);
        if (verdict.ok) {
          expect(offset).toBeUndefined();
          return;
        }
        expect(offset).toBeDefined();
        expect(offset).toBeGreaterThanOrEqual(0);
        expect(offset).toBeLessThanOrEqual(text.length);
        expect(isJsonPrefix(text.slice(0, offset))).toBe(true);
        // The text up to and with the stop is no JSON text's start: the scanner does not stop early.
        if (offset! < text.length) expect(isJsonPrefix(text.slice(0, offset! + 1))).toBe(false);
        if (verdict.position !== undefined) expect(offset).toBe(verdict.position);
        if (verdict.endOfInput) expect(offset).toBe(text.length);
      }),
      { numRuns: 2_000 },
    );
  });

  it('names the offset of a token V8 reports without a position', () => {
    expect(jsonStopOffset('{"a":1,\n "b": x}')).toBe(14);
    expect(jsonStopOffset('[1,]')).toBe(3);
    expect(jsonStopOffset('01')).toBe(1);
    expect(jsonStopOffset('"\\u12x"')).toBe(5);
    expect(jsonStopOffset('')).toBe(0);
    expect(jsonStopOffset('{"a": tru')).toBe(9);
  });

  it('survives deep nesting', () => {
    expect(jsonStopOffset(`${'['.repeat(100_000)}x`)).toBe(100_000);
    expect(jsonStopOffset(`${'['.repeat(100_000)}${']'.repeat(100_000)}`)).toBeUndefined();
  });
});

const parseError = (text: string) => {
  try {
    JSON.parse(text);
  } catch (error) {
    return error;
  }
  throw new Error('parsed');
};

describe('jsonPosition', () => {
  it('counts position, line and column as V8 does (\\r\\n, \\r, \\n)', () => {
    for (const text of ['{\r\n"a" 1}', '{\r"a" 1}', '{\n\n  "a" 1}', '[1,\n2 3]']) {
      const v8Message = (parseError(text) as Error).message;
      const where = / at (position \d+ \(line \d+ column \d+\))/.exec(v8Message)![1];
      // The scanner's own line and column, as V8's.
      expect(jsonPosition(text)).toBe(where);
    }
  });

  it('is the position a refused file is reported at, never quoting the text', () => {
    const text = '{"a":1,\n "b": SECRET-VALUE}';
    const cause = jsonSyntaxCause(parseError(text), 'the event', jsonPosition(text));
    expect(cause.message).toBe(
      'JSON.parse failed at position 14 (line 2 column 7) (its message is withheld: it quotes the event)',
    );
    expect(cause.message).not.toContain('SECRET');
  });
});

describe('jsonValueOffset', () => {
  const pathsOf = (value: unknown, path: (string | number)[] = []): (string | number)[][] => [
    path,
    ...(Array.isArray(value)
      ? value.flatMap((item, index) => pathsOf(item, [...path, index]))
      : typeof value === 'object' && value !== null
        ? Object.entries(value).flatMap(([key, item]) => pathsOf(item, [...path, key]))
        : []),
  ];
  const at = (value: unknown, path: (string | number)[]) =>
    path.reduce<unknown>((inner, segment) => (inner as Record<string | number, unknown>)[segment], value);

  it('finds where every value of a JSON text starts, compact or spaced', () => {
    fc.assert(
      fc.property(json, fc.constantFrom(undefined, 2, '\t'), (text, indent) => {
        const value = JSON.parse(text) as unknown;
        const spaced = JSON.stringify(value, null, indent);
        for (const path of pathsOf(value)) {
          const offset = jsonValueOffset(spaced, path);
          expect(offset).toBeDefined();
          const inner = at(value, path);
          // The value's own text starts there: compactly written, it is the text from the offset.
          if (indent === undefined) expect(spaced.startsWith(JSON.stringify(inner), offset)).toBe(true);
          else expect(spaced[offset!]).toBe(JSON.stringify(inner)[0]);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('takes the last of a key given twice, as JSON.parse does, and finds nothing where there is nothing', () => {
    const text = '{"a": 1, "b": {"c": [10, 20]}, "a": [true]}';
    expect(jsonValueOffset(text, ['a'])).toBe(text.lastIndexOf('['));
    expect(jsonValueOffset(text, ['b', 'c', 1])).toBe(text.indexOf('20'));
    expect(jsonValueOffset(text, ['b', 'c', 2])).toBeUndefined();
    expect(jsonValueOffset(text, ['b', 0])).toBeUndefined();
    expect(jsonValueOffset(text, ['x'])).toBeUndefined();
    expect(jsonValueOffset(text, [])).toBe(0);
    const escaped = '{"a": "x\\"}", "b": 2}';
    expect(jsonValueOffset(escaped, ['b'])).toBe(escaped.indexOf('2'));
  });
});
