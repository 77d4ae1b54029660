import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { KafkaLambdaCdkError } from './errors.ts';

/**
 * The folder `npm run build` writes the replay handler's bundle to (`index.mjs`, minified ESM with its
 * kafkajs and AWS SDK clients), next to the compiled constructs: `dist/assets/replay-handler/` in the
 * published package. Shipping the bundle, rather than a source file to bundle, means a user's `cdk synth`
 * needs neither this package's sources nor esbuild nor Docker for the replay function, and deploys the
 * exact bundle the tests ran.
 */
const bundleFolder = fileURLToPath(new URL('../assets/replay-handler/', import.meta.url));

/**
 * The replay function's bundle is not there: running the constructs from this repository's sources before
 * `npm run build`.
 *
 * @example
 * try { packagedReplayHandler(); } catch (e) { if (e instanceof PackagedReplayHandlerMissingError) console.error(e.message); }
 */
export class PackagedReplayHandlerMissingError extends KafkaLambdaCdkError {
  override readonly name = 'PackagedReplayHandlerMissingError';
}

/**
 * The packaged replay handler as Lambda code, with the handler name it exports.
 *
 * @example
 * const { code, handler } = packagedReplayHandler(); // handler: 'index.handler'
 * @throws PackagedReplayHandlerMissingError when the bundle has not been built.
 */
export function packagedReplayHandler(): { code: lambda.Code; handler: string } {
  if (!existsSync(`${bundleFolder}index.mjs`)) {
    throw new PackagedReplayHandlerMissingError(
      'the packaged replay handler is built by `npm run build`; or pass `entry`, the source file of a replay handler',
    );
  }
  return { code: lambda.Code.fromAsset(bundleFolder), handler: 'index.handler' };
}
