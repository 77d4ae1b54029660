import { readFile, stat } from 'node:fs/promises';
import { Agent as HttpsAgent } from 'node:https';
import { text } from 'node:stream/consumers';
import {
  GetFunctionConfigurationCommand,
  InvokeCommand,
  type InvokeCommandOutput,
  LambdaClient,
} from '@aws-sdk/client-lambda';
import Table from 'cli-table3';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { awsApiClientConfig, callAwsApi, isAwsTimeout, lambdaCall } from '../../replay/aws-api.ts';
import { enableMappingCommand, resumeMappingAdvice } from '../../replay/aws-cli.ts';
import {
  AwsApiTimeoutError,
  describeReplayError,
  type KafkaConnection,
  type PartitionPlan,
  parseReplayMetadata,
  parseReplayRequest,
  REPLAY_EXIT_CODES,
  ReplayError,
  ReplayInputError,
  type ReplayOutcome,
  type ReplayPlan,
  type ReplayRequest,
  requestTopic,
  runReplay,
} from '../../replay/index.ts';
import { summarizeError } from '../../replay/outcome.ts';
import { parseTopicPartitions } from '../../replay/targets.ts';
import { beforeDeadline } from '../../replay/wait.ts';
import { escapeControlCharacters } from '../../text/control-characters.ts';
import { addAuthOptions, type ClusterOptions, ClusterOptionsError, resolveCluster } from '../cluster.ts';
import { integerOption, invalidArgument, reportUsageErrorsAsJson } from '../usage.ts';

interface ReplayOptions extends ClusterOptions {
  function?: string;
  group?: string;
  esm?: string;
  topic?: string;
  toOffset?: number;
  toDatetime?: string;
  byDuration?: string;
  toEarliest?: boolean;
  toLatest?: boolean;
  toCurrent?: boolean;
  shiftBy?: number;
  fromFile?: string;
  execute?: boolean;
  dryRun?: boolean;
  reason?: string;
  strict?: boolean;
  json?: boolean;
  export?: boolean;
  mappingTimeout?: number;
  groupTimeout?: number;
  restoreTimeout?: number;
}

const EXIT_CODES_HELP = `
Exit codes:
  0  plan printed (dry run), or replay executed and verified
  1  error before anything changed that is not the request's fault (cluster or Lambda API unreachable, …)
  2  invalid request (flags, unknown topic, partition or mapping, plan file, no committed offset to shift from)
  3  refused, nothing changed (group has members, mapping in transition, --strict range, not allowed)
  4  failed mid-way; the mapping is back in its original state; the report (stderr, or --json) says
     whether the offsets are all set, untouched, partly set or unknown, and what they are now
  5  failed mid-way and the mapping could NOT be restored (the report says how long the restore tried,
     up to --restore-timeout, and how to resume the trigger), or the replay function ended without an
     answer (timeout, crash, lost connection) while executing: check the mapping and the offsets now
  6  conflict: another replay of the group ran at the same time; this one changed nothing (plan again)

Examples:
  kafka-lambda replay --brokers 127.0.0.1:9092 --group orders-fn --topic orders --to-earliest
  kafka-lambda replay --brokers 127.0.0.1:9092 --group orders-fn --topic orders --by-duration PT2H --export > plan.csv
  kafka-lambda replay --brokers 127.0.0.1:9092 --group orders-fn --from-file plan.csv --execute --reason INC-42
  kafka-lambda replay --brokers 127.0.0.1:9092 --group orders-fn --topic orders:0,2 --shift-by -100 --execute
  kafka-lambda replay --brokers b-1:9098 --auth iam --esm 14e0db71-… --by-duration PT1H --execute --reason INC-42
  kafka-lambda replay --function orders-replay --to-datetime 2026-11-29T10:00:00Z --execute --reason INC-42
`;

/**
 * `kafka-lambda replay`: plan (dry run) or execute moving a trigger's consumer group to an offset, a time,
 * or a plan file — directly against the cluster (`--brokers`) or through the deployed replay function
 * (`--function`). Flags follow `kafka-consumer-groups --reset-offsets`.
 *
 * @example
 * ```ts
 * registerReplayCommand(program); // kafka-lambda replay --brokers … --group G --topic orders --to-earliest
 * ```
 */
