import { type ChildProcess, execFile } from 'node:child_process';
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
