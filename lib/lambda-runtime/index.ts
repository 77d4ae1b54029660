/**
 * What runs a handler the way Lambda's Node.js runtime does: loading a handler by reference, a
 * Lambda-like context, Lambda's error response shape, and sandboxes (worker environments with Lambda's
 * init phase, timeout and log capture). The CLI's `invoke` and `dev` and the trigger emulator use it; the
 * package publishes parts of it through `kafka-lambda/testing` and `kafka-lambda/emulator`.
 *
 * @example
 * ```ts
 * import { createSandbox, loadHandler } from '../lambda-runtime/index.ts';
 *
 * const handler = await loadHandler('functions/orders/handler.ts#handler');
 * const sandbox = createSandbox({ handler: 'functions/orders/handler.ts', timeoutSeconds: 30 });
 * await sandbox.close();
 * ```
 */
export { checkHandlerModule, type HandlerModuleCheckOptions } from './check-module.ts';
export {
  createLambdaContext,
  DEFAULT_MEMORY_MB,
  type LambdaContextOptions,
  lambdaLogStreamName,
} from './context.ts';
export { type LambdaEnvironmentOptions, lambdaEnvironment } from './environment.ts';
export { LambdaRuntimeError, SandboxClosedError } from './errors.ts';
export {
  type AsyncHandler,
  HandlerInitError,
  type HandlerLocation,
  HandlerNotFoundError,
  loadErrorResponse,
  loadHandler,
  refuseCallbackHandler,
  resolveHandlerReference,
} from './load-handler.ts';
export {
  marshalResponse,
  type RuntimeErrorResponse,
  responseSizeError,
  toRuntimeError,
  unhandledRejectionError,
} from './runtime-error.ts';
export {
  createSandbox,
  type Sandbox,
  type SandboxEvent,
  type SandboxInvocation,
  type SandboxOptions,
  type SandboxResult,
} from './sandbox.ts';
