import type { KafkaConfig } from 'kafkajs';
import { logLevel } from 'kafkajs';
import { ReplayInputError } from './errors.ts';

/**
 * How to authenticate to the cluster:
 * - `plaintext`: no TLS, no SASL (local brokers);
 * - `tls`: TLS, optionally mutual (`cert` + `key`, `passphrase` for an encrypted key) and with a private
 *   CA (`ca`), all PEM text;
 * - `scram-sha-256` / `scram-sha-512`: SASL/SCRAM over TLS (self-managed clusters, MSK SCRAM);
 * - `plain`: SASL/PLAIN over TLS (Lambda's `BASIC_AUTH` for self-managed clusters);
 * - `msk-iam`: SASL OAUTHBEARER with a token signed by `aws-msk-iam-sasl-signer-js` from the default
 *   credential chain (MSK IAM listener, port 9098).
 *
 * @example
 * ```ts
 * const auth: KafkaAuth = { mechanism: 'msk-iam', region: 'eu-west-1' };
 * ```
 */
export type KafkaAuth =
  | { mechanism: 'plaintext' }
  | { mechanism: 'tls'; ca?: string; cert?: string; key?: string; passphrase?: string }
  | {
      mechanism: 'scram-sha-256' | 'scram-sha-512' | 'plain';
      username: string;
      password: string;
      ca?: string;
    }
  | { mechanism: 'msk-iam'; region: string };

/**
 * Where and how to connect.
 *
 * @example
 * ```ts
 * const connection: KafkaConnection = { brokers: ['127.0.0.1:9092'], auth: { mechanism: 'plaintext' } };
 * ```
 */
export interface KafkaConnection {
  brokers: string[];
  /** Default: plaintext. */
  auth?: KafkaAuth;
  clientId?: string;
}

/**
 * Builds a kafkajs client configuration from a typed connection description. Silent (errors are thrown, not logged), and
 * never logs credentials.
 *
 * @example
 * ```ts
 * const kafka = new Kafka(kafkaClientConfig({ brokers: ['b-1:9098'], auth: { mechanism: 'msk-iam', region: 'eu-west-1' } }));
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
  const auth = connection.auth ?? { mechanism: 'plaintext' };
  switch (auth.mechanism) {
    case 'plaintext':
      return base;
    case 'tls':
      return {
        ...base,
        ssl:
          auth.ca || auth.cert
            ? { ca: auth.ca, cert: auth.cert, key: auth.key, passphrase: auth.passphrase }
            : true,
      };
    case 'plain':
    case 'scram-sha-256':
    case 'scram-sha-512': {
      const { username, password } = auth;
      return {
        ...base,
        ssl: auth.ca ? { ca: auth.ca } : true,
        sasl:
          auth.mechanism === 'plain'
            ? { mechanism: 'plain', username, password }
            : auth.mechanism === 'scram-sha-256'
              ? { mechanism: 'scram-sha-256', username, password }
              : { mechanism: 'scram-sha-512', username, password },
      };
    }
    case 'msk-iam': {
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
