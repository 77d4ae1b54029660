import { describe, expect, it } from 'vitest';
import { printableErrorMessage } from './usage.ts';

describe('printableErrorMessage', () => {
  it('keeps line breaks and tabs, drops colour sequences, escapes every other control character', () => {
    const maven = 'Maven could not resolve X (exit 1):\n\x1b[1;31m[ERROR]\x1b[m Failed\tto read\x1b[0m\n';
    expect(printableErrorMessage(maven)).toBe(
      'Maven could not resolve X (exit 1):\n[ERROR] Failed\tto read\n',
    );
    // A carriage return, a bell and a window-title sequence would drive the terminal: escaped.
    expect(printableErrorMessage('a\rb\x07\x1b]0;owned\x07\x1b[2J')).toBe(
      'a\\u000db\\u0007\\u001b]0;owned\\u0007\\u001b[2J',
    );
  });
});
