import { cpSync, existsSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { escapeControlCharacters } from '../../text/control-characters.ts';
import { CliError } from '../errors.ts';
import { type OwnPackage, ownPackage } from '../own-package.ts';
import { exitWithUsageCode, USAGE_EXIT_CODE } from '../usage.ts';

/**
 * The project `init` writes, as files (type-checked and tested in this repository like any other code):
 * next to this module in the sources, and copied next to the built module by `npm run build`.
 */
const templateFolder = fileURLToPath(new URL('../init-template/', import.meta.url));

/** The packages a scaffolded project needs besides kafka-lambda, at the versions this package is tested with. */
const DEPENDENCIES = ['@middy/core', 'valibot'];
const DEV_DEPENDENCIES = [
  '@types/node',
  'aws-cdk',
  'aws-cdk-lib',
  'constructs',
  'esbuild',
  'typescript',
  'vitest',
];

/**
 * `init` cannot use the folder or the kafka-lambda dependency it is given (an empty name, a file, a
 * tarball that is not there): nothing is written.
 *
 * @example
 * ```ts
 * try { scaffoldProject(''); } catch (e) { if (e instanceof InitInputError) console.error(e.message); }
 * ```
 */
export class InitInputError extends CliError {}

/**
 * The target folder holds files already: `init` never overwrites anything.
 *
 * @example
 * ```ts
 * try { scaffoldProject('.'); } catch (e) { if (e instanceof FolderNotEmptyError) console.error(e.message); }
 * ```
 */
export class FolderNotEmptyError extends InitInputError {}

/** Options of {@link scaffoldProject}. */
export interface ScaffoldOptions {
  /**
   * The `kafka-lambda` dependency: a version range, a git URL, or a local tarball or folder (a path, or
   * `file:` and a path, relative to where init runs: it is written relative to the new project, since
   * npm reads a `file:` dependency from its package.json's folder). @default `^<this version>`
   */
  packageSpec?: string;
}

/**
 * `spec` as the new project's package.json must write it (see {@link ScaffoldOptions.packageSpec}); a
 * local path must be there, since npm install would only fail on it later.
 */
function dependencySpec(spec: string, project: string): string {
  if (spec.trim() === '')
    throw new InitInputError('--package is empty: give a version range, a tarball or a git URL');
  const isUrl = /^[a-z][a-z0-9+.-]*:/i.test(spec); // https:, git+ssh:, github:, npm:, …
  const isPath = /^\.{0,2}\//.test(spec) || /\.(tgz|tar\.gz)$/.test(spec);
  const path = spec.startsWith('file:') ? spec.slice('file:'.length) : !isUrl && isPath ? spec : undefined;
  if (path === undefined) return spec;
  if (!existsSync(path))
    throw new InitInputError(`--package ${escapeControlCharacters(spec)}: no such file or folder`);
  return `file:${relative(project, resolve(path))}`;
}

function pinned(names: readonly string[], own: OwnPackage): Record<string, string> {
  return Object.fromEntries(
    names.map((name) => {
      const version = own.dependencies[name] ?? own.devDependencies[name];
      if (version === undefined) throw new Error(`kafka-lambda's package.json does not pin ${name}`);
      return [name, version];
    }),
  );
}

/** An npm package name from a folder name: lower case, only the characters npm allows. */
function packageName(folder: string): string {
  const name = basename(folder)
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[._-]+/, '');
  return name === '' ? 'kafka-consumer' : name;
}

/**
 * Writes a new consumer project into `folder` (created if missing, refused if it holds anything): a
 * handler using `kafkaBatch` with a schema, a sample event, a vitest test using `kafka-lambda/testing`, a CDK
 * app using `kafka-lambda/cdk`, and a README. After `npm install`, `npm test` and `npx cdk synth` pass.
 *
 * @example
 * ```ts
 * const files = scaffoldProject('orders-consumer'); // ['README.md', 'cdk.json', …]
 * ```
 * @throws FolderNotEmptyError when `folder` exists and holds anything but a `.git`; InitInputError when `folder` is empty
 *   or a file, or `packageSpec` is empty or a path to nothing.
 */
