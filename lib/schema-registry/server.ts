/**
 * A real schema registry for tests and local work, without Docker: Apicurio Registry 2.4.2 built
 * from Maven Central (the Maven project in `server/`) into the per-user cache once, run on
 * 127.0.0.1 with its data in memory. Its Confluent-compatible API is at `/apis/ccompat/v7`.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  assertJava17,
  assertJavaAndMaven,
  cacheBase,
  createRunDir,
  damagedJarsHint,
  freePort,
  JavaOrMavenMissingError,
  processOutput,
  type RunDirKind,
  removeStaleRunDirs,
  retryWhilePortTaken,
  stageIntoCache,
  startJvmInRunDir,
} from '../maven-server/index.ts';
import { SchemaRegistryError } from './errors.ts';

/** The Apicurio Registry release the Maven project in `server/` builds. */
export const APICURIO_VERSION = '2.4.2.Final';
const APP_JAR = 'kafka-lambda-registry-1-runner.jar';
/**
 * The Maven project: beside this file when run from source; from the compiled `dist/lib/schema-registry/`,
 * in the package's own `lib/schema-registry/server/` (published with the sources).
 */
const PROJECT = [
  new URL('./server/', import.meta.url),
  new URL('../../../lib/schema-registry/server/', import.meta.url),
]
  .map((url) => fileURLToPath(url))
  .find((dir) => existsSync(join(dir, 'pom.xml')));
/**
 * Run folders are `<tmp>/kafka-lambda-registry-*`, holding the server's log; the JVM gets a property
 * naming its run folder (Quarkus ignores it): how `stop` recognises its own JVM.
 */
export const REGISTRY_RUN_DIRS: RunDirKind = {
  prefix: 'kafka-lambda-registry-',
  jvmArgument: (runDir) => `-Dkafka-lambda.registry-run-dir=${runDir}`,
};

/**
 * The server cannot be installed (no Java 17+ or Maven, or Maven failed) or did not start; the
 * message ends with the tail of Maven's or the server's output.
 *
 * @example
 * ```ts
 * catch (error) { if (error instanceof SchemaRegistryServerError) console.error(error.message); }
 * ```
 */
export class SchemaRegistryServerError extends SchemaRegistryError {
  override readonly name: string = 'SchemaRegistryServerError';
}

/** Where the built registry app is kept (git-ignored, reused across runs). */
export function registryCacheDir(): string {
  return join(cacheBase(), 'schema-registry', APICURIO_VERSION);
}

/**
 * Builds the registry app from Maven Central into the cache, once (first build: about 80 s and
 * 340 MB of Maven downloads); later calls return the app's folder without touching the network.
 * The build runs in a folder of its own, renamed into place when complete, so concurrent first runs
 * never see half an app.
 *
 * @example
 * ```ts
 * const app = await installRegistry(); // java -jar `${app}/kafka-lambda-registry-1-runner.jar`
 * ```
 * @throws SchemaRegistryServerError when Java 17+ or Maven is missing or the build fails.
 */
