import { type FSWatcher, watch } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * Watches a growing set of files and reports changes, a burst at a time. It watches each file's
 * directory rather than the file: editors save by writing a new file and renaming it over the old
 * one, which would end a watch on the file itself. Watches never keep the process alive.
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
  const directories = new Map<string, { watcher: FSWatcher; names: Set<string> }>();
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
        let entry = directories.get(directory);
        if (entry === undefined) {
          const names = new Set<string>();
          const watcher = watch(directory, { persistent: false }, (_event, name) => {
            if (name === null || !names.has(name)) return;
            changed.add(join(directory, name));
            clearTimeout(timer);
            timer = setTimeout(report, quietMs);
          });
          // A directory that goes away ends its watch; the other files are still watched.
          watcher.on('error', () => watcher.close());
          entry = { watcher, names };
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
