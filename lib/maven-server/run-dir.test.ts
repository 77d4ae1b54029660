import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { processIdentity, waitForExit } from './process.ts';
import { createRunDir, type RunDirKind, recordRunJvm, removeStaleRunDirs, runJvmPid } from './run-dir.ts';

const kind: RunDirKind = {
  prefix: 'kafka-lambda-fake-',
  jvmArgument: (path) => `fake.Main ${path}/fake.conf`,
};
const otherKind: RunDirKind = { prefix: 'kafka-lambda-other-', jvmArgument: (path) => `other.Main ${path}` };

/** A harmless process whose command line is `java -Xmx1m <main> 120`, as a server JVM's would be. */
function fakeJvm(main: string): ChildProcess {
  return spawn('bash', ['-c', 'exec -a "$0" sleep 120', `java -Xmx1m ${main}`], { stdio: 'ignore' });
}

/** Its pid once its command line is the fake JVM's (bash has exec'd), within 10 s. */
async function started(child: ChildProcess): Promise<number> {
  await new Promise((resolve) => child.once('spawn', resolve));
  const pid = child.pid ?? 0;
  const deadline = Date.now() + 10_000;
  while (!(await processIdentity(pid))?.commandLine.startsWith('java ')) {
    if (Date.now() > deadline) throw new Error(`process ${pid} did not become the fake JVM`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return pid;
}

describe('run folders', () => {
  const saved = process.env.TMPDIR;
  let root: string;
  const children: ChildProcess[] = [];
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'kafka-lambda-run-dir-'));
    process.env.TMPDIR = root;
  });
  afterEach(async () => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
    await rm(root, { recursive: true, force: true });
  });

  it('name the recorded JVM only while it runs, on that folder, for that kind', async () => {
    const run = await createRunDir(kind);
    expect(run.path.startsWith(join(root, kind.prefix))).toBe(true);
    const jvm = fakeJvm(kind.jvmArgument(run.path));
    children.push(jvm);
    const pid = await started(jvm);
    // Started but not recorded yet: nothing to signal.
    expect(await runJvmPid(kind, run.path)).toBeUndefined();
    await recordRunJvm(run, pid);
    expect(await runJvmPid(kind, run.path)).toBe(pid);
    // Another kind never claims the folder.
    expect(await runJvmPid(otherKind, run.path)).toBeUndefined();
    jvm.kill('SIGKILL');
    expect(await waitForExit(pid, 10_000)).toBe(true);
    expect(await runJvmPid(kind, run.path)).toBeUndefined();
  });

  it('do not name a recorded pid whose command line is not launched on the folder', async () => {
    const run = await createRunDir(kind);
    const elsewhere = fakeJvm(kind.jvmArgument(join(root, 'elsewhere')));
    children.push(elsewhere);
    await recordRunJvm(run, await started(elsewhere));
    expect(await runJvmPid(kind, run.path)).toBeUndefined();
  });

  it('a link to a run folder is not a run folder', async () => {
    const run = await createRunDir(kind);
    const jvm = fakeJvm(kind.jvmArgument(run.path));
    children.push(jvm);
    await recordRunJvm(run, await started(jvm));
    const link = join(root, `${kind.prefix}link`);
    await symlink(run.path, link);
    expect(await runJvmPid(kind, link)).toBeUndefined();
  });

  it('stale folders of the kind are removed; in use, unmarked or of another kind are kept', async () => {
    const dead = spawn('true', { stdio: 'ignore' });
    await new Promise((resolve) => dead.once('exit', resolve));
    const deadRef = { pid: dead.pid, startTime: '1' };
    const folder = async (name: string, marker?: object) => {
      await mkdir(join(root, name));
      if (marker) await writeFile(join(root, name, 'kafka-lambda-run.json'), JSON.stringify(marker));
      return join(root, name);
    };
    const stale = await folder(`${kind.prefix}stale`, {
      tool: 'kafka-lambda',
      creator: deadRef,
      jvm: deadRef,
    });
    const unmarked = await folder(`${kind.prefix}unmarked`);
    const otherStale = await folder(`${otherKind.prefix}stale`, {
      tool: 'kafka-lambda',
      creator: deadRef,
      jvm: deadRef,
    });
    const inUse = await createRunDir(kind);

    expect(await removeStaleRunDirs(kind)).toEqual([stale]);
    expect(existsSync(stale)).toBe(false);
    for (const kept of [unmarked, otherStale, inUse.path]) expect(existsSync(kept)).toBe(true);
  });
});
