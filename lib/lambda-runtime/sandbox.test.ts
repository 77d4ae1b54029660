import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describedOrders } from '../../test/support/described.ts';
import { encodeEventRecord } from '../kafka-event/encode.ts';
import { PackedEventWriter } from '../kafka-event/packed-event.ts';
import { createSandbox, type SandboxEvent, type SandboxOptions } from './sandbox.ts';

const byEnvironment = (a: SandboxEvent, b: SandboxEvent) => a.environment - b.environment;

const fixtures = 'test/support/handlers/sandbox-handlers.ts';
const loading = 'test/support/handlers/sandbox-loading.ts';

/** Invokes a fresh sandbox with each event in turn (as JSON text), then closes it. */
async function run(options: Partial<SandboxOptions> & { handler: string }, ...events: unknown[]) {
  const output: string[] = [];
  const lifecycle: SandboxEvent[] = [];
  const sandbox = createSandbox({
    timeoutSeconds: 5,
    onOutput: (text, stream) => output.push(`${stream}: ${text}`),
    onEvent: (event) => lifecycle.push(event),
    ...options,
  });
  const invocations = [];
  try {
    for (const [i, event] of events.entries()) {
      const invocation = await sandbox.invoke(JSON.stringify(event), `request-${i}`);
      invocations.push({ ...invocation, outputSoFar: [...output] });
    }
  } finally {
    await sandbox.close();
  }
  return { invocations, output, lifecycle };
}

const response = (json: string) => ({ kind: 'response', json });

