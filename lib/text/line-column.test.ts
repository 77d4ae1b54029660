import { describe, expect, it } from 'vitest';
import { lineAndColumn, lineColumn } from './line-column.ts';

describe('lineColumn', () => {
  it('counts lines ending at LF, CRLF or CR, and columns from 1', () => {
    expect(lineColumn('ab', 0)).toEqual({ line: 1, column: 1 });
    expect(lineColumn('a\nb', 2)).toEqual({ line: 2, column: 1 });
    // CRLF is one line end: the LF after a CR starts no line of its own.
    expect(lineColumn('a\r\nbc', 4)).toEqual({ line: 2, column: 2 });
    expect(lineColumn('a\rb\r\r', 5)).toEqual({ line: 4, column: 1 });
    expect(lineAndColumn('{\n  "a" 1}', 8)).toBe('line 2 column 7');
  });
});
