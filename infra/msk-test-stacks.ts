// Test set-ups shared by the infra tests: a stack holding an MSK consumer and its replay function, whose
// secret (SCRAM or an mTLS client certificate) is imported by ARN, with or without its KMS key imported by
// ARN. Not part of the package (package.json "files").
import { join } from 'node:path';
import { App, type Environment, Stack } from 'aws-cdk-lib';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { KafkaConsumerFunction, type KafkaConsumerFunctionProps } from './kafka-consumer-function.ts';
import {
  importKafkaNetwork,
  type KafkaSource,
  type MskSource,
  type SelfManagedAuth,
  type SelfManagedSource,
} from './kafka-source.ts';
import { KafkaReplayFunction } from './replay-function.ts';
import type { TemplateStatement } from './template-queries.ts';

/** The example orders handler; the stacks skip bundling, so what it does does not matter. */
export const TEST_ENTRY = join(import.meta.dirname, '../functions/orders/handler.ts');
/** The account and Region of the test stacks that name them. */
export const TEST_ENV = { account: '111122223333', region: 'eu-west-1' } as const;
export const TEST_CLUSTER_ARN = 'arn:aws:kafka:eu-west-1:111122223333:cluster/shop/0f3c-uuid-1';
/** A customer managed key, imported by ARN: CDK cannot change its key policy. */
export const TEST_KEY_ARN = 'arn:aws:kms:eu-west-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab';
/** The cluster VPC, by ids (`importKafkaNetwork`). */
export const TEST_NETWORK = {
  vpcId: 'vpc-0a1b2c3d4e5f60000',
  subnetIds: ['subnet-0a1b2c3d4e5f60001', 'subnet-0a1b2c3d4e5f60002'],
  securityGroupIds: ['sg-0a1b2c3d4e5f60003'],
} as const;

/**
 * A stack whose functions are not bundled (`aws:cdk:bundling-stacks: []`: bundling is app.test.ts's), in
 * `env`; `undefined` gives an environment-agnostic stack.
 *
 * @example
 * const stack = unbundledStack('Keys', TEST_ENV);
 */
export function unbundledStack(id: string, env: Environment | undefined): Stack {
  return new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), id, { env });
}

/**
 * A secret imported by its complete ARN, under a KMS key imported by ARN when `keyArn` is given.
 *
 * @example
 * const secret = importedSecret(stack, 'Cert', CERT_ARN, TEST_KEY_ARN);
 */
export function importedSecret(
  stack: Stack,
  id: string,
  secretArn: string,
  keyArn: string | undefined,
): secretsmanager.ISecret {
  if (keyArn === undefined) return secretsmanager.Secret.fromSecretCompleteArn(stack, id, secretArn);
  return secretsmanager.Secret.fromSecretAttributes(stack, id, {
    secretCompleteArn: secretArn,
    encryptionKey: kms.Key.fromKeyArn(stack, `${id}Key`, keyArn),
  });
}

/**
 * What {@link mskConsumerStack} builds.
 *
 * @example
 * const { stack, secret, consumer } = mskConsumerStack({ id: 'Mtls', auth: 'mtls', secretArn, keyArn: TEST_KEY_ARN });
 */
export interface MskConsumerStack {
  readonly stack: Stack;
  readonly secret: secretsmanager.ISecret;
  readonly source: MskSource;
  readonly consumer: KafkaConsumerFunction;
}

/**
 * A stack (in {@link TEST_ENV} unless `env` is given, even as `undefined`) with an MSK consumer of
 * `orders` as `orders-consumer` (construct `consumerId`, default `Orders`) and its replay function
 * (`<consumerId>Replay`), reading {@link TEST_CLUSTER_ARN} through {@link TEST_NETWORK} with `auth` and
 * the secret `secretArn`, under the key `keyArn` if given.
 *
 * @example
 * const { stack } = mskConsumerStack({ id: 'Scram', auth: 'sasl-scram-512', secretArn, keyArn: TEST_KEY_ARN });
 */
