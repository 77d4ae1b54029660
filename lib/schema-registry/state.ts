/**
 * The background registry of `kafka-lambda registry start`: recorded in the per-user cache so that
 * `status` and `stop` find it again, and identified by its own run folder before any signal.
 */
import {
  BackgroundServer,
  type BackgroundServerStatus,
  type BackgroundServerStopResult,
  type BackgroundStartOptions,
} from '../maven-server/index.ts';
import { isReady, REGISTRY_RUN_DIRS, startRegistry } from './server.ts';

/**
 * What `kafka-lambda registry start` records.
 *
 * @example
 * ```ts
 * const record: RegistryServerRecord = { url: 'http://127.0.0.1:8081/apis/ccompat/v7', pid: 4242, runDir, startedAt };
 * ```
 */
export interface RegistryServerRecord {
  url: string;
  pid: number;
  runDir: string;
  startedAt: string;
}

/**
 * State of the background registry.
 *
 * @example
 * ```ts
 * if ((await backgroundRegistryStatus()).state === 'running') { … }
 * ```
 */
export type RegistryServerStatus = BackgroundServerStatus<RegistryServerRecord>;

/** Recorded in `schema-registry.json` in the cache folder. */
const background = new BackgroundServer<RegistryServerRecord>({
  stateFileName: 'schema-registry.json',
  runDirs: REGISTRY_RUN_DIRS,
  hasFields: (record) => typeof record.url === 'string',
  isServing: (record) => isReady(new URL(record.url).origin),
});

/**
 * Starts a registry that outlives this process and records it, or returns the one already running.
 * The registry stays tied to this process until it is recorded: a start interrupted before leaves no JVM.
 * A start while another process starts one waits for it (`options.onWaiting` is told), then returns
 * that registry: two starts at once leave one registry.
 *
 * @example
 * ```ts
 * const { server } = await startBackgroundRegistry();
 * console.log(server.url);
 * ```
 */
export function startBackgroundRegistry(options: BackgroundStartOptions = {}): Promise<{
  server: RegistryServerRecord;
  alreadyRunning: boolean;
}> {
  return background.start(async () => {
    const started = await startRegistry();
    const { url, pid, runDir } = started;
    return { record: { url, pid, runDir }, stop: started.stop, detach: started.detach };
  }, options);
}

/**
 * Whether the recorded background registry is running and ready.
 *
 * @example
 * ```ts
 * const status = await backgroundRegistryStatus();
 * ```
 */
export function backgroundRegistryStatus(): Promise<RegistryServerStatus> {
  return background.status();
}

/**
 * Stops the recorded background registry (SIGTERM, then SIGKILL) and removes its run folder. Only the
 * JVM and the folder this tool started and created are touched, whatever the state file says; run
 * folders of registries whose processes died are removed too.
 *
 * @example
 * ```ts
 * const { stopped } = await stopBackgroundRegistry(); // stopped is undefined when none was running
 * ```
 */
export function stopBackgroundRegistry(
  timeoutMs = 10_000,
): Promise<BackgroundServerStopResult<RegistryServerRecord>> {
  return background.stop(timeoutMs);
}
