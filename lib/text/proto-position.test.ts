import { createRequire } from 'node:module';
import type * as Protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { protoParseProblem } from './proto-position.ts';

const protobuf = createRequire(import.meta.url)('protobufjs') as typeof Protobuf;
const parse = (text: string) => protobuf.parse(text, { keepCase: true });

/** What protoParseProblem says of `source`, from the error protobufjs throws for it. */
function problem(source: string): string | undefined {
  try {
    parse(source);
  } catch (error) {
    return protoParseProblem((error as Error).message, source, parse);
  }
  throw new Error('the source parsed');
}

const P3 = 'syntax = "proto3";\n';

describe('protoParseProblem', () => {
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
    expect(problem(source)).toBe(`parsing failed at ${where}`);
  });

  it('says a file that ends too soon does, with its last line', () => {
    expect(problem(`${P3}message SECRET {\n  string a = 1;\n\n`)).toBe(
      'parsing failed at the end of the file (line 3): a statement or block is not finished',
    );
  });

  it('finds the position with the parse it is given (a message naming the file is matched as it is)', () => {
    const source = `${P3}message A { int32 x = 1 int32 y = 2; }`;
    const named = (text: string) => {
      try {
        parse(text);
      } catch (error) {
        throw new Error((error as Error).message.replace('(line', '(SECRET.proto, line'));
      }
    };
    let message = '';
    try {
      named(source);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('SECRET.proto');
    expect(protoParseProblem(message, source, named)).toBe(
      "parsing failed at line 2 column 25, ';' expected",
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
    expect(problem(source)).toBe(kind);
  });

  it('knows no other message', () => {
    expect(protoParseProblem('something else', P3, parse)).toBeUndefined();
  });
});