export function registerReplayCommand(program: Command): void {
  const command = program
    .command('replay')
    .description(
      "move a Kafka trigger's consumer group to an offset, a time or a plan file (dry run by default)",
    )
    .option('--function <name|arn>', 'run it in the deployed replay function (Lambda Invoke)')
    .option('--brokers <host:port,…>', 'run it from here against these bootstrap servers')
    .option(
      '--group <id>',
      'consumer group (without --esm: any group, refused while it has members)',
      oneGroup,
    )
    .option(
      '--esm <uuid>',
      'event source mapping: its group and topic; disabled and re-enabled around the change',
    )
    .option(
      '--topic <topic[:p,p]>',
      'topic, optionally a partition subset (required with --group; repeat it for more partitions)',
      oneTopic,
    )
    .option('--to-offset <n>', 'the same offset on every partition', integerOption(0))
    .option(
      '--to-datetime <time>',
      'first record at or after this time (ISO 8601, UTC unless it has a zone, as kafka-consumer-groups reads it; or epoch ms)',
    )
    .option('--by-duration <duration>', 'first record at or after now minus this (ISO 8601, e.g. PT1H30M)')
    .option('--to-earliest', 'first retained record')
    .option('--to-latest', 'log end (skip everything not yet read)')
    .option('--to-current', 'committed offset as it is; log end where the group has none')
    .option(
      '--shift-by <n>',
      'committed offset plus n (negative re-delivers)',
      integerOption(-Number.MAX_SAFE_INTEGER),
    )
    .option('--from-file <csv>', 'plan file: topic,partition,offset lines ("-" reads stdin)')
    .addOption(new Option('--dry-run', 'only print the plan (the default)').conflicts('execute'))
    .option('--execute', 'apply the plan')
    .option('--reason <text>', 'stored with every committed offset (audit trail)')
    .option('--strict', 'refuse targets outside the log instead of clamping them')
    .addOption(new Option('--json', 'print the outcome as JSON on stdout').conflicts('export'))
    .option('--export', 'print the plan as topic,partition,offset lines (what --from-file reads)');
  refuseKafkaToolFlags(command);
  // A usage error is an invalid request, as the ones replay finds itself: the same object and exit code.
  reportUsageErrorsAsJson(command, (message) =>
    print({ ok: false, error: { name: 'ReplayInputError', kind: 'invalid', message } }, { json: true }),
  );
  addAuthOptions(command, 'AWS region for --auth iam and the Lambda API (default: AWS_REGION)')
    .option('--mapping-timeout <seconds>', 'bound on each wait for the mapping', integerOption(1), 300)
    .option(
      '--group-timeout <seconds>',
      'bound on the wait for the group to lose its members',
      integerOption(1),
      300,
    )
    .option(
      '--restore-timeout <seconds>',
      'bound on putting the mapping back to Enabled after a failure (the safety net: --mapping-timeout does not shorten it)',
      integerOption(1),
      300,
    )
    .addHelpText('after', EXIT_CODES_HELP)
    .action(async (options: ReplayOptions) => {
      const outcome = await replay(options).catch(
        (error): ReplayOutcome => ({ ok: false, error: describeReplayError(error) }),
      );
      print(outcome, options);
      process.exitCode = outcome.ok ? 0 : REPLAY_EXIT_CODES[outcome.error.kind];
    });
}

/**
 * Flags of Kafka's `kafka-consumer-groups --reset-offsets` that replay does not take, with what to give
 * instead (`--group`, `--topic` and the targets are spelled as there). Whether a flag takes a value.
 */
const KAFKA_TOOL_FLAGS: Record<string, { value: boolean; instead: string }> = {
  'bootstrap-server': { value: true, instead: 'replay takes the brokers as --brokers <host:port,…>' },
  'all-topics': {
    value: false,
    instead: 'a replay moves one group on one topic (a trigger reads one): give it, e.g. --topic orders',
  },
  'all-groups': {
    value: false,
    instead: 'a replay moves one group (a trigger has one): give it, --group <id> or --esm <uuid>',
  },
  'reset-offsets': {
    value: false,
    instead:
      'replay resets offsets by itself: give the target directly, e.g. --to-earliest (a dry run unless --execute)',
  },
};

