import { randomUUID } from 'node:crypto';
import { writeSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { text } from 'node:stream/consumers';
import { type Command, InvalidArgumentError } from 'commander';
import {
  type AsyncHandler,
  createSandbox,
  DEFAULT_MEMORY_MB,
  HandlerInitError,
  HandlerNotFoundError,
  lambdaEnvironment,
  loadHandler,
  marshalResponse,
  type RuntimeErrorResponse,
  resolveHandlerReference,
  responseSizeError,
  toRuntimeError,
  unhandledRejectionError,
} from '../../lambda-runtime/index.ts';
import { jsonSyntaxCause } from '../../middleware/errors.ts';
import {
  failedOffsets,
  HandlerTimeoutError,
  InvalidBatchResponseError,
  InvalidKafkaEventError,
  invokeHandler,
  type KafkaEvent,
  LAMBDA_LIMITS,
  ResponseMarshalError,
  validateKafkaEvent,
} from '../../testing/index.ts';
import { jsonPosition } from '../../text/json-position.ts';
import { CliError } from '../errors.ts';
import {
  DOTENV_OPTION,
  ENV_VARS_OPTION,
  FunctionEnvironmentError,
  readFunctionEnvironment,
} from '../function-environment.ts';
import { useFunctionTimeZone } from '../local-function.ts';
import { exitWithUsageCode, integerOption, USAGE_EXIT_CODE } from '../usage.ts';

/** Exit codes of `kafka-lambda invoke`. */
const INVOKE_EXIT_CODES = {
  /** The handler returned; the response (possibly reporting failed records) is on stdout. */
  success: 0,
  /** The handler threw (or left a promise rejection unhandled): Lambda retries the whole batch. */
  handlerError: 1,
  /** Bad command line, unreadable or invalid event, handler module or export not loadable. */
  usage: USAGE_EXIT_CODE,
  /** The response is not one Lambda accepts (malformed, or names a record not in the event). */
  rejectedResponse: 3,
  /** The handler outlived `--timeout` (as coreutils `timeout` does). */
  timeout: 124,
} as const;

interface InvokeOptions {
  event: string;
  dotenv: string[];
  envVars?: string;
  timeout: number;
  functionName: string;
  memory: number;
  inProcess: boolean;
}

/** The event given to `invoke` cannot be read, is not JSON, or is not a Kafka event. */
class EventFileError extends CliError {}

/** How long the handler ran, and its init phase took. */
interface Timing {
  durationMs: number;
  initDurationMs?: number;
}

/**
 * What the function's log shows for a failure, as Lambda's Node.js runtime writes it in its text log
 * format (aws-lambda-nodejs-runtime-interface-client: `structuredConsole.logError` in LogPatch, called by
 * CallbackContext for a failed invocation and by the bootstrap's `uncaughtException` and
 * `unhandledRejection` listeners): `ERROR`, what failed, then the error as JSON whose stack lines are
 * `stack` (the error response the trigger reads calls the same lines `trace`). A module that fails as it
 * loads reaches the bootstrap's `uncaughtException` listener. A runtime that exited logs nothing
 * itself: Lambda's line says so, then the error type.
 */
function failureLog(phase: 'init' | 'invoke', error: RuntimeErrorResponse): string {
  const { errorType, errorMessage, trace } = error;
  if (errorType === 'Runtime.ExitError') return `${errorMessage}\n${errorType}`;
  const failed =
    phase === 'init'
      ? 'Uncaught Exception'
      : errorType === 'Runtime.UnhandledPromiseRejection'
        ? 'Unhandled Promise Rejection'
        : 'Invoke Error';
  // The runtime's own separator: console.error(failed, '\t' + json) puts a space before the tab.
  return `ERROR\t${failed} \t${JSON.stringify({ errorType, errorMessage, stack: trace })}`;
}

type Outcome =
  | ({ kind: 'response'; json: string } & Timing)
  /** The function failed: in its init phase (its module's loading) or in the invocation. */
  | ({ kind: 'error'; phase: 'init' | 'invoke'; error: RuntimeErrorResponse } & Timing)
  | ({ kind: 'timeout'; message: string } & Timing)
  /** The module or export could not be loaded: a usage error. */
  | { kind: 'load-failed'; message: string };

function seconds(value: string): number {
  const number = Number(value);
  if (value.trim() === '' || !(number > 0 && number <= LAMBDA_LIMITS.kafkaFunctionTimeoutSeconds.max)) {
    throw new InvalidArgumentError(
      `must be a number of seconds above 0 and at most ${LAMBDA_LIMITS.kafkaFunctionTimeoutSeconds.max} (Kafka triggers refuse longer timeouts)`,
    );
  }
  return number;
}

/**
 * `kafka-lambda invoke`: runs a handler locally on an event, as Lambda would.
 *
 * @example
 * ```ts
 * registerInvokeCommand(program); // kafka-lambda invoke functions/orders/handler.ts --event event.json
 * ```
 */
export function registerInvokeCommand(program: Command): void {
  program
    .command('invoke')
    .description(
      'run a handler on a Kafka event with a Lambda-like context: the JSON response on stdout, logs and a summary on stderr',
    )
    .argument(
      '<handler>',
      'module and export, e.g. functions/orders/handler.ts#handler (export "handler" by default)',
    )
    .requiredOption('-e, --event <file>', 'the event as JSON: a file, or - for stdin')
    .option('-t, --timeout <seconds>', 'function timeout, enforced as Lambda does', seconds, 30)
    .option(
      '--function-name <name>',
      'function name in the context and AWS_LAMBDA_FUNCTION_NAME',
      'local-function',
    )
    .option(
      '--memory <MB>',
      'memory size in the context and AWS_LAMBDA_FUNCTION_MEMORY_SIZE',
      integerOption(LAMBDA_LIMITS.functionMemoryMB.min, LAMBDA_LIMITS.functionMemoryMB.max),
      DEFAULT_MEMORY_MB,
    )
    .addOption(DOTENV_OPTION)
    .addOption(ENV_VARS_OPTION)
    .option(
      '--in-process',
      'run the handler in this process (for debuggers) instead of a Lambda-like sandbox; a handler past its timeout cannot be stopped there',
      false,
    )
    .addHelpText(
      'after',
      `
The handler runs in a sandbox like Lambda's execution environment (a worker thread): its module
loads in an init phase limited to ${LAMBDA_LIMITS.initTimeoutSeconds} s (Lambda's; past it the init is retried within
--timeout), a handler past --timeout is stopped, and process.exit, exceptions and rejections nobody
handles are reported with Lambda's error types. Its output goes to stderr; stdout carries the response.

Exit codes:
  0    the handler returned (its response may report failed records)
  1    the handler (or its module's init) threw, exited or crashed: Lambda would retry the whole batch
  2    bad usage: options, event or environment file, or a handler reference naming no module or function
  3    the response is one Lambda rejects (the whole batch would be retried)
  124  the handler (or its module's loading) outlived --timeout

Example:
  $ kafka-lambda invoke functions/orders/handler.ts --event test/events/msk-order-events.json | jq`,
    )
    .exitOverride(exitWithUsageCode)
    .action(async (reference: string, options: InvokeOptions) => {
      const exitCode = await invoke(reference, options);
      // Lambda freezes the sandbox once the handler settles: exit too, whatever the handler left running.
      await new Promise<void>((resolve) => process.stderr.write('', () => resolve()));
      process.exit(exitCode);
    });
}

async function invoke(reference: string, options: InvokeOptions): Promise<number> {
  // stdout carries the response only: whatever the handler prints (console.*, Powertools, direct
  // writes) goes to stderr, as it goes to CloudWatch Logs in Lambda.
  const writeStdout = process.stdout.write.bind(process.stdout);
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;

  let event: KafkaEvent;
  let environment: Record<string, string>;
  try {
    environment = await readFunctionEnvironment(options);
    event = await readEvent(options.event);
    resolveHandlerReference(reference);
  } catch (error) {
    const usage =
      error instanceof EventFileError ||
      error instanceof FunctionEnvironmentError ||
      error instanceof HandlerNotFoundError;
    if (!usage) throw error;
    console.error(`error: ${error.message}`);
    return INVOKE_EXIT_CODES.usage;
  }
  useFunctionTimeZone(environment);

  const requestId = randomUUID();
  const batch = describeBatch(event);
  const outcome = options.inProcess
    ? await runInProcess(reference, event, options, environment, requestId, batch)
    : await runSandboxed(reference, event, options, environment, requestId);
  if (outcome.kind === 'load-failed') {
    console.error(`error: ${outcome.message}`);
    return INVOKE_EXIT_CODES.usage;
  }
  // As Lambda logs the end of an invocation: the error or timeout line, then END, then REPORT (a cold
  // start shows as an Init Duration).
  if (outcome.kind === 'timeout') console.error(outcome.message);
  if (outcome.kind === 'error') console.error(failureLog(outcome.phase, outcome.error));
  console.error(`END RequestId: ${requestId}`);
  console.error(
    `REPORT RequestId: ${requestId}\tDuration: ${outcome.durationMs.toFixed(2)} ms\tMemory Size: ${options.memory} MB${
      outcome.initDurationMs === undefined ? '' : `\tInit Duration: ${outcome.initDurationMs.toFixed(2)} ms`
    }`,
  );
  const took = `${outcome.durationMs.toFixed(1)} ms`;

  if (outcome.kind === 'timeout') {
    console.error(`[invoke] timeout: ${batch}, no response (Lambda retries the whole batch); ${took}`);
    return INVOKE_EXIT_CODES.timeout;
  }
  if (outcome.kind === 'error') {
    const { errorType, errorMessage } = outcome.error;
    console.error(
      `[invoke] error: ${batch}, ${outcome.phase === 'init' ? "the module's init failed: " : ''}${errorType}: ${errorMessage} (Lambda retries the whole batch); ${took}`,
    );
    return INVOKE_EXIT_CODES.handlerError;
  }

  await new Promise<void>((resolve) => writeStdout(`${outcome.json}\n`, () => resolve()));
  let failed: Record<string, number[]>;
  try {
    failed = failedOffsets(JSON.parse(outcome.json), event);
  } catch (error) {
    if (!(error instanceof InvalidBatchResponseError)) throw error;
    console.error(
      `[invoke] rejected response: ${batch}; ${error.message} (Lambda retries the whole batch); ${took}`,
    );
    return INVOKE_EXIT_CODES.rejectedResponse;
  }
  const reported = Object.entries(failed);
  const count = reported.reduce((sum, [, offsets]) => sum + offsets.length, 0);
  console.error(
    count === 0
      ? `[invoke] success: ${batch}, none reported failed; ${took}`
      : `[invoke] partial failure: ${batch}, ${count} reported failed (${reported
          .map(([partition, offsets]) => `${partition}: ${formatOffsets(offsets)}`)
          .join('; ')}); ${took}`,
  );
  return INVOKE_EXIT_CODES.success;
}

async function readEvent(source: string): Promise<KafkaEvent> {
  const name = source === '-' ? 'stdin' : source;
  let content: string;
  try {
    content = source === '-' ? await text(process.stdin) : await readFile(source, 'utf8');
  } catch (error) {
    throw new EventFileError(`cannot read the event from ${name}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  // JSON.parse would say it failed "at position 0": the event is missing, not malformed.
  if (content.trim() === '')
    throw new EventFileError(
      `the event in ${name} is empty: give a Kafka event as JSON (\`kafka-lambda event\` prints one)`,
    );
  let json: unknown;
  try {
    json = JSON.parse(content);
  } catch (error) {
    const cause = jsonSyntaxCause(error, 'the event', jsonPosition(content));
    throw new EventFileError(`the event in ${name} is not JSON: ${cause.message}`, { cause });
  }
  try {
    // kafkaBatch's own rules: what it accepts runs; what Lambda would not send (map keys that disagree
    // with their records, a repeated offset, a value that is not base64, more than 6 MB) is a warning.
    return validateKafkaEvent(json, {
      accept: 'middleware',
      onWarning: (warning) =>
        console.error(`[invoke] warning: ${warning.path || '(event)'}: ${warning.message}`),
    });
  } catch (error) {
    if (!(error instanceof InvalidKafkaEventError)) throw error;
    throw new EventFileError(`${name}: ${error.message}`, { cause: error });
  }
}

/** The handler in a sandbox environment, as Lambda runs it; its output goes to stderr, in order. */
async function runSandboxed(
  reference: string,
  event: KafkaEvent,
  options: InvokeOptions,
  environment: Record<string, string>,
  requestId: string,
): Promise<Outcome> {
  const sandbox = createSandbox({
    handler: reference,
    env: environment,
    timeoutSeconds: options.timeout,
    functionName: options.functionName,
    memoryLimitInMB: options.memory,
    onOutput: (text) => process.stderr.write(text),
  });
  try {
    const { result, initStatus, initDurationMs, durationMs } = await sandbox.invoke(
      JSON.stringify(event),
      requestId,
    );
    const timing = { durationMs, ...(initDurationMs === undefined ? {} : { initDurationMs }) };
    if (initStatus === 'error' && result.kind === 'function-error') {
      const { errorType, errorMessage, trace } = result;
      // A reference to no function is the command line's fault; any other init error is the function's.
      if (errorType === 'Runtime.HandlerNotFound' || errorType === 'Runtime.MalformedHandlerName')
        return { kind: 'load-failed', message: errorMessage };
      return { kind: 'error', phase: 'init', error: { errorType, errorMessage, trace }, ...timing };
    }
    if (result.kind === 'response') return { kind: 'response', json: result.json, ...timing };
    const { errorType, errorMessage, trace } = result;
    return errorType === 'Sandbox.Timedout'
      ? { kind: 'timeout', message: errorMessage, ...timing }
      : { kind: 'error', phase: 'invoke', error: { errorType, errorMessage, trace }, ...timing };
  } finally {
    await sandbox.close();
  }
}

/**
 * The handler in this process, for debuggers: loading is bounded as in the sandbox (the init phase's
 * limit, then the function's timeout) and a `process.exit` is reported as `Runtime.ExitError`, but a
 * handler past its timeout cannot be stopped (this process exits once the outcome is printed).
 */
async function runInProcess(
  reference: string,
  event: KafkaEvent,
  options: InvokeOptions,
  environment: Record<string, string>,
  requestId: string,
  batch: string,
): Promise<Outcome> {
  Object.assign(
    process.env,
    environment,
    lambdaEnvironment({
      functionName: options.functionName,
      memoryLimitInMB: options.memory,
      handler: reference,
    }),
  );
  // Whatever the handler leaves behind (a rejection, an exception) fails the invocation, as in Lambda.
  const failures = new Promise<RuntimeErrorResponse>((resolve) => {
    process.once('unhandledRejection', (reason) => resolve(unhandledRejectionError(reason)));
    process.once('uncaughtException', (error) => resolve(toRuntimeError(error)));
  });
  // A process.exit from the module or the handler ends this process: report it as Lambda does on the way out.
  const reportExit = (code: number) => {
    const error = {
      errorType: 'Runtime.ExitError',
      errorMessage: `RequestId: ${requestId} Error: Runtime exited with error: exit status ${code}`,
      trace: [],
    };
    writeSync(2, `${failureLog('invoke', error)}\nEND RequestId: ${requestId}\n`);
    writeSync(
      2,
      `[invoke] error: ${batch}, ${error.errorType}: ${error.errorMessage} (Lambda retries the whole batch)\n`,
    );
    process.exitCode = INVOKE_EXIT_CODES.handlerError;
  };
  process.on('exit', reportExit);
  try {
    return await loadAndRun(reference, event, options, requestId, failures);
  } finally {
    process.off('exit', reportExit);
  }
}

async function loadAndRun(
  reference: string,
  event: KafkaEvent,
  options: InvokeOptions,
  requestId: string,
  failures: Promise<RuntimeErrorResponse>,
): Promise<Outcome> {
  const timeoutMs = Math.round(options.timeout * 1000);
  const timedOut = { kind: 'timeout', message: new HandlerTimeoutError(timeoutMs).message } as const;

  const loadStarted = performance.now();
  const loadLimitMs = (LAMBDA_LIMITS.initTimeoutSeconds + options.timeout) * 1000;
  let handler: AsyncHandler;
  try {
    const loaded = await within(loadHandler(reference), loadLimitMs);
    // A module that blocks this thread while it loads holds the timer back: its lateness is read after.
    if (loaded === undefined || performance.now() - loadStarted > loadLimitMs)
      return { ...timedOut, durationMs: performance.now() - loadStarted };
    handler = loaded;
  } catch (error) {
    if (error instanceof HandlerNotFoundError) return { kind: 'load-failed', message: error.message };
    if (!(error instanceof HandlerInitError)) throw error;
    // As the sandbox reports it: the invocation never started, its init took this long.
    const initDurationMs = performance.now() - loadStarted;
    return { kind: 'error', phase: 'init', error: error.response, durationMs: 0, initDurationMs };
  }
  const initDurationMs = performance.now() - loadStarted;

  const started = performance.now();
  const invocation = invokeHandler(handler, event, {
    timeoutMs,
    functionName: options.functionName,
    memoryLimitInMB: options.memory,
    awsRequestId: requestId,
    logStreamName: process.env.AWS_LAMBDA_LOG_STREAM_NAME,
  }).then(
    (response) => ({ response }),
    (error: unknown) => ({ error }),
  );
  const settled = await Promise.race([invocation, failures.then((failure) => ({ failure }))]);
  const timing = { durationMs: performance.now() - started, initDurationMs };
  // A handler that kept this thread busy past its timeout held the timer back: Lambda would have
  // stopped it, so its answer does not count, as in the emulator.
  if (timing.durationMs > timeoutMs) return { ...timedOut, ...timing };
  if ('failure' in settled) return { kind: 'error', phase: 'invoke', error: settled.failure, ...timing };
  if ('error' in settled) {
    if (settled.error instanceof HandlerTimeoutError) return { ...timedOut, ...timing };
    // invokeHandler reads the response through JSON, as Lambda does: one it cannot write is the
    // runtime's Runtime.MarshalError, reported as Lambda reports it.
    const error =
      settled.error instanceof ResponseMarshalError ? settled.error.response : toRuntimeError(settled.error);
    return { kind: 'error', phase: 'invoke', error, ...timing };
  }
  const marshalled = marshalResponse(settled.response);
  if (marshalled.error !== undefined)
    return { kind: 'error', phase: 'invoke', error: marshalled.error, ...timing };
  const tooLarge = responseSizeError(marshalled.json);
  if (tooLarge) return { kind: 'error', phase: 'invoke', error: tooLarge, ...timing };
  return { kind: 'response', json: marshalled.json, ...timing };
}

/** `promise`'s value, or `undefined` when it has not settled within `ms`. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<undefined>((resolve) => {
        timer = setTimeout(resolve, ms, undefined);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function describeBatch(event: KafkaEvent): string {
  const partitions = Object.values(event.records);
  const records = partitions.reduce((sum, partitionRecords) => sum + partitionRecords.length, 0);
  return `${records} record${records === 1 ? '' : 's'} in ${partitions.length} partition${partitions.length === 1 ? '' : 's'}`;
}

/** `[5, 6, 7, 9]` → `5-7, 9`: a partition's reported offsets, short even for thousands. */
function formatOffsets(offsets: readonly number[]): string {
  const ranges: string[] = [];
  let start = offsets[0]!;
  let end = start;
  for (const offset of offsets.slice(1)) {
    if (offset === end + 1) {
      end = offset;
      continue;
    }
    ranges.push(start === end ? `${start}` : `${start}-${end}`);
    start = end = offset;
  }
  ranges.push(start === end ? `${start}` : `${start}-${end}`);
  return ranges.join(', ');
}
