import { statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { LambdaRuntimeError } from './errors.ts';
import { type RuntimeErrorResponse, toRuntimeError } from './runtime-error.ts';

/**
 * A Lambda handler in its async form.
 *
 * @example
 * ```ts
 * const handler: AsyncHandler<KafkaEvent, KafkaBatchResponse> = async () => ({ batchItemFailures: [] });
 * ```
 */
export type AsyncHandler<TEvent = unknown, TResult = unknown> = (
  event: TEvent,
  context: import('../kafka-event/types.ts').LambdaContext,
) => Promise<TResult>;

/**
 * The handler reference names no module file, no function in it, or is malformed: the reference is
 * wrong, not the function's code (the import's error, if any, is the `cause`).
 *
 * @example
 * ```ts
 * if (error instanceof HandlerNotFoundError) console.error(error.lambdaErrorType, error.message);
 * ```
 */
export class HandlerNotFoundError extends LambdaRuntimeError {
  override readonly name: string = 'HandlerNotFoundError';
  /** The error type Lambda's runtime reports for the same failure of its init phase. */
  readonly lambdaErrorType:
    | 'Runtime.ImportModuleError'
    | 'Runtime.HandlerNotFound'
    | 'Runtime.MalformedHandlerName';
  constructor(
    message: string,
    lambdaErrorType: HandlerNotFoundError['lambdaErrorType'],
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.lambdaErrorType = lambdaErrorType;
  }
}

/**
 * The function's module failed in its init phase: a syntax error, an exception at its top level, a
 * dependency it imports that is missing, or a callback-style handler. `response` is the error as
 * Lambda's Node.js runtime reports it (and the invocation then fails with it); the module's own error
 * is the `cause`.
 *
 * @example
 * ```ts
 * if (error instanceof HandlerInitError) console.error(error.response.errorType); // 'Runtime.UserCodeSyntaxError'
 * ```
 */
export class HandlerInitError extends LambdaRuntimeError {
  /** Always `'HandlerInitError'`. */
  override readonly name: string = 'HandlerInitError';
  /** The error as Lambda's Node.js runtime reports it (`errorType`, `errorMessage`, `trace`). */
  readonly response: RuntimeErrorResponse;
  /**
   * @param response - The error as Lambda's runtime reports it; the message is `errorType: errorMessage`.
   * @param options - `cause`: the module's own error, if any.
   */
  constructor(response: RuntimeErrorResponse, options?: ErrorOptions) {
    super(`${response.errorType}: ${response.errorMessage}`, options);
    this.response = response;
  }
}

/** Where a handler reference points: the module's file and the export's path in it (`a.b` nests). */
export interface HandlerLocation {
  file: string;
  exportPath: string;
}

// What Lambda's runtime tries after a handler string's module name (`index` → index, index.js, …),
// and the TypeScript this runtime also loads directly.
const MODULE_EXTENSIONS = ['', '.js', '.mjs', '.cjs', '.ts', '.mts', '.cts'];

const SOURCE_EXTENSION = /^\.[cm]?[jt]s$/;

const isFile = (path: string) => statSync(path, { throwIfNoEntry: false })?.isFile() === true;

/**
 * Finds the module and export a handler reference names, relative to `cwd`: `path/to/module.ts#export`
 * (export `handler` when no `#` is given), or the `Handler` string Lambda's configuration holds,
 * `path/to/module.export`, whose module is tried with the extensions Lambda's runtime tries (and
 * `.ts`). An export path with dots (`#api.orders`) names a nested property, as in Lambda.
 *
 * @example
 * ```ts
 * resolveHandlerReference('functions/orders/handler.ts'); // { file: '/…/functions/orders/handler.ts', exportPath: 'handler' }
 * resolveHandlerReference('dist/index.handler'); // { file: '/…/dist/index.js', exportPath: 'handler' }
 * ```
 * @throws HandlerNotFoundError when no module file is found (`Runtime.ImportModuleError`) or the
 *   reference is malformed (`Runtime.MalformedHandlerName`).
 */
export function resolveHandlerReference(reference: string, cwd = process.cwd()): HandlerLocation {
  const at = (path: string) => (isAbsolute(path) ? path : resolve(cwd, path));
  // A file whose own path holds a `#` is that file.
  if (isFile(at(reference))) return { file: at(reference), exportPath: 'handler' };
  const hash = reference.lastIndexOf('#');
  if (hash !== -1) {
    const modulePath = reference.slice(0, hash);
    const exportPath = reference.slice(hash + 1);
    if (modulePath === '' || !/^[^.]+(\.[^.]+)*$/.test(exportPath))
      throw new HandlerNotFoundError(
        `Bad handler ${reference}: write path/to/module.ts#export (or Lambda's path/to/module.export)`,
        'Runtime.MalformedHandlerName',
      );
    if (!isFile(at(modulePath)))
      throw new HandlerNotFoundError(`Cannot find module ${modulePath}`, 'Runtime.ImportModuleError');
    return { file: at(modulePath), exportPath };
  }
  // Lambda's Handler setting: the module name runs to the first dot of the last path segment.
  // https://docs.aws.amazon.com/lambda/latest/dg/nodejs-handler.html
  const name = basename(reference);
  const dot = name.indexOf('.');
  // `handler.ts` with no such file is a missing module, not export `ts` of a module `handler`.
  if (dot > 0 && dot < name.length - 1 && !SOURCE_EXTENSION.test(name.slice(dot))) {
    const stem = join(dirname(at(reference)), name.slice(0, dot));
    const file = MODULE_EXTENSIONS.map((extension) => stem + extension).find(isFile);
    if (file !== undefined) return { file, exportPath: name.slice(dot + 1) };
  }
  throw new HandlerNotFoundError(
    `Cannot find module ${reference} (as a file, or as Lambda's path/to/module.export)`,
    'Runtime.ImportModuleError',
  );
}

/**
 * The error Lambda's Node.js runtime reports for a module that fails while it loads: a syntax error
 * is `Runtime.UserCodeSyntaxError`, a CommonJS `require` of a missing module
 * `Runtime.ImportModuleError`, and anything else the module throws is reported as thrown (so an ES
 * module importing a missing package fails with Node's own error), as in the runtime's module loader
 * (aws-lambda-nodejs-runtime-interface-client, src/function/module-loader.ts).
 */
function initErrorOf(error: unknown): RuntimeErrorResponse {
  const errorType =
    error instanceof SyntaxError
      ? 'Runtime.UserCodeSyntaxError'
      : error instanceof Error && (error as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND'
        ? 'Runtime.ImportModuleError'
        : undefined;
  const response = toRuntimeError(error);
  return errorType === undefined ? response : { ...response, errorType, errorMessage: String(error) };
}

/**
 * What an invocation fails with when {@link loadHandler} failed, as Lambda reports it: a wrong
 * reference by its runtime error type, an init failure by its response, anything else as thrown.
 *
 * @example
 * ```ts
 * const response = await loadHandler(reference).then(() => undefined, loadErrorResponse);
 * ```
 */
export function loadErrorResponse(error: unknown): RuntimeErrorResponse {
  if (error instanceof HandlerNotFoundError)
    return { errorType: error.lambdaErrorType, errorMessage: error.message, trace: [] };
  return error instanceof HandlerInitError ? error.response : toRuntimeError(error);
}

function exportAt(container: unknown, exportPath: string): unknown {
  let value = container;
  for (const key of exportPath.split('.')) {
    value =
      typeof value === 'object' || typeof value === 'function'
        ? (value as Record<string, unknown> | null)?.[key]
        : undefined;
  }
  return value;
}

/**
 * Loads a handler from a reference (see {@link resolveHandlerReference}) the way Lambda's Node.js 24
 * runtime loads one: the export, or else the same path under the module's `default` export (a
 * CommonJS module whose exports Node cannot list); a handler declaring a third parameter (a callback)
 * is refused, as that runtime refuses it. TypeScript modules load directly.
 *
 * @example
 * ```ts
 * const handler = await loadHandler('functions/orders/handler.ts#handler');
 * ```
 * @throws HandlerNotFoundError when the reference names no module or no function in it.
 * @throws HandlerInitError when the module fails in its init phase, or the handler is callback-style.
 */
export async function loadHandler(reference: string, cwd = process.cwd()): Promise<AsyncHandler> {
  const { file, exportPath } = resolveHandlerReference(reference, cwd);
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (error) {
    throw new HandlerInitError(initErrorOf(error), { cause: error });
  }
  // As the runtime's resolver: the export, else the same path under `default`; a falsy value is "not exported".
  const handler = exportAt(module, exportPath) || exportAt(module.default, exportPath);
  // Lambda names the handler it looked for (`index.handler is undefined or not exported`): a reference
  // naming only the file (export `handler` by default) is named with its export.
  const named = isFile(isAbsolute(reference) ? reference : resolve(cwd, reference))
    ? `${reference}#${exportPath}`
    : reference;
  if (!handler)
    throw new HandlerNotFoundError(`${named} is undefined or not exported`, 'Runtime.HandlerNotFound');
  if (typeof handler !== 'function')
    throw new HandlerNotFoundError(`${named} is not a function`, 'Runtime.HandlerNotFound');
  refuseCallbackHandler(handler as AsyncHandler);
  return handler as AsyncHandler;
}

/**
 * Refuses a handler that declares a third parameter (`(event, context, callback)`), as Lambda's
 * Node.js 24 runtime does when it loads one: that runtime no longer calls handlers back.
 * https://docs.aws.amazon.com/lambda/latest/dg/nodejs-handler.html
 *
 * @example
 * ```ts
 * refuseCallbackHandler(async (event, context) => ({})); // fine
 * ```
 * @throws HandlerInitError (`Runtime.CallbackHandlerDeprecated`) for a callback-style handler.
 */
export function refuseCallbackHandler(handler: (...args: never[]) => unknown): void {
  if (handler.length < 3) return;
  throw new HandlerInitError({
    errorType: 'Runtime.CallbackHandlerDeprecated',
    errorMessage:
      "the handler takes a callback (a third parameter), and Lambda's Node.js 24 runtime no longer runs callback-based handlers: make it async and return its response (https://docs.aws.amazon.com/lambda/latest/dg/nodejs-handler.html)",
    trace: [],
  });
}
