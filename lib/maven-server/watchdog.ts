import { type ChildProcess, spawn } from 'node:child_process';
import { isAlive, waitForExit } from './process.ts';

/**
 * A server process tied to this one by {@link spawnWatched}.
 *
 * @example
 * ```ts
 * const server: WatchedProcess = await spawnWatched('java', args, logFile);
 * if (server.exited()) console.error('died during start-up');
 * ```
 */
export interface WatchedProcess {
  readonly pid: number;
  exited(): boolean;
  /** SIGTERM, SIGKILL after `timeoutMs`; resolves once the process is gone. */
  stop(timeoutMs: number): Promise<void>;
}

/**
 * A {@link WatchedProcess} that can be let go: what {@link spawnWatched} returns.
 *
 * @example
 * ```ts
 * const server = await spawnWatched('java', args, logFile);
 * await server.detach(); // it keeps running after this process exits
 * ```
 */
export interface DetachableProcess extends WatchedProcess {
  /** Dismisses the watchdog: from now on the process outlives this one (until stopped). */
  detach(): Promise<void>;
}

/**
 * Runs a long-lived server (a JVM) under a small shell watchdog that reads this process's end of a
 * pipe: when this process exits for any reason (even SIGKILL), the pipe closes and the watchdog stops
 * the server, so a crashed or interrupted test run leaves no orphan. Only the line `detach` on that
 * pipe dismisses the watchdog. The watchdog and the server run in a session of their own, so that a
 * detached server does not get the terminal's signals. stdout and stderr go to `logFile`.
 *
 * @example
 * ```ts
 * const server = await spawnWatched('java', ['-cp', classpath, 'org.elasticmq.server.Main'], logFile);
 * await server.stop(10_000);
 * ```
 */
export async function spawnWatched(
  command: string,
  args: string[],
  logFile: string,
): Promise<DetachableProcess> {
  // A background job's stdin is /dev/null in a non-interactive shell, hence the explicit fd 3.
  const script = `
exec 3<&0
"$@" </dev/null 3<&- >>"$KAFKA_LAMBDA_LOG" 2>&1 &
server=$!
echo "$server"
{
  read -r command || true
  [ "$command" = detach ] && exit 0
  kill -TERM "$server" 2>/dev/null
  for _ in $(seq 1 40); do kill -0 "$server" 2>/dev/null || exit 0; sleep 0.5; done
  kill -KILL "$server" 2>/dev/null
} <&3 >/dev/null 2>&1 &
wait "$server"
`;
  const watchdog: ChildProcess = spawn('bash', ['-c', script, 'kafka-lambda-watchdog', command, ...args], {
    stdio: ['pipe', 'pipe', 'ignore'],
    detached: true,
    env: { ...process.env, KAFKA_LAMBDA_LOG: logFile },
  });
  const pid = await new Promise<number>((resolve, reject) => {
    watchdog.once('error', reject);
    watchdog.stdout?.once('data', (chunk: Buffer) => resolve(Number.parseInt(chunk.toString(), 10)));
  });
  watchdog.stdout?.destroy();
  let exited = false;
  let detached = false;
  watchdog.once('exit', () => {
    exited = true;
  });
  // The watchdog must not keep this process alive; the pipe still closes when it exits.
  watchdog.unref();
  (watchdog.stdin as unknown as { unref?: () => void }).unref?.();
  return {
    pid,
    exited: () => exited || !isAlive(pid),
    async stop(timeoutMs) {
      if (!detached) watchdog.stdin?.end();
      else if (isAlive(pid)) process.kill(pid, 'SIGTERM');
      if (!(await waitForExit(pid, timeoutMs))) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // Gone between the check and the signal.
        }
      }
      await waitForExit(pid, 5_000);
    },
    async detach() {
      // Resolves once the line is in the pipe, so it reaches the watchdog even if this process exits now.
      await new Promise<void>((resolve) => watchdog.stdin?.end('detach\n', resolve));
      detached = true;
    },
  };
}
