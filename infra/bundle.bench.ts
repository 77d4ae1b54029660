// Bundle size and cold import time of each Lambda function, built exactly as `cdk synth` builds it
// (infra/bundling.ts). Import time: how long `await import()` of the bundled handler takes in a fresh `node`
// process (timed inside that process), against importing an empty module the same way in this run.
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { Bench } from 'tinybench';
import { esbuildSettings } from './bundling.ts';

const root = join(import.meta.dirname, '..');
const functions = {
  orders: join(root, 'functions/orders/handler.ts'),
  replay: join(root, 'functions/replay/handler.ts'),
};
const out = await mkdtemp(join(tmpdir(), 'kafka-lambda-bundles-'));

/** Milliseconds `await import(file)` took in a new node process (start-up excluded). */
function importInFreshNode(file: string, nodeOptions: string[] = []): { overriddenDuration: number } {
  const script = `const t = performance.now(); await import(${JSON.stringify(file)}); process.stdout.write(String(performance.now() - t));`;
  const result = spawnSync(process.execPath, [...nodeOptions, '--input-type=module', '-e', script], {
    // No AWS credentials: importing a handler must not call anything.
    env: { PATH: process.env.PATH, AWS_REGION: 'eu-west-1', AWS_LAMBDA_FUNCTION_NAME: 'bench' },
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`importing ${file} failed: ${result.stderr}`);
  return { overriddenDuration: Number(result.stdout) };
}

try {
  const empty = join(out, 'empty.mjs');
  await writeFile(empty, '');
  const bundles: Record<string, string> = {};
  const sizes = [];
  for (const [name, entry] of Object.entries(functions)) {
    const outfile = join(out, name, 'index.mjs');
    await build({ ...esbuildSettings, entryPoints: [entry], outfile, logLevel: 'error' });
    bundles[name] = outfile;
    const code = await readFile(outfile);
    sizes.push({
      function: name,
      'index.mjs (KiB)': (code.length / 1024).toFixed(1),
      'gzip (KiB)': (gzipSync(code).length / 1024).toFixed(1),
      'source map (KiB)': ((await stat(`${outfile}.map`)).size / 1024).toFixed(1),
    });
  }
  console.log('Bundle sizes (minified ESM, everything bundled incl. @aws-sdk/*):');
  console.table(sizes);

  const bench = new Bench({ iterations: 20, time: 0, warmupIterations: 2 });
  bench.add('baseline: empty module', () => importInFreshNode(empty));
  for (const [name, file] of Object.entries(bundles)) {
    bench.add(`${name} handler`, () => importInFreshNode(file));
    bench.add(`${name} handler, --enable-source-maps`, () =>
      importInFreshNode(file, ['--enable-source-maps']),
    );
  }
  await bench.run();
  const medianMs = (task: (typeof bench.tasks)[number]): number => {
    if (task.result.state !== 'completed') throw new Error(`${task.name}: ${task.result.state}`);
    return task.result.latency.p50;
  };
  const baseline = medianMs(bench.tasks[0]!);
  console.log('`await import()` of the bundled handler in a fresh node process (median of 20):');
  console.table(
    bench.tasks.map((task) => {
      const p50 = medianMs(task);
      return {
        task: task.name,
        'median (ms)': p50.toFixed(1),
        'over baseline (ms)': (p50 - baseline).toFixed(1),
        'vs baseline': `${(p50 / baseline).toFixed(2)}x`,
      };
    }),
  );
} finally {
  await rm(out, { recursive: true, force: true });
}
