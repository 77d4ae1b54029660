import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { BrokerPrerequisiteError } from '../broker/errors.ts';
import { assertJava17, cacheBase } from '../broker/jars.ts';
import { commandOutput, processOutput } from '../broker/process.ts';
import { ElasticMqPrerequisiteError } from './errors.ts';

/** The ElasticMQ version the local SQS server runs (`org.elasticmq:elasticmq-server_2.13`). */
export const DEFAULT_ELASTICMQ_VERSION = '1.6.11';

const COMPLETE_MARKER = '.complete';
const MISSING_TOOLS = 'Java 17+ and Maven are needed for the local SQS server (ElasticMQ)';

/** Where ElasticMQ's jars for one version are kept, beside the broker's (git-ignored, reused across runs). */
export function elasticMqCacheDir(version: string): string {
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
  const dir = elasticMqCacheDir(version);
  const libs = join(dir, 'libs');
  const marker = join(dir, COMPLETE_MARKER);
  if (existsSync(marker)) return libs;

  try {
    await assertJava17();
  } catch (error) {
    if (error instanceof BrokerPrerequisiteError) throw new ElasticMqPrerequisiteError(MISSING_TOOLS);
    throw error;
  }
  if ((await commandOutput('mvn', ['--version'])) === undefined)
    throw new ElasticMqPrerequisiteError(MISSING_TOOLS);
  await mkdir(dirname(dir), { recursive: true });
  const staging = await mkdtemp(`${dir}.download-`);
  try {
    await downloadJars(version, staging);
    try {
      await rename(staging, dir);
    } catch {
      if (existsSync(marker)) return libs; // another run finished first: use its folder
      await rm(dir, { recursive: true, force: true }); // an incomplete folder is in the way
      await rename(staging, dir);
    }
    return libs;
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/** Maven's copy of ElasticMQ's runtime classpath into `into/libs`, then the completion marker. */
async function downloadJars(version: string, into: string): Promise<void> {
  const libs = join(into, 'libs');
  const pom = join(into, 'pom.xml');
  await writeFile(pom, elasticMqPom(version));
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
  if (code !== 0 || !jars.some((jar) => jar.startsWith('elasticmq-server_'))) {
    throw new ElasticMqPrerequisiteError(
      `Maven could not resolve ElasticMQ ${version} from Maven Central (exit ${code}):\n${`${stdout}${stderr}`.slice(-2000)}`,
    );
  }
  await writeFile(join(into, COMPLETE_MARKER), `${jars.length} jars\n`);
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
