// Where a .proto file given to the CLI (--value-proto of event and produce) stops parsing, for an error
// message that must not quote it: protobufjs's messages quote the token they stopped at (`illegal token
// 'secret_field'`) or a name of the file, and give a line only.
import { createRequire } from 'node:module';
import type * as Protobuf from 'protobufjs';

const require = createRequire(import.meta.url);

/** The start of the message `schemaEncoder` gives a .proto file protobufjs cannot parse. */
const NOT_A_PROTO_FILE = 'not a valid .proto file: ';

/**
 * The message to show instead of a `SchemaEncodeError` saying a .proto file does not parse: where
 * parsing stopped (line and column, from 1) and what the grammar wanted there, never a token or name of
 * the file; `undefined` for any other error (its message is shown as it is).
 *
 * @example
 * ```ts
 * protoSyntaxMessage(error, 'syntax = "proto3";\nmessage Order {\n  string secret = 1\n}');
 * // "not a valid .proto file: parsing failed at line 4 column 1, ';' expected (its message is withheld: it quotes the file)"
 * ```
 */
export function protoSyntaxMessage(error: Error, source: string): string | undefined {
  if (!error.message.startsWith(NOT_A_PROTO_FILE) || !(error.cause instanceof Error)) return undefined;
  const withheld = '(its message is withheld: it quotes the file)';
  const cause = error.cause.message;
  const syntax = /^illegal (.+?)(?: '(.*)'(?:, '(.+)' expected)?)? \((?:.*, )?line \d+\)$/s.exec(cause);
  if (!syntax) {
    // Found after parsing (protobufjs names the name or number): what kind of problem, not which.
    const kind = /^duplicate name /.test(cause)
      ? ': a name is defined twice in one scope'
      : /^duplicate id /.test(cause)
        ? ': a field number is used twice in one message'
        : / is reserved in /.test(cause)
          ? ': a field uses a reserved name or number'
          : '';
    return `${NOT_A_PROTO_FILE.slice(0, -2)}${kind} ${withheld}`;
  }
  const [, what, token, expected] = syntax;
  const offset = stopOffset(source, cause);
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
  return `${NOT_A_PROTO_FILE}${where}${problem} ${withheld}`;
}

/**
 * The shortest prefix of `source` that protobufjs refuses with the same message `failure`: the point
 * where the source's parse fails (the end of the token it stopped at). A prefix that does not reach it
 * parses, or fails otherwise (it ends inside the token, or too soon); every longer one fails the same.
 */
function stopOffset(source: string, failure: string): number | undefined {
  const protobuf = require('protobufjs') as typeof Protobuf;
  const fails = (length: number) => {
    try {
      protobuf.parse(source.slice(0, length), { keepCase: true });
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

/** `line L column C` of an offset, both from 1, as the JSON scanner counts them (lines end at LF, CRLF or CR). */
function lineAndColumn(text: string, offset: number): string {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x0a || (c === 0x0d && text.charCodeAt(i + 1) !== 0x0a)) {
      line++;
      lineStart = i + 1;
    }
  }
  return `line ${line} column ${offset - lineStart + 1}`;
}
