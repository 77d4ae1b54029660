// The package as a user gets it, proven from outside this repository with real processes: `npm pack` (which
// builds dist/), the packaging linters on that tarball, then a project scaffolded by `kafka-lambda init` in a
// temporary folder, installed once from the tarball and the registry, where the handler type-checks, its
// test passes, `invoke`, `cdk synth` and `dev` work, and importing `kafka-lambda` loads nothing heavy.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkApiReports } from '../scripts/api-report.ts';
import { createTopic, testBrokers, testKafka, uniqueName } from './support/kafka.ts';
import { testProducer } from './support/producer.ts';

const root = fileURLToPath(new URL('../', import.meta.url));
const cli = join(root, 'bin/kafka-lambda.js');
/** The TypeScript 5 most projects still use, beside the 7.x this project and the scaffold compile with. */
const TYPESCRIPT_5 = 'typescript@5.9.3';
const MINUTE = 60_000;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a command to its end. After `timeoutMs` its whole process group is killed: `npx` runs the command
 * as a grandchild, which would otherwise outlive it and hold the output pipes open.
 */
function run(
  command: string,
  args: readonly string[],
  options: { cwd: string; env?: Record<string, string>; timeoutMs?: number },
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const timer = setTimeout(
      () => {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      },
      options.timeoutMs ?? 5 * MINUTE,
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Fails with the command's output when it did not exit 0. */
function succeeded(result: Run): Run {
  if (result.code !== 0) {
    throw new Error(`exit code ${result.code}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`);
  }
  return result;
}

interface PackResult {
  filename: string;
  size: number;
  entryCount: number;
  files: { path: string }[];
}

let temp: string;
let tarball: string;
let packed: PackResult;
let app: string;
let typescript5: string;
const npx = (args: readonly string[], timeoutMs?: number) =>
  run('npx', ['--no-install', ...args], { cwd: app, ...(timeoutMs !== undefined && { timeoutMs }) });

beforeAll(async () => {
  temp = await mkdtemp(join(tmpdir(), 'kafka-lambda-package-'));
  // `npm pack` runs prepack (npm run build): the tarball always carries fresh output.
  const pack = succeeded(
    await run('npm', ['pack', '--json', '--pack-destination', temp], { cwd: root, timeoutMs: 10 * MINUTE }),
  );
  packed = (JSON.parse(pack.stdout) as PackResult[])[0]!;
  tarball = join(temp, packed.filename);
  console.log(
    `packed ${packed.filename}: ${(packed.size / 1024).toFixed(0)} KiB, ${packed.entryCount} files`,
  );

  // The scaffold is the outside project: its own package.json, kafka-lambda from the tarball, the rest
  // from the registry, in one install; TypeScript 5 beside it, for the type check.
  app = join(temp, 'orders-consumer');
  typescript5 = join(temp, 'typescript5');
  succeeded(await run(process.execPath, [cli, 'init', app, '--package', `file:${tarball}`], { cwd: temp }));
  succeeded(await run('npm', ['install', '--no-audit', '--no-fund'], { cwd: app, timeoutMs: 20 * MINUTE }));
  succeeded(
    await run('npm', ['install', '--no-audit', '--no-fund', '--prefix', typescript5, TYPESCRIPT_5], {
      cwd: temp,
      timeoutMs: 5 * MINUTE,
    }),
  );
}, 35 * MINUTE);

afterAll(async () => {
  if (temp) await rm(temp, { recursive: true, force: true });
});

describe('the packed tarball', () => {
  it(
    'passes publint, arethetypeswrong and npm publish --dry-run',
    async () => {
      const publint = succeeded(
        await run('npx', ['--no-install', 'publint', '--strict', tarball], { cwd: root }),
      );
      expect(publint.stdout).toContain('All good!');
      // ESM only: the CommonJS and node10 resolutions are not offered; every ESM resolution must be clean.
      const attw = succeeded(
        await run('npx', ['--no-install', 'attw', tarball, '--profile', 'esm-only', '--format', 'json'], {
          cwd: root,
        }),
      );
      const { analysis } = JSON.parse(attw.stdout) as {
        analysis: { problems: { resolutionKind?: string }[] };
      };
      expect(
        analysis.problems.filter((p) => !['node10', 'node16-cjs'].includes(p.resolutionKind ?? '')),
      ).toEqual([]);
      // The build is fresh from `npm pack` above; --ignore-scripts keeps publish from building it again.
      const publish = succeeded(
        await run('npm', ['publish', '--dry-run', '--ignore-scripts', '--json'], {
          cwd: root,
          timeoutMs: 5 * MINUTE,
        }),
      );
      // npm 11 keys the dry run's report by package name.
      expect(JSON.parse(publish.stdout)).toMatchObject({
        'kafka-lambda': { name: 'kafka-lambda', entryCount: packed.entryCount },
      });
    },
    15 * MINUTE,
  );

  it(
    'ships no tests, no fixtures, no example functions and no demo, and its code never reaches them by a path',
    async () => {
      const paths = packed.files.map((file) => file.path);
      expect(
        paths.filter((path) => /(^|\/)(test|functions|demo)\/|\.test(-d)?\.ts$|\.bench\.ts$/.test(path)),
      ).toEqual(
        // The scaffold's own test is a template `init` copies, not a test of this package.
        ['dist/lib/cli/init-template/test/handler.test.ts'],
      );
      const installed = join(app, 'node_modules/kafka-lambda');
      for (const path of paths.filter((p) => /\.(js|ts)$/.test(p) && !p.includes('init-template'))) {
        const text = await readFile(join(installed, path), 'utf8');
        expect(text, path).not.toMatch(
          /from '(\.\.\/)+(test|functions|demo)\/|import\(['"](\.\.\/)+(test|functions|demo)\//,
        );
      }
    },
    5 * MINUTE,
  );

  it(
    'matches the committed API reports (api/*.api.md)',
    () => {
      expect(checkApiReports({ update: false })).toEqual([]);
    },
    20 * MINUTE,
  );
});

describe('a project outside the repository, installed from the tarball', () => {
  it(
    'type-checks its kafkaBatch handler, test and CDK app against the installed declarations (TypeScript 7 and 5)',
    async () => {
      const listed = succeeded(await npx(['tsc', '--listFilesOnly']));
      expect(listed.stdout).toContain(
        join('node_modules', 'kafka-lambda', 'dist', 'lib', 'middleware', 'index.d.ts'),
      );
      expect(listed.stdout).not.toContain(join('@types', 'aws-lambda'));
      succeeded(await npx(['tsc']));
      succeeded(
        await run(process.execPath, [join(typescript5, 'node_modules/typescript/bin/tsc')], { cwd: app }),
      );
    },
    5 * MINUTE,
  );

  it(
    "passes the scaffold's own test (vitest with kafka-lambda/testing)",
    async () => {
      const test = succeeded(await npx(['vitest', 'run']));
      expect(test.stdout).toMatch(/Tests\s+.*1 passed/);
    },
    5 * MINUTE,
  );

  it(
    'prints the partial batch response with npx kafka-lambda invoke',
    async () => {
      const invoke = succeeded(
        await npx(['kafka-lambda', 'invoke', 'src/handler.ts', '--event', 'events/orders.json']),
      );
      expect(JSON.parse(invoke.stdout)).toEqual({
        batchItemFailures: [
          { itemIdentifier: { partition: 'orders-0', offset: 1 } },
          { itemIdentifier: { partition: 'orders-0', offset: 2 } },
        ],
      });
    },
    5 * MINUTE,
  );

  it(
    'synthesizes its CDK app offline, the replay function deployed from the bundle the package ships',
    async () => {
      succeeded(await npx(['cdk', 'synth', '--quiet'], 10 * MINUTE));
      const out = join(app, 'cdk.out');
      const template = JSON.parse(await readFile(join(out, 'OrdersConsumer.template.json'), 'utf8')) as {
        Resources: Record<
          string,
          { Type: string; Properties: Record<string, unknown>; Metadata?: Record<string, string> }
        >;
      };
      const functions = Object.values(template.Resources).filter((r) => r.Type === 'AWS::Lambda::Function');
      expect(functions.map((f) => [f.Properties.Runtime, f.Properties.Handler])).toEqual([
        ['nodejs24.x', 'index.handler'],
        ['nodejs24.x', 'index.handler'],
      ]);
      expect(
        Object.values(template.Resources).filter((r) => r.Type === 'AWS::Lambda::EventSourceMapping'),
      ).toHaveLength(1);
      const assets = await Promise.all(
        functions.map(async (f) => {
          const folder = join(out, f.Metadata!['aws:asset:path']!);
          return { files: (await readdir(folder)).sort(), code: await readFile(join(folder, 'index.mjs')) };
        }),
      );
      const shipped = await readFile(
        join(app, 'node_modules/kafka-lambda/dist/assets/replay-handler/index.mjs'),
      );
      const replay = assets.filter((asset) => asset.code.equals(shipped));
      expect(replay).toHaveLength(1);
      // The consumer is the user's handler, bundled by esbuild: small, with no Kafka client or AWS SDK in it.
      const consumer = assets.find((asset) => !asset.code.equals(shipped))!;
      expect(consumer.files).toEqual(['index.mjs', 'index.mjs.map']);
      expect(consumer.code.length).toBeLessThan(100_000);
      expect(consumer.code.toString()).not.toMatch(/kafkajs|@aws-sdk/);
    },
    15 * MINUTE,
  );

  it(
    'runs the handler against a real broker with npx kafka-lambda dev',
    async () => {
      const kafka = testKafka('package-dev');
      const topic = uniqueName('package-orders');
      await createTopic(kafka, topic, 2);
      const producer = testProducer(kafka);
      await producer.connect();
      await producer.send({
        topic,
        messages: Array.from({ length: 6 }, (_, i) => ({
          partition: i % 2,
          key: `c-${i}`,
          value: JSON.stringify({ orderId: `o-${i}`, quantity: i + 1 }),
        })),
      });
      await producer.disconnect();

      const dev = succeeded(
        await npx(
          [
            'kafka-lambda',
            'dev',
            'src/handler.ts',
            '--topic',
            topic,
            '--brokers',
            testBrokers().join(','),
            '--report-batch-item-failures',
            '--window',
            '0',
            '--exit-when-idle',
          ],
          5 * MINUTE,
        ),
      );
      const output = dev.stdout + dev.stderr;
      for (let i = 0; i < 6; i++) expect(output).toContain(`order o-${i}: ${i + 1} (${topic}-${i % 2}@`);
      expect(dev.stderr.trimEnd().split('\n').at(-1)).toBe(
        `offsets committed by this run: ${topic}-0=3 ${topic}-1=3`,
      );
    },
    10 * MINUTE,
  );

  it(
    'loads no kafkajs, AWS SDK, commander or CDK module when it imports kafka-lambda',
    async () => {
      // Every module Node resolves while importing the middleware entry, as the installed package runs it.
      const script = `
      import { registerHooks } from 'node:module';
      const loaded = [];
      registerHooks({ resolve: (specifier, context, next) => { const result = next(specifier, context); loaded.push(result.url); return result; } });
      const { kafkaBatch } = await import('kafka-lambda');
      if (typeof kafkaBatch !== 'function') throw new Error('kafkaBatch is not exported');
      process.stdout.write(JSON.stringify(loaded));`;
      const imported = succeeded(
        await run(process.execPath, ['--input-type=module', '-e', script], { cwd: app }),
      );
      const loaded = JSON.parse(imported.stdout) as string[];
      expect(loaded.some((url) => url.includes('/node_modules/kafka-lambda/dist/lib/middleware/'))).toBe(
        true,
      );
      expect(
        loaded.filter((url) =>
          /\/node_modules\/(kafkajs|@aws-sdk|commander|aws-cdk-lib|constructs)\//.test(url),
        ),
      ).toEqual([]);
    },
    5 * MINUTE,
  );

  it(
    'scaffolds the same project with npx kafka-lambda init from the install',
    async () => {
      const init = succeeded(await npx(['kafka-lambda', 'init', 'another']));
      expect(init.stdout).toContain('Next: cd another && npm install && npm test && npx cdk synth');
      const files = async (folder: string) =>
        (await readdir(folder, { recursive: true }))
          .filter((f) => !/^(node_modules|cdk\.out|package-lock\.json)/.test(f))
          .sort();
      expect(await files(join(app, 'another'))).toEqual(
        (await files(app)).filter((f) => !f.startsWith('another')),
      );
      const manifest = JSON.parse(await readFile(join(app, 'another/package.json'), 'utf8'));
      expect(manifest.dependencies['kafka-lambda']).toBe(
        `^${JSON.parse(await readFile(join(root, 'package.json'), 'utf8')).version}`,
      );
      const refused = await npx(['kafka-lambda', 'init', 'another']);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('another is not empty');
    },
    5 * MINUTE,
  );

  // Last: it installs avsc into the scaffold.
  it(
    "encodes schema values with kafka-lambda event needing only that format's library, and names it when missing",
    async () => {
      // The scaffold is JSON only: none of the optional schema libraries is installed.
      for (const library of ['avsc', 'protobufjs', 'ajv'])
        expect(existsSync(join(app, 'node_modules', library))).toBe(false);
      await writeFile(
        join(temp, 'order.avsc'),
        JSON.stringify({ type: 'record', name: 'Order', fields: [{ name: 'id', type: 'string' }] }),
      );
      const args = ['kafka-lambda', 'event', '--topic', 'orders', '--value-avro', join(temp, 'order.avsc')];
      const missing = await npx([...args, '--value', '{"id":"o-1"}']);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain('Avro values need the avsc package: npm install --save-dev avsc');
      succeeded(
        await run('npm', ['install', '--no-audit', '--no-fund', '--no-save', 'avsc'], {
          cwd: app,
          timeoutMs: 5 * MINUTE,
        }),
      );
      const printed = succeeded(await npx([...args, '--value', '{"id":"o-1"}', '--format', 'source']));
      expect(JSON.parse(printed.stdout).records['orders-0'][0].valueSchemaMetadata).toEqual({
        dataFormat: 'AVRO',
        schemaId: '1',
      });
    },
    10 * MINUTE,
  );
});