/**
 * Kafka's own spellings of what replay takes otherwise: an unknown option, as commander says, with what
 * to give instead (commander's bare "unknown option" would leave the user guessing).
 */
function refuseKafkaToolFlags(command: Command): void {
  for (const [name, { value, instead }] of Object.entries(KAFKA_TOOL_FLAGS)) {
    command.addOption(new Option(`--${name}${value ? ' [value]' : ''}`).hideHelp());
    command.on(`option:${name}`, () =>
      command.error(`error: unknown option '--${name}' (kafka-consumer-groups' spelling): ${instead}`, {
        code: 'commander.unknownOption',
      }),
    );
  }
}

async function replay(options: ReplayOptions): Promise<ReplayOutcome> {
  const modes = [options.function, options.brokers].filter((m) => m !== undefined);
  if (modes.length !== 1) throw new ReplayInputError('give exactly one of --function or --brokers');
  const request = parseReplayRequest(await requestFromFlags(options));
  if (options.function !== undefined) {
    if (request.group !== undefined && request.mapping === undefined && requestTopic(request) === undefined) {
      // The function would say so in its request's words; said here in the flags', without a call.
      throw new ReplayInputError(
        "--group without --esm does not use the function's default mapping: give --topic too, to replay that group on its own, or --esm, to replay the group of an event source mapping",
      );
    }
    return invokeReplayFunction(options.function, request, options);
  }
  return replayDirectly(request, options);
}

const TARGET_FLAGS = {
  toOffset: '--to-offset',
  toDatetime: '--to-datetime',
  byDuration: '--by-duration',
  toEarliest: '--to-earliest',
  toLatest: '--to-latest',
  toCurrent: '--to-current',
  shiftBy: '--shift-by',
  fromFile: '--from-file',
} as const;

/**
 * `--group` given twice: Kafka's tool resets every group named; a replay moves one trigger's group, so a
 * second, different one is refused rather than silently replacing the first.
 */
function oneGroup(value: string, previous: string | undefined): string {
  if (previous !== undefined && previous !== value)
    throw new InvalidArgumentError(
      `one group per replay (a trigger has one): got "${previous}" and "${value}"`,
    );
  return value;
}

/**
 * `--topic` given again, as Kafka's tool takes it (`--topic orders:0 --topic orders:1`): the partitions
 * add up. A second topic is refused: a trigger reads one topic.
 */
function oneTopic(value: string, previous: string | undefined): string {
  if (previous === undefined) return value;
  let first: ReturnType<typeof parseTopicPartitions>;
  let next: ReturnType<typeof parseTopicPartitions>;
  try {
    first = parseTopicPartitions(previous);
    next = parseTopicPartitions(value);
  } catch (error) {
    throw invalidArgument(error instanceof Error ? error.message : String(error), error);
  }
  if (first.topic !== next.topic)
    throw new InvalidArgumentError(
      `one topic per replay (a trigger reads one): got "${first.topic}" and "${next.topic}"`,
    );
  if (first.partitions === undefined || next.partitions === undefined) return first.topic;
  return `${first.topic}:${[...new Set([...first.partitions, ...next.partitions])].sort((a, b) => a - b).join(',')}`;
}

async function requestFromFlags(options: ReplayOptions): Promise<Record<string, unknown>> {
  const targets = Object.keys(TARGET_FLAGS).filter(
    (key) => options[key as keyof typeof TARGET_FLAGS] !== undefined,
  );
  if (targets.length !== 1) {
    throw new ReplayInputError(`give exactly one of ${Object.values(TARGET_FLAGS).join(', ')}`);
  }
  const topic = options.topic === undefined ? undefined : parseTopicPartitions(options.topic);
  const fromFile =
    options.fromFile === undefined
      ? undefined
      : options.fromFile === '-'
        ? await text(process.stdin)
        : await readPlanFile(options.fromFile);
  const request: Record<string, unknown> = {
    mapping: options.esm,
    group: options.group,
    topic: topic?.topic,
    partitions: topic?.partitions,
    toOffset: options.toOffset,
    toDatetime: options.toDatetime,
    byDuration: options.byDuration,
    toEarliest: options.toEarliest,
    toLatest: options.toLatest,
    toCurrent: options.toCurrent,
    shiftBy: options.shiftBy,
    fromFile,
    execute: options.execute === true,
    strict: options.strict === true,
    reason: options.reason,
  };
  return Object.fromEntries(Object.entries(request).filter(([, value]) => value !== undefined));
}

