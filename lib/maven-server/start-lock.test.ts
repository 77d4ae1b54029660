import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { processIdentity } from './process.ts';
import { acquireStartLock } from './start-lock.ts';

describe('start lock', () => {
  let root: string;
  let path: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'kafka-lambda-start-lock-'));
    path = join(root, 'cache', 'fake.json.lock');
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  /** A lock file as another process would have written it. */
  async function lockOf(pid: number, takenAt = Date.now()): Promise<void> {
    const startTime = (await processIdentity(pid))?.startTime ?? 'gone';
    await writeFile(path, JSON.stringify({ pid, startTime, takenAt, token: 'other' }));
  }

  it('is taken at once when free, and release removes it and nothing else', async () => {
    const lock = await acquireStartLock(path);
    expect(JSON.parse(await readFile(path, 'utf8'))).toMatchObject({ pid: process.pid });
    await lock.release();
    expect(await readdir(join(root, 'cache'))).toEqual([]);
  });

  it('takes over a lock whose holder is gone (a start killed before its finally ran)', async () => {
    const child = spawn('true');
    const pid = child.pid ?? 0;
    await new Promise((resolve) => child.once('exit', resolve));
    await (await acquireStartLock(path)).release(); // makes the folder
    await writeFile(path, JSON.stringify({ pid, startTime: 'long ago', takenAt: Date.now(), token: 'dead' }));
    const lock = await acquireStartLock(path, { onWaiting: () => expect.fail('waited for a dead holder') });
    expect(JSON.parse(await readFile(path, 'utf8'))).toMatchObject({ pid: process.pid });
    await lock.release();
  });

  it('takes over a lock held longer than staleAfterMs (a hung start)', async () => {
    await (await acquireStartLock(path)).release();
    await lockOf(process.ppid, Date.now() - 60_000);
    const lock = await acquireStartLock(path, { staleAfterMs: 30_000 });
    expect(JSON.parse(await readFile(path, 'utf8'))).toMatchObject({ pid: process.pid });
    await lock.release();
  });

  it('waits while another live process holds it, saying for whom, and takes it once released', async () => {
    await (await acquireStartLock(path)).release();
    await lockOf(process.ppid);
    const waitedFor: number[] = [];
    let taken = false;
    const acquiring = acquireStartLock(path, { onWaiting: (pid) => waitedFor.push(pid) }).then((lock) => {
      taken = true;
      return lock;
    });
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect([taken, waitedFor]).toEqual([false, [process.ppid]]);
    await rm(path);
    const lock = await acquiring;
    expect(existsSync(path)).toBe(true);
    await lock.release();
  });

  it('release leaves alone a lock another process took over', async () => {
    const lock = await acquireStartLock(path);
    await lockOf(process.ppid);
    await lock.release();
    expect(JSON.parse(await readFile(path, 'utf8'))).toMatchObject({ token: 'other' });
  });
});
