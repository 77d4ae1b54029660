import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { Worker, type WorkerOptions } from 'node:worker_threads';
import { LAMBDA_LIMITS } from '../kafka-event/limits.ts';
import { type PackedKafkaEvent, packedTransferList } from '../kafka-event/packed-event.ts';
import { DEFAULT_MEMORY_MB } from './context.ts';
import { lambdaEnvironment } from './environment.ts';
import { SandboxClosedError } from './errors.ts';
import { type RuntimeErrorResponse, responseSizeError } from './runtime-error.ts';
import type { EnvironmentData, FromEnvironment, ToEnvironment } from './sandbox-protocol.ts';
import { ENVIRONMENT_BOOTSTRAP, openTypeScriptChannel } from './sandbox-typescript.ts';
import { unthrowing } from './unthrowing.ts';

/**
 * Options of {@link createSandbox}.
 *
 * @example
 * ```ts
 * const options: SandboxOptions = { handler: 'functions/orders/handler.ts#handler', timeoutSeconds: 30 };
 * ```
 */
export interface SandboxOptions {
  /** `path/to/module.ts[#export]` (export `handler` by default), relative to `cwd`. */
  handler: string;
  /** Directory the handler reference is resolved from (default the current directory). */
  cwd?: string;
  /** The function's timeout: past it the invocation fails with `Sandbox.Timedout` and its environment is ended. */
  timeoutSeconds: number;
  functionName?: string;
  memoryLimitInMB?: number;
  region?: string;
  /** Limit of the init phase (default `LAMBDA_LIMITS.initTimeoutSeconds`, Lambda's; past it Lambda retries the init during the first invocation, within the function's timeout: https://docs.aws.amazon.com/lambda/latest/dg/lambda-runtime-environment.html#runtimes-lifecycle-ib). */
  initTimeoutSeconds?: number;
  /** The function's own environment variables (Lambda's reserved ones are set already: see `lambdaEnvironment`). */
  env?: Record<string, string>;
  /**
   * Where the function's output goes (its `console.*` and direct writes), in order, each piece before
   * the result of the invocation that printed it. Default: the same stream of this process.
   */
  onOutput?: (text: string, stream: 'stdout' | 'stderr') => void;
  /** Cold starts and environments ended, for displays. */
  onEvent?: (event: SandboxEvent) => void;
}

/**
 * A lifecycle event of the sandbox's execution environments (numbered from 1).
 *
 * @example
 * ```ts
 * onEvent: (event) => { if (event.type === 'init') console.error(`cold start: init ${event.durationMs} ms`); }
 * ```
 */
export type SandboxEvent =
  | {
      type: 'init';
      environment: number;
      durationMs: number;
      /** `init`: the init phase proper; `invoke`: the retry within an invocation after an init timeout. */
      phase: 'init' | 'invoke';
      status: 'success' | 'error' | 'timeout';
      /**
       * After a successful init: the files the function's module loaded (absolute paths, outside
       * node_modules), the module first. What `dev --watch` watches.
       */
      files?: readonly string[];
    }
  | {
      type: 'shutdown';
      environment: number;
      /**
       * Why the environment ended: the error type that ended it, `update` (its code was replaced, see
       * {@link Sandbox.update}), or `close`.
       */
      reason: string;
    };

/**
 * What one invocation gave: the response's JSON text, or a function error as Lambda reports it.
 *
 * @example
 * ```ts
 * if (result.kind === 'response') JSON.parse(result.json);
 * ```
 */
export type SandboxResult =
  | { kind: 'response'; json: string }
  | ({ kind: 'function-error' } & RuntimeErrorResponse);

/**
 * One invocation's result, and whether it started a new environment (a cold start) and how long its
 * init phase took.
 *
 * @example
 * ```ts
 * const { result, coldStart, initDurationMs } = await sandbox.invoke(payload, requestId);
 * ```
 */
