// Handlers for the sandbox's loading tests: what an environment's init left behind, and on which thread
// an invocation ran.
import { appendFileSync } from 'node:fs';
import { threadId } from 'node:worker_threads';

// The init phase seen from outside: each load of this module adds a line to INIT_MARKER's file.
if (process.env.INIT_MARKER) appendFileSync(process.env.INIT_MARKER, 'init\n');

/** Whether this thread set up Node's own TypeScript parser (amaro) to load its modules. */
export async function typeScriptParserLoaded(): Promise<boolean> {
  // process.moduleLoadList (undocumented, per thread) names every internal module the thread loaded.
  const { moduleLoadList } = process as unknown as { moduleLoadList: string[] };
  return moduleLoadList.some((name) => name.includes('amaro'));
}

/** Exits on an event with `"exit": true`; otherwise answers with the id of the thread it runs on. */
export async function threadOrExit(event: { exit?: boolean }): Promise<number> {
  if (event.exit) process.exit(1);
  return threadId;
}
