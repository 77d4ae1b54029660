import { readFile } from 'node:fs/promises';
import { connect as connectTcp, isIP, type Socket } from 'node:net';
import { type ConnectionOptions, connect as connectTls } from 'node:tls';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { Kafka, type KafkaConfig } from 'kafkajs';
import { backgroundBrokerStatus, type EmbeddedBroker, startBroker } from '../broker/index.ts';
import { KAFKA_AUTH_TYPES, type KafkaAuth, type KafkaAuthType } from '../replay/index.ts';
import { kafkaClientConfig } from '../replay/kafka-config.ts';
import { brokerEntryProblem } from './broker-entry.ts';
import { CliError } from './errors.ts';
import { USAGE_EXIT_CODE } from './usage.ts';

/**
 * The connection flags `dev`, `produce`, `consume` and `replay` share.
 *
 * @example
 * ```ts
 * const options: ClusterOptions = { brokers: 'b-1:9096', auth: 'sasl-scram-512', saslUsername: 'alice' };
 * ```
 */
export interface ClusterOptions {
  brokers?: string;
  auth: KafkaAuthType;
  saslUsername?: string;
  caFile?: string;
  certFile?: string;
  keyFile?: string;
  region?: string;
}

/**
 * Adds `--brokers` and the authentication flags to a command.
 *
 * @example
 * ```ts
 * addClusterOptions(program.command('consume'));
 * ```
 */
export function addClusterOptions(command: Command): Command {
  return addAuthOptions(
    command.option(
      '-b, --brokers <host:port,…>',
      'bootstrap servers (default: KAFKA_BROKERS, else the background broker of `kafka-lambda broker start`)',
    ),
  );
}

/**
 * Adds the authentication flags (`--auth` and what it needs) to a command: {@link addClusterOptions}
 * without `--brokers`, for a command that declares its own. `regionHelp` says what `--region` is for.
 *
 * @example
 * ```ts
 * addAuthOptions(program.command('replay'), 'AWS region for --auth iam and the Lambda API (default: AWS_REGION)');
 * ```
 */
export function addAuthOptions(
  command: Command,
  regionHelp = 'AWS region for --auth iam (default: AWS_REGION)',
): Command {
  return command
    .addOption(
      new Option('--auth <type>', "how to authenticate to the cluster, as Lambda's Kafka triggers name it")
        .choices(Object.keys(KAFKA_AUTH_TYPES))
        .argParser(authType)
        .default('none'),
    )
    .option(
      '--sasl-username <name>',
      'SASL user for sasl-scram-512, sasl-scram-256, basic (password from KAFKA_SASL_PASSWORD)',
    )
    .option('--ca-file <pem>', 'CA certificate(s) for TLS')
    .option('--cert-file <pem>', 'client certificate for --auth mtls')
    .option('--key-file <pem>', 'client key for --auth mtls')
    .option('--region <region>', regionHelp);
}

/** `--auth` names before they became Lambda's (see KAFKA_AUTH_TYPES), with the name each is now. */
const FORMER_AUTH_NAMES: Readonly<Record<string, KafkaAuthType>> = {
  plaintext: 'none',
  plain: 'basic',
  'scram-sha-256': 'sasl-scram-256',
  'scram-sha-512': 'sasl-scram-512',
  'msk-iam': 'iam',
};

function authType(value: string): KafkaAuthType {
  if (Object.hasOwn(FORMER_AUTH_NAMES, value)) {
    throw new InvalidArgumentError(`--auth ${value}: now spelled "${FORMER_AUTH_NAMES[value]}"`);
  }
  if (!Object.hasOwn(KAFKA_AUTH_TYPES, value)) {
    throw new InvalidArgumentError(`Allowed choices are ${Object.keys(KAFKA_AUTH_TYPES).join(', ')}.`);
  }
  return value as KafkaAuthType;
}

/**
 * The connection flags cannot be used as given (missing password, unreadable certificate…): a usage error.
 *
 * @example
 * ```ts
 * if (error instanceof ClusterOptionsError) process.exitCode = USAGE_EXIT_CODE;
 * ```
 */
export class ClusterOptionsError extends CliError {}

/**
 * Why a cluster cannot be used:
 * - `no-broker`: none given and no background broker running;
 * - `nothing-listens`: the connection was refused;
 * - `unreachable`: unknown host, or no TCP answer in time;
 * - `not-kafka`: something answers, but not Kafka's protocol;
 * - `tls-failed`: the TLS handshake failed (a plaintext listener, an untrusted certificate…);
 * - `auth-failed`: the broker refused the credentials (or they could not be made, MSK IAM).
 *
 * @example
 * ```ts
 * const problem: ClusterProblem = 'not-kafka';
 * ```
 */
