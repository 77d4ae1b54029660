#!/usr/bin/env node
// The `kafka-lambda` command. Written in syntax every Node.js parses, so that an older Node.js says which
// version it needs instead of failing inside the module loader.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const packageRoot = fileURLToPath(new URL('../', import.meta.url));
const { engines } = JSON.parse(readFileSync(`${packageRoot}package.json`, 'utf8'));

/** Whether `version` (x.y.z) is in `range`, written as `^x.y.z` or `>=x.y.z` alternatives joined by `||`. */
function satisfies(version, range) {
  const parse = (text) => text.split('.').map(Number);
  const [major, minor, patch] = parse(version);
  return range.split('||').some((alternative) => {
    const match = /^\s*(\^|>=)(\d+)\.(\d+)\.(\d+)\s*$/.exec(alternative);
    if (!match) throw new Error(`kafka-lambda: unsupported engines range "${alternative}"`);
    const [least, sameMajor] = [match.slice(2).map(Number), match[1] === '^'];
    if (sameMajor && major !== least[0]) return false;
    if (major !== least[0]) return major > least[0];
    if (minor !== least[1]) return minor > least[1];
    return patch >= least[2];
  });
}

if (!satisfies(process.versions.node, engines.node)) {
  console.error(
    `kafka-lambda needs Node.js ${engines.node.replace(/\s+/g, ' ')} (it runs TypeScript handlers with Node's ` +
      `type stripping); this is Node.js ${process.versions.node}.`,
  );
  process.exit(1);
}

// In this repository, development runs the TypeScript sources directly: `kafka-lambda-source` (an export
// condition of package.json) makes `kafka-lambda/*` imports, e.g. the example function's, resolve to them
// too. An installed package has no sources to run (Node.js does not strip types under node_modules) and
// runs its build, dist/.
const sourceEntry = new URL('../lib/cli/main.ts', import.meta.url);
const fromSources = existsSync(sourceEntry) && !packageRoot.split(/[\\/]/).includes('node_modules');
if (fromSources) {
  const { registerHooks } = await import('node:module');
  registerHooks({
    resolve: (specifier, context, nextResolve) =>
      nextResolve(specifier, { ...context, conditions: [...context.conditions, 'kafka-lambda-source'] }),
  });
  await import(sourceEntry.href);
} else {
  await import('../dist/lib/cli/main.js');
}
