import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { LambdaRuntimeError } from './errors.ts';
import { toRuntimeError } from './runtime-error.ts';

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
 * The module or export named by a handler reference could not be loaded (the import's error is the `cause`).
 *
 * @example
 * ```ts
 * if (error instanceof HandlerNotFoundError) console.error(error.lambdaErrorType, error.message);
 * ```
 */
export class HandlerNotFoundError extends LambdaRuntimeError {
  override readonly name: string = 'HandlerNotFoundError';
  /** The error type Lambda's runtime reports for the same failure of its init phase. */
  readonly lambdaErrorType: 'Runtime.ImportModuleError' | 'Runtime.HandlerNotFound';
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
 * Loads a handler from a reference `path/to/module.ts[#export]` (export `handler` by default), the
 * way the CLI's `invoke` and `dev` commands do. TypeScript modules load directly on Node.js 24.
 *
 * @example
 * ```ts
 * const handler = await loadHandler('functions/orders/handler.ts#handler');
 * ```
 * @throws HandlerNotFoundError when the module cannot be imported or the export is not a function.
 */
export async function loadHandler(reference: string, cwd = process.cwd()): Promise<AsyncHandler> {
  const hash = reference.lastIndexOf('#');
  const modulePath = hash === -1 ? reference : reference.slice(0, hash);
  const exportName = hash === -1 ? 'handler' : reference.slice(hash + 1);
  const url = pathToFileURL(isAbsolute(modulePath) ? modulePath : resolve(cwd, modulePath)).href;
  let module: Record<string, unknown>;
  try {
    module = (await import(url)) as Record<string, unknown>;
  } catch (error) {
    throw new HandlerNotFoundError(
      `Cannot import ${modulePath}: ${toRuntimeError(error).errorMessage}`,
      'Runtime.ImportModuleError',
      { cause: error },
    );
  }
  const handler = module[exportName];
  if (typeof handler !== 'function') {
    throw new HandlerNotFoundError(
      `${modulePath} has no exported function "${exportName}"`,
      'Runtime.HandlerNotFound',
    );
  }
  return handler as AsyncHandler;
}