describe('createSandbox', { timeout: 60_000 }, () => {
  it('runs its environments in a process started with flags a worker refuses (--expose-gc, --stack-trace-limit)', async () => {
    const script = `
      const { createSandbox } = await import(${JSON.stringify(new URL('./sandbox.ts', import.meta.url).href)});
      const sandbox = createSandbox({ handler: ${JSON.stringify(`${fixtures}#counts`)}, timeoutSeconds: 5 });
      const invocation = await sandbox.invoke('{}', 'request-0');
      await sandbox.close();
      console.log(JSON.stringify({ gc: typeof globalThis.gc, result: invocation.result.kind }));
    `;
    const { execFile } = await import('node:child_process');
    const stdout = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        ['--expose-gc', '--stack-trace-limit=20', '--input-type=module', '-e', script],
        { cwd: process.cwd() },
        (error, out, err) => (error ? reject(new Error(`${error.message}\n${err}`)) : resolve(out)),
      ),
    );
    expect(JSON.parse(stdout.trim().split('\n').at(-1)!)).toEqual({ gc: 'function', result: 'response' });
  });

  it('reuses a warm environment: module state survives, only the first invocation is a cold start', async () => {
    const { invocations, lifecycle } = await run({ handler: `${fixtures}#counts` }, {}, {}, {});
    const threads = invocations.map((i) => JSON.parse((i.result as { json: string }).json));
    expect(threads.map((t) => t.invocations)).toEqual([1, 2, 3]);
    expect(new Set(threads.map((t) => t.threadId)).size).toBe(1);
    expect(invocations.map((i) => i.coldStart)).toEqual([true, false, false]);
    expect(invocations[0]!.initDurationMs).toBeGreaterThan(0);
    expect(invocations[1]!.initDurationMs).toBeUndefined();
    expect(lifecycle).toEqual([
      {
        type: 'init',
        environment: 1,
        durationMs: expect.any(Number),
        phase: 'init',
        status: 'success',
        files: [expect.stringMatching(/test\/support\/handlers\/sandbox-handlers\.ts$/)],
      },
      { type: 'shutdown', environment: 1, reason: 'close' },
    ]);
  });

  it('terminates a handler stuck past its timeout (Sandbox.Timedout); the next invocation starts cold', async () => {
    const { invocations, lifecycle } = await run(
      { handler: `${fixtures}#spins`, timeoutSeconds: 1 },
      {},
      { spin: true },
      {},
    );
    expect(invocations.map((i) => i.result)).toEqual([
      response(expect.stringContaining('"invocations":1')),
      {
        kind: 'function-error',
        errorType: 'Sandbox.Timedout',
        errorMessage: 'Task timed out after 1.00 seconds',
        trace: [],
      },
      // A fresh environment: the module state is new.
      response(expect.stringContaining('"invocations":1')),
    ]);
    expect(invocations.map((i) => i.coldStart)).toEqual([true, false, true]);
    expect(lifecycle).toContainEqual({ type: 'shutdown', environment: 1, reason: 'Sandbox.Timedout' });
  });

  it('reports process.exit as Runtime.ExitError, after what the function printed, and starts afresh', async () => {
    const { invocations } = await run({ handler: `${fixtures}#printsThenExits` }, {}, {});
    expect(invocations[0]!.result).toEqual({
      kind: 'function-error',
      errorType: 'Runtime.ExitError',
      errorMessage: 'RequestId: request-0 Error: Runtime exited with error: exit status 3',
      trace: [],
    });
    expect(invocations[0]!.outputSoFar).toEqual(['stdout: about to exit\n']);
    expect(invocations[1]!.coldStart).toBe(true);
  });

  it('delivers everything the function prints, in order, before its response', async () => {
    const { invocations } = await run({ handler: `${fixtures}#printsToStdout` }, {});
    expect(invocations[0]!.result).toEqual(response('{"batchItemFailures":[]}'));
    expect(invocations[0]!.outputSoFar).toEqual([
      'stdout: log line\n',
      'stdout: direct stdout write\n',
      'stderr: error line\n',
    ]);
  });

  it.each([
    [
      'throwsNullPrototype',
      {
        errorType: 'handled',
        errorMessage:
          'callback called with Error argument, but there was a problem while retrieving one or more of its message, name, and stack',
      },
    ],
    ['throwsString', { errorType: 'string', errorMessage: 'order o-9 rejected' }],
    [
      'rejectsNullPrototypeUnhandled',
      {
        errorType: 'Runtime.UnhandledPromiseRejection',
        errorMessage: expect.stringContaining('callback called'),
      },
    ],
    ['throwsAsynchronously', { errorType: 'RangeError', errorMessage: 'thrown from a timer' }],
    ['circular', { errorType: 'Runtime.MarshalError', errorMessage: expect.stringContaining('circular') }],
  ])('reports %s as Lambda does', async (name, expected) => {
    const { invocations } = await run({ handler: `${fixtures}#${name}` }, {});
    expect(invocations[0]!.result).toMatchObject({ kind: 'function-error', ...expected });
  });

  it('ends the environment after an exception or rejection nobody handled', async () => {
    const { invocations, lifecycle } = await run({ handler: `${fixtures}#throwsAsynchronously` }, {}, {});
    expect(invocations.map((i) => i.coldStart)).toEqual([true, true]);
    expect(lifecycle).toContainEqual({ type: 'shutdown', environment: 1, reason: 'RangeError' });
  });

  it('bounds the init phase, retries it within the invocation, then times out (a never-settling top-level await)', async () => {
    const { invocations, lifecycle } = await run(
      { handler: 'test/support/handlers/init-never-settles.ts', timeoutSeconds: 1, initTimeoutSeconds: 1 },
      {},
    );
    expect(invocations[0]!.result).toMatchObject({
      kind: 'function-error',
      errorType: 'Sandbox.Timedout',
      errorMessage: 'Task timed out after 1.00 seconds',
    });
    expect(lifecycle.filter((e) => e.type === 'init')).toEqual([
      { type: 'init', environment: 1, durationMs: expect.any(Number), phase: 'init', status: 'timeout' },
      { type: 'init', environment: 2, durationMs: expect.any(Number), phase: 'invoke', status: 'timeout' },
    ]);
    expect(invocations[0]!.initDurationMs).toBeGreaterThanOrEqual(2_000);
  });

  it.each([
    // What the module throws is reported as thrown, as Lambda's runtime reports it.
    ['test/support/handlers/init-throws.ts', 'Error', /^ORDERS_TABLE is not set$/],
    [
      'test/support/handlers/missing.ts',
      'Runtime.ImportModuleError',
      /Cannot find module test\/support\/handlers\/missing\.ts/,
    ],
    [
      `${fixtures}#nope`,
      'Runtime.HandlerNotFound',
      /sandbox-handlers\.ts#nope is undefined or not exported$/,
    ],
  ])('fails the invocation when %s cannot load (%s)', async (handler, errorType, message) => {
    const sandbox = createSandbox({ handler, timeoutSeconds: 5 });
    try {
      expect(await sandbox.prewarm()).toMatchObject({
        errorType,
        errorMessage: expect.stringMatching(message),
      });
      const { result } = await sandbox.invoke('{}', 'request-0');
      expect(result).toMatchObject({ kind: 'function-error', errorType });
    } finally {
      await sandbox.close();
    }
  });

  it("gives the function its context and the environment variables Lambda's runtime sets", async () => {
    const REFERENCE = 'test/support/handlers/handlers.ts#describe';
    const { invocations } = await run(
      {
        handler: REFERENCE,
        functionName: 'orders',
        memoryLimitInMB: 512,
        timeoutSeconds: 2,
        region: 'eu-west-1',
      },
      { eventSource: 'aws:kafka' },
    );
    const seen = JSON.parse((invocations[0]!.result as { json: string }).json);
    expect(seen).toEqual(describedOrders(REFERENCE, 'aws:kafka', seen, expect.any(Number)));
    expect(seen.remainingMs).toBeLessThanOrEqual(2_000);
  });

  it("hands a packed Kafka batch to the handler as the event its JSON gives, the batch's buffers moved, not copied", async () => {
    const writer = new PackedEventWriter(
      { eventSource: 'aws:kafka', bootstrapServers: 'b-1:9092' },
      'orders',
    );
    writer.part(3, 2);
    writer.record(7, 1764400000000, false, Buffer.from('c-7'), Buffer.from('{"id":7}'), [
      ['trace', Buffer.from([0x61, 0xff])],
    ]);
    writer.record(8, 1764400000001, true, null, null, [['empty', null]]);
    const packed = writer.finish();
    const sandbox = createSandbox({ handler: `${fixtures}#echo`, timeoutSeconds: 5 });
    try {
      const { result } = await sandbox.invoke(packed, 'request-0');
      const records = [
        encodeEventRecord({
          topic: 'orders',
          partition: 3,
          offset: 7,
          timestamp: 1764400000000,
          key: 'c-7',
          value: '{"id":7}',
          headers: [['trace', Buffer.from([0x61, 0xff])]],
        }),
        {
          ...encodeEventRecord({
            topic: 'orders',
            partition: 3,
            offset: 8,
            timestamp: 1764400000001,
            timestampType: 'LOG_APPEND_TIME',
            key: null,
            value: null,
          }),
          headers: [{ empty: [] }],
        },
      ];
      expect(result).toEqual(
        response(
          JSON.stringify({
            eventSource: 'aws:kafka',
            bootstrapServers: 'b-1:9092',
            records: { 'orders-3': records },
          }),
        ),
      );
      // Transferred to the environment's thread: nothing left here.
      expect([packed.bytes.byteLength, packed.numbers.length, packed.ints.length]).toEqual([0, 0, 0]);
    } finally {
      await sandbox.close();
    }
  });

  it('runs concurrent invocations in separate environments', async () => {
    const sandbox = createSandbox({ handler: `${fixtures}#counts`, timeoutSeconds: 5 });
    try {
      const results = await Promise.all([sandbox.invoke('{}', 'a'), sandbox.invoke('{}', 'b')]);
      const seen = results.map((r) => JSON.parse((r.result as { json: string }).json));
      expect(seen.map((s) => s.invocations)).toEqual([1, 1]);
      expect(seen[0].threadId).not.toBe(seen[1].threadId);
    } finally {
      await sandbox.close();
    }
  });
});