export function scaffoldProject(folder: string, options: ScaffoldOptions = {}): string[] {
  // An empty argument would scaffold into the current folder, which only `.` (the default) asks for.
  if (folder === '') throw new InitInputError('the folder name is empty (. is this folder)');
  const target = resolve(folder);
  const shown = escapeControlCharacters(folder);
  if (existsSync(target) && !statSync(target).isDirectory())
    throw new InitInputError(`${shown} is a file: init writes only into a new or empty folder`);
  // A `.git` alone is a repository just made (git init, a clone of an empty repository) for this project.
  if (existsSync(target) && readdirSync(target).some((entry) => entry !== '.git')) {
    throw new FolderNotEmptyError(
      `${shown} is not empty: init writes only into a new or empty folder (or one holding only .git)`,
    );
  }
  const own = ownPackage();
  const kafkaLambda =
    options.packageSpec === undefined ? `^${own.version}` : dependencySpec(options.packageSpec, target);
  cpSync(templateFolder, target, { recursive: true });
  // npm never packs a file named .gitignore, so the template carries it without the dot.
  renameSync(join(target, 'gitignore'), join(target, '.gitignore'));
  const manifest = {
    name: packageName(target),
    version: '0.1.0',
    private: true,
    type: 'module',
    engines: own.engines,
    scripts: {
      test: 'tsc && vitest run',
      synth: 'cdk synth',
      invoke: 'kafka-lambda invoke src/handler.ts --event events/orders.json',
    },
    dependencies: {
      'kafka-lambda': kafkaLambda,
      ...pinned(DEPENDENCIES, own),
    },
    devDependencies: pinned(DEV_DEPENDENCIES, own),
  };
  writeFileSync(join(target, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  return readdirSync(target, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(target, join(entry.parentPath, entry.name)))
    .filter((file) => file.split(sep)[0] !== '.git')
    .sort();
}

/**
 * Whether `kafka-lambda` can be installed from the npm registry by name. Until it is published, the
 * `^<version>` that `init` writes without `--package` fails `npm install` with a 404, and would install
 * whatever package someone else registers under the name: `init` then warns. Set to `true` once published.
 */
const PUBLISHED_ON_NPM = false;

/** The warning `init` prints when it wrote a registry range for kafka-lambda while it is not published. */
function unpublishedWarning(version: string): string {
  return `warning: kafka-lambda is not on the npm registry yet: the "^${version}" this project's package.json asks for fails npm install (404), and would install another package if someone registered the name. Run init again with --package <path to kafka-lambda-${version}.tgz> (npm pack in a kafka-lambda checkout makes it), or set "kafka-lambda" in package.json's dependencies to "file:<that path>", before npm install.\n`;
}

/** `text` as one word for a POSIX shell, to copy and paste: as it is when plain, else single-quoted. */
function shellWord(text: string): string {
  return /^[\w./@%+=:,-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}

/**
 * `kafka-lambda init [folder]`: scaffolds a new Kafka consumer project.
 *
 * @example
 * ```ts
 * registerInitCommand(program); // kafka-lambda init orders-consumer
 * ```
 */
export function registerInitCommand(program: Command): void {
  program
    .command('init')
    .description(
      'scaffold a Kafka consumer project: a kafkaBatch handler with a schema, a sample event, a test, a CDK app',
    )
    .argument('[folder]', 'where to write it (new or empty)', '.')
    .option(
      '--package <spec>',
      'the kafka-lambda dependency written to package.json (a version range, a tarball or a git URL)',
    )
    .exitOverride(exitWithUsageCode)
    .action((folder: string, options: { package?: string }) => {
      let files: string[];
      try {
        files = scaffoldProject(
          folder,
          options.package === undefined ? {} : { packageSpec: options.package },
        );
      } catch (error) {
        if (!(error instanceof InitInputError)) throw error;
        console.error(`kafka-lambda init: ${error.message}`);
        process.exitCode = USAGE_EXIT_CODE;
        return;
      }
      const cd = resolve(folder) === process.cwd() ? '' : `cd ${shellWord(folder)} && `;
      process.stdout.write(
        `${files.map((file) => `  ${file}`).join('\n')}\n\nNext: ${cd}npm install && npm test && npx cdk synth\n`,
      );
      // A warning rather than a refusal: the documented `npx kafka-lambda init my-consumer` still
      // scaffolds, and the range written becomes right, unchanged, once the package is published.
      if (options.package === undefined && !PUBLISHED_ON_NPM)
        process.stderr.write(unpublishedWarning(ownPackage().version));
    });
}