/** A plan file larger than this is refused unread (the request allows 4 million characters). */
const MAX_PLAN_FILE_BYTES = 16 * 1024 * 1024;

async function readPlanFile(path: string): Promise<string> {
  const cannot = (error: Error) => {
    throw new ReplayInputError(`cannot read plan file ${path}: ${error.message}`, { cause: error });
  };
  const { size } = await stat(path).catch(cannot);
  if (size > MAX_PLAN_FILE_BYTES) {
    throw new ReplayInputError(
      `plan file ${path} is ${size} bytes, more than a plan can hold (${MAX_PLAN_FILE_BYTES})`,
    );
  }
  return readFile(path, 'utf8').catch(cannot);
}

/**
 * The replay function runs for up to 15 minutes while the Invoke request waits: the request must not be
 * sent twice (the SDK retries a request whose connection dropped, which would run a relative replay
 * again from where the first left the offsets), must outlive the function, and its idle connection is
 * kept alive by TCP keep-alive probes meanwhile, as AWS advises for long synchronous invocations.
 * https://docs.aws.amazon.com/lambda/latest/dg/invocation-sync.html
 */
const INVOKE_TIMEOUT_MS = 16 * 60_000;

/**
 * The `--function` Lambda client's configuration (exported for its tests).
 *
 * @example
 * ```ts
 * const lambda = new LambdaClient({ ...INVOKE_CLIENT, region });
 * ```
 */
export const INVOKE_CLIENT = {
  maxAttempts: 1,
  requestHandler: {
    connectionTimeout: 10_000,
    requestTimeout: INVOKE_TIMEOUT_MS,
    // Without it, the SDK only logs a warning when the request timeout passes, and waits on.
    throwOnRequestTimeout: true,
    httpsAgent: new HttpsAgent({ keepAlive: true, keepAliveMsecs: 60_000 }),
  },
} as const;

async function invokeReplayFunction(
  name: string,
  request: ReplayRequest,
  options: ReplayOptions,
): Promise<ReplayOutcome> {
  const lambda = await lambdaClient(options, '--function', INVOKE_CLIENT);
  progress(`invoking ${name}${request.execute ? ' (waits for the mapping to disable and re-enable)' : ''}`);
  let response: InvokeCommandOutput;
  const started = Date.now();
  try {
    response = await lambda.send(
      new InvokeCommand({ FunctionName: name, Payload: new TextEncoder().encode(JSON.stringify(request)) }),
    );
  } catch (error) {
    // A request the service refused (no such function, not allowed, throttled) ran nothing; a lost
    // connection or a timeout may have lost the answer of a replay that ran.
    const timedOut = isAwsTimeout(error);
    if (!request.execute || isRefusedRequest(error)) {
      throw timedOut
        ? new AwsApiTimeoutError(lambdaCall('Invoke'), Date.now() - started, 1, { cause: error })
        : error;
    }
    return unknownOutcome(
      name,
      request,
      await mappingOf(lambda, name, request),
      timedOut
        ? `gave no answer in ${Math.round((Date.now() - started) / 1000)} s`
        : `gave no answer (${summarizeError(error).message})`,
    );
  }
  const payload = response.Payload ? new TextDecoder().decode(response.Payload) : '';
  if (response.FunctionError) {
    const { errorType, errorMessage } = parseFunctionError(payload);
    const failure = `${errorType}: ${errorMessage}`;
    if (request.execute) {
      const uuid = await mappingOf(lambda, name, request);
      return unknownOutcome(name, request, uuid, `failed without answering (${failure})`);
    }
    return {
      ok: false,
      error: { name: errorType, kind: 'error', message: `${name} failed: ${errorMessage}` },
    };
  }
  return JSON.parse(payload) as ReplayOutcome;
}