export type ClusterProblem =
  | 'no-broker'
  | 'nothing-listens'
  | 'unreachable'
  | 'not-kafka'
  | 'tls-failed'
  | 'auth-failed';

/**
 * The cluster cannot be used; `problem` says why. Never carries a credential.
 *
 * @example
 * ```ts
 * await probeCluster(cluster).catch((e) => { if (e instanceof ClusterConnectError) console.error(e.message); });
 * ```
 */
export class ClusterConnectError extends CliError {
  readonly problem: ClusterProblem;

  constructor(problem: ClusterProblem, message: string, options?: ErrorOptions) {
    super(message, options);
    this.problem = problem;
  }
}

/**
 * A cluster a command talks to: where it is, how it was found, and how to connect.
 *
 * @example
 * ```ts
 * const cluster = await resolveCluster(options, { command: 'consume' });
 * const consumer = new Kafka(cluster.kafkaConfig('kafka-lambda-consume')).consumer({ groupId });
 * ```
 */
export interface ResolvedCluster {
  brokers: string[];
  /** `--brokers`, `KAFKA_BROKERS`, `the background broker` or `the embedded broker`. */
  origin: string;
  /** A local broker of ours (background or embedded), where creating topics is harmless. */
  local: boolean;
  auth: KafkaAuth;
  /** The broker started for this run, to stop when the command ends. */
  embedded?: EmbeddedBroker;
  kafkaConfig(clientId: string): KafkaConfig;
}

/**
 * Finds the cluster the way every command does: `--brokers`, else `KAFKA_BROKERS`, else the background
 * broker (`kafka-lambda broker start`); else, with `startEmbedded`, a broker started for this run, or a
 * {@link ClusterConnectError} (`no-broker`).
 *
 * @example
 * ```ts
 * const cluster = await resolveCluster(options, { command: 'dev', startEmbedded: true });
 * ```
 */
export async function resolveCluster(
  options: ClusterOptions,
  { command, startEmbedded = false }: { command: string; startEmbedded?: boolean },
): Promise<ResolvedCluster> {
  const auth = await authFromOptions(options);
  const make = (brokers: string[], origin: string, local: boolean, embedded?: EmbeddedBroker) => ({
    brokers,
    origin,
    local,
    auth,
    ...(embedded ? { embedded } : {}),
    kafkaConfig: (clientId: string) => kafkaClientConfig({ brokers, auth, clientId }),
  });
  // An empty KAFKA_BROKERS counts as unset, as in a shell `KAFKA_BROKERS= cmd`.
  const given = options.brokers ?? (process.env.KAFKA_BROKERS || undefined);
  if (given !== undefined) {
    const origin = options.brokers === undefined ? 'KAFKA_BROKERS' : '--brokers';
    const brokers = given
      .split(',')
      .map((broker) => broker.trim())
      .filter((broker) => broker !== '');
    if (brokers.length === 0) throw new ClusterOptionsError(`${origin} names no bootstrap server`);
    brokers.forEach((broker, index) => {
      const problem = brokerEntryProblem(broker, origin);
      // Named by its position, never quoted: an entry may carry a user name and password.
      if (problem)
        throw new ClusterOptionsError(`${origin}: entry ${index + 1} of ${brokers.length} ${problem}`);
    });
    return make(brokers, origin, false);
  }
  const status = await backgroundBrokerStatus();
  if (status.state === 'running') {
    return make([status.broker.bootstrapServers], 'the background broker', true);
  }
  if (!startEmbedded) {
    throw new ClusterConnectError(
      'no-broker',
      `no broker: start one with \`kafka-lambda broker start\`, or give --brokers or KAFKA_BROKERS${status.state === 'not-serving' ? ` (the background broker, pid ${status.broker.pid}, is not serving)` : ''}`,
    );
  }
  process.stderr.write(`starting the embedded Apache Kafka broker (stopped when ${command} exits)…\n`);
  const broker = await startBroker();
  return make([broker.bootstrapServers], 'the embedded broker', true, broker);
}

