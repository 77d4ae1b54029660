import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { jsonEvent } from './batch.ts';
import { createInvoker } from './invoke.ts';

const fixtures = 'test/support/handlers/sandbox-handlers.ts';

async function invokeTwice(inProcess: boolean) {
  const invoker = createInvoker({ handler: `${fixtures}#counts`, inProcess, timeoutSeconds: 30 });
  try {
    return [await invoker.invoke(jsonEvent('{}'), 'a'), await invoker.invoke(jsonEvent('{}'), 'b')];
  } finally {
    await invoker.close();
  }
}

describe('createInvoker with a module reference', { timeout: 60_000 }, () => {
  it('runs it in a sandbox environment by default, kept warm between invocations', async () => {
    const results = await invokeTwice(false);
    expect(results).toEqual([
      { kind: 'response', payload: { invocations: 1, threadId: expect.any(Number) } },
      { kind: 'response', payload: { invocations: 2, threadId: expect.any(Number) } },
    ]);
    const threads = results.map((r) => (r as { payload: { threadId: number } }).payload.threadId);
    expect(threads[0]).toBe(threads[1]);
    expect(threads[0]).not.toBe(threadId);
  });

  it('loads it once in this thread with inProcess: true', async () => {
    const [first, second] = (await invokeTwice(true)).map(
      (r) => (r as { payload: { invocations: number; threadId: number } }).payload,
    );
    expect(first!.threadId).toBe(threadId);
    expect(second).toEqual({ invocations: first!.invocations + 1, threadId });
  });

  it.each([false, true])(
    'gives the function its memoryLimitInMB in the context, and in the sandbox its environment (inProcess: %s)',
    async (inProcess) => {
      const invoker = createInvoker({ handler: `${fixtures}#memory`, inProcess, memoryLimitInMB: 2048 });
      try {
        const result = await invoker.invoke(jsonEvent('{}'), 'a');
        expect(result).toMatchObject({ kind: 'response', payload: { context: '2048' } });
        if (!inProcess) expect(result).toMatchObject({ payload: { environment: '2048' } });
      } finally {
        await invoker.close();
      }
    },
  );

  it.each([127, 10_241, 512.5])('refuses memoryLimitInMB %s, as Lambda would', (memoryLimitInMB) => {
    expect(() => createInvoker({ handler: `${fixtures}#memory`, memoryLimitInMB })).toThrow(
      /memoryLimitInMB.*128 to 10240/,
    );
  });

  it.each([false, true])(
    'reports a module that cannot load as Lambda does (inProcess: %s)',
    async (inProcess) => {
      const invoker = createInvoker({ handler: `${fixtures}#nope`, inProcess });
      try {
        expect(await invoker.invoke(jsonEvent('{}'), 'a')).toEqual({
          kind: 'function-error',
          errorType: 'Runtime.HandlerNotFound',
          errorMessage: 'test/support/handlers/sandbox-handlers.ts#nope is undefined or not exported',
        });
      } finally {
        await invoker.close();
      }
    },
  );

  it('describes a thrown null-prototype object in this process as the Lambda runtime does', async () => {
    const invoker = createInvoker({ handler: `${fixtures}#throwsNullPrototype`, inProcess: true });
    expect(await invoker.invoke(jsonEvent('{}'), 'a')).toMatchObject({
      kind: 'function-error',
      errorType: 'handled',
    });
    await invoker.close();
  });
});

describe('createInvoker with an in-process function', () => {
  it('does not accept an answer that came after the deadline, even before the timer could fire', async () => {
    // The handler blocks the event loop past its 1 s timeout and then answers: the timer's callback is
    // still queued behind it. Lambda would have ended the invocation, so the answer must not count
    // (committing it would lose the batch's records).
    const handler = async () => {
      const until = Date.now() + 1_200;
      while (Date.now() < until) {
        // blocking, as a CPU-bound handler or a stalled event loop does
      }
      return { batchItemFailures: [] };
    };
    const invoker = createInvoker({ handler, inProcess: true, timeoutSeconds: 1 });
    try {
      expect(await invoker.invoke(jsonEvent('{}'), 'a')).toEqual({
        kind: 'function-error',
        errorType: 'Sandbox.Timedout',
        errorMessage: 'Task timed out after 1.00 seconds',
      });
    } finally {
      await invoker.close();
    }
  });
});

describe('Invoker.update (updateFunctionCode)', () => {
  it('reloads only what this process can load again: a module reference run in the sandbox', async () => {
    const sandboxed = createInvoker({ handler: `${fixtures}#counts` });
    const imported = createInvoker({ handler: `${fixtures}#counts`, inProcess: true });
    const handlerFunction = createInvoker({ handler: async () => ({ batchItemFailures: [] }) });
    const deployed = createInvoker({ functionName: 'orders', endpoint: 'http://127.0.0.1:9' });
    try {
      expect([sandboxed, imported, handlerFunction, deployed].map((invoker) => invoker.update())).toEqual([
        true,
        false,
        false,
        false,
      ]);
    } finally {
      await Promise.all([sandboxed, imported, handlerFunction, deployed].map((invoker) => invoker.close()));
    }
  });
});

describe('a response above Lambda’s 6 MB limit', { timeout: 60_000 }, () => {
  const refused = {
    kind: 'function-error',
    errorType: 'Function.ResponseSizeTooLarge',
    errorMessage: 'Response payload size exceeded maximum allowed payload size (6291556 bytes).',
  };
  // 6,291,556 bytes of response JSON pass; one more byte is a function error (the batch is retried).
  const answer = (bytes: number) => ({ batchItemFailures: [], debug: 'x'.repeat(bytes - 35) });

  it('is a function error in this process, and one byte less is a response', async () => {
    expect(JSON.stringify(answer(6_291_556))).toHaveLength(6_291_556);
    for (const [bytes, expected] of [
      [6_291_556, { kind: 'response', payload: answer(6_291_556) }],
      [6_291_557, refused],
    ] as const) {
      const invoker = createInvoker({ handler: async () => answer(bytes), inProcess: true });
      try {
        expect(await invoker.invoke(jsonEvent('{}'), 'a')).toEqual(expected);
      } finally {
        await invoker.close();
      }
    }
  });

  it('is a function error from the sandbox too', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kafka-lambda-large-response-'));
    const handler = join(dir, 'large.mjs');
    await writeFile(
      handler,
      "export const handler = async () => ({ batchItemFailures: [], debug: 'x'.repeat(7e6) });\n",
    );
    const invoker = createInvoker({ handler });
    try {
      expect(await invoker.invoke(jsonEvent('{}'), 'a')).toEqual(refused);
    } finally {
      await invoker.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
