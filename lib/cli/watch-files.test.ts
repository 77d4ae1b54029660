import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
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
});
