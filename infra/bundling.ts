import { type BundlingOptions, OutputFormat, SourceMapMode } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { BuildOptions } from 'esbuild';

/**
 * In this repository the constructs run from their `.ts` sources, and the functions they bundle import
 * `kafka-lambda` from the sources too (the `kafka-lambda-source` export condition of package.json). An
 * installed package runs from dist/ and its users' functions bundle the built modules.
 */
const exportConditions = import.meta.url.endsWith('.ts') ? ['kafka-lambda-source'] : [];

/**
 * The esbuild settings every function of this project ships with, in one place so that the CDK bundling
 * ({@link lambdaBundling}) and the bundle benchmark build byte-identical output.
 *
 * - ESM (`index.mjs`): handlers may use top-level await; the banner gives CommonJS dependencies (kafkajs)
 *   a real `require` for Node built-ins, which esbuild's ESM output otherwise lacks.
 * - Everything is bundled, `@aws-sdk/*` included: the SDK in the runtime is unpinned (it changes under a
 *   deployed function) and is loaded from hundreds of unminified files, while a tree-shaken, minified copy
 *   pins the version the tests ran against and loads from one file.
 * - Linked source maps without `sourcesContent`: with `NODE_OPTIONS=--enable-source-maps` stack traces map
 *   back to `.ts` lines; without it the map costs nothing at run time (it is only read when enabled).
 *
 * @example
 * import { build } from 'esbuild';
 * await build({ ...esbuildSettings, entryPoints: ['functions/orders/handler.ts'], outfile: 'out/index.mjs' });
 */
export const esbuildSettings = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node24',
  minify: true,
  sourcemap: 'linked',
  sourcesContent: false,
  mainFields: ['module', 'main'],
  conditions: exportConditions,
  banner: { js: "import{createRequire}from'node:module';const require=createRequire(import.meta.url);" },
  external: [],
} satisfies BuildOptions;

/**
 * {@link esbuildSettings} as `NodejsFunction` bundling options (local esbuild, never Docker).
 *
 * @example
 * new NodejsFunction(this, 'Fn', { entry: 'functions/orders/handler.ts', bundling: lambdaBundling() });
 */
export function lambdaBundling(): BundlingOptions {
  return {
    format: OutputFormat.ESM,
    target: esbuildSettings.target,
    minify: esbuildSettings.minify,
    sourceMap: true,
    sourceMapMode: SourceMapMode.DEFAULT,
    sourcesContent: esbuildSettings.sourcesContent,
    mainFields: [...esbuildSettings.mainFields],
    banner: esbuildSettings.banner.js,
    externalModules: [...esbuildSettings.external],
    ...(exportConditions.length > 0 && { esbuildArgs: { '--conditions': exportConditions.join(',') } }),
    forceDockerBundling: false,
  };
}
