import { createRequire } from 'node:module';

/** What the CLI reads of kafka-lambda's own package.json. */
export interface OwnPackage {
  version: string;
  engines: { node: string };
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
}

/**
 * kafka-lambda's package.json, found as `kafka-lambda/package.json` (the package's own export), the same
 * from the sources and from an install's dist/.
 *
 * @example
 * ```ts
 * console.log(ownPackage().version); // 0.1.0
 * ```
 */
export function ownPackage(): OwnPackage {
  return createRequire(import.meta.url)('kafka-lambda/package.json') as OwnPackage;
}
