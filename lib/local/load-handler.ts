import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** A Lambda handler in its async form. */
export type AsyncHandler<TEvent = unknown, TResult = unknown> = (
  event: TEvent,
  context: import('aws-lambda').Context,
) => Promise<TResult>;

/** The module or export named by a handler reference could not be loaded. */
export class HandlerNotFoundError extends Error {
  override readonly name = 'HandlerNotFoundError';
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
    throw new HandlerNotFoundError(`Cannot import ${modulePath}: ${(error as Error).message}`);
  }
  const handler = module[exportName];
  if (typeof handler !== 'function') {
    throw new HandlerNotFoundError(`${modulePath} has no exported function "${exportName}"`);
  }
  return handler as AsyncHandler;
}
