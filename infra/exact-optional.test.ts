// The constructs' public props compiled as a project with `exactOptionalPropertyTypes: true` compiles
// them: exact-optional.test-d.ts passes `undefined` for the optional props (the README's on-demand switch,
// `mappingProps: { provisionedPollerConfig: undefined }`, among them), which such a project may do and
// the constructs take. `npm run check` compiles it with the project's own settings only.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../', import.meta.url));
// typescript's `exports` hide bin/tsc; its folder is found through package.json, which is exported.
const tsc = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin/tsc');
const project = join(root, 'infra/tsconfig.exact-optional.json');
const typeTest = 'infra/exact-optional.test-d.ts';

function runTsc(...args: string[]): { status: number | null; output: string } {
  const run = spawnSync(process.execPath, [tsc, '-p', project, ...args], {
    cwd: root,
    encoding: 'utf8',
    timeout: 180_000,
  });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe('the CDK constructs’ props under exactOptionalPropertyTypes', () => {
  it('are compiled with exactOptionalPropertyTypes: true', () => {
    const shown = runTsc('--showConfig');
    expect(shown.status).toBe(0);
    const config = JSON.parse(shown.output) as {
      compilerOptions: Record<string, unknown>;
      files: string[];
    };
    expect(config.compilerOptions.exactOptionalPropertyTypes).toBe(true);
    expect(config.files.map((file) => join('infra', file))).toEqual([typeTest]);
  });

  it('take undefined for every optional prop', () => {
    const { output } = runTsc('--noEmit', '--pretty', 'false');
    // Only what a project using the package sees: its own calls against the declarations. The
    // package's implementation is not compiled with this setting (a project reads its .d.ts only).
    const errors = output.split('\n').filter((line) => line.startsWith(typeTest));
    expect(errors).toEqual([]);
  }, 180_000);
});
