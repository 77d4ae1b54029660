import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { JavaOrMavenMissingError, MavenResolveError } from './errors.ts';
import { commandOutput, isAlive, processOutput } from './process.ts';

/** Written last into a classpath folder: without it the folder is not a usable classpath. */
const COMPLETE_MARKER = '.complete';

/**
 * This tool's per-user cache folder, shared by every project (so installs stay clean and artifacts are
 * downloaded once): `KAFKA_LAMBDA_CACHE`, else `$XDG_CACHE_HOME/kafka-lambda`, else
 * `~/.cache/kafka-lambda`. It holds the servers' jars and the background servers' state files.
 *
 * @example
 * ```ts
 * console.log(cacheBase()); // e.g. /home/me/.cache/kafka-lambda
 * ```
 */
export function cacheBase(): string {
  const override = process.env.KAFKA_LAMBDA_CACHE;
  if (override) return resolve(override);
  // A relative XDG_CACHE_HOME is invalid and to be ignored:
  // https://specifications.freedesktop.org/basedir-spec/latest/#variables
  const xdg = process.env.XDG_CACHE_HOME;
  return join(xdg && isAbsolute(xdg) ? xdg : join(homedir(), '.cache'), 'kafka-lambda');
}

/**
 * Checks that Java 17+ and Maven can run.
 *
 * @example
 * ```ts
 * await assertJavaAndMaven();
 * ```
 * @throws JavaOrMavenMissingError naming what is missing.
 */
export async function assertJavaAndMaven(): Promise<void> {
  await assertJava17();
  if ((await commandOutput('mvn', ['--version'])) === undefined)
    throw new JavaOrMavenMissingError('Maven (mvn) is not on PATH');
}

/**
 * Checks that `java -version` reports 17 or later.
 *
 * @example
 * ```ts
 * await assertJava17();
 * ```
 * @throws JavaOrMavenMissingError otherwise, with the version found.
 */
