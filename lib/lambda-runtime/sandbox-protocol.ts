// Messages between the sandbox (lib/lambda-runtime/sandbox.ts) and the runtime in each of its execution
// environments (lib/lambda-runtime/sandbox-worker.ts), and between an environment's load hook and the
// sandbox's TypeScript stripping (lib/lambda-runtime/sandbox-typescript.ts).
import type { PackedKafkaEvent } from '../kafka-event/packed-event.ts';
import type { RuntimeErrorResponse } from './runtime-error.ts';
import type { TypeScriptChannel } from './sandbox-typescript.ts';

/**
 * `Symbol.for` key of the global where an environment's load hook lists the `file:` URLs it loaded
 * outside node_modules, in order (see sandbox-typescript.ts).
 */
export const LOADED_FILES_KEY = 'kafka-lambda.sandbox.loadedFiles';

/** What an environment is started with (its `workerData`). */
export interface EnvironmentData {
  handler: string;
  cwd: string;
  functionName: string;
  memoryLimitInMB: number;
  region: string;
  /** The environment's runtime module (URL), imported once the load hook is in place. */
  entry: string;
  typeScript: TypeScriptChannel;
}

/** A TypeScript module the environment is loading: its URL and source as read from disk. */
export interface TypeScriptRequest {
  url: string;
  source: string;
}

/** The module's JavaScript, or `null` when the environment's Node.js is to strip it itself. */
export interface TypeScriptReply {
  js: string | null;
}

/**
 * What the sandbox asks of an environment: start the init phase (load the function's module), or run
 * one invocation: the event (its JSON text as built by the caller, or a Kafka batch packed by the
 * trigger emulator, its buffers transferred), and when the function times out (epoch ms).
 */
export type ToEnvironment =
  | { type: 'init' }
  | { type: 'invoke'; requestId: string; payload: string | PackedKafkaEvent; deadline: number };

/** What an environment reports. */
export type FromEnvironment =
  | { type: 'output'; stream: 'stdout' | 'stderr'; text: string }
  /** The runtime is up, its own modules loaded, and waits for its init phase. */
  | { type: 'booted' }
  /** The runtime starts loading the function's module: the init phase's clock starts. */
  | { type: 'init-start' }
  /** The module loaded; `files`: the function's own files it loaded (paths, outside node_modules). */
  | { type: 'ready'; files: string[] }
  | { type: 'init-error'; error: RuntimeErrorResponse }
  | { type: 'response'; requestId: string; json: string }
  | { type: 'error'; requestId: string; error: RuntimeErrorResponse }
  | { type: 'crash'; error: RuntimeErrorResponse };
