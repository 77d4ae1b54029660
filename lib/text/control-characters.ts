// Control characters in text the CLI and the replay tool print or store: found (to refuse them where they
// would be kept, as in a replay's audit reason) and escaped (where text from elsewhere is shown).

/**
 * Whether a character is one a terminal acts on rather than shows: C0 controls (escape, carriage return,
 * newline, …), DEL and C1 controls, the Unicode line and paragraph separators, and the bidirectional
 * overrides and isolates (they reorder how the text around them is shown). Everything else — accents,
 * other scripts, emoji and their joiners — is text.
 */
function isControlCharacter(code: number): boolean {
  return (
    code < 0x20 ||
    (code >= 0x7f && code <= 0x9f) ||
    code === 0x2028 ||
    code === 0x2029 ||
    (code >= 0x202a && code <= 0x202e) ||
    (code >= 0x2066 && code <= 0x2069)
  );
}

const codePoint = (code: number) => `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * The first control character of `text` (see {@link escapeControlCharacters}), as `U+001B`, and where it
 * is; undefined when there is none. An audit reason with one is refused: it is shown in operators'
 * terminals.
 *
 * @example
 * ```ts
 * findControlCharacter('INC-42\x1b[31m'); // { index: 6, codePoint: 'U+001B' }
 * ```
 */
export function findControlCharacter(text: string): { index: number; codePoint: string } | undefined {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (isControlCharacter(code)) return { index, codePoint: codePoint(code) };
  }
  return undefined;
}

/**
 * Text from the user, a server or the broker (an audit record anyone who may commit to a group can write)
 * made harmless to print: each control character becomes its JSON escape (`\u001b`), so that it is seen,
 * not obeyed (no bell, cursor move, retitled window or line overwritten with `\r`). `keep` names the
 * ones kept as they are (`'\n'` for messages of several lines this package writes itself).
 *
 * @example
 * ```ts
 * escapeControlCharacters('a\x1b[31mRED\r\n'); // 'a\\u001b[31mRED\\u000d\\u000a'
 * ```
 */
export function escapeControlCharacters(text: string, { keep = '' } = {}): string {
  let out = '';
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    out +=
      isControlCharacter(code) && !keep.includes(text[index]!)
        ? `\\u${code.toString(16).padStart(4, '0')}`
        : text[index];
  }
  return out;
}
