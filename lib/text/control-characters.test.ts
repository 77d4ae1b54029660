import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeControlCharacters, findControlCharacter } from './control-characters.ts';

describe('control characters', () => {
  it('are found, and escaped so that they are seen and not obeyed; other text is kept as it is', () => {
    expect(findControlCharacter('INC-42 ok')).toBeUndefined();
    expect(findControlCharacter('é👩‍🔧再')).toBeUndefined();
    expect(findControlCharacter('ab\x1b[31m')).toEqual({ index: 2, codePoint: 'U+001B' });
    expect(findControlCharacter('\u2066x')).toEqual({ index: 0, codePoint: 'U+2066' });
    expect(escapeControlCharacters('a\x1b[31mRED\x1b[0m\nline2\rX\u009b\u202e é👩‍🔧')).toBe(
      'a\\u001b[31mRED\\u001b[0m\\u000aline2\\u000dX\\u009b\\u202e é👩‍🔧',
    );
    expect(escapeControlCharacters('one\ntwo\r', { keep: '\n' })).toBe('one\ntwo\\u000d');
  });

  it('nothing escaped contains a control character, and JSON reads an escaped string back as it was', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const escaped = escapeControlCharacters(text);
        expect(findControlCharacter(escaped)).toBeUndefined();
        if (!text.includes('\\') && !text.includes('"')) expect(JSON.parse(`"${escaped}"`)).toBe(text);
      }),
    );
  });

  it('keeps the characters named in keep, and escapes a line break otherwise (one-line echoes of what was typed)', () => {
    expect(escapeControlCharacters('a\nb\tc')).toBe('a\\u000ab\\u0009c');
    expect(escapeControlCharacters('a\nb\tc\r', { keep: '\n\t' })).toBe('a\nb\tc\\u000d');
  });
});