export async function installRegistry(): Promise<string> {
  const dir = registryCacheDir();
  const isComplete = () => existsSync(join(dir, APP_JAR));
  if (isComplete()) return dir;
  const project = PROJECT;
  if (project === undefined)
    throw new SchemaRegistryServerError(
      "The registry's Maven project (lib/schema-registry/server) is missing",
    );
  try {
    await assertJavaAndMaven();
  } catch (error) {
    throw asMissingTools(error);
  }
  await stageIntoCache(dir, isComplete, async (staging) => {
    await cp(project, staging, { recursive: true });
    const central = await mavenCentralUrl(staging);
    const { code, stdout, stderr } = await processOutput(
      spawn('mvn', ['-B', '-q', '-s', join(staging, 'settings.xml'), '-DskipTests', 'package'], {
        cwd: staging,
        env: {
          ...process.env,
          KAFKA_LAMBDA_MAVEN_CENTRAL: central,
          MAVEN_OPTS: process.env.MAVEN_OPTS ?? '-Xmx1g',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
    const target = join(staging, 'target');
    if (code !== 0 || !existsSync(join(target, APP_JAR)))
      throw new SchemaRegistryServerError(
        `Maven could not build Apicurio Registry ${APICURIO_VERSION} (exit ${code}):\n${`${stdout}${stderr}`.slice(-2000)}`,
      );
    return target;
  });
  return dir;
}

/** The shared unit's finding (which of Java, its version or Maven is missing) as this module's error. */
function asMissingTools(error: unknown): unknown {
  return error instanceof JavaOrMavenMissingError
    ? new SchemaRegistryServerError(
        `Java 17+ and Maven are needed for the local schema registry: ${error.message}`,
        { cause: error },
      )
    : error;
}

/**
 * Maven Central's URL as Maven itself knows it (its super-POM's `central` repository), so that no
 * repository host is written into this project; `settings.xml` mirrors every repository to it.
 */
async function mavenCentralUrl(emptyDir: string): Promise<string> {
  const probe = join(emptyDir, 'probe');
  await mkdir(probe);
  const { stdout } = await processOutput(
    spawn('mvn', ['-B', '-q', 'help:evaluate', '-Dexpression=project.repositories', '-DforceStdout'], {
      cwd: probe,
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  await rm(probe, { recursive: true, force: true });
  const url = /<id>central<\/id>[\s\S]*?<url>([^<]+)<\/url>/.exec(stdout)?.[1];
  if (url === undefined)
    throw new SchemaRegistryServerError("Maven did not name its central repository's URL");
  return url;
}

/**
 * Options of {@link startRegistry}.
 *
 * @example
 * ```ts
 * const options: StartRegistryOptions = { startTimeoutMs: 120_000 };
 * ```
 */
export interface StartRegistryOptions {
  /** How long to wait for `/health/ready` (default 120 s: about 15 s on a quiet machine). */
  startTimeoutMs?: number;
}

/**
 * A running registry.
 *
 * @example
 * ```ts
 * await using registry = await startRegistry();
 * const client = confluentSchemaRegistry({ url: registry.url });
 * ```
 */
export interface LocalSchemaRegistry {
  /** Base URL of the Confluent-compatible API (`http://127.0.0.1:<port>/apis/ccompat/v7`). */
  readonly url: string;
  readonly pid: number;
  /**
   * Temporary folder with the server's log; removed by {@link LocalSchemaRegistry.stop}, or once this
   * process is gone and the JVM with it (unless detached). A JVM that dies by itself leaves it in place.
   */
  readonly runDir: string;
  /** SIGTERM, SIGKILL after `timeoutMs` (default 10 s), then removes the run folder. */
  stop(timeoutMs?: number): Promise<void>;
  /**
   * Lets the registry outlive this process (what `kafka-lambda registry start` does once it has recorded
   * it). Until then it is tied to this process: if it exits or is killed, even during start-up, the
   * registry is stopped and then its folder deleted.
   */
  detach(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Starts the registry (building it first if needed) on a free loopback port and resolves once it is
 * ready. A watchdog stops the JVM when this process exits, even on SIGKILL, unless it is detached; its
 * run folder is then deleted too.
 *
 * @example
 * ```ts
 * await using registry = await startRegistry();
 * ```
 * @throws SchemaRegistryServerError when it cannot be built, dies, or is not ready in time.
 */
export async function startRegistry(options: StartRegistryOptions = {}): Promise<LocalSchemaRegistry> {
  // Checked on every start (the app may be built already): a missing Java read as the JVM dying.
  await assertJava17().catch((error: unknown) => {
    throw asMissingTools(error);
  });
  const app = await installRegistry();
  await removeStaleRunDirs(REGISTRY_RUN_DIRS);
  return retryWhilePortTaken(
    () => startOnce(app, options),
    (error) =>
      error instanceof SchemaRegistryServerError && /already in use|BindException/.test(error.message),
  );
}

async function startOnce(app: string, options: StartRegistryOptions): Promise<LocalSchemaRegistry> {
  const port = await freePort();
  const run = await createRunDir(REGISTRY_RUN_DIRS);
  const runDir = run.path;
  const logFile = join(runDir, 'registry.log');
  const javaArgs = [
    '-Xmx512m',
    '-XX:TieredStopAtLevel=1',
    REGISTRY_RUN_DIRS.jvmArgument(runDir),
    `-Dquarkus.http.port=${port}`,
    '-Dquarkus.http.host=127.0.0.1',
    '-jar',
    join(app, APP_JAR),
  ];
  const jvm = await startJvmInRunDir(run, javaArgs, logFile).catch((error: unknown) => {
    throw new SchemaRegistryServerError('The schema registry JVM could not be started', { cause: error });
  });
  const base = `http://127.0.0.1:${port}`;
  const registry: LocalSchemaRegistry = {
    url: `${base}/apis/ccompat/v7`,
    pid: jvm.pid,
    runDir,
    stop: (timeoutMs = 10_000) => jvm.stop(timeoutMs),
    detach: () => jvm.detach(),
    [Symbol.asyncDispose]() {
      return this.stop();
    },
  };
  const timeoutMs = options.startTimeoutMs ?? 120_000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await isReady(base)) return registry;
    const failed = jvm.exited()
      ? 'died during start-up'
      : Date.now() > deadline
        ? `was not ready within ${timeoutMs} ms`
        : undefined;
    if (failed !== undefined) {
      const tail = (await readFile(logFile, 'utf8').catch(() => ''))
        .trimEnd()
        .split('\n')
        .slice(-30)
        .join('\n');
      await registry.stop(5_000);
      const hint = damagedJarsHint(tail, app);
      throw new SchemaRegistryServerError(
        `The schema registry ${failed}${hint ? `; ${hint}` : ''}:\n${tail}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Apicurio's readiness endpoint answers 200 once storage and the REST API are up. */
export async function isReady(base: string): Promise<boolean> {
  try {
    const response = await fetch(`${base}/health/ready`, { signal: AbortSignal.timeout(2_000) });
    await response.body?.cancel();
    return response.ok;
  } catch {
    return false;
  }
}
