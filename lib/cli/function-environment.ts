import { readFile } from 'node:fs/promises';
import { parseEnv } from 'node:util';
import { Option } from 'commander';
import { jsonSyntaxCause } from '../middleware/errors.ts';
import { jsonPosition } from '../text/json-position.ts';
import { CliError } from './errors.ts';

/** `--dotenv <file>` of `invoke` and `dev` (repeatable). */
export const DOTENV_OPTION = new Option(
  '--dotenv <file>',
  "the function's environment variables, KEY=value lines as Node's --env-file reads them (repeatable)",
)
  .argParser((file: string, files: string[]) => [...files, file])
  .default([]);

/** `--env-vars <file>` of `invoke` and `dev`. */
export const ENV_VARS_OPTION = new Option(
  '--env-vars <file>',
  'the function\'s environment variables as JSON: {"KEY": "value"}, or sam local invoke\'s form ({"Parameters": {…}, "<function name>": {…}})',
);

/** A `--dotenv` or `--env-vars` file `invoke` or `dev` cannot use. */
export class FunctionEnvironmentError extends CliError {}

/** Where the function's own environment variables come from on the command line. */
export interface FunctionEnvironmentOptions {
  /** dotenv files (`KEY=value` lines), in order: a later file's value wins. */
  dotenv?: string[];
  /** A JSON file as `sam local invoke --env-vars` takes it, or a flat object of variables. */
  envVars?: string;
  /** Which entry of a SAM-style file is the function's. */
  functionName: string;
}

// What the runtime sets (lib/lambda-runtime/environment.ts) and Lambda refuses in a function's
// configuration (https://docs.aws.amazon.com/lambda/latest/dg/configuration-envvars.html#configuration-envvars-runtime):
// a file setting one would be overridden without a word. Credentials are not among them: a developer's
// own may reach the function from these files, as from the shell.
const RESERVED = new Set([
  '_HANDLER',
  'LAMBDA_TASK_ROOT',
  'AWS_EXECUTION_ENV',
  'AWS_LAMBDA_FUNCTION_NAME',
  'AWS_LAMBDA_FUNCTION_MEMORY_SIZE',
  'AWS_LAMBDA_FUNCTION_VERSION',
  'AWS_LAMBDA_INITIALIZATION_TYPE',
  'AWS_LAMBDA_LOG_GROUP_NAME',
  'AWS_LAMBDA_LOG_STREAM_NAME',
  'AWS_REGION',
  'AWS_DEFAULT_REGION',
]);

async function readText(path: string, option: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new FunctionEnvironmentError(`${option} ${path}: ${(error as Error).message}`, { cause: error });
  }
}

type Scalar = string | number | boolean;
const isScalar = (value: unknown): value is Scalar =>
  typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function variablesOf(object: unknown, where: string): Record<string, string> {
  if (!isObject(object)) throw new FunctionEnvironmentError(`${where} must be an object of variables`);
  const variables: Record<string, string> = {};
  for (const [name, value] of Object.entries(object)) {
    if (!isScalar(value))
      throw new FunctionEnvironmentError(`${where}: ${name} must be a string, number or boolean`);
    variables[name] = String(value);
  }
  return variables;
}

function sectionsOf(
  json: Record<string, unknown>,
  where: string,
  functionName: string,
): Record<string, string> {
  const entries = Object.values(json);
  if (!entries.some(isObject)) return variablesOf(json, where);
  if (!entries.every(isObject))
    throw new FunctionEnvironmentError(
      `${where} mixes variables and objects: give either variables, or SAM's form ({ "Parameters": {…}, "<function name>": {…} })`,
    );
  // SAM's form: Parameters for every function, the function's own entry over it.
  // https://docs.aws.amazon.com/serverless-application-model/latest/developerguide/serverless-sam-cli-using-invoke.html
  const { Parameters: shared, [functionName]: own } = json;
  if (shared === undefined && own === undefined)
    throw new FunctionEnvironmentError(
      `${where} has no "Parameters" and no entry for function "${functionName}" (it has ${Object.keys(json)
        .map((name) => `"${name}"`)
        .join(', ')}): name the function with --function-name`,
    );
  return {
    ...(shared === undefined ? {} : variablesOf(shared, `${where}: Parameters`)),
    ...(own === undefined ? {} : variablesOf(own, `${where}: ${functionName}`)),
  };
}

/**
 * The function's environment variables from `--dotenv` (dotenv files, read as Node.js reads its own
 * `--env-file`, which is not this option's name because Node.js claims that one even after the script's
 * name) and `--env-vars`: either a flat object of variables, or SAM's form, where `Parameters` applies
 * to every function and an entry named after the function overrides it. `--env-vars` wins over
 * `--dotenv`; both win over this shell's variables. A variable Lambda reserves is refused.
 *
 * @example
 * ```ts
 * await readFunctionEnvironment({ envVars: 'env.json', functionName: 'orders' }); // { TABLE: 'local', STAGE: 'dev' }
 * ```
 * @throws FunctionEnvironmentError when a file cannot be read, is not of that form, or sets a reserved variable.
 */
export async function readFunctionEnvironment(
  options: FunctionEnvironmentOptions,
): Promise<Record<string, string>> {
  const environment: Record<string, string> = {};
  const files: string[] = [];
  for (const path of options.dotenv ?? []) {
    Object.assign(environment, parseEnv(await readText(path, '--dotenv')));
    files.push(`--dotenv ${path}`);
  }
  if (options.envVars !== undefined) {
    const where = `--env-vars ${options.envVars}`;
    const text = await readText(options.envVars, '--env-vars');
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      const cause = jsonSyntaxCause(error, 'the file', jsonPosition(text));
      throw new FunctionEnvironmentError(`${where} is not JSON: ${cause.message}`, { cause });
    }
    if (!isObject(json)) throw new FunctionEnvironmentError(`${where} must be a JSON object`);
    Object.assign(environment, sectionsOf(json, where, options.functionName));
    files.push(where);
  }
  const reserved = Object.keys(environment)
    .filter((name) => RESERVED.has(name))
    .sort();
  if (reserved.length > 0)
    throw new FunctionEnvironmentError(
      `${files.join(' and ')} ${reserved.length === 1 ? 'sets' : 'set'} ${reserved.join(', ')}, which Lambda reserves and sets itself${
        reserved.some((name) => name.includes('REGION'))
          ? " (the region is this shell's AWS_REGION, us-east-1 without one)"
          : ''
      }`,
    );
  return environment;
}
