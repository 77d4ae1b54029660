import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonEvent } from './batch.ts';
import { createInvoker } from './invoke.ts';

// The trace of a function error reaches the emulator from both local invokers: dev shows its frames.
describe('a local function that throws', { timeout: 60_000 }, () => {
  let dir: string;
  let handler: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kafka-lambda-trace-'));
    handler = join(dir, 'throws.ts');
    await writeFile(
      handler,
      "export const handler = async () => {\n  throw new RangeError('amount out of range');\n};\nexport const throwsString = async () => {\n  throw 'not an Error';\n};\n",
    );
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it.each([false, true])(
    "gives the runtime's trace, its first frame in the handler's file (inProcess: %s)",
    async (inProcess) => {
      const invoker = createInvoker({ handler, inProcess });
      try {
        const result = await invoker.invoke(jsonEvent('{}'), 'a');
        expect(result).toMatchObject({
          kind: 'function-error',
          errorType: 'RangeError',
          errorMessage: 'amount out of range',
        });
        const trace = (result as { trace?: string[] }).trace;
        expect(trace?.[0]).toBe('RangeError: amount out of range');
        // A file URL from Node's loader, a path from vitest's (which loads modules in this process).
        const file = [pathToFileURL(handler).href, handler].map((f) => `    at handler (${f}:2:9)`);
        expect(file).toContain(trace?.[1]);
      } finally {
        await invoker.close();
      }
    },
  );

  it.each([false, true])(
    'gives no trace where the runtime has none: a thrown string (inProcess: %s)',
    async (inProcess) => {
      const invoker = createInvoker({ handler: `${handler}#throwsString`, inProcess });
      try {
        expect(await invoker.invoke(jsonEvent('{}'), 'a')).toEqual({
          kind: 'function-error',
          errorType: 'string',
          errorMessage: 'not an Error',
        });
      } finally {
        await invoker.close();
      }
    },
  );
});