export async function assertJava17(): Promise<void> {
  const out = await commandOutput('java', ['-version']);
  const major = out === undefined ? undefined : Number(/version "(\d+)/.exec(out)?.[1]);
  if (major === undefined || !(major >= 17)) {
    throw major === undefined
      ? new JavaOrMavenMissingError('Java (java) is not on PATH')
      : new JavaOrMavenMissingError(`Java 17+ is needed (found Java ${major})`, major);
  }
}

/**
 * What a JVM logs when a jar on its classpath is truncated or corrupt: a class that cannot be loaded, or
 * the zip reader's own complaint.
 */
const DAMAGED_JAR =
  /ClassNotFoundException|NoClassDefFoundError|Could not find or load main class|invalid LOC header|invalid CEN header|ZipException|zip END header not found|zip file is empty|error in opening zip file|Invalid or corrupt jarfile/;

/**
 * A sentence for a failed start's message when the server's log says a cached jar is damaged (an install
 * cut short after its completion marker, a disk that filled up): which folder to delete so that the next
 * `install` or start downloads it again. Undefined when the log says nothing of the kind.
 *
 * @example
 * ```ts
 * const hint = damagedJarsHint(logTail, dirname(libs));
 * throw new ElasticMqStartError(hint ? `${message}; ${hint}` : message, logTail);
 * ```
 */
export function damagedJarsHint(log: string, cacheDir: string): string | undefined {
  return DAMAGED_JAR.test(log)
    ? `its cached jars look damaged (a class or jar could not be read): delete ${cacheDir} and run install again, which downloads them anew`
    : undefined;
}

/**
 * Puts a folder into the cache at `dir` once: `build` fills a staging folder of its own and returns the
 * folder to move into place, which is renamed to `dir`. Runs in several projects at once neither see a
 * half-built folder nor spoil each other's: the first rename wins, and the others use its folder.
 *
 * @example
 * ```ts
 * await stageIntoCache(dir, () => existsSync(join(dir, '.complete')), async (staging) => { …; return staging; });
 * ```
 */
export async function stageIntoCache(
  dir: string,
  isComplete: () => boolean,
  build: (staging: string) => Promise<string>,
): Promise<void> {
  await mkdir(dirname(dir), { recursive: true });
  await removeStaleStaging(dir);
  // The creator's pid in the name: a run killed by a signal runs no finally, and the next one can tell.
  const staging = await mkdtemp(`${dir}.staging-${process.pid}-`);
  try {
    const built = await build(staging);
    try {
      await rename(built, dir);
    } catch {
      if (isComplete()) return; // another run finished first: use its folder
      // An incomplete folder is in the way (an interrupted run under an older layout): replace it.
      await rm(dir, { recursive: true, force: true });
      await rename(built, dir);
    }
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/** A staging folder whose creator cannot be told (named before pids were) is stale after this long. */
const UNNAMED_STAGING_STALE_MS = 60 * 60_000;

/**
 * Deletes the staging folders of `dir` (`<dir>.staging-<pid>-XXXXXX`) whose creating process is gone: an
 * install interrupted by SIGINT or SIGKILL left them, hundreds of MB each, forever. One named without a
 * pid (an older layout) is deleted once it is an hour old. A live creator's folder is left alone.
 *
 * @example
 * ```ts
 * const removed = await removeStaleStaging(join(cacheBase(), 'elasticmq', '1.6.11'));
 * ```
 * @returns the folders deleted.
 */
export async function removeStaleStaging(dir: string): Promise<string[]> {
  const prefix = `${basename(dir)}.staging-`;
  const names = await readdir(dirname(dir)).catch(() => [] as string[]);
  const removed: string[] = [];
  for (const name of names.filter((n) => n.startsWith(prefix))) {
    const path = join(dirname(dir), name);
    const pid = /^(\d+)-/.exec(name.slice(prefix.length))?.[1];
    const stale =
      pid !== undefined
        ? !isAlive(Number(pid))
        : Date.now() - ((await stat(path).catch(() => undefined))?.mtimeMs ?? Date.now()) >
          UNNAMED_STAGING_STALE_MS;
    if (!stale) continue;
    await rm(path, { recursive: true, force: true }).catch(() => {});
    removed.push(path);
  }
  return removed;
}

/**
 * What {@link resolveMavenClasspath} resolves.
 *
 * @example
 * ```ts
 * const artifacts: MavenClasspath = { name: 'ElasticMQ 1.6.11', cacheDir, pom, mainJarPrefix: 'elasticmq-server_' };
 * ```
 */
export interface MavenClasspath {
  /** Names the artifacts in messages, e.g. `Apache Kafka 3.9.2`. */
  readonly name: string;
  /** The cache folder for this name and version; the classpath is its `libs/`. */
  readonly cacheDir: string;
  /** A POM whose runtime dependencies are the classpath. */
  readonly pom: string;
  /** The start of a jar's name that must be among the resolved ones; any jar will do when absent. */
  readonly mainJarPrefix?: string;
}

/**
 * Resolves a classpath with Maven (`dependency:copy-dependencies`) into the cache, once; later calls
 * return the cached `libs/` folder without running Java, Maven or touching the network.
 *
 * @example
 * ```ts
 * const libs = await resolveMavenClasspath({ name: 'ElasticMQ 1.6.11', cacheDir, pom });
 * // java -cp `${libs}/*` org.elasticmq.server.Main
 * ```
 * @throws JavaOrMavenMissingError when Java 17+ or Maven is missing (and the classpath is not cached).
 * @throws MavenResolveError when Maven cannot resolve the artifacts (with the tail of its output).
 */
export async function resolveMavenClasspath(classpath: MavenClasspath): Promise<string> {
  const libs = join(classpath.cacheDir, 'libs');
  const isComplete = () => existsSync(join(classpath.cacheDir, COMPLETE_MARKER));
  if (isComplete()) return libs;
  await assertJavaAndMaven();
  await stageIntoCache(classpath.cacheDir, isComplete, async (staging) => {
    await copyDependencies(classpath, staging);
    return staging;
  });
  return libs;
}

/** Maven's copy of the runtime classpath into `into/libs`, then the completion marker. */
async function copyDependencies(classpath: MavenClasspath, into: string): Promise<void> {
  const libs = join(into, 'libs');
  const pom = join(into, 'pom.xml');
  await writeFile(pom, classpath.pom);
  const { code, stdout, stderr } = await processOutput(
    spawn(
      'mvn',
      [
        '-B',
        '-q',
        '-f',
        pom,
        'org.apache.maven.plugins:maven-dependency-plugin:3.6.1:copy-dependencies',
        `-DoutputDirectory=${libs}`,
        '-DincludeScope=runtime',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    ),
  );
  const jars = existsSync(libs) ? (await readdir(libs)).filter((f) => f.endsWith('.jar')) : [];
  const prefix = classpath.mainJarPrefix ?? '';
  if (code !== 0 || !jars.some((jar) => jar.startsWith(prefix))) {
    throw new MavenResolveError(
      `Maven could not resolve ${classpath.name} from Maven Central (exit ${code}):\n${`${stdout}${stderr}`.slice(-2000)}`,
    );
  }
  await writeFile(join(into, COMPLETE_MARKER), `${jars.length} jars\n`);
}
