// The package's entry points as processes see them: the `kafka-lambda` command on a Node.js it does not
// support, and what importing the middleware entry loads (test/package.int.test.ts proves both again on the
// installed tarball).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../', import.meta.url));
const cli = fileURLToPath(new URL('../bin/kafka-lambda.js', import.meta.url));
/** Each case starts a Node.js process: generous, for a busy machine. */
const PROCESS_TIMEOUT_MS = 120_000;
const engines = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).engines.node;

/** `kafka-lambda --help` as a Node.js that reports `version` runs it. */
function helpOnNode(version: string) {
  const pretend = `Object.defineProperty(process, 'versions', { value: { ...process.versions, node: '${version}' } });`;
  return spawnSync(
    process.execPath,
    ['--import', `data:text/javascript,${encodeURIComponent(pretend)}`, cli, '--help'],
    {
      cwd: root,
      encoding: 'utf8',
    },
  );
}

describe('the kafka-lambda command', () => {
  it.each(['20.19.0', '22.17.1', '23.5.0'])(
    'says which Node.js it needs on %s, instead of a module loader error',
    (version) => {
      const run = helpOnNode(version);
      expect(run.status).toBe(1);
      expect(run.stderr.trim()).toBe(
        `kafka-lambda needs Node.js ${engines} (it runs TypeScript handlers with Node's type stripping); this is Node.js ${version}.`,
      );
    },
    PROCESS_TIMEOUT_MS,
  );

  it.each(['22.18.0', '23.6.0', '24.0.0'])(
    'runs on %s',
    (version) => {
      const run = helpOnNode(version);
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      expect(run.stdout).toContain('Usage: kafka-lambda');
    },
    PROCESS_TIMEOUT_MS,
  );
});

describe('importing kafka-lambda', () => {
  it(
    'loads no kafkajs, AWS SDK, commander or CDK module',
    () => {
      const script = `
      import { registerHooks } from 'node:module';
      const loaded = [];
      registerHooks({ resolve: (specifier, context, next) => { const result = next(specifier, context); loaded.push(result.url); return result; } });
      const { kafkaBatch } = await import('kafka-lambda');
      if (typeof kafkaBatch !== 'function') throw new Error('kafkaBatch is not exported');
      process.stdout.write(JSON.stringify(loaded));`;
      const run = spawnSync(
        process.execPath,
        ['--conditions=kafka-lambda-source', '--input-type=module', '-e', script],
        { cwd: root, encoding: 'utf8' },
      );
      expect(run.stderr).toBe('');
      const loaded = JSON.parse(run.stdout) as string[];
      expect(loaded).toContain(new URL('../lib/middleware/index.ts', import.meta.url).href);
      expect(
        loaded.filter((url) =>
          /\/node_modules\/(kafkajs|@aws-sdk|commander|aws-cdk-lib|constructs)\//.test(url),
        ),
      ).toEqual([]);
    },
    PROCESS_TIMEOUT_MS,
  );
});
