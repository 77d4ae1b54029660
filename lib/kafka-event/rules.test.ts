import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodeBase64,
  decodeHeaderValue,
  isBase64,
  positionProblem,
  readPosition,
  readTimestamp,
  usesUrlSafeAlphabet,
} from './rules.ts';

describe('decodeBase64', () => {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const text = (extra: string[]) =>
    fc
      .array(fc.constantFrom(...alphabet.split(''), ...extra), { maxLength: 24 })
      .map((chars) => chars.join(''));

  it('accepts exactly what isBase64 accepts, with the bytes Node decodes', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          text([]),
          text(['=']),
          text(['=', '-', '_', ' ', '\n', '!', '$', 'é', '\u0000']),
          fc.string(),
          text([]).map((body) => Buffer.from(body).toString('base64')),
        ),
        (candidate) => {
          const bytes = decodeBase64(candidate);
          expect(bytes !== undefined, JSON.stringify(candidate)).toBe(isBase64(candidate));
          if (bytes !== undefined) expect(bytes).toEqual(Buffer.from(candidate, 'base64'));
        },
      ),
      { numRuns: 5000 },
    );
  });

  it('refuses the texts Node would decode into garbage', () => {
    for (const bad of [
      '!!!not base64$$$',
      'eyJpZCI6N30=garbage',
      'eyJpZCI6N30',
      'eyJp ZCI6N30=',
      '-_-',
      'A===',
      '====',
    ])
      expect(decodeBase64(bad), bad).toBeUndefined();
    expect(decodeBase64('')).toEqual(Buffer.alloc(0));
    expect(decodeBase64('eyJpZCI6N30=')?.toString()).toBe('{"id":7}');
  });

  it('decodes the URL-safe alphabet (which Lambda never writes) to the bytes the standard one names', () => {
    const bytes = Buffer.from([0xfb, 0xff, 0xbf, 0x3e]);
    expect(decodeBase64('-_-_Pg==')).toEqual(bytes);
    expect(decodeBase64('+/+/Pg==')).toEqual(bytes);
    expect([isBase64('-_-_Pg=='), usesUrlSafeAlphabet('-_-_Pg=='), usesUrlSafeAlphabet('+/+/Pg==')]).toEqual([
      true,
      true,
      false,
    ]);
  });
});

describe('positions, timestamps and header values', () => {
  it('reads a non-negative safe integer, as a number or digits', () => {
    expect([readPosition(0), readPosition(1042), readPosition('3'), readPosition(2 ** 53 - 1)]).toEqual([
      0,
      1042,
      3,
      2 ** 53 - 1,
    ]);
    for (const bad of [-1, 1.5, 2 ** 53, '9007199254740993', '1e3', '', ' 1', null, undefined, {}, [1]])
      expect(readPosition(bad), String(bad)).toBeUndefined();
    expect(positionProblem(-1)).toBe('is -1, expected a non-negative integer');
    expect(positionProblem('9007199254740993')).toMatch(/^is "9007199254740993", above 2\^53 − 1/);
  });

  it('reads a timestamp without ever throwing', () => {
    expect([
      readTimestamp(5),
      readTimestamp('7'),
      readTimestamp(''),
      readTimestamp(Object.create(null)),
      readTimestamp(0),
      readTimestamp(-1),
      readTimestamp('-1'),
    ]).toEqual([5, 7, Number.NaN, Number.NaN, 0, Number.NaN, Number.NaN]);
  });

  it('decodes signed and unsigned header bytes, and base64 text; nothing else', () => {
    expect(decodeHeaderValue([-34, -83, 190, 239])?.toString('hex')).toBe('deadbeef');
    expect(decodeHeaderValue('aGk=')?.toString()).toBe('hi');
    for (const bad of [[256], [-129], [1.5], ['1'], 'not base64!', 5, null, {}])
      expect(decodeHeaderValue(bad), JSON.stringify(bad)).toBeUndefined();
  });
});
