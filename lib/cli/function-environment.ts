import { readFile } from 'node:fs/promises';
import { parseEnv } from 'node:util';
import { CliError } from './errors.ts';

/** An `--env-file` or `--env-vars` file `invoke` or `dev` cannot use. */
export class FunctionEnvironmentError extends CliError {}

/** Where the function's own environment variables come from on the command line. */
export interface FunctionEnvironmentOptions {
  /** dotenv files (`KEY=value` lines), in order: a later file's value wins. */
  envFile?: string[];
  /** A JSON file as `sam local invoke --env-vars` takes it, or a flat object of variables. */
  envVars?: string;
  /** Which entry of a SAM-style file is the function's. */
  functionName: string;
}

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

function variablesOf(object: unknown, where: string): Record<string, string> {
  if (typeof object !== 'object' || object === null || Array.isArray(object))
    throw new FunctionEnvironmentError(`${where} must be an object of variables`);
  const variables: Record<string, string> = {};
  for (const [name, value] of Object.entries(object)) {
    if (!isScalar(value))
      throw new FunctionEnvironmentError(`${where}: ${name} must be a string, number or boolean`);
    variables[name] = String(value);
  }
  return variables;
}

/**
 * The function's environment variables from `--env-file` (dotenv, read as Node.js reads `--env-file`)
 * and `--env-vars`: either a flat object of variables, or SAM's form, where `Parameters` applies to
 * every function and an entry named after the function overrides it
 * (https://docs.aws.amazon.com/serverless-application-model/latest/developerguide/serverless-sam-cli-using-invoke.html).
 * `--env-vars` wins over `--env-file`; both win over this shell's variables.
 *
 * @example
 * ```ts
 * await readFunctionEnvironment({ envVars: 'env.json', functionName: 'orders' }); // { TABLE: 'local', STAGE: 'dev' }
 * ```
 * @throws FunctionEnvironmentError when a file cannot be read or is not of that form.
 */
export async function readFunctionEnvironment(
  options: FunctionEnvironmentOptions,
): Promise<Record<string, string>> {
  const environment: Record<string, string> = {};
  for (const path of options.envFile ?? [])
    Object.assign(environment, parseEnv(await readText(path, '--env-file')));
  if (options.envVars === undefined) return environment;
  const where = `--env-vars ${options.envVars}`;
  let json: unknown;
  try {
    json = JSON.parse(await readText(options.envVars, '--env-vars'));
  } catch (error) {
    if (error instanceof FunctionEnvironmentError) throw error;
    throw new FunctionEnvironmentError(`${where} is not JSON: ${(error as Error).message}`, { cause: error });
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw new FunctionEnvironmentError(`${where} must be a JSON object`);
  const entries = Object.values(json);
  if (entries.every(isScalar)) return Object.assign(environment, variablesOf(json, where));
  if (!entries.every((entry) => typeof entry === 'object' && entry !== null && !Array.isArray(entry)))
    throw new FunctionEnvironmentError(
      `${where} mixes variables and objects: give either variables, or SAM's form ({ "Parameters": {…}, "<function name>": {…} })`,
    );
  const sections = json as Record<string, unknown>;
  if (sections.Parameters !== undefined)
    Object.assign(environment, variablesOf(sections.Parameters, `${where}: Parameters`));
  const own = sections[options.functionName];
  if (own !== undefined) Object.assign(environment, variablesOf(own, `${where}: ${options.functionName}`));
  return environment;
}
