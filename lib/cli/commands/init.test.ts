import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { scaffoldProject } from './init.ts';

const cwd = process.cwd();
afterEach(() => process.chdir(cwd));

async function dependencyWritten(packageSpec: string | undefined): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'init-'));
  process.chdir(root);
  scaffoldProject('shop/orders-consumer', packageSpec === undefined ? {} : { packageSpec });
  const manifest = JSON.parse(await readFile(join(root, 'shop/orders-consumer/package.json'), 'utf8')) as {
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
    expect(await dependencyWritten('../kafka-lambda-0.1.0.tgz')).toBe('file:../../../kafka-lambda-0.1.0.tgz');
    expect(await dependencyWritten('kafka-lambda-0.1.0.tgz')).toBe('file:../../kafka-lambda-0.1.0.tgz');
    expect(await dependencyWritten('file:./dist/pkg')).toBe('file:../../dist/pkg');
    expect(await dependencyWritten('/opt/kafka-lambda.tgz')).toMatch(
      /^file:(\.\.\/)+opt\/kafka-lambda\.tgz$/,
    );
  });
});