/** Lambda's error payload for a function error (`Unhandled`: a timeout, a crash, an exit). */
function parseFunctionError(payload: string): { errorType: string; errorMessage: string } {
  let parsed: { errorType?: unknown; errorMessage?: unknown } = {};
  try {
    parsed = JSON.parse(payload || '{}') as typeof parsed;
  } catch {
    // Not Lambda's JSON: the payload is the message.
  }
  return {
    errorType: typeof parsed.errorType === 'string' ? parsed.errorType : 'FunctionError',
    errorMessage: typeof parsed.errorMessage === 'string' ? parsed.errorMessage : payload,
  };
}

function isRefusedRequest(error: unknown): boolean {
  return (error as { $fault?: unknown } | undefined)?.$fault === 'client';
}

/** How long finding the function's default mapping after a lost answer may take. */
const FUNCTION_CONFIGURATION_MS = 10_000;

/**
 * The event source mapping a replay function's request went through: the one it names; none (null) for
 * a group without a mapping; else the function's default, the first of its REPLAY_MAPPING_UUID, read
 * with GetFunctionConfiguration (undefined when that cannot be read: no permission, an encrypted
 * environment, no answer). Only that variable is read from the answer.
 */
async function mappingOf(
  lambda: LambdaClient,
  name: string,
  request: ReplayRequest,
): Promise<string | null | undefined> {
  if (request.mapping !== undefined) return request.mapping;
  if (request.group !== undefined) return null;
  try {
    const configuration = await callAwsApi(
      lambdaCall('GetFunctionConfiguration'),
      (abortSignal) =>
        lambda.send(new GetFunctionConfigurationCommand({ FunctionName: name }), { abortSignal }),
      { deadline: Date.now() + FUNCTION_CONFIGURATION_MS },
    );
    const first = configuration.Environment?.Variables?.REPLAY_MAPPING_UUID?.split(',')[0]?.trim();
    // Printed in a command to run: only what a mapping UUID can be.
    return first && /^[A-Za-z0-9-]{1,64}$/.test(first) ? first : undefined;
  } catch {
    return undefined;
  }
}

/**
 * An executing replay that ended without an answer (the function timed out, crashed, or the answer was
 * lost) may have stopped anywhere between pausing the trigger and resuming it: exit 5, with what to check
 * and how to resume. `uuid`: the mapping it went through (null: none; undefined: unknown here).
 */
function unknownOutcome(
  name: string,
  request: ReplayRequest,
  uuid: string | null | undefined,
  what: string,
): ReplayOutcome {
  const offsets = `the offsets: kafka-lambda replay --function ${name} --to-current${request.group === undefined ? '' : ` --group ${request.group}`}${uuid === null ? ` --topic ${requestTopic(request)}` : ''} (NOTES shows this replay's audit record where it committed)`;
  if (uuid === null) {
    return outcomeUnknown([
      `${name} ${what}: the replay may have stopped before or after committing the offsets (no trigger was paused: the request names a group without a mapping).`,
      'Check them before anything else:',
      `  ${offsets}`,
    ]);
  }
  const mapping = uuid ?? '<mapping uuid>';
  return outcomeUnknown([
    `${name} ${what}: the replay may have stopped anywhere between pausing the trigger and resuming it.`,
    'Check both before anything else:',
    `  the mapping: aws lambda get-event-source-mapping --uuid ${mapping} (resume it if Disabled: ${enableMappingCommand(mapping)})${uuid === undefined ? `; ${name}'s default mapping is the first of its REPLAY_MAPPING_UUID (lambda:GetFunctionConfiguration would have named it)` : ''}`,
    `  ${offsets}`,
  ]);
}

function outcomeUnknown(lines: string[]): ReplayOutcome {
  return {
    ok: false,
    error: { name: 'ReplayOutcomeUnknownError', kind: 'failed-unrestored', message: lines.join('\n') },
  };
}

async function replayDirectly(request: ReplayRequest, options: ReplayOptions): Promise<ReplayOutcome> {
  if (request.mapping === undefined && (request.group === undefined || requestTopic(request) === undefined)) {
    throw new ReplayInputError('give --esm, or --group with --topic');
  }
  // Each mapping call is bounded (and retried on throttling and timeouts) so that a hung request cannot
  // eat the waits.
  const lambda = request.mapping ? await lambdaClient(options, '--esm', awsApiClientConfig()) : undefined;
  const abort = new AbortController();
  const stopSignals = request.execute ? interruptible(abort, request.mapping) : () => {};
  try {
    return await runReplay(request, {
      connection: () => connection(options),
      lambda,
      timeouts: {
        mappingMs: (options.mappingTimeout ?? 300) * 1000,
        groupMs: (options.groupTimeout ?? 300) * 1000,
        restoreMs: (options.restoreTimeout ?? 300) * 1000,
      },
      signal: abort.signal,
      onProgress: (p) => progress(`${p.step}: ${p.message}`),
    });
  } finally {
    stopSignals();
  }
}

