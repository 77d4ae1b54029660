// Where an offset of a text is, as error messages about a file the user gave say it (a JSON file the CLI
// reads, a schema file): line and column, never the text there.

/**
 * The line and column of an offset, both from 1, lines ending at `\n`, `\r\n` or `\r` (as V8 counts
 * them in its JSON messages); the column counts UTF-16 code units.
 *
 * @example
 * ```ts
 * lineColumn('a\r\nbc', 4); // { line: 2, column: 2 }
 * ```
 */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x0a || (c === 0x0d && text.charCodeAt(i + 1) !== 0x0a)) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

/**
 * `line L column C` of an offset (see {@link lineColumn}).
 *
 * @example
 * ```ts
 * lineAndColumn('{\n  "a" 1}', 8); // 'line 2 column 7'
 * ```
 */
export function lineAndColumn(text: string, offset: number): string {
  const { line, column } = lineColumn(text, offset);
  return `line ${line} column ${column}`;
}