async function authFromOptions(options: ClusterOptions): Promise<KafkaAuth> {
  const pem = async (flag: string, file: string | undefined) =>
    file === undefined
      ? undefined
      : readFile(file, 'utf8').catch((error: Error) => {
          throw new ClusterOptionsError(`${flag}: cannot read ${file}: ${error.message}`, { cause: error });
        });
  if (options.auth !== 'mtls' && (options.certFile !== undefined || options.keyFile !== undefined)) {
    throw new ClusterOptionsError(
      `--cert-file and --key-file authenticate with a client certificate: give --auth mtls (not ${options.auth})`,
    );
  }
  const ca = await pem('--ca-file', options.caFile);
  const withCa = ca === undefined ? {} : { ca };
  switch (options.auth) {
    case 'none':
      return { type: 'none' };
    case 'tls':
      return { type: 'tls', ...withCa };
    case 'mtls': {
      const cert = await pem('--cert-file', options.certFile);
      const key = await pem('--key-file', options.keyFile);
      if (cert === undefined || key === undefined) {
        throw new ClusterOptionsError('--auth mtls needs --cert-file and --key-file');
      }
      return { type: 'mtls', cert, key, ...withCa };
    }
    case 'iam': {
      const region = options.region ?? process.env.AWS_REGION;
      if (!region) throw new ClusterOptionsError('--auth iam needs --region or AWS_REGION');
      return { type: 'iam', region };
    }
    default: {
      const password = process.env.KAFKA_SASL_PASSWORD;
      if (!options.saslUsername || !password) {
        throw new ClusterOptionsError(`--auth ${options.auth} needs --sasl-username and KAFKA_SASL_PASSWORD`);
      }
      return { type: options.auth, username: options.saslUsername, password, ...withCa };
    }
  }
}

/** ApiVersions (key 18) v0: every Kafka broker answers it, before any authentication (KIP-35, KIP-43). */
const API_VERSIONS_KEY = 18;
const PROBE_CORRELATION_ID = 0x6b6c; // arbitrary; the answer must echo it
const PROBE_CLIENT_ID = 'kafka-lambda-probe';
/** A Kafka response is at most a few KB here; a larger "size" means the bytes are not Kafka's framing. */
const MAX_PROBE_RESPONSE_BYTES = 1024 * 1024;

function apiVersionsRequest(): Buffer {
  const clientId = Buffer.from(PROBE_CLIENT_ID);
  const body = Buffer.alloc(2 + 2 + 4 + 2 + clientId.length);
  body.writeInt16BE(API_VERSIONS_KEY, 0);
  body.writeInt16BE(0, 2);
  body.writeInt32BE(PROBE_CORRELATION_ID, 4);
  body.writeInt16BE(clientId.length, 8);
  clientId.copy(body, 10);
  const size = Buffer.alloc(4);
  size.writeInt32BE(body.length);
  return Buffer.concat([size, body]);
}

/**
 * {@link resolveCluster} then {@link probeCluster}, for a command that works on a cluster it is given (no
 * broker of its own): a flag it cannot use is a usage error, a cluster it cannot reach exit code 1.
 *
 * @example
 * ```ts
 * const cluster = await reachCluster(options, 'consume');
 * if ('exitCode' in cluster) return fail(cluster.exitCode, cluster.message);
 * ```
 * @returns the cluster, or the exit code and the message to print.
 */
export async function reachCluster(
  options: ClusterOptions,
  command: string,
): Promise<ResolvedCluster | { exitCode: number; message: string }> {
  try {
    const cluster = await resolveCluster(options, { command });
    await probeCluster(cluster);
    return cluster;
  } catch (error) {
    if (error instanceof ClusterOptionsError) return { exitCode: USAGE_EXIT_CODE, message: error.message };
    if (error instanceof ClusterConnectError) return { exitCode: 1, message: error.message };
    throw error;
  }
}

/**
 * Checks within a few seconds that the cluster is Kafka and accepts us, so that a command fails on
 * connect with what is wrong instead of retrying for half a minute: it sends Kafka's ApiVersions request
 * to each bootstrap server (TLS when the auth needs it) until one answers as Kafka, then, with SASL,
 * authenticates once. Throws a {@link ClusterConnectError} naming the server and the problem.
 *
 * @example
 * ```ts
 * await probeCluster(await resolveCluster(options, { command: 'produce' })); // throws ClusterConnectError
 * ```
 */
export async function probeCluster(
  cluster: Pick<ResolvedCluster, 'brokers' | 'auth' | 'kafkaConfig'>,
  { timeoutMs = 5_000 }: { timeoutMs?: number } = {},
): Promise<void> {
  const tls = tlsOptions(cluster.auth);
  const failures: ClusterConnectError[] = [];
  for (const broker of cluster.brokers) {
    const failure = await probeBroker(broker, tls, timeoutMs);
    if (!failure) {
      if (cluster.auth.type !== 'none' && cluster.auth.type !== 'tls' && cluster.auth.type !== 'mtls') {
        await authenticate(cluster, broker, timeoutMs);
      }
      return;
    }
    failures.push(failure);
  }
  // All bootstrap servers failed: the first one's problem, with the others' in the message.
  const [first] = failures;
  throw new ClusterConnectError(
    first!.problem,
    failures.length === 1 ? first!.message : failures.map((f) => f.message).join('; '),
  );
}