export interface SandboxInvocation {
  result: SandboxResult;
  coldStart: boolean;
  /** Init phase duration (both attempts after an init timeout), on cold starts. */
  initDurationMs?: number;
  /**
   * How the init phase ended, on cold starts: `error` when the module could not load (the result is
   * that init error), `timeout` when even the retry within the invocation outlived the timeout.
   */
  initStatus?: 'success' | 'error' | 'timeout';
  /** From the handler's start (after any init) to its result. */
  durationMs: number;
}

/**
 * Runs a handler module the way Lambda does: in isolated execution environments (worker threads),
 * one invocation at a time each, reused while warm (module state survives between invocations), a new
 * one started when all are busy. An environment is ended on a timeout (`Sandbox.Timedout`), on
 * `process.exit` (`Runtime.ExitError`), on an exception or rejection nobody handled, and the next
 * invocation starts a fresh one (a cold start), whose init phase is bounded like Lambda's.
 *
 * @example
 * ```ts
 * const sandbox = createSandbox({ handler: 'functions/orders/handler.ts', timeoutSeconds: 30 });
 * const { result } = await sandbox.invoke(JSON.stringify(event), randomUUID());
 * await sandbox.close();
 * ```
 */
export interface Sandbox {
  /**
   * Invokes the function with the event's JSON text, or with a Kafka batch packed by the trigger
   * emulator (its buffers are transferred: unusable here afterwards). Every failure of the function is
   * a function error in the result; it rejects only when the sandbox is closed ({@link SandboxClosedError}).
   */
  invoke(payload: string | PackedKafkaEvent, requestId: string): Promise<SandboxInvocation>;
  /**
   * Starts one environment ahead of the first invocation (as provisioned concurrency would), so that
   * a module that cannot load is known before any record is read. Resolves to the init error, if any.
   */
  prewarm(): Promise<RuntimeErrorResponse | undefined>;
  /**
   * Says how many invocations may run at once from now on (the trigger emulator: one per partition it
   * is assigned), so that as many environments are booted ahead of need: the worker thread and the
   * sandbox's runtime, the emulator's own start-up cost, which Lambda's environments do not show as
   * init time either. No code of the function runs before an invocation needs the environment: its
   * init phase is still that invocation's cold start. Environments that end are replaced while
   * `concurrency` says so; 0 boots nothing more. Resolves once the spares are booted (or ended).
   */
  prepare(concurrency: number): Promise<void>;
  /**
   * The function's code changed, as after Lambda's UpdateFunctionCode: from now on invocations run in new
   * environments, whose init phase loads the files as they are now (cold starts). Idle environments end
   * at once; an environment running an invocation finishes it on the old code, then ends.
   */
  update(): void;
  /** Ends every environment; invocations still running fail with `Runtime.ExitError`. */
  close(): Promise<void>;
}

type InitOutcome =
  | { status: 'success'; files: string[] }
  | { status: 'error'; error: RuntimeErrorResponse }
  | { status: 'timeout' };

/**
 * The worker's module, next to this one: `.ts` when running from this repository's sources, `.js` in the
 * built package (dist/). From the sources, the function the worker loads resolves `kafka-lambda` to the
 * sources too (the `kafka-lambda-source` export condition): a worker inherits command-line flags, not the
 * module hooks bin/kafka-lambda.js registers.
 */
/** The most environments {@link Sandbox.prepare} boots ahead of need (one per partition, up to this). */
const MAX_ENVIRONMENTS_BOOTED_AHEAD = 16;
/** Environments booted ahead of need at the same time: one per core. */
const BOOTS_AT_ONCE = Math.max(1, availableParallelism());

const fromSources = import.meta.url.endsWith('.ts');
const workerModule = new URL(`./sandbox-worker.${fromSources ? 'ts' : 'js'}`, import.meta.url);
/**
 * The flags environments start with from sources: this process's, less those a worker refuses (see
 * below) and `--input-type`, which would make the bootstrap (CommonJS text) a module.
 */
let workerExecArgv = fromSources
  ? [
      ...process.execArgv.filter((flag) => !flag.startsWith('--input-type')),
      '--conditions=kafka-lambda-source',
    ]
  : undefined;

