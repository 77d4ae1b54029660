import type { KafkaConfig } from 'kafkajs';
import { logLevel } from 'kafkajs';
import { ReplayInputError } from './errors.ts';

/**
 * How to authenticate to the cluster, by the names of Lambda's Kafka triggers (see {@link KAFKA_AUTH_TYPES}):
 * - `none`: no TLS, no SASL (local brokers);
 * - `tls`: TLS without client authentication, with a private CA (`ca`, PEM text) if need be;
 * - `mtls`: TLS with a client certificate (`cert` + `key`, `passphrase` for an encrypted key; `ca`), PEM text;
 * - `sasl-scram-512` / `sasl-scram-256`: SASL/SCRAM over TLS (MSK SCRAM, self-managed clusters);
 * - `basic`: SASL/PLAIN over TLS (self-managed clusters);
 * - `iam`: MSK IAM, SASL/OAUTHBEARER with a token signed by `aws-msk-iam-sasl-signer-js` from the default
 *   credential chain (MSK IAM listener, port 9098).
 *
 * @example
 * ```ts
 * const auth: KafkaAuth = { type: 'iam', region: 'eu-west-1' };
 * ```
 */
export type KafkaAuth =
  | { type: 'none' }
  | { type: 'tls'; ca?: string }
  | { type: 'mtls'; cert: string; key: string; passphrase?: string; ca?: string }
  | { type: 'sasl-scram-512' | 'sasl-scram-256' | 'basic'; username: string; password: string; ca?: string }
  | { type: 'iam'; region: string };

/**
 * A name of {@link KAFKA_AUTH_TYPES}: how a client authenticates to a Kafka cluster.
 *
 * @example
 * ```ts
 * const type: KafkaAuthType = 'sasl-scram-512';
 * ```
 */
export type KafkaAuthType = KafkaAuth['type'];

/**
 * The one vocabulary of Kafka authentication in this package (the CLI's `--auth`, the replay function's
 * `KAFKA_AUTH`, the stacks' `auth`), each name with what a Kafka trigger calls it — the
 * `SourceAccessConfiguration` type of the Lambda API and CDK — and what goes over the wire.
 * Lambda: https://docs.aws.amazon.com/lambda/latest/api/API_SourceAccessConfiguration.html (BASIC_AUTH is
 * SASL/PLAIN, SASL_SCRAM_*_AUTH, CLIENT_CERTIFICATE_TLS_AUTH, SERVER_ROOT_CA_CERTIFICATE) and
 * https://docs.aws.amazon.com/lambda/latest/dg/msk-cluster-auth.html (MSK: IAM, SASL/SCRAM-512, mutual
 * TLS, unauthenticated).
 *
 * @example
 * ```ts
 * console.log(KAFKA_AUTH_TYPES.basic.wire); // 'SASL/PLAIN over TLS'
 * ```
 */
export const KAFKA_AUTH_TYPES: Readonly<Record<KafkaAuthType, { lambda: string; wire: string }>> = {
  iam: {
    lambda: 'MSK IAM (no SourceAccessConfiguration: the function role)',
    wire: 'SASL/OAUTHBEARER with an AWS_MSK_IAM token, over TLS',
  },
  'sasl-scram-512': { lambda: 'SASL_SCRAM_512_AUTH', wire: 'SASL/SCRAM-SHA-512 over TLS' },
  'sasl-scram-256': { lambda: 'SASL_SCRAM_256_AUTH', wire: 'SASL/SCRAM-SHA-256 over TLS' },
  basic: { lambda: 'BASIC_AUTH', wire: 'SASL/PLAIN over TLS' },
  mtls: { lambda: 'CLIENT_CERTIFICATE_TLS_AUTH', wire: 'TLS with a client certificate' },
  tls: {
    lambda: 'no authentication, TLS (SERVER_ROOT_CA_CERTIFICATE for a private CA)',
    wire: 'TLS, no client authentication',
  },
  none: { lambda: 'no authentication', wire: 'plaintext, no authentication' },
};

/**
 * Where and how to connect.
 *
 * @example
 * ```ts
 * const connection: KafkaConnection = { brokers: ['127.0.0.1:9092'], auth: { type: 'none' } };
 * ```
 */
export interface KafkaConnection {
  brokers: string[];
  /** Default: `none`. */
  auth?: KafkaAuth;
  clientId?: string;
}

/**
 * Builds a kafkajs client configuration from a typed connection description. Silent (errors are thrown, not logged), and
 * never logs credentials.
 *
 * @example
 * ```ts
 * const kafka = new Kafka(kafkaClientConfig({ brokers: ['b-1:9098'], auth: { type: 'iam', region: 'eu-west-1' } }));
 * ```
 */
export function kafkaClientConfig(connection: KafkaConnection): KafkaConfig {
  const brokers = connection.brokers.map((b) => b.trim()).filter((b) => b !== '');
  if (brokers.length === 0) throw new ReplayInputError('no Kafka bootstrap servers given');
  const base: KafkaConfig = {
    clientId: connection.clientId ?? 'kafka-lambda-replay',
    brokers,
    // Errors reach the caller as typed errors; kafkajs' own logging would repeat them (and refused commits) as noise.
    logLevel: logLevel.NOTHING,
    connectionTimeout: 5_000,
    requestTimeout: 30_000,
  };
  const auth = connection.auth ?? { type: 'none' };
  switch (auth.type) {
    case 'none':
      return base;
    case 'tls':
      return { ...base, ssl: auth.ca ? { ca: auth.ca } : true };
    case 'mtls':
      return {
        ...base,
        ssl: { ca: auth.ca, cert: auth.cert, key: auth.key, passphrase: auth.passphrase },
      };
    case 'basic':
    case 'sasl-scram-256':
    case 'sasl-scram-512': {
      const { username, password } = auth;
      return {
        ...base,
        ssl: auth.ca ? { ca: auth.ca } : true,
        sasl:
          auth.type === 'basic'
            ? { mechanism: 'plain', username, password }
            : auth.type === 'sasl-scram-256'
              ? { mechanism: 'scram-sha-256', username, password }
              : { mechanism: 'scram-sha-512', username, password },
      };
    }
    case 'iam': {
      const region = auth.region;
      return {
        ...base,
        ssl: true,
        sasl: {
          mechanism: 'oauthbearer',
          // Loaded on first use: local runs never pay for the AWS credential chain.
          oauthBearerProvider: async () => {
            const { generateAuthToken } = await import('aws-msk-iam-sasl-signer-js');
            return { value: (await generateAuthToken({ region })).token };
          },
        },
      };
    }
  }
}