export function mskConsumerStack(options: {
  readonly id: string;
  readonly env?: Environment;
  readonly auth: 'sasl-scram-512' | 'mtls';
  readonly secretArn: string;
  readonly keyArn?: string;
  readonly consumerId?: string;
  readonly consumerProps?: Partial<KafkaConsumerFunctionProps>;
}): MskConsumerStack {
  const stack = unbundledStack(options.id, 'env' in options ? options.env : TEST_ENV);
  const secret = importedSecret(stack, 'Secret', options.secretArn, options.keyArn);
  const source: MskSource = {
    kind: 'msk',
    clusterArn: TEST_CLUSTER_ARN,
    auth: { type: options.auth, secret },
    network: importKafkaNetwork(stack, TEST_NETWORK),
  };
  const consumerId = options.consumerId ?? 'Orders';
  const consumer = new KafkaConsumerFunction(stack, consumerId, {
    entry: TEST_ENTRY,
    source,
    topic: 'orders',
    consumerGroupId: 'orders-consumer',
    ...options.consumerProps,
  });
  new KafkaReplayFunction(stack, `${consumerId}Replay`, { entry: TEST_ENTRY, source, target: consumer });
  return { stack, secret, source, consumer };
}

/**
 * Public self-managed brokers (`kafka.example.com:9096`, outside any VPC) reached with `auth`, trusting
 * `rootCaCertificate` when it is given.
 *
 * @example
 * const source = publicBrokers({ type: 'basic', secret });
 */
export function publicBrokers(
  auth: SelfManagedAuth,
  rootCaCertificate?: secretsmanager.ISecret,
): SelfManagedSource {
  return {
    kind: 'self-managed',
    bootstrapServers: ['kafka.example.com:9096'],
    auth,
    ...(rootCaCertificate && { rootCaCertificate }),
  };
}

/**
 * A consumer `id` (of {@link TEST_ENTRY}) of the topic `clicks` as the group `clicks-consumer`, reading
 * `source`, with `props` added.
 *
 * @example
 * clicksConsumer(stack, 'Keyed', publicBrokers({ type: 'basic', secret }));
 */
export function clicksConsumer(
  stack: Stack,
  id: string,
  source: KafkaSource,
  props: Partial<KafkaConsumerFunctionProps> = {},
): KafkaConsumerFunction {
  return new KafkaConsumerFunction(stack, id, {
    entry: TEST_ENTRY,
    source,
    topic: 'clicks',
    consumerGroupId: 'clicks-consumer',
    ...props,
  });
}

/**
 * The statement `Secret.grantRead` gives a role on a secret imported by complete ARN.
 *
 * @example
 * expect(roleStatements(template, 'OrdersRole')).toContainEqual(secretReadStatement(CERT_ARN));
 */
export function secretReadStatement(secretArn: unknown): TemplateStatement {
  return {
    Effect: 'Allow',
    Action: ['secretsmanager:GetSecretValue', 'secretsmanager:DescribeSecret'],
    Resource: secretArn,
  };
}

/**
 * `kms:Decrypt` on the key `keyArn` (or a key wildcard), only through Secrets Manager in `region` (a
 * literal Region, or the `{ 'Fn::Join': … }` of an environment-agnostic stack) and only for `secretArn`:
 * what infra/iam.ts's secretKeyStatement writes for a secret imported by complete ARN.
 *
 * @example
 * expect(statements).toContainEqual(secretDecryptStatement(TEST_KEY_ARN, CERT_ARN, 'eu-west-1'));
 */
export function secretDecryptStatement(
  keyArn: unknown,
  secretArn: string,
  region: unknown,
): TemplateStatement {
  const viaService =
    typeof region === 'string'
      ? `secretsmanager.${region}.amazonaws.com`
      : { 'Fn::Join': ['', ['secretsmanager.', region, '.amazonaws.com']] };
  return {
    Effect: 'Allow',
    Action: 'kms:Decrypt',
    Resource: keyArn,
    Condition: {
      StringEquals: { 'kms:ViaService': viaService, 'kms:EncryptionContext:SecretARN': secretArn },
    },
  };
}

