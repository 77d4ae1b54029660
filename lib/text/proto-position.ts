// What is wrong with a .proto file protobufjs refused (the schema encoder's --value-proto files and the
// files they import), for an error message that must not quote it: protobufjs's messages quote the
// token they stopped at (`illegal token 'secret_field'`) or a name of the file, and give a line only.
// protobufjs is not imported here: the caller hands over its parse, so that this module loads no peer.
import { lineAndColumn } from './line-column.ts';

/**
 * Where a .proto source stops parsing (line and column, from 1) and what the grammar wanted there, or
 * the kind of problem protobufjs found after parsing (a name defined twice…), never a token or name of
 * the file; `undefined` for a message that is none of protobufjs's parse errors. `message` is the
 * error protobufjs threw for `source`, `parse` parses a text as that parse did (the same options):
 * prefixes of the source are parsed to find where it stops.
 *
 * @example
 * ```ts
 * protoParseProblem(error.message, 'syntax = "proto3";\nmessage Order {\n  string secret = 1\n}', (text) => protobuf.parse(text));
 * // "parsing failed at line 4 column 1, ';' expected"
 * ```
 */
export function protoParseProblem(
  message: string,
  source: string,
  parse: (text: string) => unknown,
): string | undefined {
  const syntax = /^illegal (.+?)(?: '(.*)'(?:, '(.+)' expected)?)? \((?:.*, )?line \d+\)$/s.exec(message);
  if (!syntax) {
    // Found after parsing (protobufjs names the name or number): what kind of problem, not which.
    if (/^duplicate name /.test(message)) return 'a name is defined twice in one scope';
    if (/^duplicate id /.test(message)) return 'a field number is used twice in one message';
    if (/ is reserved in /.test(message)) return 'a field uses a reserved name or number';
    return undefined;
  }
  const [, what, token, expected] = syntax;
  const offset = stopOffset(source, message, parse);
  // The token protobufjs stopped at ends at the offset found; its start is where it is shown.
  const start =
    offset === undefined
      ? undefined
      : token !== undefined && token.length > 0 && source.slice(offset - token.length, offset) === token
        ? offset - token.length
        : Math.max(offset - 1, 0);
  const where =
    start === undefined
      ? 'parsing failed'
      : start >= source.trimEnd().length
        ? `parsing failed at the end of the file (${lineAndColumn(source, source.trimEnd().length).replace(/ column.*/, '')})`
        : `parsing failed at ${lineAndColumn(source, start)}`;
  const problem =
    expected !== undefined
      ? `, '${expected}' expected`
      : what === 'token'
        ? ': an unexpected token'
        : what === 'end of input'
          ? ': a statement or block is not finished'
          : `: an illegal ${what}`;
  return `${where}${problem}`;
}

/**
 * The shortest prefix of `source` that protobufjs refuses with the same message `failure`: the point
 * where the source's parse fails (the end of the token it stopped at). A prefix that does not reach it
 * parses, or fails otherwise (it ends inside the token, or too soon); every longer one fails the same.
 */
function stopOffset(source: string, failure: string, parse: (text: string) => unknown): number | undefined {
  const fails = (length: number) => {
    try {
      parse(source.slice(0, length));
      return false;
    } catch (error) {
      return error instanceof Error && error.message === failure;
    }
  };
  if (!fails(source.length)) return undefined;
  let low = 0;
  let high = source.length;
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if (fails(middle)) high = middle;
    else low = middle + 1;
  }
  return low;
}
