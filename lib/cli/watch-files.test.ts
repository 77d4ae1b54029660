import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollUntil } from '../replay/wait.ts';
import { watchFiles } from './watch-files.ts';

describe('watchFiles', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kafka-lambda-watch-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('reports a burst of changes to watched files once, and nothing for files it does not watch', async () => {
    const [handler, helper, other] = ['handler.ts', 'helper.ts', 'other.ts'].map((name) => join(dir, name));
    for (const file of [handler!, helper!, other!]) await writeFile(file, '// 1\n');
    const reports: string[][] = [];
    const watcher = watchFiles((files) => reports.push(files.sort()), 100);
    try {
      watcher.add([handler!, helper!, handler!]);
      expect(watcher.size).toBe(2);
      await writeFile(other!, '// 2\n');
      await writeFile(handler!, '// 2\n');
      await writeFile(helper!, '// 2\n');
      await pollUntil('a report', { timeoutMs: 5_000, intervalMs: 20 }, async () => ({
        done: reports.length > 0,
        seen: `${reports.length} report(s)`,
      }));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(reports).toEqual([[handler, helper].sort()]);
    } finally {
      watcher.close();
    }
  });

  it('keeps watching a file an editor replaces by renaming a new one over it', async () => {
    const handler = join(dir, 'saved.ts');
    await writeFile(handler, '// 1\n');
    const reports: string[][] = [];
    const watcher = watchFiles((files) => reports.push(files), 50);
    try {
      watcher.add([handler]);
      for (const version of [2, 3]) {
        await writeFile(`${handler}.tmp`, `// ${version}\n`);
        await rename(`${handler}.tmp`, handler);
        await pollUntil(`save ${version}`, { timeoutMs: 5_000, intervalMs: 20 }, async () => ({
          done: reports.length === version - 1,
          seen: `${reports.length} report(s)`,
        }));
      }
      expect(reports).toEqual([[handler], [handler]]);
    } finally {
      watcher.close();
    }
  });

  it('watches a directory removed and made again (a branch switch) once its files are added again', async () => {
    const sub = join(dir, 'switched');
    const file = join(sub, 'handler.ts');
    await mkdir(sub);
    await writeFile(file, '// 1\n');
    const reports: string[][] = [];
    const watcher = watchFiles((files) => reports.push(files), 50);
    const reported = (count: number) =>
      pollUntil(`${count} report(s)`, { timeoutMs: 5_000, intervalMs: 20 }, async () => ({
        done: reports.length >= count,
        seen: `${reports.length} report(s)`,
      }));
    try {
      watcher.add([file]);
      await rm(sub, { recursive: true });
      await mkdir(sub);
      await writeFile(file, '// 2\n');
      await reported(1);
      watcher.add([file]); // as the next init phase reports it
      const before = reports.length;
      await writeFile(file, '// 3\n');
      await reported(before + 1);
      expect(reports.at(-1)).toEqual([file]);
    } finally {
      watcher.close();
    }
  });

  it('skips a file whose directory is gone, without throwing', () => {
    const watcher = watchFiles(() => {});
    try {
      watcher.add([join(dir, 'no-such-dir', 'handler.ts')]);
      expect(watcher.size).toBe(0);
    } finally {
      watcher.close();
    }
  });
});
