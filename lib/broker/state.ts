import { BackgroundServer, type BackgroundStartOptions } from '../maven-server/index.ts';
import { BROKER_RUN_DIRS, startBroker, waitUntilServing } from './broker.ts';

/**
 * What `kafka-lambda broker start` records so that `status` and `stop` find the broker again.
 *
 * @example
 * ```ts
 * const { broker } = await startBackgroundBroker();
 * console.log(broker.bootstrapServers, broker.version, broker.pid, broker.startedAt);
 * ```
 */
export interface BrokerRecord {
  bootstrapServers: string;
  pid: number;
  /** The broker's data folder: only deleted when this tool created it, only its JVM is ever stopped. */
  runDir: string;
  version: string;
  startedAt: string;
}

/**
 * State of the broker started by `kafka-lambda broker start`.
 *
 * @example
 * ```ts
 * const status: BrokerStatus = await backgroundBrokerStatus();
 * if (status.state !== 'stopped') console.log(status.state, status.broker.bootstrapServers);
 * ```
 */
export type BrokerStatus =
  | { state: 'stopped' }
  | { state: 'running'; broker: BrokerRecord }
  | { state: 'not-serving'; broker: BrokerRecord };

/**
 * What {@link stopBackgroundBroker} did.
 *
 * @example
 * ```ts
 * const { stopped, leftAlone } = await stopBackgroundBroker();
 * if (leftAlone) console.error(`${leftAlone} is not a data folder of this tool: left alone`);
 * ```
 */
export interface BrokerStopResult {
  /** The broker stopped; undefined when none was running. */
  stopped?: BrokerRecord;
  /** The data folder the state file named, when it is still there: not one this tool created, or in use. */
  leftAlone?: string;
  /** Data folders of brokers no longer running (the one stopped among them), deleted. */
  removedStale: string[];
}

/** Recorded in `broker.json` in the cache folder. */
const background = new BackgroundServer<BrokerRecord>({
  stateFileName: 'broker.json',
  runDirs: BROKER_RUN_DIRS,
  hasFields: (record) => typeof record.bootstrapServers === 'string' && typeof record.version === 'string',
  isServing: async (record) => {
    try {
      await waitUntilServing(record.bootstrapServers, 5_000);
      return true;
    } catch {
      return false;
    }
  },
});

/**
 * Options of {@link startBackgroundBroker}.
 *
 * @example
 * ```ts
 * await startBackgroundBroker({ onWaiting: (pid) => console.error(`another start (pid ${pid}) is under way…`) });
 * ```
 */
export interface StartBackgroundBrokerOptions {
  /**
   * Called when another process is starting the background broker: this start waits for it, then returns
   * its broker (`alreadyRunning`), so that two starts at once leave one broker.
   */
  onWaiting?: (startingPid: number) => void;
}

/**
 * Starts a broker that outlives this process and records it, or returns the one already running.
 * The broker stays tied to this process until it is recorded: interrupted before, it stops too.
 * Starts in several processes at once take turns: one broker is started, the others return it.
 *
 * @example
 * ```ts
 * const { broker, alreadyRunning } = await startBackgroundBroker();
 * console.log(broker.bootstrapServers);
 * ```
 */
export async function startBackgroundBroker(
  options: StartBackgroundBrokerOptions = {},
): Promise<{ broker: BrokerRecord; alreadyRunning: boolean }> {
  const startOptions: BackgroundStartOptions = { onWaiting: options.onWaiting };
  const { server, alreadyRunning } = await background.start(async () => {
    const broker = await startBroker();
    const { bootstrapServers, pid, runDir, version } = broker;
    return { record: { bootstrapServers, pid, runDir, version }, stop: broker.stop, detach: broker.detach };
  }, startOptions);
  return { broker: server, alreadyRunning };
}

/**
 * Whether the recorded background broker is running and serving requests.
 *
 * @example
 * ```ts
 * if ((await backgroundBrokerStatus()).state === 'running') { ... }
 * ```
 */
export async function backgroundBrokerStatus(): Promise<BrokerStatus> {
  const status = await background.status();
  return status.state === 'stopped' ? status : { state: status.state, broker: status.server };
}

/**
 * Stops the recorded background broker (SIGTERM, then SIGKILL) and removes its data. Only the JVM and the
 * folder this tool started and created for that record are touched, whatever the state file says; data
 * folders of brokers whose processes died are removed too.
 *
 * @example
 * ```ts
 * const { stopped } = await stopBackgroundBroker(); // stopped is undefined when none was running
 * ```
 */
export function stopBackgroundBroker(timeoutMs = 20_000): Promise<BrokerStopResult> {
  return background.stop(timeoutMs);
}