describe('createSandbox: loading and booting', { timeout: 60_000 }, () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kafka-lambda-sandbox-loading-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  /** Thread ids grow with every thread this process starts: a thread started now gets the highest yet. */
  async function newestThreadId(): Promise<number> {
    const worker = new Worker('', { eval: true });
    const id = worker.threadId;
    await worker.terminate();
    return id;
  }

  it("loads TypeScript stripped once by this process: no environment sets up Node's own parser", async () => {
    const sandbox = createSandbox({ handler: `${loading}#typeScriptParserLoaded`, timeoutSeconds: 5 });
    try {
      // Two environments at once: the second one's modules come from what the first one's loading stripped.
      const results = await Promise.all([sandbox.invoke('{}', 'a'), sandbox.invoke('{}', 'b')]);
      expect(results.map((r) => [r.coldStart, r.result])).toEqual([
        [true, response('false')],
        [true, response('false')],
      ]);
    } finally {
      await sandbox.close();
    }
  });

  it('a cold start loads the current source of a module edited since the last one', async () => {
    const handler = join(dir, 'edited.ts');
    const answers: unknown[] = [];
    for (const version of [1, 2]) {
      await writeFile(handler, `export const handler = async (): Promise<number> => ${version};\n`);
      const { invocations } = await run({ handler }, {});
      answers.push(invocations[0]!.result);
    }
    expect(answers).toEqual([response('1'), response('2')]);
  });

  it('update(), as after UpdateFunctionCode: the next invocation loads the files as they are now, one running finishes on the old code', async () => {
    const handler = join(dir, 'updated.ts');
    const answer = join(dir, 'answer.ts');
    await writeFile(answer, 'export const answer = 1;\n');
    await writeFile(
      handler,
      "import { answer } from './answer.ts';\nexport const handler = async (event: { waitMs?: number }) => {\n  await new Promise((resolve) => setTimeout(resolve, event.waitMs ?? 0));\n  return answer;\n};\n",
    );
    const lifecycle: SandboxEvent[] = [];
    const sandbox = createSandbox({ handler, timeoutSeconds: 5, onEvent: (event) => lifecycle.push(event) });
    try {
      expect((await sandbox.invoke('{}', 'a')).result).toEqual(response('1'));
      const running = sandbox.invoke('{"waitMs":300}', 'b'); // in the warm environment, on the old code
      await writeFile(answer, 'export const answer = 2;\n');
      sandbox.update();
      expect(await running).toMatchObject({ coldStart: false, result: response('1') });
      expect(await sandbox.invoke('{}', 'c')).toMatchObject({ coldStart: true, result: response('2') });
      sandbox.update(); // an idle environment ends at once
      expect(lifecycle.filter((event) => event.type === 'shutdown')).toEqual([
        { type: 'shutdown', environment: 1, reason: 'update' },
        { type: 'shutdown', environment: 2, reason: 'update' },
      ]);
    } finally {
      await sandbox.close();
    }
    // The function's own files, in the order they loaded: what `dev --watch` watches.
    expect(lifecycle.find((event) => event.type === 'init')).toMatchObject({ files: [handler, answer] });
  });

  it.each([
    // What type stripping refuses is left to Node.js in the environment, which reports it as usual.
    [
      'enum.ts',
      'enum Outcome { Ok }\nexport const handler = async () => Outcome.Ok;\n',
      'TypeScript enum is not supported in strip-only mode',
    ],
    ['broken.mjs', 'export const handler = async () => { ;\n', 'SyntaxError: '],
  ])(
    'reports a syntax error in %s as Runtime.UserCodeSyntaxError, as Lambda does',
    async (name, source, message) => {
      const handler = join(dir, name);
      await writeFile(handler, source);
      const sandbox = createSandbox({ handler, timeoutSeconds: 5 });
      try {
        expect(await sandbox.prewarm()).toMatchObject({
          errorType: 'Runtime.UserCodeSyntaxError',
          errorMessage: expect.stringContaining(message),
        });
      } finally {
        await sandbox.close();
      }
    },
  );

  it("prepare boots environments ahead without loading the function: its init stays the invocation's cold start", async () => {
    const marker = join(dir, 'init-marker');
    const lifecycle: SandboxEvent[] = [];
    const sandbox = createSandbox({
      handler: `${loading}#threadOrExit`,
      timeoutSeconds: 5,
      env: { INIT_MARKER: marker },
      onEvent: (event) => lifecycle.push(event),
    });
    try {
      await sandbox.prepare(3);
      const bootedBefore = await newestThreadId();
      expect(existsSync(marker)).toBe(false);
      expect(lifecycle).toEqual([]);

      const results = await Promise.all([sandbox.invoke('{}', 'a'), sandbox.invoke('{}', 'b')]);
      expect(results.map((r) => [r.coldStart, r.initStatus, r.initDurationMs])).toEqual([
        [true, 'success', expect.any(Number)],
        [true, 'success', expect.any(Number)],
      ]);
      // Both ran on threads booted by prepare, each loading the function once, at its cold start.
      for (const { result } of results)
        expect(Number((result as { json: string }).json)).toBeLessThan(bootedBefore);
      expect(await readFile(marker, 'utf8')).toBe('init\ninit\n');
      // The two inits run at once: either may finish first.
      expect(lifecycle.toSorted(byEnvironment)).toEqual([
        {
          type: 'init',
          environment: 1,
          durationMs: expect.any(Number),
          phase: 'init',
          status: 'success',
          files: expect.any(Array),
        },
        {
          type: 'init',
          environment: 2,
          durationMs: expect.any(Number),
          phase: 'init',
          status: 'success',
          files: expect.any(Array),
        },
      ]);
    } finally {
      await sandbox.close();
    }
    // The spare never used is no environment: only the two that started end.
    expect(lifecycle.filter((event) => event.type === 'shutdown').toSorted(byEnvironment)).toEqual([
      { type: 'shutdown', environment: 1, reason: 'close' },
      { type: 'shutdown', environment: 2, reason: 'close' },
    ]);
  });

  it('replaces an environment that ended with a booted spare, up to the prepared concurrency', async () => {
    const sandbox = createSandbox({ handler: `${loading}#threadOrExit`, timeoutSeconds: 5 });
    try {
      await sandbox.prepare(1);
      const exited = await sandbox.invoke('{"exit":true}', 'a');
      expect(exited.result).toMatchObject({ kind: 'function-error', errorType: 'Runtime.ExitError' });
      // The replacement was booted when the first environment ended, before this thread.
      const afterExit = await newestThreadId();
      const next = await sandbox.invoke('{}', 'b');
      expect(next.coldStart).toBe(true);
      expect(Number((next.result as { json: string }).json)).toBeLessThan(afterExit);
    } finally {
      await sandbox.close();
    }
  });
});
