// TypeScript for the sandbox's execution environments, stripped once in this process.
//
// Node.js strips a `.ts` module's types with a WebAssembly parser (amaro) that every thread sets up
// for itself the first time it meets TypeScript: about 60-70 ms of CPU per environment measured here,
// half of a cold start. Instead, each environment starts with a small load hook (module.registerHooks,
// which runs in the environment's own thread) that hands every TypeScript module's source to this
// process and waits for the JavaScript, which this process strips once per source and keeps for the
// environments that follow. Only the loading changes: each environment still reads the files from
// disk and evaluates its own copy of every module, so a cold start sees the current sources and no
// state is shared. Stripping keeps every line and column (types become blanks), so stack traces point
// at the `.ts` sources as before. Whatever this process cannot strip (syntax type stripping refuses,
// such as an enum) or must not (a module under node_modules) is left to Node.js in the environment,
// which then fails or succeeds exactly as it would without the hook.
import { stripTypeScriptTypes } from 'node:module';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { LOADED_FILES_KEY, type TypeScriptReply, type TypeScriptRequest } from './sandbox-protocol.ts';

/**
 * What an environment's load hook is given: its end of the channel, and the word it waits on while
 * this process strips (0 while waiting, 1 once the reply is on the port).
 */
export interface TypeScriptChannel {
  port: MessagePort;
  signal: Int32Array;
  /**
   * What this process had stripped when the environment started, `[url, source, js]`: a module whose
   * source is unchanged loads without asking (environments that boot together do not each wait for
   * this process to answer, which a busy emulator does late).
   */
  known: [url: string, source: string, js: string][];
}

/**
 * The script each environment starts with (CommonJS, run with `eval`, so that it needs no stripping
 * itself): registers the load hook, then imports the environment's runtime (`workerData.entry`), whose
 * own modules are TypeScript too when running from this repository's sources. The hook also notes every
 * file it loads outside node_modules (under {@link LOADED_FILES_KEY}), so the runtime can say which files the
 * function is made of (what `dev --watch` watches). The hook blocks its
 * thread until the reply arrives, as a synchronous load hook must; the parent answers from its event
 * loop, and a parent that never answers is an init timeout like any other.
 */
export const ENVIRONMENT_BOOTSTRAP = `'use strict';
const { registerHooks } = require('node:module');
const { receiveMessageOnPort, workerData } = require('node:worker_threads');
const { port, signal, known } = workerData.typeScript;
const stripped = new Map(known.map(([url, source, js]) => [url, { source, js }]));
const decoder = new TextDecoder();
const loadedFiles = (globalThis[Symbol.for(${JSON.stringify(LOADED_FILES_KEY)})] = []);
registerHooks({
  load(url, context, nextLoad) {
    const loaded = nextLoad(url, context);
    if (url.startsWith('file:') && !url.includes('/node_modules/')) loadedFiles.push(url);
    if (loaded.format !== 'module-typescript' || url.includes('/node_modules/')) return loaded;
    const source = typeof loaded.source === 'string' ? loaded.source : decoder.decode(loaded.source);
    const same = stripped.get(url);
    if (same !== undefined && same.source === source) return { format: 'module', source: same.js, shortCircuit: true };
    Atomics.store(signal, 0, 0);
    port.postMessage({ url, source });
    Atomics.wait(signal, 0, 0);
    const js = receiveMessageOnPort(port)?.message.js;
    return typeof js === 'string' ? { format: 'module', source: js, shortCircuit: true } : loaded;
  },
});
import(workerData.entry);
`;

/** The last source seen for each module URL and what stripping it gave (`null`: left to the environment). */
const stripped = new Map<string, { source: string; js: string | null }>();
let experimentalWarningSpent = false;

/**
 * Node.js 24 flags `stripTypeScriptTypes` as experimental with a warning on its first call in a
 * process. The sandbox, not its user, chose to call it: that one warning is not printed.
 */
function stripTypes(source: string): string {
  if (experimentalWarningSpent) return stripTypeScriptTypes(source, { mode: 'strip' });
  experimentalWarningSpent = true;
  const emitWarning = process.emitWarning;
  process.emitWarning = () => {};
  try {
    return stripTypeScriptTypes(source, { mode: 'strip' });
  } finally {
    process.emitWarning = emitWarning;
  }
}

function strip({ url, source }: TypeScriptRequest): string | null {
  const known = stripped.get(url);
  if (known?.source === source) return known.js;
  let js: string | null;
  try {
    js = stripTypes(source);
  } catch {
    // The environment's own Node.js strips it again and reports its own error, as without the hook.
    js = null;
  }
  stripped.set(url, { source, js });
  return js;
}

/**
 * Opens the channel of one environment: `channel` goes to the environment (in its `workerData`, its
 * port transferred), `close` ends this side when the environment ends. The channel never keeps this
 * process alive.
 *
 * @example
 * ```ts
 * const { channel, close } = openTypeScriptChannel();
 * const worker = new Worker(ENVIRONMENT_BOOTSTRAP, { eval: true, workerData: { entry, typeScript: channel }, transferList: [channel.port] });
 * worker.on('exit', close);
 * ```
 */
export function openTypeScriptChannel(): { channel: TypeScriptChannel; close: () => void } {
  const { port1, port2 } = new MessageChannel();
  const signal = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
  port1.on('message', (request: TypeScriptRequest) => {
    const reply: TypeScriptReply = { js: strip(request) };
    port1.postMessage(reply);
    Atomics.store(signal, 0, 1);
    Atomics.notify(signal, 0);
  });
  port1.unref();
  const known: TypeScriptChannel['known'] = [];
  for (const [url, { source, js }] of stripped) if (js !== null) known.push([url, source, js]);
  return { channel: { port: port2, signal, known }, close: () => port1.close() };
}
