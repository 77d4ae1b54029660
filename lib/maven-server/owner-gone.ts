import { spawn } from 'node:child_process';

/**
 * What {@link removeWhenOwnerGone} returns: the folder goes with this process until dismissed.
 *
 * @example
 * ```ts
 * const cleanup: OwnerGoneCleanup = removeWhenOwnerGone(run.path, { namedBy: `-Dserver.dir=${run.path}` });
 * await cleanup.dismiss(); // the folder was deleted by this process, or its server let go
 * ```
 */
export interface OwnerGoneCleanup {
  /** Ends the cleanup process: the folder is no longer deleted when this process is gone. */
  dismiss(): Promise<void>;
}

/**
 * Options of {@link removeWhenOwnerGone}.
 *
 * @example
 * ```ts
 * const options: OwnerGoneOptions = { namedBy: `-Dregistry-run-dir=${path}`, requiredFile: 'kafka-lambda-run.json' };
 * ```
 */
export interface OwnerGoneOptions {
  /**
   * A command-line argument by which a process names the folder without naming a file in it (as
   * `-Dsome.dir=<folder>` does): that process uses the folder too. Any argument holding `<folder>/` does.
   */
  namedBy?: string;
  /** A file the folder must hold to be deleted (its marker): a folder without it is left alone. */
  requiredFile?: string;
}

/**
 * Deletes the folder `folder` once this process (its owner) is gone and no process uses it any more,
 * until dismissed. A server JVM's watchdog stops the JVM when its owner is gone, but cannot tell that
 * from an ordinary stop or from the JVM dying by itself (its pipe closes in all three), where the folder
 * must stay: the owner deletes it on stop after reading the log tail a failed start quotes, and a server
 * relaunched after a crash runs on its data. So a second small process holds a pipe of its own, which
 * closes without a line only when this process exits or is killed (even with SIGKILL, even before any
 * JVM runs). It then waits while any process's command line names the folder (a JVM, its watchdog, a tool
 * run on the folder; at most 2 min) and deletes it, if it is still a folder of this user holding
 * `requiredFile`. A line on the pipe ({@link OwnerGoneCleanup.dismiss}) ends it.
 *
 * @example
 * ```ts
 * const cleanup = removeWhenOwnerGone(path, { requiredFile: 'kafka-lambda-run.json' });
 * // … the server is stopped and the folder deleted, or the server detached:
 * await cleanup.dismiss();
 * ```
 */
export function removeWhenOwnerGone(folder: string, options: OwnerGoneOptions = {}): OwnerGoneCleanup {
  // The folder and the patterns reach it in its environment, never on its command line (which would name
  // the folder itself). Linux: /proc (grep's own command line, the only one holding the patterns, is not
  // among the files the glob listed before it started); elsewhere ps, whose output the shell searches.
  const script = `
read -r _ && exit 0
dir=$KAFKA_LAMBDA_RUN_DIR
named_by=$KAFKA_LAMBDA_RUN_DIR_NAMED_BY
required=$KAFKA_LAMBDA_RUN_DIR_REQUIRED
patterns=(-e "$dir/")
[ -n "$named_by" ] && patterns+=(-e "$named_by")
in_use() {
  if [ -r /proc/self/cmdline ]; then
    grep -qsaF "\${patterns[@]}" /proc/[0-9]*/cmdline
  else
    local args
    args=$(ps -A -ww -o args=) || return 0
    [[ $args == *"$dir/"* ]] || { [ -n "$named_by" ] && [[ $args == *"$named_by"* ]]; }
  fi
}
deadline=$((SECONDS + 120))
while (( SECONDS < deadline )); do
  if ! in_use; then
    if [ -d "$dir" ] && [ ! -L "$dir" ] && [ -O "$dir" ] && { [ -z "$required" ] || { [ -f "$dir/$required" ] && [ ! -L "$dir/$required" ]; }; }; then
      rm -rf -- "$dir"
    fi
    exit 0
  fi
  sleep 0.5
done
`;
  const cleanup = spawn('bash', ['-c', script, 'kafka-lambda-run-dir-cleanup'], {
    // A session of its own: the terminal's Ctrl-C, which ends its owner, must not end it too.
    detached: true,
    stdio: ['pipe', 'ignore', 'ignore'],
    env: {
      ...process.env,
      KAFKA_LAMBDA_RUN_DIR: folder,
      KAFKA_LAMBDA_RUN_DIR_NAMED_BY: options.namedBy ?? '',
      KAFKA_LAMBDA_RUN_DIR_REQUIRED: options.requiredFile ?? '',
    },
  });
  // Without bash no server starts either (its watchdog is a bash script): that error is the one reported.
  cleanup.on('error', () => {});
  cleanup.stdin.on('error', () => {});
  // It must not keep this process alive; its pipe still closes when this process exits.
  cleanup.unref();
  (cleanup.stdin as unknown as { unref?: () => void }).unref?.();
  let dismissed: Promise<void> | undefined;
  return {
    dismiss() {
      // Resolves once the line is in the pipe (or the cleanup process is gone already).
      dismissed ??= new Promise<void>((resolve) => {
        if (cleanup.stdin.writable) cleanup.stdin.end('dismiss\n', () => resolve());
        else resolve();
      });
      return dismissed;
    },
  };
}