/**
 * A worker given flags explicitly refuses, synchronously, those only a process can have (V8's
 * `--expose-gc`, `--max-old-space-size`, `--title`…: ERR_WORKER_INVALID_EXEC_ARGV, which lists them).
 * Started with one of those, this process still runs its environments: without them.
 */
function newEnvironmentWorker(options: WorkerOptions): Worker {
  try {
    return new Worker(ENVIRONMENT_BOOTSTRAP, { ...options, execArgv: workerExecArgv });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const listed = /flags: (.*)$/.exec((error as Error).message)?.[1]?.split(', ');
    if (code !== 'ERR_WORKER_INVALID_EXEC_ARGV' || !listed || !workerExecArgv) throw error;
    const refused = new Set(listed);
    const kept = workerExecArgv.filter((flag) => !refused.has(flag));
    if (kept.length === workerExecArgv.length) throw error;
    workerExecArgv = kept;
    return new Worker(ENVIRONMENT_BOOTSTRAP, { ...options, execArgv: workerExecArgv });
  }
}

/** What every environment of a sandbox is started with, besides its own TypeScript channel. */
type RuntimeData = Omit<EnvironmentData, 'entry' | 'typeScript'>;

/**
 * One execution environment: a worker thread running lib/lambda-runtime/sandbox-worker.ts, behind the
 * load hook that takes its TypeScript already stripped from this process (sandbox-typescript.ts). It
 * boots on construction (the thread and the runtime's own modules: the emulator's cost, no code of the
 * function) and waits; {@link Environment.init} starts its init phase, which loads the function.
 */
