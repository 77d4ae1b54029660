import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidArgumentError } from 'commander';
import { afterEach, describe, expect, it } from 'vitest';
import { FolderNotEmptyError, scaffoldProject } from './commands/init.ts';
import { CliError } from './errors.ts';
import { invalidArgument } from './usage.ts';

describe("the CLI's errors", () => {
  const folders: string[] = [];
  afterEach(() => {
    for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
  });

  it('extend CliError, carry their own class name and keep the cause they are given', () => {
    const cause = new Error('underlying');
    const errors = [new CliError('base', { cause }), new FolderNotEmptyError('not empty', { cause })];
    for (const error of errors) {
      expect(error).toBeInstanceOf(CliError);
      expect(error.name).toBe(error.constructor.name);
      expect(error.cause).toBe(cause);
    }
  });

  it('init refuses a folder holding files with a FolderNotEmptyError', () => {
    const folder = mkdtempSync(join(tmpdir(), 'kafka-lambda-cli-errors-'));
    folders.push(folder);
    writeFileSync(join(folder, 'keep.txt'), 'mine');
    let thrown: unknown;
    try {
      scaffoldProject(folder);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(FolderNotEmptyError);
    expect(thrown).toBeInstanceOf(CliError);
  });

  it("a refused option value keeps what led to it, as commander's own error type", () => {
    const cause = new SyntaxError('Unexpected end of JSON input');
    const error = invalidArgument('not JSON', cause);
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect(error.message).toBe('not JSON');
    expect(error.cause).toBe(cause);
  });
});
