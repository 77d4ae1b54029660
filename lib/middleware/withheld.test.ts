import { describe, expect, it } from 'vitest';
import { jsonSyntaxCause } from './withheld.ts';

describe('jsonSyntaxCause', () => {
  const parseError = (text: string) => {
    try {
      JSON.parse(text);
    } catch (error) {
      return error;
    }
    throw new Error('parsed');
  };

  it('takes the position the caller found when V8 names none, never quoting the text', () => {
    const cause = jsonSyntaxCause(parseError('{"a": SECRET}'), 'the event', 'position 6 (line 1 column 7)');
    expect(cause.message).toBe(
      'JSON.parse failed at position 6 (line 1 column 7) (its message is withheld: it quotes the event)',
    );
    expect(cause.message).not.toContain('SECRET');
  });

  it("without a position from the caller, says only what V8 says (a handler's own JSON.parse error)", () => {
    expect(jsonSyntaxCause(parseError('{"a": x}')).message).toBe(
      'JSON.parse failed (its message is withheld: it quotes the value)',
    );
    expect(jsonSyntaxCause(parseError('[1 2]')).message).toBe(
      'JSON.parse failed at position 3 (line 1 column 4) (its message is withheld: it quotes the value)',
    );
  });
});
