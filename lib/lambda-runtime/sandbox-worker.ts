// The runtime inside one sandbox execution environment (a worker thread): once booted it waits for the
// parent (lib/lambda-runtime/sandbox.ts) to start its init phase, loads the handler once, then runs one
// invocation at a time. Everything the function prints travels to the parent as messages on the same
// port as the results, so its logs always arrive before the response they precede.
import { fileURLToPath } from 'node:url';
import { parentPort, workerData } from 'node:worker_threads';
import { unpackKafkaEvent } from '../kafka-event/packed-event.ts';
import { createLambdaContext } from './context.ts';
import { type AsyncHandler, loadErrorResponse, loadHandler } from './load-handler.ts';
import {
  marshalResponse,
  type RuntimeErrorResponse,
  toRuntimeError,
  unhandledRejectionError,
} from './runtime-error.ts';
import {
  type EnvironmentData,
  type FromEnvironment,
  LOADED_FILES_KEY,
  type ToEnvironment,
} from './sandbox-protocol.ts';

const port = parentPort!;
const data = workerData as EnvironmentData;
const post = (message: FromEnvironment) => port.postMessage(message);

for (const stream of ['stdout', 'stderr'] as const) {
  const write = (
    chunk: string | Uint8Array,
    encodingOrCallback?: BufferEncoding | ((error?: Error | null) => void),
    callback?: (error?: Error | null) => void,
  ): boolean => {
    const text =
      typeof chunk === 'string'
        ? chunk
        : Buffer.from(chunk).toString(typeof encodingOrCallback === 'string' ? encodingOrCallback : 'utf8');
    post({ type: 'output', stream, text });
    (typeof encodingOrCallback === 'function' ? encodingOrCallback : callback)?.();
    return true;
  };
  process[stream].write = write as typeof process.stdout.write;
}

// As in Lambda's Node.js runtime, an exception or rejection nobody handles fails the running
// invocation and ends the environment (the parent terminates it; the next invocation starts cold).
const crash = (error: RuntimeErrorResponse) => post({ type: 'crash', error });
process.on('uncaughtException', (error) => crash(toRuntimeError(error)));
process.on('unhandledRejection', (reason) => crash(unhandledRejectionError(reason)));

let handler: AsyncHandler;

/** Files the load hook has loaded so far (its list: see sandbox-typescript.ts). */
const loadedFiles: string[] =
  (globalThis as Record<symbol, string[] | undefined>)[Symbol.for(LOADED_FILES_KEY)] ?? [];

/** The init phase: loads the function's module once, and says which files it loaded for it. */
async function init(): Promise<void> {
  post({ type: 'init-start' });
  const runtimeFiles = loadedFiles.length;
  try {
    handler = await loadHandler(data.handler, data.cwd);
    post({
      type: 'ready',
      files: [...new Set(loadedFiles.slice(runtimeFiles))].map((url) => fileURLToPath(url)),
    });
  } catch (error) {
    post({
      type: 'init-error',
      error: loadErrorResponse(error),
    });
  }
}

async function invoke({ requestId, payload, deadline }: Extract<ToEnvironment, { type: 'invoke' }>) {
  const context = createLambdaContext({
    functionName: data.functionName,
    memoryLimitInMB: data.memoryLimitInMB,
    region: data.region,
    awsRequestId: requestId,
    timeoutMs: deadline - Date.now(),
    logStreamName: process.env.AWS_LAMBDA_LOG_STREAM_NAME,
  });
  let result: unknown;
  try {
    result = await handler(
      typeof payload === 'string' ? JSON.parse(payload) : unpackKafkaEvent(payload),
      context,
    );
  } catch (error) {
    post({ type: 'error', requestId, error: toRuntimeError(error) });
    return;
  }
  // Lambda serialises the response to JSON; what does not survive that is a function error.
  const { json, error } = marshalResponse(result);
  if (error !== undefined) post({ type: 'error', requestId, error });
  else post({ type: 'response', requestId, json });
}

// Listening from the start keeps the thread alive while it waits for its init phase and while the
// module loads, as Lambda's runtime waits: a top-level await that never settles is an init timeout, not
// an exit.
port.on('message', (message: ToEnvironment) => {
  if (message.type === 'init') void init();
  else void invoke(message);
});
post({ type: 'booted' });
