import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { givesFlag, printableErrorMessage } from './usage.ts';

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

describe('givesFlag', () => {
  const command = new Command('produce')
    .option('-t, --topic <topic>')
    .option('-v, --verbose')
    .option('-f, --follow')
    .option('--since [time]')
    .option('--json');
  it.each([
    [['--json'], true],
    [['--topic', 't', '--count', '0', '--json'], true],
    [['--bogus', '--json'], true],
    [['-fv', '--json'], true],
    [['-t', 't', '--json'], true],
    [['-tt', '--json'], true],
    [['--topic=t', '--json'], true],
    [['--since', '--json'], true],
    [['--since', 'now', '--json'], true],
    [['--topic', '--json'], false],
    [['-t', '--json'], false],
    [['-vt', '--json'], false],
    [['--', '--json'], false],
    [['--json=1'], false],
    [[], false],
  ])('%j: %s', (args, given) => {
    expect(givesFlag(command, args, '--json')).toBe(given);
  });
});