/** The signals that end a command: Ctrl-C, `kill`/`timeout`/a CI cancel, and a closed terminal. */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
const SIGNAL_NUMBERS = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 } as const;

/**
 * While a replay executes, a stop signal aborts it, which restores the mapping; a second one says what
 * is still being done and how to resume the trigger by hand; a third quits at once, saying it again.
 * Returns the function that removes the handlers.
 */
function interruptible(abort: AbortController, mapping: string | undefined): () => void {
  let received = 0;
  const resume =
    mapping === undefined
      ? ''
      : `; mapping ${mapping} may be left Disabled: resume it with ${enableMappingCommand(mapping)}`;
  const onSignal = (signal: (typeof STOP_SIGNALS)[number]) => {
    received++;
    if (received === 1) {
      progress(`${signal}: stopping${mapping === undefined ? '' : ' and restoring the mapping'}`);
      abort.abort();
    } else if (received === 2) {
      progress(`${signal}: still stopping; send it again to quit at once${resume}`);
    } else {
      progress(`${signal}: quitting${resume}`);
      process.exit(128 + SIGNAL_NUMBERS[signal]);
    }
  };
  for (const signal of STOP_SIGNALS) process.on(signal, onSignal);
  return () => {
    for (const signal of STOP_SIGNALS) process.off(signal, onSignal);
  };
}

/** How long finding AWS credentials may take (the chain ends with the instance metadata service). */
const CREDENTIALS_MS = 10_000;

/**
 * A Lambda API client whose region and credentials are known to be there: without them, the SDK would
 * retry for half a minute and end with an error whose message the answer withholds.
 */
async function lambdaClient(
  options: ReplayOptions,
  flag: string,
  config: ConstructorParameters<typeof LambdaClient>[0] = {},
): Promise<LambdaClient> {
  const lambda = new LambdaClient({ ...config, ...(options.region && { region: options.region }) });
  const region = await lambda.config.region().catch(() => '');
  if (!region) {
    throw new ReplayInputError(
      `${flag} calls the Lambda API and needs an AWS region: give --region or set AWS_REGION`,
    );
  }
  try {
    await beforeDeadline('AWS credentials', Date.now() + CREDENTIALS_MS, lambda.config.credentials());
  } catch (error) {
    throw new ReplayError(
      `${flag} calls the Lambda API and found no AWS credentials (environment variables, shared credentials or config file, SSO, container or instance role)`,
      { cause: error },
    );
  }
  return lambda;
}

/**
 * The cluster of `--brokers` and the authentication flags, as every command reads them; flags it cannot
 * use are an invalid request (exit 2).
 */
async function connection(options: ReplayOptions): Promise<KafkaConnection> {
  const cluster = await resolveCluster(options, { command: 'replay' }).catch((error: unknown) => {
    if (error instanceof ClusterOptionsError) throw new ReplayInputError(error.message, { cause: error });
    throw error;
  });
  return { brokers: cluster.brokers, auth: cluster.auth };
}

/**
 * A message as it is printed: control characters escaped, its own newlines kept. Messages may quote text
 * read from the broker or answered by a replay function (of another version, say).
 */
const printable = (message: string) => escapeControlCharacters(message, { keep: '\n' });

function progress(message: string): void {
  console.error(`[replay] ${printable(message)}`);
}

