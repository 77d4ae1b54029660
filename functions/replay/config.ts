import { GetBootstrapBrokersCommand, KafkaClient } from '@aws-sdk/client-kafka';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { awsApiClientConfig, callAwsApi, mskCall, secretsManagerCall } from '../../lib/replay/aws-api.ts';
import {
  KAFKA_AUTH_TYPES,
  type KafkaAuth,
  type KafkaAuthType,
  type KafkaConnection,
  ReplayError,
  ReplayRefusedError,
  type ReplayTimeouts,
} from '../../lib/replay/index.ts';

/**
 * The replay function's environment is missing or malformed (a deployment problem, not a request problem).
 *
 * @example
 * ```ts
 * replayConfigFromEnv({}); // throws ReplayConfigError: KAFKA_BOOTSTRAP_SERVERS or KAFKA_CLUSTER_ARN is required
 * ```
 */
export class ReplayConfigError extends ReplayError {
  override name = 'ReplayConfigError';
}

/**
 * The request names a mapping, group or topic outside the function's allow-list.
 *
 * @example
 * ```ts
 * if (result.error?.name === 'ReplayNotAllowedError') console.error(result.error.message);
 * ```
 */
export class ReplayNotAllowedError extends ReplayRefusedError {
  override name = 'ReplayNotAllowedError';
}

/**
 * What the replay function may touch and how it reaches the cluster.
 *
 * @example
 * ```ts
 * const config: ReplayFunctionConfig = { mappings: ['14e0db71-…'], groups: [], topics: ['orders'], timeouts: {}, connection: async () => ({ brokers }) };
 * ```
 */
export interface ReplayFunctionConfig {
  /** Allowed mapping UUIDs; the first is used when a request names neither mapping nor group. */
  mappings: string[];
  /** Allowed consumer groups (required for requests without a mapping). */
  groups: string[];
  /** Allowed topics (required for requests without a mapping). */
  topics: string[];
  timeouts: Partial<ReplayTimeouts>;
  /** Resolves brokers and credentials (secret, broker discovery) on first use. */
  connection: () => Promise<KafkaConnection>;
}

const list = (value: string | undefined) =>
  (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');

/**
 * Reads the configuration from the environment (see the variables at the top of handler.ts).
 * `awsCallMs` bounds each Secrets Manager and MSK call the connection makes, its retries included
 * (default 30 s): one that got no answer by then is an `AwsApiTimeoutError` naming the call.
 *
 * @throws {ReplayConfigError}
 * @example
 * ```ts
 * const config = replayConfigFromEnv(process.env);
 * ```
 */
export function replayConfigFromEnv(
  env: Record<string, string | undefined>,
  { awsCallMs = AWS_CALL_MS }: { awsCallMs?: number } = {},
): ReplayFunctionConfig {
  const auth = (env.KAFKA_AUTH ?? 'none') as KafkaAuthType;
  if (!Object.hasOwn(KAFKA_AUTH_TYPES, auth)) {
    throw new ReplayConfigError(
      `KAFKA_AUTH must be one of ${Object.keys(KAFKA_AUTH_TYPES).join(', ')}, got "${auth}"`,
    );
  }
  const bootstrap = list(env.KAFKA_BOOTSTRAP_SERVERS);
  const clusterArn = env.KAFKA_CLUSTER_ARN;
  if (bootstrap.length === 0 && !clusterArn) {
    throw new ReplayConfigError('KAFKA_BOOTSTRAP_SERVERS or KAFKA_CLUSTER_ARN is required');
  }
  const secretArn = env.KAFKA_SECRET_ARN;
  const rootCaArn = env.KAFKA_ROOT_CA_SECRET_ARN;
  if (['sasl-scram-512', 'sasl-scram-256', 'basic', 'mtls'].includes(auth) && !secretArn) {
    throw new ReplayConfigError(`KAFKA_AUTH=${auth} needs KAFKA_SECRET_ARN`);
  }
  const region = env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
  if ((auth === 'iam' || clusterArn || secretArn || rootCaArn) && !region)
    throw new ReplayConfigError('AWS_REGION is not set');
  // Each call is bounded: a Secrets Manager or MSK endpoint that never answers ends the invocation's
  // answer in an error naming the call, not in the function's timeout.
  const aws = (): AwsApi => ({ region: region!, deadline: Date.now() + awsCallMs });
  const config: ReplayFunctionConfig = {
    mappings: list(env.REPLAY_MAPPING_UUID),
    groups: list(env.REPLAY_CONSUMER_GROUP_ID),
    topics: list(env.REPLAY_ALLOWED_TOPICS),
    timeouts: timeouts(env),
    connection: once(async () => ({
      brokers: bootstrap.length > 0 ? bootstrap : await discoverBrokers(clusterArn!, auth, aws()),
      auth: await kafkaAuth(auth, secretArn, aws(), rootCaArn && (await rootCa(rootCaArn, aws()))),
      clientId: 'kafka-lambda-replay-function',
    })),
  };
  if (config.mappings.length === 0 && (config.groups.length === 0 || config.topics.length === 0)) {
    throw new ReplayConfigError(
      'nothing may be replayed: set REPLAY_MAPPING_UUID, or REPLAY_CONSUMER_GROUP_ID and REPLAY_ALLOWED_TOPICS',
    );
  }
  return config;
}

/**
 * Bound on each Secrets Manager and MSK call (GetSecretValue, GetBootstrapBrokers), its retries included.
 */
const AWS_CALL_MS = 30_000;

/** Where the AWS calls of the configuration go, and by when they must have answered (epoch ms). */
interface AwsApi {
  region: string;
  deadline: number;
}

function timeouts(env: Record<string, string | undefined>): Partial<ReplayTimeouts> {
  const result: Partial<ReplayTimeouts> = {};
  for (const [key, field] of [
    ['REPLAY_MAPPING_TIMEOUT_MS', 'mappingMs'],
    ['REPLAY_GROUP_TIMEOUT_MS', 'groupMs'],
    ['REPLAY_RESTORE_TIMEOUT_MS', 'restoreMs'],
    ['REPLAY_POLL_INTERVAL_MS', 'pollIntervalMs'],
  ] as const) {
    const value = env[key];
    if (value === undefined || value === '') continue;
    const ms = Number(value);
    if (!Number.isSafeInteger(ms) || ms <= 0)
      throw new ReplayConfigError(`${key} must be a positive integer (ms)`);
    result[field] = ms;
  }
  return result;
}

function once<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () => {
    loaded ??= load().catch((error) => {
      loaded = undefined; // a failed lookup is retried on the next invocation
      throw error;
    });
    return loaded;
  };
}

