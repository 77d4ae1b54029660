import { join } from 'node:path';
import {
  assertJava17,
  cacheBase,
  JavaOrMavenMissingError,
  MavenResolveError,
  resolveMavenClasspath,
} from '../maven-server/index.ts';
import { ElasticMqPrerequisiteError } from './errors.ts';

/** The ElasticMQ version the local SQS server runs (`org.elasticmq:elasticmq-server_2.13`). */
export const DEFAULT_ELASTICMQ_VERSION = '1.6.11';

const MISSING_TOOLS = 'Java 17+ and Maven are needed for the local SQS server (ElasticMQ)';

/** Where ElasticMQ's jars for one version are kept, beside the broker's (git-ignored, reused across runs). */
function elasticMqCacheDir(version: string): string {
  return join(cacheBase(), 'elasticmq', version);
}

/**
 * Resolves ElasticMQ's server and its dependencies from Maven Central into the cache, once; later
 * calls return the cached classpath folder without touching the network. Each download goes to a
 * folder of its own, renamed into place when complete (as the broker's jars are), so concurrent first
 * runs neither see half a classpath nor spoil each other's.
 *
 * @example
 * ```ts
 * const libs = await resolveElasticMqJars();
 * // java -cp `${libs}/*` org.elasticmq.server.Main
 * ```
 * @throws ElasticMqPrerequisiteError when Java 17+ or Maven is missing, or Maven cannot resolve the jars.
 */
export async function resolveElasticMqJars(version: string = DEFAULT_ELASTICMQ_VERSION): Promise<string> {
  try {
    return await resolveMavenClasspath({
      name: `ElasticMQ ${version}`,
      cacheDir: elasticMqCacheDir(version),
      pom: elasticMqPom(version),
      mainJarPrefix: 'elasticmq-server_',
    });
  } catch (error) {
    if (error instanceof JavaOrMavenMissingError)
      throw new ElasticMqPrerequisiteError(`${MISSING_TOOLS}: ${error.message}`, { cause: error });
    if (error instanceof MavenResolveError)
      throw new ElasticMqPrerequisiteError(error.message, { cause: error });
    throw error;
  }
}

/**
 * Checks that Java 17+ runs the server (checked on every start: the jars may be cached already, and a
 * missing Java was otherwise reported as the server dying during start-up).
 *
 * @example
 * ```ts
 * await assertElasticMqJava();
 * ```
 * @throws ElasticMqPrerequisiteError unless `java -version` reports 17 or later.
 */
export async function assertElasticMqJava(): Promise<void> {
  try {
    await assertJava17();
  } catch (error) {
    if (error instanceof JavaOrMavenMissingError)
      throw new ElasticMqPrerequisiteError(`${MISSING_TOOLS}: ${error.message}`, { cause: error });
    throw error;
  }
}

/** Every POM ElasticMQ 1.6.11 brings in resolves from Maven Central alone (no other repository is declared). */
function elasticMqPom(version: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>kafka-lambda.local</groupId>
  <artifactId>elasticmq-classpath</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>org.elasticmq</groupId><artifactId>elasticmq-server_2.13</artifactId><version>${version}</version>
    </dependency>
  </dependencies>
</project>
`;
}
