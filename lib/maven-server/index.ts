/**
 * A Maven-resolved server run locally without Docker (the Kafka broker, ElasticMQ, Apicurio Registry):
 * artifacts resolved from Maven Central into the per-user cache once, a JVM in a run folder of its own
 * tied to the process that started it, and the background server of `kafka-lambda <server> start`.
 * Internal: the servers' modules build on it; nothing here is a package entry.
 *
 * @example
 * ```ts
 * import { BackgroundServer, cacheBase, resolveMavenClasspath } from '../maven-server/index.ts';
 * ```
 */
export {
  BackgroundServer,
  type BackgroundServerKind,
  type BackgroundServerStatus,
  type BackgroundServerStopResult,
  type BackgroundStartOptions,
  type LaunchedServer,
  type RunDirJvm,
  type ServerRecord,
  startJvmInRunDir,
} from './background.ts';
export { JavaOrMavenMissingError, MavenResolveError, MavenServerError } from './errors.ts';
export {
  assertJava17,
  assertJavaAndMaven,
  cacheBase,
  damagedJarsHint,
  type MavenClasspath,
  resolveMavenClasspath,
  stageIntoCache,
} from './jars.ts';
export {
  commandOutput,
  freePort,
  isAlive,
  packageRoot,
  processIdentity,
  processOutput,
  retryWhilePortTaken,
  stopPid,
  waitForExit,
} from './process.ts';
export { createRunDir, type RunDir, type RunDirKind, removeStaleRunDirs, runJvmPid } from './run-dir.ts';
export { acquireStartLock, type StartLock, type StartLockOptions } from './start-lock.ts';
export { type DetachableProcess, spawnWatched, type WatchedProcess } from './watchdog.ts';
