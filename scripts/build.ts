/**
 * `npm run build` (and `prepack`): writes `dist/`, what the published package runs.
 *
 * 1. `tsc -p tsconfig.build.json`: ES modules, declarations and declaration maps for every public entry,
 *    from the same `.ts` sources development runs directly (`rewriteRelativeImportExtensions` turns their
 *    `./x.ts` imports into `./x.js`).
 * 2. The files the compiled code reads at run time next to itself: the broker's log4j configurations and
 *    the project `kafka-lambda init` writes.
 * 3. The replay function's Lambda bundle (`dist/assets/replay-handler/index.mjs`), built with the same
 *    esbuild settings `cdk synth` uses, so `KafkaReplayFunction` deploys it without an `entry`.
 *
 * The folder is removed first: a packed tarball never carries output of a file that no longer exists.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { esbuildSettings } from '../infra/bundling.ts';

const root = fileURLToPath(new URL('../', import.meta.url));
const dist = join(root, 'dist');

rmSync(dist, { recursive: true, force: true });

// typescript's `exports` hide bin/tsc; its folder is found through package.json, which is exported.
const tsc = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin/tsc');
const compiled = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], {
  stdio: 'inherit',
});
if (compiled.status !== 0) {
  console.error('build: tsc failed');
  process.exit(compiled.status ?? 1);
}

for (const file of readdirSync(join(root, 'lib/broker')).filter((name) => name.endsWith('.properties'))) {
  cpSync(join(root, 'lib/broker', file), join(dist, 'lib/broker', file));
}
cpSync(join(root, 'lib/cli/init-template'), join(dist, 'lib/cli/init-template'), { recursive: true });

await build({
  ...esbuildSettings,
  entryPoints: [join(root, 'functions/replay/handler.ts')],
  outfile: join(dist, 'assets/replay-handler/index.mjs'),
  logLevel: 'warning',
});
