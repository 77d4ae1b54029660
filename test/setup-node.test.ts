import { execFile } from 'node:child_process';
import { chmod, copyFile, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const script = fileURLToPath(new URL('../.ci/setup-node.sh', import.meta.url));

/** Runs `body` in a fresh non-interactive bash and returns its stdout (stderr is the script's chatter). */
function bash(body: string, env: Record<string, string> = {}): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    execFile('bash', ['-c', body], { env: { ...process.env, ...env }, timeout: 60_000 }, (error, stdout) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout });
    });
  });
}

// What a sourced script could leave behind in the caller's shell: its options (set -o, shopt) and variables.
const SNAPSHOT = `snapshot() { set +o; shopt -p; compgen -v | grep -Ev '^(_|BASH_.*|FUNCNAME|PIPESTATUS|before|path_before)$'; }`;

describe('source .ci/setup-node.sh', { timeout: 60_000 }, () => {
  let repo: string;
  let bin: string;
  beforeEach(async () => {
    // A copy of the script in a folder where the wanted Node is already "installed" (this very node), so the
    // test never downloads or reinstalls Node.
    repo = await mkdtemp(join(tmpdir(), 'kafka-lambda-setup-node-'));
    await mkdir(join(repo, '.ci'));
    await copyFile(script, join(repo, '.ci', 'setup-node.sh'));
    await writeFile(join(repo, '.node-version'), `${process.versions.node}\n`);
    bin = join(repo, '.cache', 'node', 'node_modules', '.bin');
    await mkdir(bin, { recursive: true });
    await symlink(process.execPath, join(bin, 'node'));
  });
  afterEach(async () => {
    await rm(repo, { recursive: true, force: true });
  });

  it.each([
    ['set +euo pipefail', 'a shell without strict options'],
    ['set -e', 'a shell with errexit on, as CI runs it'],
  ])(
    "puts Node first on PATH and leaves the caller's options and variables as they were (%s: %s)",
    async (options) => {
      const run = await bash(
        `${options}; ${SNAPSHOT}
       before="$(snapshot)"
       source "${repo}/.ci/setup-node.sh"
       after="$(snapshot)"
       [ "$before" = "$after" ] && echo same-options || diff <(echo "$before") <(echo "$after")
       echo "path-head=\${PATH%%:*}"`,
      );
      expect(run).toEqual({ code: 0, stdout: `same-options\npath-head=${bin}\n` });
    },
  );

  it('a failing command after sourcing does not end the shell', async () => {
    const run = await bash(
      `set +euo pipefail; source "${repo}/.ci/setup-node.sh"; false; echo "still open after $?"`,
    );
    expect(run).toEqual({ code: 0, stdout: 'still open after 1\n' });
  });

  it('a failed install returns non-zero to the caller, keeps its shell open and PATH unchanged', async () => {
    // Another Node version is wanted, and npm (the only way the script installs one) fails.
    await writeFile(join(repo, '.node-version'), '0.0.1\n');
    const fakes = join(repo, 'fake-bin');
    await mkdir(fakes);
    await writeFile(join(fakes, 'npm'), '#!/bin/sh\necho "npm: no network" >&2\nexit 1\n');
    await chmod(join(fakes, 'npm'), 0o755);
    const run = await bash(
      `set +euo pipefail; ${SNAPSHOT}
       PATH="${fakes}:$PATH"; before="$(snapshot)"; path_before="$PATH"
       source "${repo}/.ci/setup-node.sh"; echo "source exit $?"
       [ "$before" = "$(snapshot)" ] && echo same-options
       [ "$PATH" = "$path_before" ] && echo same-path`,
    );
    expect(run).toEqual({ code: 0, stdout: 'source exit 1\nsame-options\nsame-path\n' });
  });
});