async function discoverBrokers(clusterArn: string, auth: string, aws: AwsApi): Promise<string[]> {
  const client = new KafkaClient({ region: aws.region, ...awsApiClientConfig() });
  const brokers = await callAwsApi(
    mskCall('GetBootstrapBrokers'),
    (abortSignal) => client.send(new GetBootstrapBrokersCommand({ ClusterArn: clusterArn }), { abortSignal }),
    { deadline: aws.deadline },
  );
  const found =
    auth === 'iam'
      ? brokers.BootstrapBrokerStringSaslIam
      : auth.startsWith('sasl-scram')
        ? brokers.BootstrapBrokerStringSaslScram
        : auth === 'none'
          ? brokers.BootstrapBrokerString
          : brokers.BootstrapBrokerStringTls;
  if (!found)
    throw new ReplayConfigError(`cluster ${clusterArn} has no bootstrap brokers for KAFKA_AUTH=${auth}`);
  return list(found);
}

/**
 * Reads a JSON secret's string fields, requiring `required`. Its errors name the secret and the fields but
 * never quote the value: JSON.parse's own message would (`"S3cr3t" is not valid JSON`).
 */
async function readSecret(
  secretArn: string,
  aws: AwsApi,
  what: string,
  required: readonly string[],
): Promise<Record<string, string | undefined>> {
  const client = new SecretsManagerClient({ region: aws.region, ...awsApiClientConfig() });
  const { SecretString } = await callAwsApi(
    secretsManagerCall('GetSecretValue'),
    (abortSignal) => client.send(new GetSecretValueCommand({ SecretId: secretArn }), { abortSignal }),
    { deadline: aws.deadline },
  );
  if (SecretString === undefined) {
    throw new ReplayConfigError(`secret ${secretArn} has no SecretString (${what} is JSON text)`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(SecretString);
  } catch {
    // No `cause` here, unlike every other wrapped error: JSON.parse's message quotes the secret.
    throw new ReplayConfigError(`secret ${secretArn} is not JSON`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ReplayConfigError(`secret ${secretArn} is not a JSON object`);
  }
  const fields = Object.fromEntries(
    Object.entries(parsed).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
  const missing = required.filter((field) => !fields[field]);
  if (missing.length > 0) {
    throw new ReplayConfigError(
      `secret ${secretArn}: ${what} needs ${required.map((f) => `"${f}"`).join(' and ')} (missing or not a string: ${missing.map((f) => `"${f}"`).join(', ')})`,
    );
  }
  return fields;
}

// Lambda's root CA secret for self-managed clusters: {"certificate": "-----BEGIN CERTIFICATE-----…"}.
async function rootCa(secretArn: string, aws: AwsApi): Promise<string> {
  const { certificate } = await readSecret(secretArn, aws, 'the root CA secret', ['certificate']);
  return certificate!;
}

async function kafkaAuth(
  auth: KafkaAuthType,
  secretArn: string | undefined,
  aws: AwsApi,
  ca: string | undefined,
): Promise<KafkaAuth> {
  if (auth === 'iam') return { type: 'iam', region: aws.region };
  if (auth === 'tls') return { type: 'tls', ca };
  if (auth === 'none') return { type: 'none' };
  // The secret formats Lambda's Kafka triggers use: {username, password} or {certificate, privateKey[, privateKeyPassword]}.
  if (auth === 'mtls') {
    const secret = await readSecret(secretArn!, aws, 'the mTLS secret', ['certificate', 'privateKey']);
    return {
      type: 'mtls',
      cert: secret.certificate!,
      key: secret.privateKey!,
      passphrase: secret.privateKeyPassword,
      ca,
    };
  }
  const secret = await readSecret(secretArn!, aws, 'the SASL secret', ['username', 'password']);
  return { type: auth, username: secret.username!, password: secret.password!, ca };
}
