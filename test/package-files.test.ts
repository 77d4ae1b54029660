// The TypeScript sources the package ships (its `kafka-lambda-source` export condition resolves to them)
// as a user's bundler or type checker reads them: every module one of them imports by a relative path is
// shipped too. package.json `files` lists the infra modules one by one (the CDK app's own are left out),
// so a module newly imported by a shipped one is easily forgotten there; test/package.int.test.ts packs
// and installs the real tarball, this reads npm's own list of its files without building it.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../', import.meta.url));

/** The package's files as npm packs them (`npm pack --dry-run`), without running its build. */
function packedFiles(): string[] {
  const run = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: root,
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (run.status !== 0) throw new Error(`npm pack --dry-run failed: ${run.stderr}`);
  const [packed] = JSON.parse(run.stdout) as { files: { path: string }[] }[];
  return packed!.files.map((file) => file.path);
}

// Static imports and re-exports (type-only ones too: a type checker resolving the source condition reads
// them), side-effect imports and dynamic imports, by a relative path. Only statements starting a line
// count, so that an import quoted in a comment does not.
const RELATIVE_IMPORTS = [
  /^(?:import|export)\s[^;]*?\sfrom\s*['"](\.\.?\/[^'"]+)['"]/gm,
  /^import\s*['"](\.\.?\/[^'"]+)['"]/gm,
  /\bimport\(\s*['"](\.\.?\/[^'"]+)['"]\s*\)/g,
];

/**
 * The relative specifiers `source` imports.
 *
 * @example
 * relativeImports("import { a } from './a.ts';"); // ['./a.ts']
 */
function relativeImports(source: string): string[] {
  return RELATIVE_IMPORTS.flatMap((pattern) => [...source.matchAll(pattern)].map((match) => match[1]!));
}

describe('the TypeScript sources the package ships', () => {
  it('finds imports the way the sources write them', () => {
    expect(
      relativeImports(
        [
          "import { a } from './a.ts';",
          'import type {\n  B,\n  C,\n} from "../b/c.ts";',
          "export { d } from './d.ts';",
          "export type * from './e.ts';",
          "import './f.ts';",
          "const g = await import('./g.ts');",
          " * import { h } from './h.ts';",
          "import { readFile } from 'node:fs/promises';",
          "export function f() { return Buffer.from('./i.ts'); }",
        ].join('\n'),
      ).sort(),
    ).toEqual(['../b/c.ts', './a.ts', './d.ts', './e.ts', './f.ts', './g.ts']);
  });

  it('ship every module they import by a relative path', () => {
    const files = packedFiles();
    const shipped = new Set(files);
    const sources = files.filter(
      (path) => /\.ts$/.test(path) && !/\.d\.ts$/.test(path) && !path.startsWith('dist/'),
    );
    // The CDK constructs are the sources the `./cdk` export condition resolves to: they are checked.
    expect(sources).toContain('infra/index.ts');
    const missing = sources.flatMap((path) =>
      relativeImports(readFileSync(join(root, path), 'utf8'))
        .map((specifier) => normalize(join(dirname(path), specifier)))
        .filter((target) => !shipped.has(target))
        .map((target) => `${path} imports ${target}`),
    );
    expect(missing).toEqual([]);
  }, 120_000);
});
