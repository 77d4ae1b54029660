import { join } from 'node:path';
import {
  assertJava17,
  cacheBase,
  JavaOrMavenMissingError,
  MavenResolveError,
  resolveMavenClasspath,
} from '../maven-server/index.ts';
import { BrokerPrerequisiteError } from './errors.ts';

/**
 * The Apache Kafka version the embedded broker runs unless `KAFKA_VERSION` says otherwise.
 *
 * @example
 * ```ts
 * const version = process.env.KAFKA_VERSION ?? DEFAULT_KAFKA_VERSION; // what startBroker() runs
 * ```
 */
export const DEFAULT_KAFKA_VERSION = '3.9.2';

const MISSING_TOOLS = 'Java 17+ and Maven are needed for the embedded broker';
const USE_YOUR_OWN = 'or set KAFKA_BROKERS=host:port to use your own';

/** Where the broker's jars for one Kafka version are kept (reused by every later run). */
function brokerCacheDir(version: string): string {
  return join(cacheBase(), 'kafka', version);
}

/** The shared unit's prerequisite errors as this module's; anything else unchanged. */
function asBrokerError(error: unknown): unknown {
  if (error instanceof JavaOrMavenMissingError) {
    // What is missing (Java, which version, or Maven) is the shared unit's finding: said, not dropped.
    return new BrokerPrerequisiteError(`${MISSING_TOOLS} (${error.message}); ${USE_YOUR_OWN}`, {
      cause: error,
    });
  }
  if (error instanceof MavenResolveError) return new BrokerPrerequisiteError(error.message, { cause: error });
  return error;
}

/** True for Kafka 4.x and later, which log through log4j2 instead of reload4j. */
export function usesLog4j2(version: string): boolean {
  return Number.parseInt(version, 10) >= 4;
}

/**
 * Resolves the jars of an Apache Kafka broker (and Kafka's own CLI tools) from Maven Central into
 * the cache, once; later calls return the cached classpath without touching the network (what
 * `kafka-lambda broker install` does, e.g. up front in CI). Runs in several projects at once share
 * one download and never see half a classpath.
 *
 * @example
 * ```ts
 * const libs = await resolveBrokerJars('3.9.2');
 * // java -cp `${libs}/*` kafka.Kafka server.properties
 * ```
 * @throws BrokerPrerequisiteError when Java 17+ or Maven is missing, or Maven cannot resolve the jars.
 */
export async function resolveBrokerJars(version: string = DEFAULT_KAFKA_VERSION): Promise<string> {
  try {
    return await resolveMavenClasspath({
      name: `Apache Kafka ${version}`,
      cacheDir: brokerCacheDir(version),
      pom: brokerPom(version),
    });
  } catch (error) {
    throw asBrokerError(error);
  }
}

/**
 * Checks that Java 17+ runs the broker (checked on every start: the jars may be cached already).
 *
 * @example
 * ```ts
 * await assertBrokerJava();
 * ```
 * @throws BrokerPrerequisiteError unless `java -version` reports 17 or later.
 */
export async function assertBrokerJava(): Promise<void> {
  try {
    await assertJava17();
  } catch (error) {
    throw asBrokerError(error);
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
