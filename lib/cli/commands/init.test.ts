import { mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../test/support/run-cli.ts';
import { FolderNotEmptyError, InitInputError, scaffoldProject } from './init.ts';

const cwd = process.cwd();
afterEach(() => process.chdir(cwd));

/** A new folder `work` (in a new temporary folder) made the current one, with `files` around it. */
async function workFolder(files: readonly string[] = []): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'init-'));
  const work = join(root, 'work');
  await mkdir(work);
  process.chdir(work);
  for (const file of files) {
    await mkdir(join(work, file, '..'), { recursive: true });
    await writeFile(join(work, file), '');
  }
  return work;
}

/** The dependency written for `spec` (or for the spec made from the work folder's absolute path). */
async function dependencyWritten(
  spec: string | undefined | ((work: string) => string),
  files: string[] = [],
): Promise<string> {
  const work = await workFolder(files);
  const packageSpec = typeof spec === 'function' ? spec(work) : spec;
  scaffoldProject('shop/orders-consumer', packageSpec === undefined ? {} : { packageSpec });
  const manifest = JSON.parse(await readFile(join(work, 'shop/orders-consumer/package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  return manifest.dependencies['kafka-lambda']!;
}

describe('scaffoldProject: the kafka-lambda dependency', () => {
  it('is this version by default', async () => {
    expect(await dependencyWritten(undefined)).toMatch(/^\^\d+\.\d+\.\d+/);
  });

  it('keeps a version range or a URL as given', async () => {
    expect(await dependencyWritten('^0.2.0')).toBe('^0.2.0');
    expect(await dependencyWritten('github:acme/kafka-lambda')).toBe('github:acme/kafka-lambda');
    expect(await dependencyWritten('https://example.com/kafka-lambda-0.1.0.tgz')).toBe(
      'https://example.com/kafka-lambda-0.1.0.tgz',
    );
  });

  it('writes a local tarball relative to the new project, where npm reads it from', async () => {
    // init runs in the folder above `shop/`; the tarball lies next to it.
    expect(await dependencyWritten('../kafka-lambda-0.1.0.tgz', ['../kafka-lambda-0.1.0.tgz'])).toBe(
      'file:../../../kafka-lambda-0.1.0.tgz',
    );
    expect(await dependencyWritten('kafka-lambda-0.1.0.tgz', ['kafka-lambda-0.1.0.tgz'])).toBe(
      'file:../../kafka-lambda-0.1.0.tgz',
    );
    expect(await dependencyWritten('file:./dist/pkg', ['dist/pkg/package.json'])).toBe('file:../../dist/pkg');
    expect(await dependencyWritten((work) => join(work, 'kafka-lambda.tgz'), ['kafka-lambda.tgz'])).toBe(
      'file:../../kafka-lambda.tgz',
    );
  });
});

describe('scaffoldProject: what it refuses, writing nothing', () => {
  it.each([
    ['', {}, 'the folder name is empty (. is this folder)'],
    ['a-file', {}, 'a-file is a file: init writes only into a new or empty folder'],
    ['new', { packageSpec: '' }, '--package is empty: give a version range, a tarball or a git URL'],
    ['new', { packageSpec: './missing.tgz' }, '--package ./missing.tgz: no such file or folder'],
    ['new', { packageSpec: 'file:../missing' }, '--package file:../missing: no such file or folder'],
  ])('%j %j', async (folder, options, message) => {
    const work = await workFolder(['a-file']);
    expect(() => scaffoldProject(folder, options)).toThrow(new InitInputError(message));
    expect(await readdir(work)).toEqual(['a-file']);
  });

  it('a folder holding files, with a FolderNotEmptyError', async () => {
    await workFolder(['orders/keep.txt']);
    expect(() => scaffoldProject('orders')).toThrow(FolderNotEmptyError);
  });

  it('a folder holding a .git and anything else, with a FolderNotEmptyError', async () => {
    await workFolder(['orders/.git/HEAD', 'orders/notes.md']);
    expect(() => scaffoldProject('orders')).toThrow(
      new FolderNotEmptyError(
        'orders is not empty: init writes only into a new or empty folder (or one holding only .git)',
      ),
    );
  });
});

describe('scaffoldProject: a folder holding only .git', () => {
  it('is scaffolded (a repository just made for the project), its .git left alone and not listed', async () => {
    const work = await workFolder(['.git/HEAD']);
    await writeFile(join(work, '.git/HEAD'), 'ref: refs/heads/main\n');
    const files = scaffoldProject('.');
    expect(files).toContain('package.json');
    expect(files.filter((file) => file.startsWith('.git/'))).toEqual([]);
    expect(await readFile(join(work, '.git/HEAD'), 'utf8')).toBe('ref: refs/heads/main\n');
  });
});

describe('kafka-lambda init', () => {
  it('warns, when no --package is given, that kafka-lambda is not on the npm registry yet and how to install it', async () => {
    const work = await workFolder();
    const run = await runCli(['init', join(work, 'orders')]);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(
      /^warning: kafka-lambda is not on the npm registry yet: the "\^\d+\.\d+\.\d+[^"]*" this project's package\.json asks for fails npm install \(404\).* Run init again with --package <path to kafka-lambda-[^>]+\.tgz>/,
    );
    await writeFile(join(work, 'kafka-lambda.tgz'), '');
    const given = await runCli(['init', join(work, 'other'), '--package', join(work, 'kafka-lambda.tgz')]);
    expect(given.code).toBe(0);
    expect(given.stderr).toBe('');
  });

  it('says how to go to a folder whose name the shell would split, quoted', async () => {
    const work = await workFolder();
    const run = await runCli(['init', join(work, "My Consumer's!")]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      `\nNext: cd '${work}/My Consumer'\\''s!' && npm install && npm test && npx cdk synth\n`,
    );
  });
});
