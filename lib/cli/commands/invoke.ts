import { readFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { text } from 'node:stream/consumers';
import { type Command, InvalidArgumentError } from 'commander';
import type { KafkaEvent } from '../../kafka-event/types.ts';
import { type AsyncHandler, HandlerNotFoundError, loadHandler } from '../../local/load-handler.ts';
import { failedOffsets, InvalidBatchResponseError } from '../../testing/batch-response.ts';
import { HandlerTimeoutError, invokeHandler } from '../../testing/invoke-handler.ts';
import { InvalidKafkaEventError, validateKafkaEvent } from '../../testing/validate-event.ts';
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

/** Kafka triggers refuse functions whose timeout exceeds 14 minutes. */
const MAX_TIMEOUT_SECONDS = 840;

interface InvokeOptions {
  event: string;
  timeout: number;
  functionName: string;
  memory: number;
}

/** The event given to `invoke` cannot be read, is not JSON, or is not a Kafka event. */
class EventFileError extends Error {
  override readonly name = 'EventFileError';
}

type Outcome =
  | { kind: 'returned'; response: unknown }
  | { kind: 'threw'; error: unknown }
  | { kind: 'timeout'; error: HandlerTimeoutError };

function seconds(value: string): number {
  const number = Number(value);
  if (value.trim() === '' || !(number > 0 && number <= MAX_TIMEOUT_SECONDS)) {
    throw new InvalidArgumentError(
      `must be a number of seconds above 0 and at most ${MAX_TIMEOUT_SECONDS} (Kafka triggers refuse longer timeouts)`,
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
      integerOption(128, 10_240),
      1024,
    )
    .addHelpText(
      'after',
      `
Exit codes:
  0    the handler returned (its response may report failed records)
  1    the handler threw: Lambda would retry the whole batch
  2    bad usage: options, event file, or handler module/export
  3    the response is one Lambda rejects (the whole batch would be retried)
  124  the handler outlived --timeout

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
  try {
    event = await readEvent(options.event);
  } catch (error) {
    if (!(error instanceof EventFileError)) throw error;
    console.error(`error: ${error.message}`);
    return INVOKE_EXIT_CODES.usage;
  }

  process.env.AWS_LAMBDA_FUNCTION_NAME = options.functionName;
  process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE = String(options.memory);
  process.env.AWS_LAMBDA_FUNCTION_VERSION = '$LATEST';
  let handler: AsyncHandler;
  try {
    handler = await loadHandler(reference);
  } catch (error) {
    if (!(error instanceof HandlerNotFoundError)) throw error;
    console.error(`error: ${error.message}`);
    return INVOKE_EXIT_CODES.usage;
  }

  const started = performance.now();
  const outcome = await run(handler, event, options);
  const took = `${(performance.now() - started).toFixed(1)} ms`;
  const batch = describeBatch(event);

  if (outcome.kind === 'timeout') {
    console.error(outcome.error.message);
    console.error(`[invoke] timeout: ${batch}, no response (Lambda retries the whole batch); ${took}`);
    return INVOKE_EXIT_CODES.timeout;
  }
  if (outcome.kind === 'threw') {
    const { errorType, errorMessage, trace } = describeError(outcome.error);
    console.error(`ERROR\tInvoke Error\t${JSON.stringify({ errorType, errorMessage, trace })}`);
    console.error(
      `[invoke] error: ${batch}, ${errorType}: ${errorMessage} (Lambda retries the whole batch); ${took}`,
    );
    return INVOKE_EXIT_CODES.handlerError;
  }

  let json: string;
  try {
    json = JSON.stringify(outcome.response ?? null);
  } catch (error) {
    console.error(`[invoke] error: ${batch}, Runtime.MarshalError: ${(error as Error).message}; ${took}`);
    return INVOKE_EXIT_CODES.handlerError;
  }
  await new Promise<void>((resolve) => writeStdout(`${json}\n`, () => resolve()));
  let failed: Record<string, number[]>;
  try {
    failed = failedOffsets(outcome.response, event);
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
    throw new EventFileError(`cannot read the event from ${name}: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(content);
  } catch (error) {
    throw new EventFileError(`the event in ${name} is not JSON: ${(error as Error).message}`);
  }
  try {
    // Map keys that disagree with their records occur in public fixtures; handlers must cope.
    return validateKafkaEvent(json, { allowKeyMismatch: true });
  } catch (error) {
    if (!(error instanceof InvalidKafkaEventError)) throw error;
    throw new EventFileError(`${name}: ${error.message}`);
  }
}

async function run(handler: AsyncHandler, event: KafkaEvent, options: InvokeOptions): Promise<Outcome> {
  // As in Lambda's Node.js runtime, a rejection nobody handles fails the invocation.
  const unhandled = new Promise<never>((_, reject) => {
    process.once('unhandledRejection', (reason) => {
      const { errorType, errorMessage } = describeError(reason);
      const error = new Error(`${errorType}: ${errorMessage}`);
      error.name = 'Runtime.UnhandledPromiseRejection';
      reject(error);
    });
    process.once('uncaughtException', reject);
  });
  try {
    const response = await Promise.race([
      invokeHandler(handler, event, {
        timeoutMs: Math.round(options.timeout * 1000),
        functionName: options.functionName,
        memoryLimitInMB: options.memory,
      }),
      unhandled,
    ]);
    return { kind: 'returned', response };
  } catch (error) {
    return error instanceof HandlerTimeoutError ? { kind: 'timeout', error } : { kind: 'threw', error };
  }
}

function describeError(error: unknown): { errorType: string; errorMessage: string; trace: string[] } {
  if (error instanceof Error) {
    return { errorType: error.name, errorMessage: error.message, trace: error.stack?.split('\n') ?? [] };
  }
  return { errorType: typeof error, errorMessage: String(error), trace: [] };
}

function describeBatch(event: KafkaEvent): string {
  const runs = Object.values(event.records);
  const records = runs.reduce((sum, run) => sum + run.length, 0);
  return `${records} record${records === 1 ? '' : 's'} in ${runs.length} partition${runs.length === 1 ? '' : 's'}`;
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
