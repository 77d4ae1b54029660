import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { BrokerPrerequisiteError } from './errors.ts';
import { commandOutput } from './process.ts';

/** The Apache Kafka version the embedded broker runs unless `KAFKA_VERSION` says otherwise. */
export const DEFAULT_KAFKA_VERSION = '3.9.2';

/** Written last into a version's folder: without it the folder is not a usable classpath. */
const COMPLETE_MARKER = '.complete';

const MISSING_TOOLS =
  'Java 17+ and Maven are needed for the embedded broker; or set KAFKA_BROKERS=host:port to use your own';

/**
 * This tool's per-user cache folder, shared by every project (so installs stay clean and the jars are
 * downloaded once): `KAFKA_LAMBDA_CACHE`, else `$XDG_CACHE_HOME/kafka-lambda`, else
 * `~/.cache/kafka-lambda`. It holds the broker's jars and the background broker's state file.
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

/** Where the broker's jars for one Kafka version are kept (reused by every later run). */
function brokerCacheDir(version: string): string {
  return join(cacheBase(), 'kafka', version);
}

/** True for Kafka 4.x and later, which log through log4j2 instead of reload4j. */
export function usesLog4j2(version: string): boolean {
  return Number.parseInt(version, 10) >= 4;
}

/**
 * Resolves the jars of an Apache Kafka broker (and Kafka's own CLI tools) from Maven Central into
 * the cache, once; later calls return the cached classpath without touching the network. Each download
 * goes to a folder of its own that is renamed into place when complete, so runs in several projects
 * at once neither see half a classpath nor spoil each other's.
 *
 * @example
 * ```ts
 * const libs = await resolveBrokerJars('3.9.2');
 * // java -cp `${libs}/*` kafka.Kafka server.properties
 * ```
 * @throws BrokerPrerequisiteError when Java 17+ or Maven is missing, or Maven cannot resolve the jars.
 */
export async function resolveBrokerJars(version: string = DEFAULT_KAFKA_VERSION): Promise<string> {
  const dir = brokerCacheDir(version);
  const libs = join(dir, 'libs');
  const marker = join(dir, COMPLETE_MARKER);
  if (existsSync(marker)) return libs;

  await assertJava17();
  if ((await commandOutput('mvn', ['--version'])) === undefined)
    throw new BrokerPrerequisiteError(MISSING_TOOLS);

  await mkdir(dirname(dir), { recursive: true });
  const staging = await mkdtemp(`${dir}.download-`);
  try {
    await downloadJars(version, staging);
    try {
      await rename(staging, dir);
    } catch {
      if (existsSync(marker)) return libs; // another run finished first: use its folder
      // An incomplete folder is in the way (a download interrupted under an older layout): replace it.
      await rm(dir, { recursive: true, force: true });
      await rename(staging, dir);
    }
    return libs;
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/** Maven's copy of the broker's runtime classpath into `into/libs`, then the `.complete` marker. */
async function downloadJars(version: string, into: string): Promise<void> {
  const libs = join(into, 'libs');
  const pom = join(into, 'pom.xml');
  await writeFile(pom, brokerPom(version));
  const output: string[] = [];
  const code = await new Promise<number | null>((resolve, reject) => {
    const mvn = spawn(
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
    );
    mvn.stdout.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    mvn.stderr.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    mvn.on('error', reject);
    mvn.on('close', resolve);
  });
  const jars = existsSync(libs) ? (await readdir(libs)).filter((f) => f.endsWith('.jar')) : [];
  if (code !== 0 || jars.length === 0) {
    throw new BrokerPrerequisiteError(
      `Maven could not resolve Apache Kafka ${version} from Maven Central (exit ${code}):\n${output.join('').slice(-2000)}`,
    );
  }
  await writeFile(join(into, COMPLETE_MARKER), `${jars.length} jars\n`);
}

/** @throws BrokerPrerequisiteError unless `java -version` reports 17 or later. */
export async function assertJava17(): Promise<void> {
  const out = await commandOutput('java', ['-version']);
  const major = out === undefined ? undefined : Number(/version "(\d+)/.exec(out)?.[1]);
  if (major === undefined || !(major >= 17)) {
    throw new BrokerPrerequisiteError(
      major === undefined ? MISSING_TOOLS : `${MISSING_TOOLS} (found Java ${major})`,
    );
  }
}

function brokerPom(version: string): string {
  const logging = usesLog4j2(version)
    ? dependency('org.apache.logging.log4j', 'log4j-core', '2.24.3') +
      dependency('org.apache.logging.log4j', 'log4j-slf4j-impl', '2.24.3')
    : dependency('org.slf4j', 'slf4j-reload4j', '1.7.36') +
      dependency('ch.qos.reload4j', 'reload4j', '1.2.25');
  // kafka-tools' own POM drags in Kafka Connect; the CLI classes we run need nothing beyond the broker's classpath.
  return `<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>kafka-lambda.local</groupId>
  <artifactId>kafka-broker-classpath</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>org.apache.kafka</groupId><artifactId>kafka_2.13</artifactId><version>${version}</version>
      <exclusions>
        <exclusion><groupId>ch.qos.logback</groupId><artifactId>*</artifactId></exclusion>
        <exclusion><groupId>log4j</groupId><artifactId>log4j</artifactId></exclusion>
        <exclusion><groupId>org.slf4j</groupId><artifactId>slf4j-log4j12</artifactId></exclusion>
      </exclusions>
    </dependency>
    <dependency>
      <groupId>org.apache.kafka</groupId><artifactId>kafka-tools</artifactId><version>${version}</version>
      <exclusions><exclusion><groupId>*</groupId><artifactId>*</artifactId></exclusion></exclusions>
    </dependency>
${logging}  </dependencies>
</project>
`;
}

function dependency(groupId: string, artifactId: string, version: string): string {
  return `    <dependency><groupId>${groupId}</groupId><artifactId>${artifactId}</artifactId><version>${version}</version></dependency>\n`;
}
