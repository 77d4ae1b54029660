import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { checkHandlerModule } from './check-module.ts';
import { HandlerInitError, HandlerNotFoundError } from './load-handler.ts';
import type { SandboxEvent } from './sandbox.ts';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kafka-lambda-check-module-'));
  const modules: Record<string, string> = {
    // Each in-process case loads its own file: Node keeps a module once imported.
    'loads.mjs': "console.log('init of loads');\nexport async function handler() { return {}; }\n",
    'loads-here.mjs': 'export async function handler() { return {}; }\n',
    'throws.mjs': "throw new Error('ORDERS_TABLE is not set');\n",
    'throws-here.mjs': "throw new Error('ORDERS_TABLE is not set');\n",
    // A CommonJS require of a missing module is Runtime.ImportModuleError (see load-handler.ts).
    'imports-missing.cjs': "require('./gone.cjs');\nexports.handler = async () => ({});\n",
    'imports-missing-here.cjs': "require('./gone.cjs');\nexports.handler = async () => ({});\n",
    'hangs.mjs': 'await new Promise(() => {});\nexport async function handler() { return {}; }\n',
    'hangs-here.mjs': 'await new Promise(() => {});\nexport async function handler() { return {}; }\n',
    'callback.mjs': 'export function handler(event, context, callback) { callback(null, {}); }\n',
    'callback-here.mjs': 'export function handler(event, context, callback) { callback(null, {}); }\n',
  };
  for (const [name, text] of Object.entries(modules)) await writeFile(join(dir, name), text);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The module name for a mode: `<stem>.mjs` in the sandbox, `<stem>-here.mjs` in this process. */
const file = (stem: string, inProcess: boolean, extension = 'mjs') =>
  `${stem}${inProcess ? '-here' : ''}.${extension}`;

describe.each([false, true])('checkHandlerModule (inProcess: %s)', (inProcess) => {
  const check = (handler: string, initTimeoutSeconds?: number) =>
    checkHandlerModule({
      handler,
      cwd: dir,
      inProcess,
      timeoutSeconds: 3,
      ...(initTimeoutSeconds === undefined ? {} : { initTimeoutSeconds }),
    });

  it('is undefined for a module that loads and exports the function', async () => {
    expect(await check(file('loads', inProcess))).toBeUndefined();
  });

  it.each([
    ['nowhere.mjs', 'Runtime.ImportModuleError', /^Cannot find module nowhere\.mjs/],
    ['nowhere.mjs#handler', 'Runtime.ImportModuleError', /^Cannot find module nowhere\.mjs$/],
    ['#handler', 'Runtime.MalformedHandlerName', /^Bad handler #handler/],
  ])(
    'a reference to no module file (%s) is a HandlerNotFoundError (%s), said without loading',
    async (handler, type, message) => {
      const failure = await check(handler);
      expect(failure).toBeInstanceOf(HandlerNotFoundError);
      expect(failure).toMatchObject({ lambdaErrorType: type });
      expect(failure?.message).toMatch(message);
    },
  );

  it('a module without the export is a HandlerNotFoundError (Runtime.HandlerNotFound)', async () => {
    const handler = `${file('loads', inProcess)}#nope`;
    const failure = await check(handler);
    expect(failure).toBeInstanceOf(HandlerNotFoundError);
    expect(failure).toMatchObject({ lambdaErrorType: 'Runtime.HandlerNotFound' });
    expect(failure?.message).toBe(`${handler} is undefined or not exported`);
  });

  it.each([
    ['throws', 'mjs', 'Error', 'ORDERS_TABLE is not set'],
    // The module file exists: a module it requires that does not is its init failing, not the reference.
    ['imports-missing', 'cjs', 'Runtime.ImportModuleError', 'gone.cjs'],
    ['callback', 'mjs', 'Runtime.CallbackHandlerDeprecated', 'callback'],
  ])(
    'a module failing in its init phase (%s.%s) is a HandlerInitError (%s)',
    async (stem, extension, type, text) => {
      const failure = await check(file(stem, inProcess, extension));
      expect(failure).toBeInstanceOf(HandlerInitError);
      expect((failure as HandlerInitError).response.errorType).toBe(type);
      expect((failure as HandlerInitError).response.errorMessage).toContain(text);
    },
  );

  it('an init phase past its limit is a HandlerInitError (Sandbox.Timedout), found at the limit', async () => {
    const started = Date.now();
    const failure = await check(file('hangs', inProcess), 1);
    expect(failure).toBeInstanceOf(HandlerInitError);
    expect((failure as HandlerInitError).response).toEqual({
      errorType: 'Sandbox.Timedout',
      errorMessage: 'the init phase outlived its 1 s limit',
      trace: [],
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe('checkHandlerModule in the sandbox', () => {
  it("discards the module's output, tells onEvent of its init (with the files it loaded) and ends its environment", async () => {
    const events: SandboxEvent[] = [];
    const writes = vi.spyOn(process.stdout, 'write');
    try {
      const failure = await checkHandlerModule({
        handler: 'loads.mjs',
        cwd: dir,
        timeoutSeconds: 3,
        onEvent: (event) => events.push(event),
      });
      expect(failure).toBeUndefined();
      expect(writes.mock.calls.map(([text]) => String(text))).not.toContainEqual(
        expect.stringContaining('init of loads'),
      );
    } finally {
      writes.mockRestore();
    }
    expect(events).toEqual([
      expect.objectContaining({ type: 'init', status: 'success', files: [join(dir, 'loads.mjs')] }),
      expect.objectContaining({ type: 'shutdown', reason: 'close' }),
    ]);
  });
});
