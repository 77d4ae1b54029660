// `npm run bench`: runs every *.bench.ts in the project, one after another, each printing its own
// ratios against a baseline it measures in the same run. A file name given on the command line
// narrows the run (e.g. `npm run bench -- middleware`).
import { readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { silenceKafkajsTimerWarning } from '../lib/cli/warnings.ts';

silenceKafkajsTimerWarning();
const root = join(import.meta.dirname, '..');
const filter = process.argv[2];
const files: string[] = [];
for (const dir of ['lib', 'functions', 'infra', 'bench']) {
  for (const entry of await readdir(join(root, dir), { recursive: true }).catch(() => [] as string[])) {
    if (entry.endsWith('.bench.ts') && !entry.includes('node_modules')) files.push(join(root, dir, entry));
  }
}
for (const file of files.sort()) {
  if (filter && !file.includes(filter)) continue;
  console.log(`\n## ${relative(root, file)}\n`);
  await import(pathToFileURL(file).href);
}
