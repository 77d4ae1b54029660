// Messages between the sandbox (lib/lambda-runtime/sandbox.ts) and the runtime in each of its execution
// environments (lib/lambda-runtime/sandbox-worker.ts).
import type { RuntimeErrorResponse } from './runtime-error.ts';

/** What an environment is started with (its `workerData`). */
export interface EnvironmentData {
  handler: string;
  cwd: string;
  functionName: string;
  memoryLimitInMB: number;
  region: string;
}

/** One invocation: the event's JSON text as built by the caller, and when the function times out (epoch ms). */
export interface ToEnvironment {
  requestId: string;
  payload: string;
  deadline: number;
}

/** What an environment reports. */
export type FromEnvironment =
  | { type: 'output'; stream: 'stdout' | 'stderr'; text: string }
  /** The runtime is up and starts loading the function's module: the init phase's clock starts. */
  | { type: 'init-start' }
  | { type: 'ready' }
  | { type: 'init-error'; error: RuntimeErrorResponse }
  | { type: 'response'; requestId: string; json: string }
  | { type: 'error'; requestId: string; error: RuntimeErrorResponse }
  | { type: 'crash'; error: RuntimeErrorResponse };
