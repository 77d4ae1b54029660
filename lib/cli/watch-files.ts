import { type FSWatcher, statSync, watch } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * Watches a growing set of files and reports changes, a burst at a time. It watches each file's
 * directory rather than the file: editors save by writing a new file and renaming it over the old
 * one, which would end a watch on the file itself. Watches never keep the process alive. A directory
 * removed and made again (a branch switch, a restore) is watched again when its files are next added; one
 * that cannot be watched (gone, or the system's watch limit reached) is skipped until then.
 */
export interface FileWatcher {
  /** Adds files to watch (absolute paths); files already watched are ignored. */
  add(files: Iterable<string>): void;
  /** How many files are watched. */
  readonly size: number;
  close(): void;
}

/**
 * Creates a {@link FileWatcher}: `onChange` receives the files changed in one burst (a save that
 * writes several files, or an editor's several writes of one), once the burst has been quiet for
 * `quietMs`.
 *
 * @example
 * ```ts
 * const watcher = watchFiles((files) => console.error(`changed: ${files.join(', ')}`));
 * watcher.add(['/work/app/functions/orders/handler.ts']);
 * ```
 */
export function watchFiles(onChange: (files: string[]) => void, quietMs = 150): FileWatcher {
  const directories = new Map<string, { watcher: FSWatcher; names: Set<string>; identity: string }>();
  const changed = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let size = 0;
  const report = () => {
    timer = undefined;
    const files = [...changed];
    changed.clear();
    onChange(files);
  };
  return {
    add(files) {
      for (const file of files) {
        const directory = dirname(file);
        const stats = statSync(directory, { throwIfNoEntry: false });
        if (stats === undefined) continue;
        // A directory made again often gets the inode number just freed: its birth time tells it apart.
        const identity = `${stats.ino}@${stats.birthtimeMs}`;
        let entry = directories.get(directory);
        if (entry !== undefined && entry.identity !== identity) {
          // The directory was made again: the old watch sees nothing of the new one.
          entry.watcher.close();
          size -= entry.names.size;
          directories.delete(directory);
          entry = undefined;
        }
        if (entry === undefined) {
          const names = new Set<string>();
          let watcher: FSWatcher;
          try {
            watcher = watch(directory, { persistent: false }, (_event, name) => {
              if (name === null || !names.has(name)) return;
              changed.add(join(directory, name));
              clearTimeout(timer);
              timer = setTimeout(report, quietMs);
            });
          } catch {
            continue; // gone meanwhile, or no watch left (ENOSPC): tried again with the next add
          }
          // A directory that goes away ends its watch; the other files are still watched.
          watcher.on('error', () => watcher.close());
          entry = { watcher, names, identity };
          directories.set(directory, entry);
        }
        if (!entry.names.has(basename(file))) {
          entry.names.add(basename(file));
          size++;
        }
      }
    },
    get size() {
      return size;
    },
    close() {
      clearTimeout(timer);
      for (const { watcher } of directories.values()) watcher.close();
      directories.clear();
    },
  };
}