/**
 * The statement letting a consumer's role find an MSK cluster and its brokers.
 *
 * @example
 * expect(roleStatements(template, 'OrdersRole')).toContainEqual(mskClusterMetadataStatement(TEST_CLUSTER_ARN));
 */
export function mskClusterMetadataStatement(clusterArn: unknown): TemplateStatement {
  return {
    Sid: 'MskClusterMetadata',
    Effect: 'Allow',
    Action: ['kafka:DescribeClusterV2', 'kafka:GetBootstrapBrokers'],
    Resource: clusterArn,
  };
}

/**
 * The statement letting a replay function's role find an MSK cluster's brokers.
 *
 * @example
 * expect(roleStatements(template, 'OrdersReplayRole')).toContainEqual(mskBootstrapBrokersStatement(TEST_CLUSTER_ARN));
 */
export function mskBootstrapBrokersStatement(clusterArn: unknown): TemplateStatement {
  return {
    Sid: 'MskBootstrapBrokers',
    Effect: 'Allow',
    Action: 'kafka:GetBootstrapBrokers',
    Resource: clusterArn,
  };
}

/**
 * The MSK statements of an IAM-auth consumer's role, in their order: the cluster's metadata, connecting,
 * reading the topic and using the group. Each Resource as the template writes it (an ARN, or the
 * `Fn::Join` of template-queries.ts' mskArnJoin).
 *
 * @example
 * expect(roleStatements(template, 'OrdersRole')).toEqual([logs, ...mskIamConsumerStatements(arn, topicArn, groupArn), ...eni]);
 */
export function mskIamConsumerStatements(
  clusterArn: unknown,
  topicArn: unknown,
  groupArn: unknown,
): TemplateStatement[] {
  return [
    mskClusterMetadataStatement(clusterArn),
    {
      Sid: 'MskConnect',
      Effect: 'Allow',
      Action: ['kafka-cluster:Connect', 'kafka-cluster:DescribeClusterDynamicConfiguration'],
      Resource: clusterArn,
    },
    {
      Sid: 'MskReadTopic',
      Effect: 'Allow',
      Action: ['kafka-cluster:DescribeTopic', 'kafka-cluster:ReadData'],
      Resource: topicArn,
    },
    mskConsumerGroupStatement(groupArn),
  ];
}

/**
 * The MSK statements of an IAM-auth replay function's role, in their order: finding the brokers,
 * connecting, reading the allowed topics (`topicArns`: one ARN, or a list) and using the trigger's group.
 *
 * @example
 * expect(roleStatements(template, 'ReplayRole')).toEqual([logs, control, ...mskIamReplayStatements(arn, topicArn, groupArn), ...eni]);
 */
export function mskIamReplayStatements(
  clusterArn: unknown,
  topicArns: unknown,
  groupArn: unknown,
): TemplateStatement[] {
  return [
    mskBootstrapBrokersStatement(clusterArn),
    { Sid: 'MskConnect', Effect: 'Allow', Action: 'kafka-cluster:Connect', Resource: clusterArn },
    {
      Sid: 'MskReadTopics',
      Effect: 'Allow',
      Action: ['kafka-cluster:DescribeTopic', 'kafka-cluster:ReadData'],
      Resource: topicArns,
    },
    mskConsumerGroupStatement(groupArn),
  ];
}

function mskConsumerGroupStatement(groupArn: unknown): TemplateStatement {
  return {
    Sid: 'MskConsumerGroup',
    Effect: 'Allow',
    Action: ['kafka-cluster:DescribeGroup', 'kafka-cluster:AlterGroup'],
    Resource: groupArn,
  };
}
