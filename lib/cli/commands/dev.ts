import { connect } from 'node:net';
import { constants } from 'node:os';
import { relative } from 'node:path';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { ensureTopics, TopicMissingError } from '../../broker/index.ts';
import {
  createLocalEventSourceMapping,
  describeEvent,
  type FilterCriteria,
  formatProgress,
  InvalidMappingSettingError,
  LAMBDA_LIMITS,
  type LocalEventSourceMapping,
  type LocalEventSourceMappingOptions,
  type MappingEvent,
  type MappingFunction,
  type ProgressSample,
  parseDestination,
  provisionedOnlySettings,
  type Redelivery,
  type StartingPosition,
  type TombstoneValue,
} from '../../emulator/index.ts';
import { DEFAULT_MEMORY_MB, HandlerInitError, HandlerNotFoundError } from '../../lambda-runtime/index.ts';
import {
  addClusterOptions,
  ClusterConnectError,
  type ClusterOptions,
  ClusterOptionsError,
  probeCluster,
  type ResolvedCluster,
  resolveCluster,
} from '../cluster.ts';
import { redirectConsole } from '../console.ts';
import { displayUrl } from '../display-url.ts';
import {
  DOTENV_OPTION,
  ENV_VARS_OPTION,
  FunctionEnvironmentError,
  readFunctionEnvironment,
} from '../function-environment.ts';
import { prepareLocalFunction, useFunctionTimeZone } from '../local-function.ts';
import {
  exitWithUsageCode,
  integerOption,
  invalidArgument,
  printableErrorMessage,
  USAGE_EXIT_CODE,
} from '../usage.ts';
import { watchFiles } from '../watch-files.ts';
import { resolveSqsEndpoint } from './sqs.ts';

interface DevOptions extends ClusterOptions {
  topic: string;
  group?: string;
  batchSize?: number;
  window?: number;
  startingPosition: StartingPosition;
  startingTimestamp?: number;
  reportBatchItemFailures: boolean;
  retries: number;
  minPollers?: number;
  maxPollers?: number;
  maxRecordAge: number;
  bisect: boolean;
  onFailure?: string;
  sqsEndpoint?: string;
  selfManaged: boolean;
  tombstoneValue: TombstoneValue;
  timeout: number;
  redelivery: Redelivery;
  functionName: string;
  memory: number;
  inProcess: boolean;
  watch: boolean;
  dotenv: string[];
  envVars?: string;
  invoke?: string;
  endpoint?: string;
  partitions: number;
  exitWhenIdle: boolean;
  filter?: FilterCriteria;
  schemaRegistry?: string;
  eventRecordFormat: 'JSON' | 'SOURCE';
  schemaValidation: Array<'KEY' | 'VALUE'>;
}

/** `--filter`: Lambda's `FilterCriteria` JSON (`{"Filters":[{"Pattern":…}]}`) or one pattern. */
function filterOption(text: string): FilterCriteria {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw invalidArgument(
      'not JSON: give FilterCriteria ({"Filters":[{"Pattern":"…"}]}) or one pattern',
      error,
    );
  }
  if (parsed !== null && typeof parsed === 'object' && 'Filters' in parsed) return parsed as FilterCriteria;
  return { Filters: [{ Pattern: text }] };
}

/** `--schema-validation KEY,VALUE`: the attributes of `SchemaValidationConfigs`. */
function attributesOption(text: string): Array<'KEY' | 'VALUE'> {
  const attributes = text.split(',').map((part) => part.trim().toUpperCase());
  for (const attribute of attributes)
    if (attribute !== 'KEY' && attribute !== 'VALUE')
      throw new InvalidArgumentError(`"${attribute}" is not KEY or VALUE`);
  return attributes as Array<'KEY' | 'VALUE'>;
}

/** `--timeout`: seconds, as a Kafka trigger allows them (refused when parsed, before any server starts). */
function timeoutOption(value: string): number {
  const seconds = Number(value);
  const { max } = LAMBDA_LIMITS.kafkaFunctionTimeoutSeconds;
  if (value.trim() === '' || !(seconds > 0 && seconds <= max))
    throw new InvalidArgumentError(
      `must be a number of seconds above 0 and at most ${max} (Kafka triggers refuse longer timeouts)`,
    );
  return seconds;
}

function numberOption(value: string): number {
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number)) throw new InvalidArgumentError('must be a number');
  return number;
}

/** The forms `--on-failure` takes, as `dev --help` lists them. */
const ON_FAILURE_FORMS = 'kafka://<topic>, or an SQS queue ARN (arn:aws:sqs:<region>:<account-id>:<queue>)';

