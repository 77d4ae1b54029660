import { createRequire } from 'node:module';
import type * as Protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { protoSyntaxMessage } from './proto-position.ts';

const protobuf = createRequire(import.meta.url)('protobufjs') as typeof Protobuf;
const WITHHELD = '(its message is withheld: it quotes the file)';

/** The message for `source` as the CLI shows it, from the error schemaEncoder gives a .proto that does not parse. */
function shown(source: string): string | undefined {
  try {
    protobuf.parse(source, { keepCase: true });
  } catch (cause) {
    const error = new Error(`not a valid .proto file: ${(cause as Error).message}`, { cause });
    return protoSyntaxMessage(error, source);
  }
  throw new Error('the source parsed');
}

const P3 = 'syntax = "proto3";\n';

describe('protoSyntaxMessage', () => {
  it.each([
    // A missing ';': protobufjs stops at the next line's first token.
    [`${P3}message Order {\n  string SECRET_a = 1\n  int32 n = 2;\n}\n`, "line 4 column 3, ';' expected"],
    // The same token earlier on the line is not the one it stopped at.
    [`${P3}message A { int32 x = 1 int32 SECRET_y = 2; }`, "line 2 column 25, ';' expected"],
    [`${P3}message A {\r\n  string 9SECRET = 1; }`, 'line 3 column 10: an illegal name'],
    [`${P3}message A { int32 x = SECRET; }`, 'line 2 column 23: an illegal id'],
    ['export const SECRET_TOKEN = "x";\n', 'line 1 column 1: an unexpected token'],
    [`${P3}/* SECRET, unterminated`, 'line 2 column 1: an illegal comment'],
  ])('names where %j stops parsing: %s', (source, where) => {
    expect(shown(source)).toBe(`not a valid .proto file: parsing failed at ${where} ${WITHHELD}`);
  });

  it('says a file that ends too soon does, with its last line', () => {
    expect(shown(`${P3}message SECRET {\n  string a = 1;\n\n`)).toBe(
      `not a valid .proto file: parsing failed at the end of the file (line 3): a statement or block is not finished ${WITHHELD}`,
    );
  });

  it.each([
    [
      `${P3}message SECRET { int32 SECRET_x = 1; int32 SECRET_x = 2; }`,
      'a name is defined twice in one scope',
    ],
    [`${P3}message SECRET { int32 a = 1; int32 b = 1; }`, 'a field number is used twice in one message'],
    [`${P3}message SECRET { reserved 1; int32 a = 1; }`, 'a field uses a reserved name or number'],
  ])('says what kind of problem protobufjs found after parsing %j, not which name', (source, kind) => {
    expect(shown(source)).toBe(`not a valid .proto file: ${kind} ${WITHHELD}`);
  });

  it('leaves any other error alone', () => {
    expect(protoSyntaxMessage(new Error('the .proto file has no message shop.Order'), P3)).toBeUndefined();
    expect(protoSyntaxMessage(new Error('not a valid .proto file: x'), P3)).toBeUndefined();
  });
});