function print(
  outcome: ReplayOutcome,
  options: Pick<ReplayOptions, 'json' | 'export' | 'function' | 'esm'>,
): void {
  if (options.json) {
    // JSON.stringify escapes C0 controls; the others (DEL, C1, separators, bidi) can only be inside
    // strings, where their \u escapes read back the same.
    console.log(escapeControlCharacters(JSON.stringify(outcome, null, 2), { keep: '\n' }));
    return;
  }
  if (options.export && outcome.ok) {
    // stdout is the plan file; what the table's NOTES would say (a target clamped to the log, …) goes
    // to stderr, so a reviewed file never hides it.
    for (const p of outcome.plan.partitions) {
      console.log(`${outcome.plan.topic},${p.partition},${p.target}`);
      for (const warning of p.warnings) progress(`note: partition ${p.partition}: ${warning.message}`);
    }
    return;
  }
  if (!outcome.ok) {
    const { error } = outcome;
    if (error.issues) {
      console.error('kafka-lambda replay: invalid request');
      for (const issue of error.issues) console.error(`  - ${printable(asFlags(issue))}`);
    } else {
      console.error(`kafka-lambda replay: ${printable(error.message)}`);
    }
    if (error.report) {
      const r = error.report;
      console.error(`  failed step: ${r.failedStep}`);
      console.error(
        `  offsets: ${r.offsets}${r.offsetsNow ? ` (now ${r.offsetsNow.map((o) => `${o.partition}:${o.offset ?? '-'}`).join(' ')})` : ''}`,
      );
      if (r.mappingStateBefore !== null) {
        console.error(
          `  mapping: was ${r.mappingStateBefore}, now ${r.mappingStateNow ?? 'unknown'}${r.mappingRestored ? '' : ' — NOT restored'}`,
        );
      }
      if (r.restore) {
        const seconds = (ms: number) => `${Math.round(ms / 1000)} s`;
        console.error(
          r.mappingRestored
            ? `  restore: back to ${r.mappingStateNow} in ${seconds(r.restore.ms)}`
            : `  restore: gave up after ${seconds(r.restore.ms)} (bound: ${seconds(r.restore.timeoutMs)}; ${options.function === undefined ? '--restore-timeout' : "the function's REPLAY_RESTORE_TIMEOUT_MS"})`,
        );
      }
      if (r.restoreError) console.error(`  restore failed: ${printable(r.restoreError.message)}`);
      if (!r.mappingRestored && r.mappingStateBefore === 'Enabled') {
        const uuid = r.mappingUuid ?? options.esm ?? '<mapping uuid>';
        console.error(`  to resume the trigger: ${resumeMappingAdvice(uuid, r.mappingStateNow)}`);
      }
    }
    return;
  }
  const { plan } = outcome;
  const where = `group ${plan.groupId} on ${plan.topic}${outcome.mapping ? ` (mapping ${outcome.mapping.uuid}, ${outcome.mapping.stateAfter})` : ''}`;
  console.log(
    outcome.executed
      ? `Replayed ${where}: ${plan.totals.changed} of ${plan.totals.partitions} partition(s) moved.`
      : `Plan for ${where} (dry run: nothing changed; add --execute to apply):`,
  );
  if (!outcome.executed) for (const note of dryRunNotes(plan, outcome.mapping)) console.log(note);
  if (outcome.mapping?.stateAfter === 'Disabled') {
    // Possibly paused by hand, possibly left so by a replay that was killed mid-way: either way the
    // trigger reads nothing until someone enables it, which this replay does not do for a mapping it
    // did not disable.
    const { uuid } = outcome.mapping;
    console.log(
      `Mapping ${uuid} is Disabled and ${outcome.executed ? 'stays' : 'would stay'} so: its trigger reads nothing until it is enabled (${enableMappingCommand(uuid)}).`,
    );
  }
  console.log(planTable(plan, outcome.executed));
  console.log(planSummary(plan, outcome.executed));
}

/**
 * The line under the plan's table: records re-delivered and skipped, and on how many partitions that is
 * unknown (no committed offset, and no mapping's StartingPosition to count from: `?` in the table).
 *
 * @example
 * ```ts
 * planSummary(plan, false); // '21 record(s) would be delivered again, 0 skipped.'
 * ```
 */
export function planSummary(plan: ReplayPlan, executed: boolean): string {
  const { redeliver, skip, unknown } = plan.totals;
  const counted = `${redeliver} record(s) ${executed ? 'will be' : 'would be'} delivered again, ${skip} skipped`;
  if (unknown === 0) return `${counted}.`;
  return `${counted} on the partitions with a committed offset; unknown (?) on ${unknown} partition(s) without one: there the trigger's StartingPosition decides (counted from it when the mapping is given, --esm).`;
}