/**
 * `--on-failure` read as `dev --help` offers it: a Kafka topic or an SQS queue. An SNS topic or S3 bucket
 * ARN is a destination Lambda takes, but dev has no local server to send to; anything else is no
 * destination at all. The problem is said in the flag's terms, not the emulator option's.
 */
function onFailureDestination(
  value: string,
  sourceTopic: string,
): { destination: ReturnType<typeof parseDestination> } | { problem: string } {
  let destination: ReturnType<typeof parseDestination>;
  try {
    destination = parseDestination(value, sourceTopic);
  } catch (error) {
    if (!(error instanceof InvalidMappingSettingError)) throw error;
    // A FIFO queue, or the source topic itself: the reason holds for the flag as written.
    if (/FIFO|must differ/.test(error.message))
      return { problem: error.message.slice(`${error.setting}: `.length) };
    return { problem: `expected ${ON_FAILURE_FORMS}, got ${JSON.stringify(value)}` };
  }
  if (destination.kind === 'sns' || destination.kind === 's3')
    return {
      problem: `dev sends failed records to ${ON_FAILURE_FORMS}; an ${destination.kind === 'sns' ? 'SNS topic' : 'S3 bucket'} is a destination Lambda takes, but dev has no local ${destination.kind === 'sns' ? 'SNS' : 'S3'} server to send to`,
    };
  return { destination };
}

/** The flags (option name, flag) that describe a local handler: a function called with --invoke takes none. */
const LOCAL_FUNCTION_FLAGS = [
  ['dotenv', '--dotenv'],
  ['envVars', '--env-vars'],
  ['timeout', '--timeout'],
  ['memory', '--memory'],
  ['functionName', '--function-name'],
  ['inProcess', '--in-process'],
] as const;

/** How long `--endpoint` is given to accept a connection before dev starts. */
const ENDPOINT_CONNECT_MS = 5_000;

/**
 * Why the Invoke API at `--endpoint` cannot be called, or undefined when it accepts a connection. Only a
 * TCP connection is made: an invocation would run the function's code.
 */
async function endpointProblem(endpoint: string): Promise<string | undefined> {
  let url: URL | undefined;
  try {
    url = new URL(endpoint);
  } catch {}
  if (url?.protocol !== 'http:' && url?.protocol !== 'https:')
    return "--endpoint: not an http(s) URL; give the Invoke API's, e.g. http://127.0.0.1:3001 (sam local start-lambda)";
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const where = `--endpoint ${displayUrl(endpoint)}`;
  const fix = 'start the Invoke API there first (e.g. sam local start-lambda), or correct --endpoint';
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (problem: string | undefined) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(problem);
    };
    const timer = setTimeout(
      () => done(`${where}: no connection to ${url.host} within ${ENDPOINT_CONNECT_MS / 1000} s: ${fix}`),
      ENDPOINT_CONNECT_MS,
    );
    socket.once('connect', () => done(undefined));
    socket.once('error', (error: NodeJS.ErrnoException) => {
      const code = error.code ?? error.message;
      done(
        code === 'ENOTFOUND' || code === 'EAI_AGAIN'
          ? `${where}: the host ${url.hostname} does not resolve (${code}): ${fix}`
          : code === 'ECONNREFUSED'
            ? `${where}: nothing accepts connections at ${url.host} (ECONNREFUSED): ${fix}`
            : `${where}: cannot connect to ${url.host} (${code}): ${fix}`,
      );
    });
  });
}

/**
 * The client that `--invoke` without `--endpoint` calls AWS with, once the SDK has found its credentials
 * (resolved here once; the client keeps them), or why it found none.
 */
async function awsInvokeClient(
  functionName: string,
): Promise<{ client: LambdaClient } | { problem: string }> {
  // As the emulator makes its own client: AWS_REGION, else us-east-1.
  const client = new LambdaClient({ region: process.env.AWS_REGION ?? 'us-east-1' });
  try {
    await client.config.credentials();
    return { client };
  } catch (error) {
    client.destroy();
    const { name, message } = error instanceof Error ? error : { name: 'Error', message: String(error) };
    const reason = printableErrorMessage(`${name}: ${message.split('\n')[0]}`);
    return {
      problem: `--invoke ${printableErrorMessage(functionName)} calls the AWS Lambda Invoke API, and the AWS SDK could not get credentials (${reason}): set AWS_PROFILE (after aws configure or aws sso login) or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or give --endpoint for a local Invoke API (sam local start-lambda)`,
    };
  }
}

