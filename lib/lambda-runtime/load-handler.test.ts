import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  HandlerInitError,
  HandlerNotFoundError,
  loadHandler,
  resolveHandlerReference,
} from './load-handler.ts';

// Each rule follows Lambda's Node.js 24 runtime (aws-lambda-nodejs-runtime-interface-client:
// src/utils/handler-path.ts, src/function/module-loader.ts, handler-resolver.ts, callback-deprecation.ts).
describe('loadHandler', () => {
  let dir: string;
  const modules: Record<string, string> = {
    'app.mjs':
      'export const handler = async () => "app.mjs"; export const api = { v1: { orders: async () => "nested" } };',
    'lib/v1.2/index.js': 'exports.handler = async () => "dotted folder";',
    'plain.cjs': 'exports.handler = async () => "plain.cjs";',
    // Node cannot list these exports statically: only `default` holds them.
    'dynamic.cjs':
      'const api = { handler: async () => "default fallback" }; module.exports = Object.assign({}, api);',
    'typed.ts': 'export const handler = async (): Promise<string> => "typed.ts";',
    'odd#name/h.mjs': 'export const handler = async () => "hash in a folder name";',
    'values.mjs': 'export const zero = 0; export const text = "x";',
    'callback.mjs': 'export const handler = (event, context, callback) => callback(null, 1);',
    'throws.mjs': 'throw new RangeError("no config"); export const handler = async () => 1;',
    'needs-package.mjs': 'import "no-such-package-anywhere"; export const handler = async () => 1;',
    'requires-package.cjs': 'require("no-such-package-anywhere"); exports.handler = async () => 1;',
  };
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'load-handler-'));
    for (const [path, source] of Object.entries(modules)) {
      await mkdir(join(dir, path, '..'), { recursive: true });
      await writeFile(join(dir, path), source);
    }
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));
  const call = async (reference: string) => (await loadHandler(reference, dir))({}, {} as never);

  it.each([
    ['app.mjs', 'app.mjs'],
    ['app.mjs#handler', 'app.mjs'],
    ['app.mjs#api.v1.orders', 'nested'],
    ['app.handler', 'app.mjs'],
    ['app.api.v1.orders', 'nested'],
    ['lib/v1.2/index.handler', 'dotted folder'],
    ['plain.handler', 'plain.cjs'],
    ['dynamic.cjs', 'default fallback'],
    ['dynamic.handler', 'default fallback'],
    ['typed.ts', 'typed.ts'],
    ['typed.handler', 'typed.ts'],
  ])('loads %s, as a file#export or as Lambda’s Handler setting', async (reference, answer) => {
    expect(await call(reference)).toBe(answer);
  });

  it.each([
    ['missing.ts', 'Runtime.ImportModuleError', /^Cannot find module missing\.ts/],
    ['missing.handler', 'Runtime.ImportModuleError', /^Cannot find module missing\.handler/],
    ['missing.mjs#handler', 'Runtime.ImportModuleError', /^Cannot find module missing\.mjs$/],
    ['app.mjs#', 'Runtime.MalformedHandlerName', /^Bad handler app\.mjs#/],
    ['#handler', 'Runtime.MalformedHandlerName', /^Bad handler #handler/],
    ['app.mjs#api..orders', 'Runtime.MalformedHandlerName', /^Bad handler/],
    ['app.mjs#nope', 'Runtime.HandlerNotFound', /^app\.mjs#nope is undefined or not exported$/],
    ['values.mjs#zero', 'Runtime.HandlerNotFound', /^values\.mjs#zero is undefined or not exported$/],
    ['values.mjs#text', 'Runtime.HandlerNotFound', /^values\.mjs#text is not a function$/],
    ['app.mjs#api', 'Runtime.HandlerNotFound', /^app\.mjs#api is not a function$/],
    // A module named alone is looked up for its `handler` export: the message names that export, as Lambda's does.
    ['values.mjs', 'Runtime.HandlerNotFound', /^values\.mjs#handler is undefined or not exported$/],
    ['values.handler', 'Runtime.HandlerNotFound', /^values\.handler is undefined or not exported$/],
  ])('refuses %s as a wrong reference (%s)', async (reference, lambdaErrorType, message) => {
    const error = await loadHandler(reference, dir).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(HandlerNotFoundError);
    expect(error).toMatchObject({ lambdaErrorType });
    expect((error as Error).message).toMatch(message);
  });

  // A syntax error (Runtime.UserCodeSyntaxError) is checked through the sandbox (sandbox.test.ts): here
  // vitest's own module loader reports it before Node's does.
  it.each([
    ['throws.mjs', 'RangeError', /^no config$/],
    [
      'requires-package.cjs',
      'Runtime.ImportModuleError',
      /^Error: Cannot find module 'no-such-package-anywhere'/,
    ],
    // An ES module's missing import is not MODULE_NOT_FOUND: the runtime reports Node's error as thrown.
    ['needs-package.mjs', 'Error', /^Cannot find package 'no-such-package-anywhere'/],
    [
      'callback.mjs',
      'Runtime.CallbackHandlerDeprecated',
      /Node\.js 24 runtime no longer runs callback-based handlers/,
    ],
  ])('reports %s failing in its init phase as Lambda does (%s)', async (reference, errorType, message) => {
    const error = await loadHandler(reference, dir).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(HandlerInitError);
    const { response } = error as HandlerInitError;
    expect(response.errorType).toBe(errorType);
    expect(response.errorMessage).toMatch(message);
  });

  it('keeps the stack of a module that throws while loading', async () => {
    const error = (await loadHandler('throws.mjs', dir).catch(
      (caught: unknown) => caught,
    )) as HandlerInitError;
    expect(error.response.trace[0]).toBe('RangeError: no config');
    expect(error.response.trace.some((line) => line.includes('throws.mjs'))).toBe(true);
  });

  it('resolves a reference without loading it, a file whose path holds a # included', () => {
    const odd = join(dir, 'odd#name/h.mjs');
    expect(resolveHandlerReference('odd#name/h.mjs', dir)).toEqual({ file: odd, exportPath: 'handler' });
    expect(resolveHandlerReference('odd#name/h.mjs#api', dir)).toEqual({ file: odd, exportPath: 'api' });
    expect(resolveHandlerReference('app.api.v1.orders', dir)).toEqual({
      file: join(dir, 'app.mjs'),
      exportPath: 'api.v1.orders',
    });
    expect(resolveHandlerReference(join(dir, 'typed.ts'))).toEqual({
      file: join(dir, 'typed.ts'),
      exportPath: 'handler',
    });
  });
});