/**
 * A plan as a table, one row per partition (COMMITTED becomes PREVIOUS once executed).
 *
 * @example
 * ```ts
 * console.log(planTable(await planReplay({ kafka, groupId, topic, target: { kind: 'earliest' } }), false));
 * ```
 */
export function planTable(plan: ReplayPlan, executed: boolean): string {
  const table = new Table({
    head: [
      'PARTITION',
      executed ? 'PREVIOUS' : 'COMMITTED',
      'LOW',
      'HIGH',
      'TARGET',
      'RE-DELIVER',
      'SKIP',
      'NOTES',
    ],
    style: { head: [], border: [] },
    chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
  });
  for (const p of plan.partitions) {
    table.push([
      p.partition,
      p.committed ?? '-',
      p.low,
      p.high,
      p.target,
      p.redeliver ?? '?',
      p.skip ?? '?',
      notes(p),
    ]);
  }
  return table.toString();
}

/**
 * What a dry run says `--execute` would meet now: a mapping in transition (refused before anything
 * changes), and the group's members (waited for, or refused).
 *
 * @example
 * ```ts
 * for (const note of dryRunNotes(outcome.plan, outcome.mapping)) console.log(note);
 * ```
 */
export function dryRunNotes(
  plan: ReplayPlan,
  mapping: { uuid: string; stateBefore: string } | null,
): string[] {
  const state = mapping?.stateBefore;
  if (mapping && state !== 'Enabled' && state !== 'Disabled') {
    // As checkMapping refuses it when executing: before anything is touched.
    return [
      `Mapping ${mapping.uuid} is ${state}, not Enabled or Disabled: --execute would be refused now, changing nothing (exit 3); retry once it is Enabled or Disabled.`,
    ];
  }
  if (plan.members === 0) return [];
  const group = `Group ${plan.groupId} is ${plan.groupState} with ${plan.members} member(s)`;
  if (plan.heldByReplay) {
    return [
      `${group}: another replay holds it right now; --execute would be refused as a conflict (exit 6) until it is done.`,
    ];
  }
  if (state === 'Enabled') {
    return [`${group}: --execute disables mapping ${mapping?.uuid} first and waits for them to leave.`];
  }
  if (state === 'Disabled') {
    // Nothing to disable: the members are not the mapping's pollers (or ones still leaving).
    return [
      `${group} although mapping ${mapping?.uuid} is already Disabled: --execute does not touch the mapping; it waits for them to leave (the group timeout) and is refused (exit 3) if they stay.`,
    ];
  }
  return [
    `${group}: --execute will be refused while it has members (stop its consumers, or give --esm to disable the mapping around the change).`,
  ];
}

// The request's JSON fields, as the flags that set them (for messages about a command line).
const FLAGS: Record<string, string> = {
  ...TARGET_FLAGS,
  mapping: '--esm',
  group: '--group',
  topic: '--topic',
  partitions: '--topic',
  reason: '--reason',
};

/**
 * An issue of the request as the command line's words: its field (before the first `: `) as the flag
 * that sets it, and in the message only camelCase field names (`toOffset`). Words such as "topic" or
 * "group" in a message are English there, and quoted text is the user's own, so both stay as written.
 */
function asFlags(issue: string): string {
  const colon = issue.indexOf(': ');
  const [field, message] = colon < 0 ? ['', issue] : [issue.slice(0, colon), issue.slice(colon)];
  return (
    (FLAGS[field] ?? field) +
    message.replace(/"(?:[^"\\]|\\.)*"|\b[a-z]+[A-Z][a-zA-Z]*\b/g, (word) => FLAGS[word] ?? word)
  );
}

function notes(p: PartitionPlan): string {
  const lines = p.warnings.map((w) => w.message);
  // Anyone who may commit to the group can write metadata that reads as an audit record: its text is
  // shown with control characters escaped (a newline too: it would break the table).
  const audit = parseReplayMetadata(p.committedMetadata);
  if (audit)
    lines.push(
      escapeControlCharacters(
        `last replay ${audit.at} from ${audit.previous ?? '-'}${audit.reason ? `: ${audit.reason}` : ''}`,
      ),
    );
  return lines.join('\n');
}
