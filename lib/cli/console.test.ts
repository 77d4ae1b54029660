import { describe, expect, it } from 'vitest';
import { redirectConsole } from './console.ts';

describe('redirectConsole', () => {
  it('routes every console method through its wrapper until restored, then puts the originals back', () => {
    const originals = [console.log, console.info, console.warn, console.error, console.debug];
    const seen: unknown[][] = [];
    const restore = redirectConsole((original) => (...args) => {
      seen.push([original, ...args]);
    });
    try {
      console.log('a', 1);
      console.info('b');
      console.warn('c');
      console.error('d');
      console.debug('e');
    } finally {
      restore();
    }
    expect(seen).toEqual([
      [originals[0], 'a', 1],
      [originals[1], 'b'],
      [originals[2], 'c'],
      [originals[3], 'd'],
      [originals[4], 'e'],
    ]);
    expect([console.log, console.info, console.warn, console.error, console.debug]).toEqual(originals);
  });
});