/** Options that are settings of the trigger's schema registry: they mean nothing without `--schema-registry`. */
const SCHEMA_REGISTRY_SETTINGS = [
  ['eventRecordFormat', '--event-record-format'],
  ['schemaValidation', '--schema-validation'],
] as const;

/** What `dev --help` ends with. */
const DEV_HELP = `
Exit codes:
  0    stopped: idle with --exit-when-idle, or (without it) stopped cleanly by Ctrl-C, SIGTERM or
       SIGHUP (in-flight batches finished and committed)
  1    the cluster cannot be reached (nothing listens, not Kafka, TLS or authentication failed),
       or the run failed otherwise (the message says what)
  2    bad usage: options, a handler module or export that does not load, a topic missing on a
       cluster dev does not own, an --endpoint that accepts no connection, no AWS credentials
       for --invoke without --endpoint
  130  a Ctrl-C stopped --exit-when-idle before the run was idle (stopped cleanly: not drained),
       a second Ctrl-C abandoned the in-flight batches, or a Ctrl-C during start-up quit at once
       (143 for SIGTERM, 129 for SIGHUP)

Examples:
  $ kafka-lambda dev functions/orders/handler.ts --topic orders --report-batch-item-failures
  $ kafka-lambda dev --invoke orders-fn --endpoint http://127.0.0.1:3001 --topic orders`;

/** How often `dev` checks that the process that started it is still there. */
const PARENT_CHECK_MS = 1_000;

/**
 * Draws the progress: on a TTY one line rewritten in place with event lines printed above it; else
 * event lines and a progress line every few seconds when something changed.
 */
function createDisplay(trigger: () => LocalEventSourceMapping | undefined) {
  const tty = process.stderr.isTTY === true;
  // The rate is measured over the last few seconds, so one slow batch does not make it jump.
  const samples: ProgressSample[] = [];
  let lastLine = '';
  let drawn = false;
  const sample = (): ProgressSample | undefined => {
    const current = trigger();
    return current ? { at: Date.now(), stats: current.stats() } : undefined;
  };
  const clear = () => {
    if (tty && drawn) process.stderr.write('\r\x1b[2K');
    drawn = false;
  };
  const draw = () => {
    const current = sample();
    if (!current) return;
    while (samples.length > 1 && samples[1]!.at <= current.at - 3_000) samples.shift();
    const line = formatProgress(samples[0], current, tty ? (process.stderr.columns || 120) - 1 : undefined);
    samples.push(current);
    if (tty) {
      clear();
      process.stderr.write(line);
      drawn = true;
    } else if (line.replace(/^\S+ rec\/s/, '') !== lastLine.replace(/^\S+ rec\/s/, '')) {
      process.stderr.write(`${new Date().toISOString()} ${line}\n`);
    }
    lastLine = line;
  };
  const timer = setInterval(draw, tty ? 500 : 5_000);
  // The handler's own logs (console.*) go above the live line rather than through it.
  const restoreConsole = redirectConsole((original) =>
    tty
      ? (...args) => {
          const redraw = drawn;
          clear();
          original(...args);
          if (redraw) {
            process.stderr.write(lastLine);
            drawn = true;
          }
        }
      : original,
  );
  return {
    event(event: MappingEvent) {
      const line = describeEvent(event, { trace: true });
      if (!line) return;
      const redraw = drawn;
      clear();
      process.stderr.write(`${tty ? '' : `${new Date().toISOString()} `}${line}\n`);
      if (redraw) {
        process.stderr.write(lastLine);
        drawn = true;
      }
    },
    /** Ends the display, with a last progress line when the run got under way (`final`). */
    close(final: boolean) {
      clearInterval(timer);
      restoreConsole();
      if (!final) clear();
      else {
        draw();
        if (tty) process.stderr.write('\n');
      }
    },
  };
}

/**
 * `kafka-lambda dev`: runs a handler against a topic through the trigger emulator, with
 * a live progress line.
 *
 * @example
 * ```ts
 * registerDevCommand(program); // kafka-lambda dev functions/orders/handler.ts --topic orders --report-batch-item-failures
 * ```
 */