function tlsOptions(auth: KafkaAuth): ConnectionOptions | undefined {
  switch (auth.type) {
    case 'none':
      return undefined;
    case 'mtls':
      return { ca: auth.ca, cert: auth.cert, key: auth.key, passphrase: auth.passphrase };
    case 'iam':
      return {};
    default:
      return { ca: auth.ca };
  }
}

function probeBroker(
  broker: string,
  tls: ConnectionOptions | undefined,
  timeoutMs: number,
): Promise<ClusterConnectError | undefined> {
  const separator = broker.lastIndexOf(':');
  const host = broker.slice(0, separator).replace(/^\[(.*)\]$/, '$1');
  const port = Number(broker.slice(separator + 1));
  return new Promise((resolve) => {
    let received = Buffer.alloc(0);
    let connected = false;
    let settled = false;
    const finish = (failure?: ClusterConnectError) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(failure);
    };
    const fail = (problem: ClusterProblem, why: string) =>
      finish(new ClusterConnectError(problem, `${broker}: ${why}`));
    const socket: Socket = tls
      ? connectTls({ host, port, ...(isIP(host) ? {} : { servername: host }), ...tls })
      : connectTcp({ host, port });
    const onConnected = () => {
      connected = true;
      socket.write(apiVersionsRequest());
    };
    socket.once(tls ? 'secureConnect' : 'connect', onConnected);
    const timer = setTimeout(() => {
      if (!connected) fail('unreachable', `no connection within ${timeoutMs / 1000} s`);
      else
        fail(
          'not-kafka',
          `accepts connections but sent no answer to Kafka's ApiVersions request within ${timeoutMs / 1000} s: not a Kafka broker${tls ? '' : ' (or a TLS listener: try --auth tls)'}`,
        );
    }, timeoutMs);
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (received.length < 4) return;
      const size = received.readInt32BE(0);
      if (size < 6 || size > MAX_PROBE_RESPONSE_BYTES) {
        fail('not-kafka', 'answered with something that is not Kafka protocol: not a Kafka broker');
        return;
      }
      if (received.length < 8) return;
      if (received.readInt32BE(4) !== PROBE_CORRELATION_ID) {
        fail('not-kafka', 'answered with something that is not Kafka protocol: not a Kafka broker');
        return;
      }
      finish();
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNREFUSED')
        fail('nothing-listens', 'nothing listens there (connection refused)');
      else if (error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN')
        fail('unreachable', `unknown host ${host}`);
      else if (tls && !connected)
        fail(
          'tls-failed',
          `TLS handshake failed (${error.code ?? error.message}): not a TLS listener, or a certificate not trusted (--ca-file)`,
        );
      else fail(connected ? 'not-kafka' : 'unreachable', error.code ?? error.message);
    });
    socket.on('close', () => {
      if (!connected && tls)
        fail('tls-failed', 'closed the connection during the TLS handshake: not a TLS listener?');
      else if (!connected) fail('unreachable', 'closed the connection');
      else
        fail(
          'not-kafka',
          `closed the connection without answering Kafka's ApiVersions request: not a Kafka broker${tls ? '' : ' (or a TLS listener: try --auth tls)'}`,
        );
    });
  });
}

async function authenticate(
  cluster: Pick<ResolvedCluster, 'kafkaConfig'>,
  broker: string,
  timeoutMs: number,
): Promise<void> {
  const admin = new Kafka({
    ...cluster.kafkaConfig('kafka-lambda-probe'),
    brokers: [broker],
    connectionTimeout: timeoutMs,
    authenticationTimeout: timeoutMs,
    retry: { retries: 0 },
  }).admin();
  try {
    await admin.connect();
  } catch (error) {
    // kafkajs' SASL messages name the mechanism and the broker's reason, never the password.
    const reason = error instanceof Error ? error.message : String(error);
    throw new ClusterConnectError(
      'auth-failed',
      `${broker}: ${(error as Error).name === 'KafkaJSSASLAuthenticationError' ? 'authentication failed' : 'cannot authenticate'}: ${reason}`,
      { cause: error },
    );
  } finally {
    await admin.disconnect().catch(() => {});
  }
}
