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
 * problems but not for an unexpected token (`Unexpected token 'x', "…" is not valid JSON`): `where`
 * then says it, when the caller could find it (the CLI's `jsonPosition`, which consumer bundles need not
 * carry).
 *
 * @example
 * ```ts
 * jsonSyntaxCause(new SyntaxError('Unexpected token \'o\', "oops" is not valid JSON')).message;
 * // 'JSON.parse failed (its message is withheld: it quotes the value)'
 * jsonSyntaxCause(error, 'the event', 'position 6 (line 1 column 7)').message;
 * // 'JSON.parse failed at position 6 (line 1 column 7) (its message is withheld: it quotes the event)'
 * ```
 */
export function jsonSyntaxCause(error: unknown, quoted = 'the value', where?: string): SyntaxError {
  return new SyntaxError(jsonParseProblem(error instanceof SyntaxError ? error.message : '', quoted, where));
}

function jsonParseProblem(message: string, quoted: string, where?: string): string {
  // V8 writes "… in JSON at position 47 (line 3 column 1)", the line and column for multi-line text.
  const found = / at (position \d+(?: \(line \d+ column \d+\))?)/.exec(message)?.[1] ?? where;
  return `JSON.parse failed${found === undefined ? '' : ` at ${found}`} (its message is withheld: it quotes ${quoted})`;
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