export function registerDevCommand(program: Command): void {
  // --brokers and the auth flags; without a broker given or running, dev starts an embedded one for the run.
  addClusterOptions(program.command('dev'))
    .description(
      "run a handler (in a Lambda-like sandbox, or --in-process), or a function through the Lambda Invoke API, against a topic exactly as Lambda's Kafka trigger would; Ctrl-C stops cleanly",
    )
    .argument(
      '[handler]',
      'module and export, e.g. functions/orders/handler.ts#handler (export "handler" by default)',
    )
    .requiredOption('-t, --topic <topic>', 'the topic to read')
    .option('-g, --group <id>', 'consumer group id (default kafka-lambda-dev-<topic>)')
    .option('--batch-size <n>', 'BatchSize, 1–10000 (default 100)', integerOption(1, 10_000))
    .option(
      '--window <seconds>',
      `MaximumBatchingWindowInSeconds, whole seconds ${LAMBDA_LIMITS.batchingWindowSeconds.min}–${LAMBDA_LIMITS.batchingWindowSeconds.max} (not set: Lambda's Kafka default, ${LAMBDA_LIMITS.batchingWindowSeconds.defaultMs} ms)`,
      integerOption(LAMBDA_LIMITS.batchingWindowSeconds.min, LAMBDA_LIMITS.batchingWindowSeconds.max),
    )
    .addOption(
      new Option(
        '--starting-position <position>',
        'StartingPosition for a group without valid committed offsets (none, or outside the log)',
      )
        .choices(['TRIM_HORIZON', 'LATEST', 'AT_TIMESTAMP'] satisfies StartingPosition[])
        .default('TRIM_HORIZON'),
    )
    .option(
      '--starting-timestamp <unix-seconds>',
      'StartingPositionTimestamp (with AT_TIMESTAMP)',
      numberOption,
    )
    .option('--report-batch-item-failures', 'FunctionResponseTypes: ReportBatchItemFailures', false)
    .option(
      '--retries <n>',
      `MaximumRetryAttempts, -1 (infinite; ${LAMBDA_LIMITS.maximumRetryAttempts.infiniteWithDestination} with --on-failure, as Lambda caps it) or 0–10000`,
      integerOption(-1, 10_000),
      LAMBDA_LIMITS.maximumRetryAttempts.infinite,
    )
    .option(
      '--max-record-age <seconds>',
      'MaximumRecordAgeInSeconds, -1 (no limit) or 60–604800',
      integerOption(-1, 604_800),
      LAMBDA_LIMITS.maximumRecordAgeSeconds.infinite,
    )
    .option('--bisect', 'BisectBatchOnFunctionError', false)
    .option(
      '--min-pollers <n>',
      'provisioned mode: ProvisionedPollerConfig MinimumPollers, 1–200 (default 1 with --max-pollers)',
      integerOption(1, 200),
    )
    .option(
      '--max-pollers <n>',
      'provisioned mode: MaximumPollers, 1–2000 (default 200); each poller runs 5 invocations at once at most',
      integerOption(1, 2_000),
    )
    .option(
      '--on-failure <destination>',
      'on-failure destination: kafka://<topic>, or an SQS queue ARN (sent to a local SQS server)',
    )
    .option(
      '--sqs-endpoint <url>',
      'SQS API for an SQS --on-failure (default: AWS_ENDPOINT_URL_SQS, the server of kafka-lambda sqs start, or one started for this run)',
    )
    .option(
      '--self-managed',
      'self-managed Kafka events (eventSource SelfManagedKafka) instead of MSK',
      false,
    )
    .addOption(
      new Option(
        '--tombstone-value <form>',
        'a tombstone\'s value in events: null ("value": null) or absent (no value field); Lambda events have been seen both ways',
      )
        .choices(['null', 'absent'] satisfies TombstoneValue[])
        .default('null'),
    )
    .option(
      '--timeout <seconds>',
      `function timeout, enforced: a late handler is a function error; above 0, at most ${LAMBDA_LIMITS.kafkaFunctionTimeoutSeconds.max}`,
      timeoutOption,
      30,
    )
    .addOption(
      new Option(
        '--redelivery <reading>',
        'several failed offsets in a partition: resume from the lowest (Kafka reading) or retry only the listed records',
      )
        .choices(['from-lowest', 'listed'] satisfies Redelivery[])
        .default('from-lowest'),
    )
    .option('--function-name <name>', 'function name in the context', 'local-function')
    .option(
      '--memory <MB>',
      'memory size in the context and AWS_LAMBDA_FUNCTION_MEMORY_SIZE',
      integerOption(LAMBDA_LIMITS.functionMemoryMB.min, LAMBDA_LIMITS.functionMemoryMB.max),
      DEFAULT_MEMORY_MB,
    )
    .option(
      '--in-process',
      'run the handler in this process (for debuggers) instead of in Lambda-like sandbox environments; a handler past its timeout cannot be stopped there',
      false,
    )
    .addOption(DOTENV_OPTION)
    .addOption(ENV_VARS_OPTION)
    .option(
      '--watch',
      "on a change to the function's files, run its next invocations in new environments (as after a deploy)",
      false,
    )
    .option(
      '--invoke <function>',
      'invoke this function through the Lambda Invoke API instead of a local handler',
    )
    .option(
      '--endpoint <url>',
      'Invoke API endpoint for --invoke (e.g. sam local start-lambda at http://127.0.0.1:3001)',
    )
    .option(
      '--partitions <n>',
      'partitions of a topic dev creates on a broker it owns',
      integerOption(1, 1_000),
      3,
    )
    .option('--exit-when-idle', 'stop once every record produced before start is done (scripts, CI)', false)
    .option(
      '--filter <criteria>',
      'FilterCriteria on the value: Lambda JSON ({"Filters":[{"Pattern":"…"}]}) or one pattern',
      filterOption,
    )
    .option(
      '--schema-registry <url>',
      'SchemaRegistryConfig: resolve and deserialize records in this Confluent-compatible registry first',
    )
    .addOption(
      new Option('--event-record-format <format>', 'EventRecordFormat with --schema-registry')
        .choices(['JSON', 'SOURCE'] as const)
        .default('JSON'),
    )
    .option(
      '--schema-validation <attributes>',
      'SchemaValidationConfigs with --schema-registry: KEY, VALUE or KEY,VALUE',
      attributesOption,
      ['VALUE'],
    )
    .addHelpText('after', DEV_HELP)
    .exitOverride(exitWithUsageCode)
    .action(async (handlerReference: string | undefined, options: DevOptions, command: Command) => {
      if (!handlerReference === !options.invoke) {
        process.stderr.write('kafka-lambda dev: give either a handler module or --invoke <function>\n');
        process.exitCode = USAGE_EXIT_CODE;
        return;
      }
      if (options.watch && (options.invoke || options.inProcess)) {
        process.stderr.write(
          `kafka-lambda dev: --watch reloads a handler module run in the sandbox; ${options.invoke ? 'a function called with --invoke is deployed' : 'a module imported in this process (--in-process) cannot be loaded again'}\n`,
        );
        process.exitCode = USAGE_EXIT_CODE;
        return;
      }
      // Flags that configure one kind of target, given for the other, would be silently ignored.
      const given = (name: string) => !['default', undefined].includes(command.getOptionValueSource(name));
      const misplaced = options.invoke
        ? LOCAL_FUNCTION_FLAGS.filter(([name]) => given(name)).map(([, flag]) => flag)
        : [];
      if (misplaced.length > 0) {
        process.stderr.write(
          `kafka-lambda dev: ${misplaced.join(', ')} ${misplaced.length === 1 ? 'sets' : 'set'} up a local handler; a function called with --invoke has its own configuration\n`,
        );
        process.exitCode = USAGE_EXIT_CODE;
        return;
      }
      if (!options.invoke && given('endpoint')) {
        process.stderr.write(
          'kafka-lambda dev: --endpoint is the Invoke API of a function given with --invoke; a handler module runs here\n',
        );
        process.exitCode = USAGE_EXIT_CODE;
        return;
      }
      for (const [name, flag] of SCHEMA_REGISTRY_SETTINGS) {
        const source = command.getOptionValueSource(name);
        if (options.schemaRegistry === undefined && source !== undefined && source !== 'default') {
          process.stderr.write(
            `kafka-lambda dev: ${flag} needs --schema-registry (it is a setting of the trigger's schema registry)\n`,
          );
          process.exitCode = USAGE_EXIT_CODE;
          return;
        }
      }
      // Checked first: a destination dev cannot send to is a usage error before any server starts.
      let onFailure: ReturnType<typeof parseDestination> | undefined;
      if (options.onFailure !== undefined) {
        const checked = onFailureDestination(options.onFailure, options.topic);
        if ('problem' in checked) {
          process.stderr.write(`kafka-lambda dev: --on-failure: ${checked.problem}\n`);
          process.exitCode = USAGE_EXIT_CODE;
          return;
        }
        onFailure = checked.destination;
      }
      // Until the run is under way, a signal (Ctrl-C while the broker starts, say) ends dev at once; its
      // exit ends what it started (an embedded broker's watchdog stops the JVM; its cleanup process then
      // removes the folder).
      const quitDuringStart = (signal: NodeJS.Signals) => {
        process.stderr.write(`\nkafka-lambda dev: ${signal} during start-up: quitting\n`);
        process.exit(128 + constants.signals[signal]);
      };
      const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
      for (const signal of STOP_SIGNALS) process.on(signal, quitDuringStart);
      // A dev whose parent is gone (npx killed, a terminal's shell gone) would run on, in its consumer group,
      // with nobody to press Ctrl-C: it stops as on the first Ctrl-C.
      const parent = process.ppid;
      let onParentGone: (what: string) => void = () => quitDuringStart('SIGHUP');
      const parentWatch = setInterval(() => {
        if (process.ppid === parent) return;
        clearInterval(parentWatch);
        onParentGone(`the process that started it (pid ${parent}) is gone`);
      }, PARENT_CHECK_MS);
      parentWatch.unref();
      // Output to a pipe whose reader went with the parent fails (EPIPE): that must not end dev before it
      // has left its group, but stop it as its parent's end does.
      const onOutputError = (error: NodeJS.ErrnoException) => {
        if (error.code !== 'EPIPE') throw error;
        onParentGone('its output is no longer read (EPIPE)');
      };
      process.stdout.on('error', onOutputError);
      process.stderr.on('error', onOutputError);
      // --invoke without --endpoint: the AWS client whose credentials were checked before the run.
      let awsClient: LambdaClient | undefined;
      try {
        await run();
      } finally {
        awsClient?.destroy();
        clearInterval(parentWatch);
        for (const signal of STOP_SIGNALS) process.off(signal, quitDuringStart);
      }

      async function run() {
        let trigger: LocalEventSourceMapping | undefined;
        // Watched: the files each init phase loaded; a change gives the next invocations new environments.
        const watcher = options.watch
          ? watchFiles((files) => {
              console.error(
                `changed: ${files.map((file) => relative(process.cwd(), file)).join(', ')}: the next invocations start new environments (cold starts)`,
              );
              trigger?.updateFunctionCode();
            })
          : undefined;
        let signals = 0;
        /** The first stop signal (SIGHUP for a parent gone), and the second, which abandoned the batches. */
        let stoppedBy: NodeJS.Signals | undefined;
        let abandonedBy: NodeJS.Signals | undefined;
        /** --exit-when-idle saw the run idle: whatever comes next, the run drained. */
        let drained = false;
        let fn: MappingFunction;
        try {
          const environment = await readFunctionEnvironment(options);
          useFunctionTimeZone(environment);
          if (handlerReference) {
            fn = await prepareLocalFunction(handlerReference, {
              timeoutSeconds: options.timeout,
              memoryLimitInMB: options.memory,
              functionName: options.functionName,
              inProcess: options.inProcess,
              environment,
              ...(watcher ? { onInitFiles: (files: readonly string[]) => watcher.add(files) } : {}),
              abandoned: () => abandonedBy !== undefined,
            });
          } else {
            // Before anything is read: an Invoke API that cannot be called would fail every batch, retried
            // forever. Checked without invoking (that would run the function's code); what fails later (the
            // endpoint going away) is retried, as Lambda does.
            const functionName = options.invoke!;
            let problem: string | undefined;
            if (options.endpoint !== undefined) {
              problem = await endpointProblem(options.endpoint);
              fn = { functionName, endpoint: options.endpoint };
            } else {
              const aws = await awsInvokeClient(functionName);
              if ('client' in aws) awsClient = aws.client;
              else problem = aws.problem;
              fn = { functionName, ...(awsClient ? { client: awsClient } : {}) };
            }
            if (problem) {
              process.stderr.write(`kafka-lambda dev: ${problem}\n`);
              process.exitCode = USAGE_EXIT_CODE;
              return;
            }
          }
        } catch (error) {
          if (
            !(
              error instanceof HandlerNotFoundError ||
              error instanceof HandlerInitError ||
              error instanceof FunctionEnvironmentError
            )
          )
            throw error;
          process.stderr.write(`kafka-lambda dev: ${error.message}\n`);
          process.exitCode = USAGE_EXIT_CODE;
          return;
        }
        let cluster: ResolvedCluster;
        try {
          cluster = await resolveCluster(options, { command: 'dev', startEmbedded: true });
        } catch (error) {
          if (!(error instanceof ClusterOptionsError)) throw error;
          process.stderr.write(`kafka-lambda dev: ${error.message}\n`);
          process.exitCode = USAGE_EXIT_CODE;
          return;
        }
        // Fail on connect (within seconds) rather than showing a progress line while kafkajs retries.
        try {
          await probeCluster(cluster);
        } catch (error) {
          await cluster.embedded?.stop();
          if (!(error instanceof ClusterConnectError)) throw error;
          process.stderr.write(`kafka-lambda dev: ${error.message}\n`);
          process.exitCode = 1;
          return;
        }
        const display = createDisplay(() => trigger);
        // Set once the trigger has started: a run refused before then ends on its error, not on a progress line.
        let started = false;
        let stopOnSignal: ((signal: NodeJS.Signals) => void) | undefined;
        let sqs: Awaited<ReturnType<typeof resolveSqsEndpoint>> | undefined;
        try {
          if (onFailure?.kind === 'sqs')
            sqs = await resolveSqsEndpoint(options.sqsEndpoint, onFailure.queueName);
          const mapping: LocalEventSourceMappingOptions = {
            brokers: cluster.brokers,
            kafka: cluster.kafkaConfig('kafka-lambda-esm'),
            topic: options.topic,
            consumerGroupId: options.group ?? `kafka-lambda-dev-${options.topic}`,
            ...(options.batchSize === undefined ? {} : { batchSize: options.batchSize }),
            ...(options.window === undefined ? {} : { maximumBatchingWindowInSeconds: options.window }),
            startingPosition: options.startingPosition,
            ...(options.startingTimestamp === undefined
              ? {}
              : { startingPositionTimestamp: options.startingTimestamp }),
            reportBatchItemFailures: options.reportBatchItemFailures,
            maximumRetryAttempts: options.retries,
            maximumRecordAgeInSeconds: options.maxRecordAge,
            bisectBatchOnFunctionError: options.bisect,
            ...(options.minPollers === undefined && options.maxPollers === undefined
              ? {}
              : {
                  provisionedPollerConfig: {
                    ...(options.minPollers === undefined ? {} : { minimumPollers: options.minPollers }),
                    ...(options.maxPollers === undefined ? {} : { maximumPollers: options.maxPollers }),
                  },
                }),
            ...(options.onFailure ? { onFailure: options.onFailure } : {}),
            ...(sqs ? { destinations: { sqsEndpoint: sqs.endpoint } } : {}),
            eventSource: options.selfManaged ? 'self-managed' : 'msk',
            tombstoneValue: options.tombstoneValue,
            redelivery: options.redelivery,
            ...(options.filter ? { filterCriteria: options.filter } : {}),
            ...(options.schemaRegistry
              ? {
                  schemaRegistry: {
                    SchemaRegistryURI: options.schemaRegistry,
                    EventRecordFormat: options.eventRecordFormat,
                    SchemaValidationConfigs: options.schemaValidation.map((Attribute) => ({ Attribute })),
                  },
                }
              : {}),
            function: fn,
            // prepareLocalFunction checked that the module loads, before any server started: not again.
            checkModule: false,
            onEvent: (event) => display.event(event),
          };
          trigger = createLocalEventSourceMapping(mapping);
          const destination = onFailure?.kind === 'kafka' ? onFailure.topic : undefined;
          // On a cluster dev does not own, a missing topic is a usage error rather than something to create.
          const created = await ensureTopics({
            brokers: cluster.brokers,
            kafka: cluster.kafkaConfig('kafka-lambda-dev'),
            topics: [options.topic, ...(destination ? [destination] : [])].map((topic) => ({
              topic,
              partitions: options.partitions,
            })),
            createMissing: cluster.local,
          });
          process.stderr.write(
            `dev: ${handlerReference ?? `Invoke API ${options.invoke}`} ← topic ${options.topic} (group ${trigger.consumerGroupId}) on ${cluster.brokers.join(',')} (${cluster.origin})${created.length > 0 ? `; created ${created.join(', ')}` : ''}${sqs ? `; on-failure to SQS at ${displayUrl(sqs.endpoint)} (${sqs.origin})` : ''}\n`,
          );
          if (watcher)
            process.stderr.write(
              `dev: --watch: watching the ${watcher.size} file(s) the function's init phase loaded\n`,
            );
          const provisionedOnly = provisionedOnlySettings(mapping);
          if (provisionedOnly.length > 0)
            process.stderr.write(
              `dev: note: AWS offers ${provisionedOnly.join(', ')} only in provisioned mode; emulated as set, but the deployed mapping needs ProvisionedPollerConfig (--max-pollers emulates it)\n`,
            );
          const stopped = new Promise<void>((resolve) => {
            stopOnSignal = (signal) => {
              signals++;
              if (signals === 1) {
                stoppedBy = signal;
                process.stderr.write(
                  '\nstopping: finishing in-flight batches (Ctrl-C again to abandon them)…\n',
                );
                void trigger?.stop().then(resolve, resolve);
              } else if (signals === 2) {
                // As if the process died: the in-flight invocations end, their batches are not committed and
                // are delivered again to the group's next consumer, as Lambda would after a crash.
                abandonedBy = signal;
                process.stderr.write(
                  '\nabandoning in-flight batches: their invocations end, nothing more is committed\n',
                );
                void trigger?.stop({ abandon: true }).then(resolve, resolve);
              } else {
                // Whatever the cleanup still waits for (a broker stopping), a third signal does not.
                process.exit(128 + constants.signals[signal]);
              }
            };
            for (const signal of STOP_SIGNALS) {
              process.off(signal, quitDuringStart);
              process.on(signal, stopOnSignal);
            }
            onParentGone = (what) => {
              if (signals > 0) return;
              process.stderr.write(`\ndev: ${what}`);
              stopOnSignal?.('SIGHUP');
            };
          });
          await trigger.start();
          started = true;
          if (options.exitWhenIdle) {
            // A stop by signal (or the parent's end) makes idle() refuse to wait on: not an error, the run
            // stops cleanly as without --exit-when-idle, then exits as the signal's interruption (below).
            const idle = trigger.idle().then(
              () => {
                drained = true;
                return trigger?.stop();
              },
              (error: unknown) => {
                if (signals === 0) throw error;
                return stopped;
              },
            );
            await Promise.race([idle, stopped]);
          } else await stopped;
        } catch (error) {
          if (error instanceof InvalidMappingSettingError || error instanceof TopicMissingError) {
            process.stderr.write(`kafka-lambda dev: ${asFlag(error)}\n`);
            process.exitCode = USAGE_EXIT_CODE;
            return;
          }
          throw error;
        } finally {
          watcher?.close();
          await trigger?.stop();
          display.close(started);
          const partitions = trigger?.stats().partitions ?? [];
          if (partitions.length > 0) {
            process.stderr.write(
              `offsets committed by this run: ${partitions.map((p) => `${options.topic}-${p.partition}=${p.committed ?? '-'}`).join(' ')}\n`,
            );
          }
          await cluster.embedded?.stop();
          await sqs?.server?.stop();
          if (stopOnSignal) for (const signal of STOP_SIGNALS) process.off(signal, stopOnSignal);
        }
        // An abandoned invocation that this process cannot end (--in-process, the Invoke API) must not keep
        // it alive; the exit status says which signal ended the run, as a shell's does.
        if (abandonedBy) process.exit(128 + constants.signals[abandonedBy]);
        // With --exit-when-idle, 0 says the run drained: one a signal stopped before that did not, and
        // exits as an interrupted process does (its batches still finished and committed).
        if (options.exitWhenIdle && stoppedBy && !drained)
          process.exitCode = 128 + constants.signals[stoppedBy];
      }
    });
}

