import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BrokerPrerequisiteError } from './errors.ts';
import { commandOutput, packageRoot } from './process.ts';

/** The Apache Kafka version the embedded broker runs unless `KAFKA_VERSION` says otherwise. */
export const DEFAULT_KAFKA_VERSION = '3.9.2';

const MISSING_TOOLS =
  'Java 17+ and Maven are needed for the embedded broker; or set KAFKA_BROKERS=host:port to use your own';

/** This tool's cache folder (`KAFKA_LAMBDA_CACHE`, or `.cache` in the package): broker jars and state. */
export function cacheBase(): string {
  return process.env.KAFKA_LAMBDA_CACHE ?? join(packageRoot, '.cache');
}

/** Where the broker's jars for one Kafka version are kept (git-ignored, reused across runs). */
export function brokerCacheDir(version: string): string {
  return join(cacheBase(), 'kafka', version);
}

/** True for Kafka 4.x and later, which log through log4j2 instead of reload4j. */
export function usesLog4j2(version: string): boolean {
  return Number.parseInt(version, 10) >= 4;
}

/**
 * Resolves the jars of an Apache Kafka broker (and Kafka's own CLI tools) from Maven Central into
 * the cache, once; later calls return the cached classpath without touching the network.
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
  const marker = join(dir, '.complete');
  if (existsSync(marker)) return libs;

  await assertJava17();
  if ((await commandOutput('mvn', ['--version'])) === undefined)
    throw new BrokerPrerequisiteError(MISSING_TOOLS);

  await rm(libs, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const pom = join(dir, 'pom.xml');
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
  await writeFile(marker, `${jars.length} jars\n`);
  return libs;
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
