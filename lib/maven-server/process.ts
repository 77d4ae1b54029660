import { type ChildProcess, execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';

/** The folder holding this package's package.json. */
export const packageRoot = fileURLToPath(new URL('../../', import.meta.url));

/** Runs a command and returns stdout+stderr, or undefined when it cannot be run or fails. */
export function commandOutput(command: string, args: string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(command, args, { timeout: 30_000 }, (error, stdout, stderr) => {
      resolve(error ? undefined : `${stdout}${stderr}`);
    });
  });
}

/**
 * What a spawned process (with piped stdout and stderr) wrote, and its exit code, once it has closed.
 *
 * @example
 * ```ts
 * const { code, stdout } = await processOutput(spawn('java', ['-version'], { stdio: ['ignore', 'pipe', 'pipe'] }));
 * ```
 */
export function processOutput(
  child: ChildProcess & { stdout: Readable; stderr: Readable },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A TCP port on 127.0.0.1 that was free a moment ago (the caller retries if it is taken meanwhile). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Runs `start` up to three times while it fails because a port was taken: ports are chosen by
 * {@link freePort} before the JVM binds them, and another process can take one meanwhile.
 *
 * @example
 * ```ts
 * const server = await retryWhilePortTaken(() => startOnce(), (e) => /BindException/.test(String(e)));
 * ```
 */
export async function retryWhilePortTaken<T>(
  start: () => Promise<T>,
  isPortTaken: (error: unknown) => boolean,
): Promise<T> {
  let lastError: unknown;
  for (let attempt = 1; attempt <= 3; attempt++) {
    try {
      return await start();
    } catch (error) {
      lastError = error;
      if (!isPortTaken(error)) throw error;
    }
  }
  throw lastError;
}

/** True while a process with this pid exists. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Resolves once `pid` has exited, or with false after `timeoutMs`. */
export async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
}

/**
 * SIGTERM, then SIGKILL after `timeoutMs`, for a process this one did not spawn. Callers make sure first
 * that `pid` is the server they mean (see `runJvmPid` in run-dir.ts): a pid alone may have been reused.
 *
 * @example
 * ```ts
 * if ((await runJvmPid(kind, record.runDir)) === record.pid) await stopPid(record.pid, 10_000);
 * ```
 */
export async function stopPid(pid: number, timeoutMs = 20_000): Promise<void> {
  if (!isAlive(pid)) return;
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return; // Gone between the check and the signal.
  }
  if (!(await waitForExit(pid, timeoutMs))) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone between the check and the signal.
    }
    await waitForExit(pid, 5_000);
  }
}

/** What tells one process from a later one that reuses its pid: when it started, and its command line. */
export interface ProcessIdentity {
  /** Opaque start time: equal for the same process, different for a later one with the same pid. */
  readonly startTime: string;
  /** The arguments, joined by single spaces. */
  readonly commandLine: string;
}

/**
 * `/proc/<pid>/cmdline`, arguments joined by single spaces. It reads empty while the process is between
 * two programs (during `execve`, e.g. a launcher script exec-ing the JVM), so an empty read is retried
 * for a moment; it stays empty only for a zombie. https://man7.org/linux/man-pages/man5/proc_pid_cmdline.5.html
 */
async function procCommandLine(pid: number): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    const args = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0').filter(Boolean);
    if (args.length > 0 || attempt === 20) return args.join(' ');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * The identity of a running process, or undefined when it is gone (or cannot be inspected): from `/proc`
 * on Linux, from `ps` elsewhere (macOS).
 *
 * @example
 * ```ts
 * const before = await processIdentity(pid);
 * // later: the same process only if the start time is unchanged
 * const same = (await processIdentity(pid))?.startTime === before?.startTime;
 * ```
 */
export async function processIdentity(pid: number): Promise<ProcessIdentity | undefined> {
  if (!Number.isSafeInteger(pid) || pid <= 0) return undefined;
  if (process.platform === 'linux') {
    try {
      const [stat, cmdline] = await Promise.all([
        readFile(`/proc/${pid}/stat`, 'utf8'),
        procCommandLine(pid),
      ]);
      // Field 22 is the start time in clock ticks since boot; field 2, the command name in parentheses,
      // may itself hold spaces and parentheses, so count from the last ')'.
      // https://man7.org/linux/man-pages/man5/proc_pid_stat.5.html
      const startTime = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
      if (!startTime) return undefined;
      return { startTime, commandLine: cmdline };
    } catch {
      return undefined;
    }
  }
  // `lstart` is the full start date in a fixed 24-character layout ("Mon Dec  1 03:26:00 2026").
  const out = await commandOutput('ps', ['-ww', '-o', 'lstart=', '-o', 'args=', '-p', String(pid)]);
  const line = out?.trim();
  if (!line || line.length < 25) return undefined;
  return { startTime: line.slice(0, 24), commandLine: line.slice(24).trim() };
}