/** The mapping settings dev's flags set, by the flag (a setting's message names the flag typed). */
const SETTING_FLAGS: ReadonlyArray<[setting: string, flag: string]> = [
  ['topic', '--topic'],
  ['consumerGroupId', '--group'],
  ['batchSize', '--batch-size'],
  ['maximumBatchingWindowInSeconds', '--window'],
  ['startingPositionTimestamp', '--starting-timestamp'],
  ['startingPosition', '--starting-position'],
  ['maximumRetryAttempts', '--retries'],
  ['maximumRecordAgeInSeconds', '--max-record-age'],
  ['provisionedPollerConfig.minimumPollers', '--min-pollers'],
  ['provisionedPollerConfig.maximumPollers', '--max-pollers'],
  ['provisionedPollerConfig', '--min-pollers/--max-pollers'],
  ['onFailure', '--on-failure'],
  ['filterCriteria', '--filter'],
  ['schemaRegistry.EventRecordFormat', '--event-record-format'],
  ['schemaRegistry.SchemaValidationConfigs', '--schema-validation'],
  ['schemaRegistry', '--schema-registry'],
  ['eventSource', '--self-managed'],
  ['tombstoneValue', '--tombstone-value'],
  // The function's settings (LocalFunction), checked when the mapping is made.
  ['timeoutSeconds', '--timeout'],
  ['memoryLimitInMB', '--memory'],
];

/** An emulator setting error led by the flag that set it: `--group: consumerGroupId: …`. */
function asFlag(error: InvalidMappingSettingError | TopicMissingError): string {
  if (!(error instanceof InvalidMappingSettingError)) return error.message;
  const { setting } = error;
  const match = SETTING_FLAGS.find(
    ([name]) => setting === name || setting.startsWith(`${name}.`) || setting.startsWith(`${name}[`),
  );
  return match ? `${match[1]}: ${error.message}` : error.message;
}