class Environment {
  /** Numbered from 1 in the order environments start their init phase (unset while only booted). */
  id = 0;
  /** The sandbox's code version it loaded ({@link Sandbox.update} starts a new one). */
  codeVersion = 0;
  readonly #worker: Worker;
  readonly #closeTypeScript: () => void;
  /** Resolves once the runtime is up and waits for its init phase (or the environment ended before). */
  readonly booted: Promise<void>;
  /** Whether {@link booted} has resolved. */
  hasBooted = false;
  #settleBoot: () => void = () => {};
  readonly #ready: Promise<InitOutcome>;
  #settleInit: (outcome: InitOutcome) => void = () => {};
  /** Resolves when the function's module starts loading (or the environment ended before that). */
  readonly #initStarted: Promise<void>;
  #startInit: () => void = () => {};
  #current?: {
    requestId: string;
    deadline: number;
    timedOut: SandboxResult;
    settle: (result: SandboxResult) => void;
  };
  #ended = false;
  /** Set when the environment ended by itself (exit, crash): the error that ended it. */
  #endedBy?: RuntimeErrorResponse;

  constructor(data: RuntimeData, env: NodeJS.ProcessEnv, onOutput: SandboxOptions['onOutput']) {
    this.booted = new Promise((resolve) => {
      this.#settleBoot = () => {
        this.hasBooted = true;
        resolve();
      };
    });
    this.#ready = new Promise((resolve) => {
      this.#settleInit = resolve;
    });
    this.#initStarted = new Promise((resolve) => {
      this.#startInit = resolve;
    });
    const typeScript = openTypeScriptChannel();
    this.#closeTypeScript = typeScript.close;
    const workerData: EnvironmentData = { ...data, entry: workerModule.href, typeScript: typeScript.channel };
    this.#worker = newEnvironmentWorker({
      eval: true,
      workerData,
      transferList: [typeScript.channel.port],
      env,
    });
    // An idle environment never keeps the process alive; a running invocation's timer does.
    this.#worker.unref();
    this.#worker.on('message', (message: FromEnvironment) => {
      switch (message.type) {
        case 'output':
          onOutput?.(message.text, message.stream);
          return;
        case 'booted':
          this.#settleBoot();
          return;
        case 'init-start':
          this.#startInit();
          return;
        case 'ready':
          this.#settleInit({ status: 'success', files: message.files });
          return;
        case 'init-error':
          this.#settleInit({ status: 'error', error: message.error });
          return;
        case 'response':
          if (this.#current?.requestId === message.requestId)
            this.#settle({ kind: 'response', json: message.json });
          return;
        case 'error':
          if (this.#current?.requestId === message.requestId)
            this.#settle({ kind: 'function-error', ...message.error });
          return;
        case 'crash':
          this.#fail(message.error);
          return;
      }
    });
    this.#worker.on('error', (error) => {
      this.#fail({
        errorType: 'Runtime.ExitError',
        errorMessage: `Runtime exited with error: ${error.message}`,
        trace: [],
      });
    });
    this.#worker.on('exit', (code) => {
      this.#closeTypeScript();
      this.#fail({
        errorType: 'Runtime.ExitError',
        errorMessage: `Runtime exited with error: exit status ${code}`,
        trace: [],
      });
    });
  }

  /** Whether the environment is ending or ended: it takes no more invocations. */
  get ended(): boolean {
    return this.#ended || this.#endedBy !== undefined;
  }

  /**
   * Runs the init phase once booted: the loading of the function's module, at most `limitMs` (the
   * boot is the emulator's cost, not the function's); a timeout ends the environment. Resolves with the
   * outcome and the phase's duration.
   */
  async init(limitMs: number): Promise<InitOutcome & { durationMs: number }> {
    await this.booted;
    if (!this.#endedBy) this.#worker.postMessage({ type: 'init' } satisfies ToEnvironment);
    await this.#initStarted;
    const began = performance.now();
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<InitOutcome>((resolve) => {
      timer = setTimeout(() => resolve({ status: 'timeout' }), limitMs);
    });
    try {
      const outcome = await Promise.race([this.#ready, timedOut]);
      if (outcome.status !== 'success') void this.end();
      return { ...outcome, durationMs: performance.now() - began };
    } finally {
      clearTimeout(timer);
    }
  }

  /** Runs one invocation; past its deadline (epoch ms) the environment is ended with `Sandbox.Timedout`. */
  run(message: Extract<ToEnvironment, { type: 'invoke' }>, timeoutSeconds: number): Promise<SandboxResult> {
    if (this.#endedBy) {
      // It ended while idle (a timer's exception, a late process.exit): the invocation fails as in Lambda.
      return Promise.resolve({
        kind: 'function-error',
        ...this.#requestError(this.#endedBy, message.requestId),
      });
    }
    const timedOut: SandboxResult = {
      kind: 'function-error',
      errorType: 'Sandbox.Timedout',
      errorMessage: `Task timed out after ${timeoutSeconds.toFixed(2)} seconds`,
      trace: [],
    };
    return new Promise<SandboxResult>((resolve) => {
      const timer = setTimeout(
        () => {
          settle(timedOut);
          void this.end();
        },
        Math.max(0, message.deadline - Date.now()),
      );
      const settle = (result: SandboxResult) => {
        clearTimeout(timer);
        this.#current = undefined;
        resolve(result);
      };
      this.#current = { requestId: message.requestId, deadline: message.deadline, timedOut, settle };
      const { payload } = message;
      this.#worker.postMessage(message, typeof payload === 'string' ? [] : packedTransferList(payload));
    });
  }

  end(): Promise<number> {
    this.#ended = true;
    this.#closeTypeScript();
    return this.#worker.terminate();
  }

  #settle(result: SandboxResult): void {
    const current = this.#current;
    if (!current) return;
    // An answer that arrives after the deadline (the timer's callback queued behind it on a busy event
    // loop) is not accepted: Lambda would have ended the invocation, so the batch must be retried.
    if (Date.now() > current.deadline) {
      current.settle(current.timedOut);
      void this.end();
      return;
    }
    current.settle(result);
  }

  /**
   * The environment ended (exit, crash, or our own terminate): the running invocation, if still
   * waiting, fails with that error.
   */
  #fail(error: RuntimeErrorResponse): void {
    if (this.#endedBy) return;
    this.#endedBy = error;
    this.#settleBoot();
    this.#startInit();
    this.#settleInit({ status: 'error', error });
    const current = this.#current;
    if (current) current.settle({ kind: 'function-error', ...this.#requestError(error, current.requestId) });
    if (!this.#ended) void this.end();
  }

  /** Lambda prefixes the runtime's own errors with the request id. */
  #requestError(error: RuntimeErrorResponse, requestId: string): RuntimeErrorResponse {
    return error.errorType === 'Runtime.ExitError'
      ? { ...error, errorMessage: `RequestId: ${requestId} Error: ${error.errorMessage}` }
      : error;
  }
}

/**
 * Creates a {@link Sandbox} for a handler module. No environment starts before the first invocation
 * (or {@link Sandbox.prewarm}).
 *
 * @example
 * ```ts
 * const sandbox = createSandbox({ handler: 'functions/orders/handler.ts', timeoutSeconds: 30, functionName: 'orders' });
 * ```
 */
export function createSandbox(options: SandboxOptions): Sandbox {
  const functionName = options.functionName ?? 'local-function';
  const memoryLimitInMB = options.memoryLimitInMB ?? DEFAULT_MEMORY_MB;
  const region = options.region || process.env.AWS_REGION || 'us-east-1';
  const timeoutMs = options.timeoutSeconds * 1000;
  const initLimitMs = (options.initTimeoutSeconds ?? LAMBDA_LIMITS.initTimeoutSeconds) * 1000;
  const onOutput = unthrowing(
    options.onOutput ?? ((text: string, stream: 'stdout' | 'stderr') => process[stream].write(text)),
  );
  const onEvent = options.onEvent && unthrowing(options.onEvent);
  const data: RuntimeData = {
    handler: options.handler,
    cwd: options.cwd ?? process.cwd(),
    functionName,
    memoryLimitInMB,
    region,
  };
  // Each environment has its own log stream, as in Lambda.
  const env = (): NodeJS.ProcessEnv => ({
    ...process.env,
    ...options.env,
    ...lambdaEnvironment({
      functionName,
      memoryLimitInMB,
      region,
      handler: options.handler,
      taskRoot: data.cwd,
    }),
  });
  /** Warm environments, the most recently used last (reused first, as the warmest). */
  const idle: Environment[] = [];
  /** Environments started (initialising, running or idle) and not yet ended. */
  const all = new Set<Environment>();
  /** Booted runtimes waiting to become environments, oldest first (see {@link Sandbox.prepare}). */
  const spares: Environment[] = [];
  let concurrency = 0;
  let started = 0;
  let closed = false;
  /** Raised by update(): environments that loaded an older version end instead of being reused. */
  let codeVersion = 0;

  /**
   * Boots spares until the environments and spares cover the concurrency announced by prepare(), a few at
   * a time: threads booting together share the cores, so sixteen at once would each be ready only when
   * all are, and the first invocation would wait for the sixteenth boot.
   */
  const fill = () => {
    let booting = spares.filter((spare) => !spare.hasBooted).length;
    while (!closed && all.size + spares.length < concurrency && booting < BOOTS_AT_ONCE) {
      const spare = new Environment(data, env(), onOutput);
      spares.push(spare);
      booting++;
      void spare.booted.then(fill);
    }
  };
  /** A new environment, about to start its init phase: a booted spare if there is one, else a new boot. */
  const spawn = () => {
    let environment = spares.shift();
    while (environment?.ended) environment = spares.shift();
    environment ??= new Environment(data, env(), onOutput);
    environment.id = ++started;
    environment.codeVersion = codeVersion;
    all.add(environment);
    return environment;
  };
  const retire = (environment: Environment, reason: string) => {
    all.delete(environment);
    onEvent?.({ type: 'shutdown', environment: environment.id, reason });
    fill();
  };
  const initialise = async (environment: Environment, limitMs: number, phase: 'init' | 'invoke') => {
    const { durationMs, ...outcome } = await environment.init(limitMs);
    onEvent?.({
      type: 'init',
      environment: environment.id,
      durationMs,
      phase,
      status: outcome.status,
      ...(outcome.status === 'success' ? { files: outcome.files } : {}),
    });
    if (outcome.status !== 'success')
      retire(environment, outcome.status === 'timeout' ? 'Sandbox.Timedout' : outcome.error.errorType);
    return { outcome, durationMs };
  };

  return {
    async invoke(payload, requestId) {
      if (closed) throw new SandboxClosedError();
      let environment = idle.pop();
      let initDurationMs: number | undefined;
      /** Of the function's timeout, what a retried init used. */
      let reinitMs = 0;
      const coldStart = environment === undefined;
      if (!environment) {
        environment = spawn();
        let init = await initialise(environment, initLimitMs, 'init');
        initDurationMs = init.durationMs;
        if (init.outcome.status === 'timeout') {
          // Lambda retries the init within the invocation, and the function's timeout covers both.
          environment = spawn();
          init = await initialise(environment, timeoutMs, 'invoke');
          initDurationMs += init.durationMs;
          reinitMs = init.durationMs;
        }
        if (init.outcome.status !== 'success') {
          const result: SandboxResult =
            init.outcome.status === 'timeout'
              ? {
                  kind: 'function-error',
                  errorType: 'Sandbox.Timedout',
                  errorMessage: `Task timed out after ${options.timeoutSeconds.toFixed(2)} seconds`,
                  trace: [],
                }
              : { kind: 'function-error', ...init.outcome.error };
          return { result, coldStart, initDurationMs, initStatus: init.outcome.status, durationMs: 0 };
        }
      }
      const began = performance.now();
      let result = await environment.run(
        { type: 'invoke', requestId, payload, deadline: Date.now() + timeoutMs - reinitMs },
        options.timeoutSeconds,
      );
      const durationMs = performance.now() - began;
      const tooLarge = result.kind === 'response' ? responseSizeError(result.json) : undefined;
      if (tooLarge) result = { kind: 'function-error', ...tooLarge };
      if (environment.ended)
        retire(environment, result.kind === 'function-error' ? result.errorType : 'ended');
      else if (closed) void environment.end();
      else if (environment.codeVersion !== codeVersion) {
        void environment.end();
        retire(environment, 'update');
      } else idle.push(environment);
      return {
        result,
        coldStart,
        ...(initDurationMs === undefined ? {} : { initDurationMs, initStatus: 'success' as const }),
        durationMs,
      };
    },

    async prewarm() {
      if (closed) throw new SandboxClosedError();
      const environment = spawn();
      const { outcome } = await initialise(environment, initLimitMs, 'init');
      if (outcome.status === 'success') {
        idle.push(environment);
        return undefined;
      }
      return outcome.status === 'error'
        ? outcome.error
        : {
            errorType: 'Sandbox.Timedout',
            errorMessage: `the init phase outlived its ${initLimitMs / 1000} s limit`,
            trace: [],
          };
    },

    async prepare(wanted) {
      // Booting ahead is a speed-up, not a limit: past a cap, more environments still start on demand,
      // so a topic with hundreds of partitions does not hold hundreds of idle threads (~13 MB each).
      concurrency = Math.min(wanted, MAX_ENVIRONMENTS_BOOTED_AHEAD);
      fill();
      // Each spare that is up starts the next: wait until no spare is left booting.
      for (let booting = spares; booting.length > 0; booting = spares.filter((spare) => !spare.hasBooted))
        await Promise.all(booting.map((spare) => spare.booted));
    },

    update() {
      codeVersion++;
      // Spares have loaded no code of the function: they stay. Idle environments end now.
      for (const environment of idle.splice(0)) {
        void environment.end();
        retire(environment, 'update');
      }
    },

    async close() {
      closed = true;
      idle.length = 0;
      const ending = [...all];
      all.clear();
      const unused = spares.splice(0);
      await Promise.all([...ending, ...unused].map((environment) => environment.end()));
      for (const environment of ending)
        onEvent?.({ type: 'shutdown', environment: environment.id, reason: 'close' });
    },
  };
}
