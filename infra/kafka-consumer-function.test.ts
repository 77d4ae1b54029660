import { Aws, CfnParameter, Duration, type Stack, Validations } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { KafkaLambdaCdkError } from './errors.ts';
import {
  type FailureDestination,
  KafkaConsumerConfigError,
  KafkaConsumerFunction,
  type KafkaConsumerFunctionProps,
} from './kafka-consumer-function.ts';
import { importKafkaNetwork, type KafkaNetwork, type KafkaSource } from './kafka-source.ts';
import { ClusterOutsideStackEnvironmentError, InvalidClusterArnError } from './msk-arns.ts';
import {
  clicksConsumer,
  mskBootstrapBrokersStatement,
  mskClusterMetadataStatement,
  mskConsumerStack,
  mskIamConsumerStatements,
  mskIamReplayStatements,
  publicBrokers,
  secretDecryptStatement,
  secretReadStatement,
  TEST_CLUSTER_ARN,
  TEST_ENTRY,
  TEST_ENV,
  TEST_KEY_ARN,
  TEST_NETWORK,
  unbundledStack,
} from './msk-test-stacks.ts';
import { UnsupportedRegionError } from './regions.ts';
import { KafkaReplayConfigError, KafkaReplayFunction } from './replay-function.ts';
import { controlMappingStatement, NETWORK_INTERFACE_STATEMENTS, roleStatements } from './template-queries.ts';

// The constructs under test do not depend on what the handler does; bundling is covered by app.test.ts,
// so these stacks skip it (`aws:cdk:bundling-stacks: []`) to keep synth fast.
const ENTRY = TEST_ENTRY;
const CLUSTER_ARN = TEST_CLUSTER_ARN;
const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:kafka-creds-AbCdEf';
const [SUBNET_A, SUBNET_B] = TEST_NETWORK.subnetIds;
const [SG] = TEST_NETWORK.securityGroupIds;
const CA_ARN = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:kafka-ca-AbCdEf';

/** A stack for the Region given, or an environment-agnostic one. */
function newStack(region?: string): Stack {
  const env = region === undefined ? undefined : { region };
  return unbundledStack('Consumers', env);
}

/**
 * mappingProps of a trigger in on-demand mode: no provisioned pollers, and none of the settings AWS offers
 * only with them.
 */
const ON_DEMAND_MAPPING = {
  provisionedPollerConfig: undefined,
  reportBatchItemFailures: undefined,
  retryAttempts: undefined,
  maxRecordAge: undefined,
  bisectBatchOnError: undefined,
  metricsConfig: undefined,
} as const;

function importedNetwork(stack: Stack): KafkaNetwork {
  return importKafkaNetwork(stack, TEST_NETWORK);
}

describe('KafkaConsumerFunction and KafkaReplayFunction', () => {
  let template: Template;
  let stack: Stack;
  let publicDeliveryErrors: cloudwatch.Metric;

  beforeAll(() => {
    stack = newStack();
    const network = importedNetwork(stack);
    const secret = secretsmanager.Secret.fromSecretCompleteArn(stack, 'Secret', SECRET_ARN);
    const msk: KafkaSource = { kind: 'msk', clusterArn: CLUSTER_ARN, auth: { type: 'iam' }, network };
    const tuned = new KafkaConsumerFunction(stack, 'Tuned', {
      entry: ENTRY,
      source: msk,
      topic: 'orders',
      consumerGroupId: 'orders-tuned',
      startingPosition: lambda.StartingPosition.LATEST,
      batchSize: 500,
      maxBatchingWindow: Duration.seconds(2),
      retryAttempts: 0,
      maxRecordAge: Duration.hours(1),
      bisectBatchOnError: false,
      provisionedPollers: { minimumPollers: 2, maximumPollers: 10, pollerGroupName: 'shop' },
      onFailure: { type: 'kafka', topic: 'orders-failed' },
      functionProps: { memorySize: 1024, environment: { FEATURE: 'on' } },
      mappingProps: { metricsConfig: { metrics: [lambda.MetricType.KAFKA_METRICS] } },
    });
    new KafkaReplayFunction(stack, 'TunedReplay', {
      entry: ENTRY,
      source: msk,
      target: tuned,
      allowedTopics: ['orders', 'orders-retry'],
    });
    const sharedDlq = new sqs.Queue(stack, 'SharedDlq', { enforceSSL: true });
    Validations.of(sharedDlq).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: 'The queue is a dead-letter destination.',
    });
    const privateSource: KafkaSource = {
      kind: 'self-managed',
      bootstrapServers: ['k1.internal:9096', 'k2.internal:9096'],
      auth: { type: 'sasl-scram-256', secret },
      rootCaCertificate: secretsmanager.Secret.fromSecretCompleteArn(stack, 'Ca', CA_ARN),
      network,
    };
    const privateConsumer = new KafkaConsumerFunction(stack, 'Private', {
      entry: ENTRY,
      source: privateSource,
      topic: 'payments',
      consumerGroupId: 'payments-consumer',
      onFailure: { type: 'sqs', queue: sharedDlq },
    });
    new KafkaReplayFunction(stack, 'PrivateReplay', {
      entry: ENTRY,
      source: privateSource,
      target: privateConsumer,
    });
    const publicSource = publicBrokers({ type: 'basic', secret });
    const pub = clicksConsumer(stack, 'Public', publicSource, {
      filterCriteria: { Filters: [{ Pattern: '{ "value": { "kind": ["click"] } }' }] },
    });
    publicDeliveryErrors = pub.metricOnFailureDeliveryErrors();
    new KafkaReplayFunction(stack, 'PublicReplay', { entry: ENTRY, source: publicSource, target: pub });
    template = Template.fromStack(stack);
  }, 120_000); // synth on a busy 2-core machine

  it('passes every override to the trigger and the function', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: CLUSTER_ARN,
      Topics: ['orders'],
      AmazonManagedKafkaEventSourceConfig: { ConsumerGroupId: 'orders-tuned' },
      StartingPosition: 'LATEST',
      BatchSize: 500,
      MaximumBatchingWindowInSeconds: 2,
      MaximumRetryAttempts: 0,
      MaximumRecordAgeInSeconds: 3600,
      BisectBatchOnFunctionError: false,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ProvisionedPollerConfig: { MinimumPollers: 2, MaximumPollers: 10, PollerGroupName: 'shop' },
      DestinationConfig: { OnFailure: { Destination: 'kafka://orders-failed' } },
      MetricsConfig: { Metrics: ['KafkaMetrics'] },
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      MemorySize: 1024,
      Environment: { Variables: { FEATURE: 'on' } },
    });
  });

  it('gives an MSK IAM consumer exactly its topic, its group and its failure topic', () => {
    expect(roleStatements(template, 'TunedRole')).toEqual([
      expect.objectContaining({ Action: ['logs:CreateLogStream', 'logs:PutLogEvents'] }),
      ...mskIamConsumerStatements(
        CLUSTER_ARN,
        'arn:aws:kafka:eu-west-1:111122223333:topic/shop/0f3c-uuid-1/orders',
        'arn:aws:kafka:eu-west-1:111122223333:group/shop/0f3c-uuid-1/orders-tuned',
      ),
      {
        Sid: 'MskDescribeClusterForFailureTopic',
        Effect: 'Allow',
        Action: 'kafka-cluster:DescribeCluster',
        Resource: CLUSTER_ARN,
      },
      {
        Sid: 'MskWriteFailureTopic',
        Effect: 'Allow',
        Action: ['kafka-cluster:DescribeTopic', 'kafka-cluster:WriteData'],
        Resource: 'arn:aws:kafka:eu-west-1:111122223333:topic/shop/0f3c-uuid-1/orders-failed',
      },
      ...NETWORK_INTERFACE_STATEMENTS.trigger,
    ]);
  });

  it('lets the replay function touch only the one mapping, group and the allowed topics', () => {
    const mappingId = Object.keys(
      template.findResources('AWS::Lambda::EventSourceMapping', { Properties: { Topics: ['orders'] } }),
    )[0];
    expect(roleStatements(template, 'TunedReplayRole')).toEqual([
      expect.objectContaining({ Action: ['logs:CreateLogStream', 'logs:PutLogEvents'] }),
      controlMappingStatement(mappingId),
      ...mskIamReplayStatements(
        CLUSTER_ARN,
        [
          'arn:aws:kafka:eu-west-1:111122223333:topic/shop/0f3c-uuid-1/orders',
          'arn:aws:kafka:eu-west-1:111122223333:topic/shop/0f3c-uuid-1/orders-retry',
        ],
        'arn:aws:kafka:eu-west-1:111122223333:group/shop/0f3c-uuid-1/orders-tuned',
      ),
      ...NETWORK_INTERFACE_STATEMENTS.function,
    ]);
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: {
          NODE_OPTIONS: '--enable-source-maps --disable-warning=TimeoutNegativeWarning',
          REPLAY_MAPPING_UUID: { Ref: mappingId },
          REPLAY_CONSUMER_GROUP_ID: 'orders-tuned',
          REPLAY_ALLOWED_TOPICS: 'orders,orders-retry',
          KAFKA_AUTH: 'iam',
          KAFKA_CLUSTER_ARN: CLUSTER_ARN,
        },
      },
      VpcConfig: { SubnetIds: [SUBNET_A, SUBNET_B], SecurityGroupIds: [SG] },
    });
  });

  it('wires self-managed brokers in a VPC: auth, root CA, subnets and security groups', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      SelfManagedEventSource: {
        Endpoints: { KafkaBootstrapServers: ['k1.internal:9096', 'k2.internal:9096'] },
      },
      SelfManagedKafkaEventSourceConfig: { ConsumerGroupId: 'payments-consumer' },
      SourceAccessConfigurations: [
        { Type: 'SASL_SCRAM_256_AUTH', URI: SECRET_ARN },
        { Type: 'SERVER_ROOT_CA_CERTIFICATE', URI: CA_ARN },
        { Type: 'VPC_SUBNET', URI: SUBNET_A },
        { Type: 'VPC_SUBNET', URI: SUBNET_B },
        { Type: 'VPC_SECURITY_GROUP', URI: SG },
      ],
      DestinationConfig: {
        OnFailure: { Destination: { 'Fn::GetAtt': [Match.stringLikeRegexp('^SharedDlq'), 'Arn'] } },
      },
    });
    const statements = roleStatements(template, 'PrivateRole');
    const read = ['secretsmanager:GetSecretValue', 'secretsmanager:DescribeSecret'];
    expect(statements.map((statement) => statement.Sid ?? statement.Action)).toEqual([
      ['logs:CreateLogStream', 'logs:PutLogEvents'],
      'sqs:SendMessage',
      read,
      'kms:Decrypt',
      read,
      'kms:Decrypt',
      'ManageNetworkInterfaces',
      'DescribeNetwork',
    ]);
    expect(
      statements.filter((s) => s.Action === read[0] || s.Action[0] === read[0]).map((s) => s.Resource),
    ).toEqual([SECRET_ARN, CA_ARN]);
    // Secrets imported by ARN name no key: decrypt only through Secrets Manager, only these secrets
    // (their full ARNs, matched exactly).
    const decrypts = statements.filter((statement) => statement.Action === 'kms:Decrypt');
    expect(
      decrypts.map((statement) => statement.Condition?.StringEquals?.['kms:EncryptionContext:SecretARN']),
    ).toEqual([SECRET_ARN, CA_ARN]);
    expect(decrypts.map((statement) => statement.Condition?.StringLike)).toEqual([undefined, undefined]);
  });

  it('matches the full ARN in the encryption context of a secret imported by partial ARN or name', () => {
    const partialStack = unbundledStack('Partial', TEST_ENV);
    const partialArn = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:kafka-creds';
    clicksConsumer(
      partialStack,
      'Partial',
      publicBrokers(
        {
          type: 'basic',
          secret: secretsmanager.Secret.fromSecretPartialArn(partialStack, 'Secret', partialArn),
        },
        secretsmanager.Secret.fromSecretNameV2(partialStack, 'Ca', 'kafka-ca'),
      ),
    );
    const decrypts = roleStatements(Template.fromStack(partialStack), 'PartialRole').filter(
      (statement) => statement.Action === 'kms:Decrypt',
    );
    // Secrets Manager puts the full ARN (`<partial ARN>-` and six characters) in the encryption context:
    // an exact match on the partial ARN would never hold.
    expect(decrypts.map((statement) => statement.Condition)).toEqual([
      {
        StringEquals: { 'kms:ViaService': 'secretsmanager.eu-west-1.amazonaws.com' },
        StringLike: { 'kms:EncryptionContext:SecretARN': `${partialArn}-??????` },
      },
      {
        StringEquals: { 'kms:ViaService': 'secretsmanager.eu-west-1.amazonaws.com' },
        StringLike: {
          'kms:EncryptionContext:SecretARN': {
            'Fn::Join': [
              '',
              [
                'arn:',
                { Ref: 'AWS::Partition' },
                ':secretsmanager:eu-west-1:111122223333:secret:kafka-ca-??????',
              ],
            ],
          },
        },
      },
    ]);
  });

  it('grants decrypt on the key a secret is given with, and no key wildcard', () => {
    const keyStack = newStack();
    const key = new kms.Key(keyStack, 'Key', { enableKeyRotation: true });
    const secret = secretsmanager.Secret.fromSecretAttributes(keyStack, 'Secret', {
      secretCompleteArn: SECRET_ARN,
      encryptionKey: key,
    });
    clicksConsumer(keyStack, 'Keyed', publicBrokers({ type: 'basic', secret }));
    const keyed = Template.fromStack(keyStack);
    expect(JSON.stringify(keyed.toJSON())).not.toContain(':key/*');
    // In the role's own policy too, as for a key imported by ARN, whose key policy CDK cannot change.
    expect(
      roleStatements(keyed, 'KeyedRole').filter((statement) => statement.Action === 'kms:Decrypt'),
    ).toEqual([
      secretDecryptStatement({ 'Fn::GetAtt': [expect.stringMatching(/^Key/), 'Arn'] }, SECRET_ARN, {
        Ref: 'AWS::Region',
      }),
    ]);
    keyed.hasResourceProperties('AWS::KMS::Key', {
      KeyPolicy: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Action: 'kms:Decrypt',
            Condition: { StringEquals: { 'kms:ViaService': Match.anyValue() } },
          }),
        ]),
      },
    });
  });

  it('lets the trigger send to an SQS destination and use its key, and nothing more', () => {
    const keyStack = newStack();
    const key = new kms.Key(keyStack, 'Key', { enableKeyRotation: true });
    const queue = new sqs.Queue(keyStack, 'Dlq', { encryptionMasterKey: key, enforceSSL: true });
    new KafkaConsumerFunction(keyStack, 'Keyed', {
      entry: ENTRY,
      source: { kind: 'msk', clusterArn: CLUSTER_ARN, auth: { type: 'iam' } },
      topic: 'orders',
      consumerGroupId: 'orders-consumer',
      onFailure: { type: 'sqs', queue },
    });
    const statements = roleStatements(Template.fromStack(keyStack), 'KeyedRole');
    expect(statements.filter((statement) => /^(sqs|kms):/.test([statement.Action].flat()[0]!))).toEqual([
      {
        Effect: 'Allow',
        Action: 'sqs:SendMessage',
        Resource: { 'Fn::GetAtt': [expect.stringMatching(/^Dlq/), 'Arn'] },
      },
      {
        Effect: 'Allow',
        Action: ['kms:GenerateDataKey', 'kms:Decrypt'],
        Resource: { 'Fn::GetAtt': [expect.stringMatching(/^Key/), 'Arn'] },
      },
    ]);
  });

  it('keeps a consumer of public brokers and its replay function out of any VPC', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      SelfManagedEventSource: { Endpoints: { KafkaBootstrapServers: ['kafka.example.com:9096'] } },
      SourceAccessConfigurations: [{ Type: 'BASIC_AUTH', URI: SECRET_ARN }],
    });
    for (const role of ['PublicRole', 'PublicReplayRole']) {
      const statements = roleStatements(template, role);
      expect(statements.some((statement) => statement.Resource === SECRET_ARN)).toBe(true);
      const actions = statements.flatMap((statement) => statement.Action);
      expect(actions.filter((action) => /^(ec2|kafka|kafka-cluster):/.test(action))).toEqual([]);
    }
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: {
          NODE_OPTIONS: '--enable-source-maps --disable-warning=TimeoutNegativeWarning',
          REPLAY_MAPPING_UUID: Match.anyValue(),
          REPLAY_CONSUMER_GROUP_ID: 'clicks-consumer',
          REPLAY_ALLOWED_TOPICS: 'clicks',
          KAFKA_AUTH: 'basic',
          KAFKA_BOOTSTRAP_SERVERS: 'kafka.example.com:9096',
          KAFKA_SECRET_ARN: SECRET_ARN,
        },
      },
      VpcConfig: Match.absent(),
    });
  });

  it('gives the replay function of a privately signed cluster the root CA the trigger uses', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({
          REPLAY_CONSUMER_GROUP_ID: 'payments-consumer',
          KAFKA_BOOTSTRAP_SERVERS: 'k1.internal:9096,k2.internal:9096',
          KAFKA_SECRET_ARN: SECRET_ARN,
          KAFKA_ROOT_CA_SECRET_ARN: CA_ARN,
        }),
      },
    });
    const readable = roleStatements(template, 'PrivateReplayRole')
      .filter((statement) => [statement.Action].flat().includes('secretsmanager:GetSecretValue'))
      .map((statement) => statement.Resource)
      .sort();
    expect(readable).toEqual([CA_ARN, SECRET_ARN]);
  });

  it('turns on every metric group of the mapping and takes Lambda-shaped filter criteria', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      Topics: ['clicks'],
      MetricsConfig: { Metrics: ['EventCount', 'ErrorCount', 'KafkaMetrics'] },
      FilterCriteria: { Filters: [{ Pattern: '{ "value": { "kind": ["click"] } }' }] },
    });
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      Topics: ['payments'],
      MetricsConfig: { Metrics: ['EventCount', 'ErrorCount', 'KafkaMetrics'] },
      FilterCriteria: Match.absent(),
    });
  });

  it('measures failed on-failure deliveries per mapping, not per function', () => {
    const mappingId = Object.keys(
      template.findResources('AWS::Lambda::EventSourceMapping', { Properties: { Topics: ['clicks'] } }),
    )[0]!;
    expect(publicDeliveryErrors.namespace).toBe('AWS/Lambda');
    expect(publicDeliveryErrors.metricName).toBe('OnFailureDestinationDeliveryErrorCount');
    expect(stack.resolve(publicDeliveryErrors.dimensions)).toEqual({
      EventSourceMappingUUID: { Ref: mappingId },
    });
  });

  it('passes cdk-nag AwsSolutions with only the acknowledged, explained wildcards', () => {
    expect(new AwsSolutionsChecks().validateScope(stack).violations).toEqual([]);
  });
});

// An MSK SCRAM secret must be under a customer managed key (MSK guide, msk-password-limitations), and a team
// with an existing cluster imports that key by ARN: CDK cannot change its key policy, so Secret.grantRead's
// decrypt grant (to a ViaServicePrincipal, in the key policy) is dropped, and only the role's own policy can
// let Lambda, and the replay function, decrypt the secret.
describe('a secret under a KMS key imported by ARN', () => {
  const SCRAM_ARN = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:AmazonMSK_shop-AbCdEf';
  const decryptOnKey = secretDecryptStatement(TEST_KEY_ARN, SCRAM_ARN, 'eu-west-1');
  let stack: Stack;
  let template: Template;

  beforeAll(() => {
    const built = mskConsumerStack({
      id: 'ImportedKey',
      auth: 'sasl-scram-512',
      secretArn: SCRAM_ARN,
      keyArn: TEST_KEY_ARN,
      consumerId: 'Msk',
    });
    stack = built.stack;
    clicksConsumer(stack, 'SelfManaged', publicBrokers({ type: 'sasl-scram-512', secret: built.secret }));
    template = Template.fromStack(stack);
  }, 120_000); // synth on a busy 2-core machine

  it('lets the MSK consumer, its replay function and a self-managed consumer decrypt it with that key only', () => {
    for (const role of ['MskRole', 'MskReplayRole', 'SelfManagedRole']) {
      const statements = roleStatements(template, role);
      expect(statements).toContainEqual(secretReadStatement(SCRAM_ARN));
      expect(
        statements.filter((statement) => [statement.Action].flat().some((a) => a.startsWith('kms:'))),
      ).toEqual([decryptOnKey]);
    }
  });

  it('passes cdk-nag AwsSolutions: the key is named, no key wildcard', () => {
    expect(JSON.stringify(template.toJSON())).not.toContain(':key/*');
    expect(new AwsSolutionsChecks().validateScope(stack).violations).toEqual([]);
  });

  // IAM authorises a Decrypt request on the key's ARN, never on an alias ARN: a key given by alias names no
  // key, as a secret imported without one.
  it('grants a key given as an alias through Secrets Manager on any key of the account, acknowledged', () => {
    const aliasStack = unbundledStack('Alias', TEST_ENV);
    clicksConsumer(
      aliasStack,
      'Aliased',
      publicBrokers({
        type: 'sasl-scram-512',
        secret: secretsmanager.Secret.fromSecretAttributes(aliasStack, 'Scram', {
          secretCompleteArn: SCRAM_ARN,
          encryptionKey: kms.Alias.fromAliasName(aliasStack, 'Key', 'alias/kafka'),
        }),
      }),
    );
    const decrypts = roleStatements(Template.fromStack(aliasStack), 'AliasedRole').filter(
      (statement) => statement.Action === 'kms:Decrypt',
    );
    expect(decrypts).toEqual([
      {
        ...decryptOnKey,
        Resource: {
          'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':kms:eu-west-1:111122223333:key/*']],
        },
      },
    ]);
    expect(new AwsSolutionsChecks().validateScope(aliasStack).violations).toEqual([]);
  });
});

// Lambda reads MSK with a client certificate (CLIENT_CERTIFICATE_TLS_AUTH) as it does self-managed brokers:
// https://docs.aws.amazon.com/lambda/latest/dg/msk-cluster-auth.html ("Mutual TLS authentication").
describe('an MSK source with mutual TLS', () => {
  const CERT_ARN = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:orders-client-cert-AbCdEf';
  let stack: Stack;
  let template: Template;

  beforeAll(() => {
    ({ stack } = mskConsumerStack({
      id: 'MskMtls',
      auth: 'mtls',
      secretArn: CERT_ARN,
      keyArn: TEST_KEY_ARN,
    }));
    template = Template.fromStack(stack);
  }, 120_000); // synth on a busy 2-core machine

  it('gives the trigger the certificate secret, and the role the cluster metadata, the secret and its key', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: CLUSTER_ARN,
      SourceAccessConfigurations: [{ Type: 'CLIENT_CERTIFICATE_TLS_AUTH', URI: CERT_ARN }],
    });
    const statements = roleStatements(template, 'OrdersRole');
    // No ListScramSecrets (SCRAM only) and no kafka-cluster:* (IAM auth only): Kafka ACLs authorise mTLS clients.
    expect(
      statements.filter((s) =>
        [s.Action].flat().some((a) => /^(kafka|kafka-cluster|kms|secretsmanager):/.test(a)),
      ),
    ).toEqual([
      mskClusterMetadataStatement(CLUSTER_ARN),
      secretReadStatement(CERT_ARN),
      secretDecryptStatement(TEST_KEY_ARN, CERT_ARN, 'eu-west-1'),
    ]);
  });

  // The replay function finds the cluster's TLS brokers (port 9094) and reads the same certificate secret.
  it('connects the replay function with the same certificate, finding the TLS brokers by the cluster ARN', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({
          KAFKA_AUTH: 'mtls',
          KAFKA_CLUSTER_ARN: CLUSTER_ARN,
          KAFKA_SECRET_ARN: CERT_ARN,
        }),
      },
    });
    const statements = roleStatements(template, 'OrdersReplayRole');
    expect(statements).toContainEqual(mskBootstrapBrokersStatement(CLUSTER_ARN));
    expect(statements).toContainEqual(secretReadStatement(CERT_ARN));
    expect(statements).toContainEqual(secretDecryptStatement(TEST_KEY_ARN, CERT_ARN, 'eu-west-1'));
    expect(statements.flatMap((s) => s.Action).filter((a) => a.startsWith('kafka-cluster:'))).toEqual([]);
  });

  it('passes cdk-nag AwsSolutions', () => {
    expect(new AwsSolutionsChecks().validateScope(stack).violations).toEqual([]);
  });
});

// functionProps.logGroup is how to choose the function's logs: the role must be able to write there.
// functionProps.logRetention makes aws-cdk-lib throw LogRetentionLogGroupConflict next to the construct's
// own log group: refused first, by name, with the way to do it.
describe("the functions' log groups", () => {
  it('refuses functionProps.logRetention for the consumer and the replay function, naming functionProps.logGroup', () => {
    const stack = newStack();
    const source: KafkaSource = {
      kind: 'msk',
      clusterArn: CLUSTER_ARN,
      auth: { type: 'iam' },
      network: importedNetwork(stack),
    };
    const base = { entry: ENTRY, source, topic: 'orders', consumerGroupId: 'g' };
    const functionProps = { logRetention: logs.RetentionDays.ONE_WEEK };
    const consumer = () => new KafkaConsumerFunction(newStack(), 'C', { ...base, functionProps });
    expect(consumer).toThrow(KafkaConsumerConfigError);
    expect(consumer).toThrow(
      /^functionProps.logRetention cannot be used: .* Give functionProps.logGroup instead/,
    );
    const target = new KafkaConsumerFunction(stack, 'T', base);
    let replays = 0;
    const replay = () =>
      new KafkaReplayFunction(stack, `R${replays++}`, { entry: ENTRY, source, target, functionProps });
    expect(replay).toThrow(KafkaReplayConfigError);
    expect(replay).toThrow(
      /^functionProps.logRetention cannot be used: .* Give functionProps.logGroup instead/,
    );
  });

  it('lets each function write to the log group functionProps gives it, and makes none of its own', () => {
    const stack = unbundledStack('Logs', TEST_ENV);
    const source: KafkaSource = {
      kind: 'msk',
      clusterArn: CLUSTER_ARN,
      auth: { type: 'iam' },
      network: importedNetwork(stack),
    };
    const consumer = new KafkaConsumerFunction(stack, 'Orders', {
      entry: ENTRY,
      source,
      topic: 'orders',
      consumerGroupId: 'g',
      functionProps: {
        logGroup: new logs.LogGroup(stack, 'OrdersLogs', { retention: logs.RetentionDays.ONE_WEEK }),
      },
    });
    new KafkaReplayFunction(stack, 'Replay', {
      entry: ENTRY,
      source,
      target: consumer,
      functionProps: { logGroup: logs.LogGroup.fromLogGroupName(stack, 'Shared', 'ops/replays') },
    });
    const template = Template.fromStack(stack);
    expect(Object.keys(template.findResources('AWS::Logs::LogGroup'))).toEqual([
      expect.stringMatching(/^OrdersLogs/),
    ]);
    const logStatements = (role: string) =>
      roleStatements(template, role).filter((statement) =>
        [statement.Action].flat().some((action) => action.startsWith('logs:')),
      );
    expect(logStatements('OrdersRole')).toEqual([
      {
        Effect: 'Allow',
        Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        Resource: { 'Fn::GetAtt': [expect.stringMatching(/^OrdersLogs/), 'Arn'] },
      },
    ]);
    expect(logStatements('ReplayRole')).toEqual([
      {
        Effect: 'Allow',
        Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        Resource: {
          'Fn::Join': [
            '',
            ['arn:', { Ref: 'AWS::Partition' }, ':logs:eu-west-1:111122223333:log-group:ops/replays:*'],
          ],
        },
      },
    ]);
    template.hasResourceProperties('AWS::Lambda::Function', {
      LoggingConfig: { LogGroup: 'ops/replays', LogFormat: 'JSON' },
    });
    expect(new AwsSolutionsChecks().validateScope(stack).violations).toEqual([]);
  });
});

// CloudFormation's DestinationConfig.OnFailure takes an SNS topic or an S3 bucket for MSK and self-managed
// Kafka, and the Lambda guide lists what the role needs for each:
// https://docs.aws.amazon.com/lambda/latest/dg/kafka-on-failure.html
describe('SNS and S3 on-failure destinations', () => {
  const env = { account: '111122223333', region: 'eu-west-1' };
  const msk: KafkaSource = { kind: 'msk', clusterArn: CLUSTER_ARN, auth: { type: 'iam' } };
  let stack: Stack;
  let template: Template;

  /** The role's statements on SNS, S3 and KMS. */
  function destinationStatements(role: string): unknown[] {
    return roleStatements(template, role).filter((statement) =>
      [statement.Action].flat().some((action) => /^(sns|s3|kms):/.test(action)),
    );
  }

  beforeAll(() => {
    stack = unbundledStack('Destinations', env);
    const key = new kms.Key(stack, 'Key', { enableKeyRotation: true });
    const base = { entry: ENTRY, source: msk, consumerGroupId: 'orders-consumer' };
    new KafkaConsumerFunction(stack, 'ToTopic', {
      ...base,
      topic: 'orders',
      onFailure: { type: 'sns', topic: new sns.Topic(stack, 'Failed', { masterKey: key, enforceSSL: true }) },
    });
    new KafkaConsumerFunction(stack, 'ToImportedTopic', {
      ...base,
      topic: 'payments',
      onFailure: {
        type: 'sns',
        topic: sns.Topic.fromTopicArn(stack, 'Imported', 'arn:aws:sns:eu-west-1:111122223333:failed'),
      },
    });
    const bucket = new s3.Bucket(stack, 'Batches', {
      encryption: s3.BucketEncryption.KMS,
      encryptionKey: key,
      enforceSSL: true,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
    });
    Validations.of(bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason: 'A test bucket: access logs are the application’s choice.',
    });
    new KafkaConsumerFunction(stack, 'ToBucket', {
      ...base,
      topic: 'refunds',
      onFailure: { type: 's3', bucket },
    });
    new KafkaConsumerFunction(stack, 'ToImportedBucket', {
      ...base,
      topic: 'clicks',
      onFailure: { type: 's3', bucket: s3.Bucket.fromBucketName(stack, 'ImportedBucket', 'failed-batches') },
    });
    template = Template.fromStack(stack);
  }, 120_000); // synth on a busy 2-core machine

  it('sends to the topic, with sns:Publish on it and the KMS actions its key needs', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      Topics: ['orders'],
      DestinationConfig: { OnFailure: { Destination: { Ref: Match.stringLikeRegexp('^Failed') } } },
    });
    expect(destinationStatements('ToTopicRole')).toEqual([
      { Effect: 'Allow', Action: 'sns:Publish', Resource: { Ref: expect.stringMatching(/^Failed/) } },
      {
        Effect: 'Allow',
        Action: ['kms:Decrypt', 'kms:GenerateDataKey'],
        Resource: { 'Fn::GetAtt': [expect.stringMatching(/^Key/), 'Arn'] },
      },
    ]);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      Topics: ['payments'],
      DestinationConfig: { OnFailure: { Destination: 'arn:aws:sns:eu-west-1:111122223333:failed' } },
    });
    expect(destinationStatements('ToImportedTopicRole')).toEqual([
      { Effect: 'Allow', Action: 'sns:Publish', Resource: 'arn:aws:sns:eu-west-1:111122223333:failed' },
    ]);
  });

  it('writes to the bucket, with s3:ListBucket on it, s3:PutObject on its objects and kms:GenerateDataKey', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      Topics: ['refunds'],
      DestinationConfig: {
        OnFailure: { Destination: { 'Fn::GetAtt': [Match.stringLikeRegexp('^Batches'), 'Arn'] } },
      },
    });
    const bucketArn = { 'Fn::GetAtt': [expect.stringMatching(/^Batches/), 'Arn'] };
    expect(destinationStatements('ToBucketRole')).toEqual([
      { Effect: 'Allow', Action: 's3:ListBucket', Resource: bucketArn },
      { Effect: 'Allow', Action: 's3:PutObject', Resource: { 'Fn::Join': ['', [bucketArn, '/*']] } },
      {
        Effect: 'Allow',
        Action: 'kms:GenerateDataKey',
        Resource: { 'Fn::GetAtt': [expect.stringMatching(/^Key/), 'Arn'] },
      },
    ]);
    const importedArn = ['arn:', { Ref: 'AWS::Partition' }, ':s3:::failed-batches'];
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      Topics: ['clicks'],
      DestinationConfig: { OnFailure: { Destination: { 'Fn::Join': ['', importedArn] } } },
    });
    expect(destinationStatements('ToImportedBucketRole')).toEqual([
      { Effect: 'Allow', Action: 's3:ListBucket', Resource: { 'Fn::Join': ['', importedArn] } },
      {
        Effect: 'Allow',
        Action: 's3:PutObject',
        Resource: { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':s3:::failed-batches/*']] },
      },
    ]);
  });

  it('passes cdk-nag AwsSolutions, the bucket objects acknowledged with their reason', () => {
    expect(new AwsSolutionsChecks().validateScope(stack).violations).toEqual([]);
  });

  // SQS, SNS and S3 destinations for Kafka came before provisioned mode; a Kafka topic needs it.
  it('keeps SNS and S3 destinations in on-demand mode without the provisioned-only warning', () => {
    const warningsWith = (onFailure: FailureDestination | undefined): unknown[] => {
      const onDemandStack = unbundledStack('OnDemand', env);
      const destinations = {
        sns: {
          type: 'sns',
          topic: sns.Topic.fromTopicArn(onDemandStack, 'T', 'arn:aws:sns:eu-west-1:111122223333:failed'),
        },
        s3: { type: 's3', bucket: s3.Bucket.fromBucketName(onDemandStack, 'B', 'failed-batches') },
      } as const;
      for (const [id, topic, destination] of [
        ['C', 'orders', destinations.sns],
        ['D', 'clicks', destinations.s3],
      ] as const) {
        new KafkaConsumerFunction(onDemandStack, id, {
          entry: ENTRY,
          source: msk,
          topic,
          consumerGroupId: `${topic}-consumer`,
          onFailure: onFailure ?? destination,
          mappingProps: ON_DEMAND_MAPPING,
        });
      }
      return Annotations.fromStack(onDemandStack).findWarning(
        '*',
        Match.stringLikeRegexp('provisioned pollers are off'),
      );
    };
    expect(warningsWith(undefined)).toEqual([]);
    expect(warningsWith({ type: 'kafka', topic: 'orders-failed' })).toHaveLength(2);
  });
});

describe('configurations refused at synth time', () => {
  const msk: KafkaSource = { kind: 'msk', clusterArn: CLUSTER_ARN, auth: { type: 'iam' } };
  const base = { entry: ENTRY, source: msk, topic: 'orders', consumerGroupId: 'g' };
  const target = { mappingUuid: 'u', mappingArn: 'arn', consumerGroupId: 'g', topic: 'orders' };

  it.each([
    [{ ...base, functionProps: { timeout: Duration.minutes(15) } }, /exceeds the 14 minutes/],
    [
      { ...base, onFailure: { type: 'kafka', topic: 'orders' } as const },
      /must differ from the source topic "orders"/,
    ],
    [
      {
        ...base,
        source: { kind: 'self-managed', bootstrapServers: ['k:9092'], auth: { type: 'none' } } as const,
      },
      /need an authentication secret/,
    ],
    [
      { ...base, filterCriteria: { Filters: [{ Pattern: '{ "partition": [0] }' }] } },
      /filter only on "value"/,
    ],
    // Names Kafka takes but the trigger's API refuses (API_CreateEventSourceMapping).
    [{ ...base, topic: 'o' }, /topic "o" is not a topic name a Kafka trigger accepts/],
    [
      { ...base, onFailure: { type: 'kafka', topic: '.orders-failed' } as const },
      /onFailure.topic ".orders-failed" is not a topic name/,
    ],
    [
      { ...base, onFailure: { type: 'kafka', topic: 'kafka://orders-failed' } as const },
      'onFailure.topic "kafka://orders-failed" starts with kafka://: give the topic name alone ("orders-failed"), the construct adds the kafka:// prefix',
    ],
    [
      { ...base, onFailure: { type: 'kafka' } as never },
      'onFailure.topic must be a topic name, got undefined',
    ],
    // kafka://dlq is 11 characters: CloudFormation's OnFailure.Destination takes 12 at least.
    [
      { ...base, onFailure: { type: 'kafka', topic: 'dlq' } as const },
      'onFailure.topic "dlq" is too short for an on-failure destination: CloudFormation takes DestinationConfig.OnFailure.Destination ("kafka://dlq") of 12 characters or more, so a topic name of 4 or more',
    ],
    [
      { ...base, consumerGroupId: '' },
      'consumerGroupId is empty: Lambda would consume as a group id of its own choosing, which the IAM policy and the replay function do not name',
    ],
    [
      { ...base, consumerGroupId: 'orders consumer' },
      'consumerGroupId "orders consumer" is not a consumer group id a Kafka trigger accepts (1–200 of a-z A-Z 0-9 - / * : _ + = . @)',
    ],
    [
      { ...base, consumerGroupId: 'orders-*' },
      'consumerGroupId "orders-*" contains "*": with MSK IAM auth the role is granted the group by its ARN, where IAM reads "*" as a wildcard, so it could join and commit as every group that matches; choose a group id without * or ?',
    ],
    [
      {
        ...base,
        provisionedPollers: { minimumPollers: 1, maximumPollers: 2, pollerGroupName: 'shop pollers' },
      },
      /pollerGroupName "shop pollers" is not a poller group name Lambda accepts/,
    ],
    [
      { ...base, filterCriteria: { Filters: [{ Pattern: '{ "value": { "a": [{ "wildcard": "x*" }] } }' }] } },
      /"wildcard" is not a Lambda filter operator/,
    ],
    [
      {
        ...base,
        filterCriteria: {
          Filters: [
            { Pattern: '{ "value": { "a": ["x"] } }' },
            { Pattern: '{ "value": { "b": ["y"] } }' },
            { Pattern: '{ "value": { "a": ["x"] } }' },
          ],
        },
      },
      'filterCriteria.Filters[2].Pattern is the same as Filters[0].Pattern: CloudFormation refuses duplicate FilterCriteria.Filters (uniqueItems)',
    ],
    // From JavaScript, where the types do not stop it.
    [
      { ...base, filterCriteria: {} as never },
      /filterCriteria.*expected \{ Filters: \[\{ Pattern: string \}/,
    ],
  ])('consumer %#', (props, message) => {
    expect(() => new KafkaConsumerFunction(newStack(), 'C', props)).toThrow(KafkaConsumerConfigError);
    expect(() => new KafkaConsumerFunction(newStack(), 'C', props)).toThrow(message);
  });

  it.each([
    [{ ...base, batchSzie: 10 }, 'unknown option "batchSzie" — did you mean "batchSize"?'],
    [{ ...base, retryAttempt: 2 }, 'unknown option "retryAttempt" — did you mean "retryAttempts"?'],
    [
      { ...base, source: { ...msk, clustrArn: CLUSTER_ARN } },
      'unknown option "source.clustrArn" — did you mean "source.clusterArn"?',
    ],
    [
      {
        ...base,
        source: { kind: 'self-managed', bootstrapServers: ['k:9092'], auth: { type: 'none' }, netwrok: {} },
      },
      'unknown option "source.netwrok" — did you mean "source.network"?',
    ],
    [
      { ...base, onFailure: { type: 'kafka', topik: 'orders-failed' } },
      'unknown option "onFailure.topik" — did you mean "onFailure.topic"?',
    ],
    // Would deploy ProvisionedPollerConfig: {} (Lambda's defaults, billed pollers) without a word.
    [
      { ...base, provisionedPollers: { minPollers: 10 } },
      'unknown option "provisionedPollers.minPollers" — did you mean "provisionedPollers.minimumPollers"?',
    ],
    [
      { ...base, provisionedPollers: { minimumPollers: 1, maximumPollers: 2, groupName: 'shop' } },
      'unknown option "provisionedPollers.groupName" (valid options: provisionedPollers.minimumPollers, provisionedPollers.maximumPollers, provisionedPollers.pollerGroupName)',
    ],
  ])('consumer with a misspelled prop %#', (props, message) => {
    expect(() => new KafkaConsumerFunction(newStack(), 'C', props as never)).toThrow(
      new KafkaConsumerConfigError(message),
    );
  });

  // Untyped JavaScript callers: a value no shape has is named, with the accepted ones, not mistaken for
  // another shape (an MSK auth type misspelled would be IAM auth) or met as a TypeError.
  it.each([
    [
      { ...base, source: { ...msk, auth: { type: 'sasl-scram512', secret: {} } } },
      'source.auth.type "sasl-scram512" is not an authentication an MSK source takes (one of "iam", "sasl-scram-512", "mtls")',
    ],
    [
      { ...base, source: { ...msk, auth: { type: 'sasl-scram-512' } } },
      'source.auth.secret must be a Secrets Manager secret (ISecret) with auth type "sasl-scram-512"',
    ],
    [
      { ...base, source: { ...msk, auth: { type: 'mtls', secret: SECRET_ARN } } },
      'source.auth.secret must be a Secrets Manager secret (ISecret) with auth type "mtls"',
    ],
    [
      {
        ...base,
        source: {
          kind: 'self-managed',
          bootstrapServers: ['k:9092'],
          auth: { type: 'scram-512', secret: {} },
        },
      },
      'source.auth.type "scram-512" is not an authentication a self-managed source takes (one of "sasl-scram-512", "sasl-scram-256", "basic", "mtls", "tls", "none")',
    ],
    [
      { ...base, source: { kind: 'self-managed', bootstrapServers: ['k:9092'], auth: { type: 'basic' } } },
      'source.auth.secret must be a Secrets Manager secret (ISecret) with auth type "basic"',
    ],
    [
      { ...base, source: { kind: 'self-managed', bootstrapServers: ['k:9092'] } },
      'source.auth must be an object with a type (one of "sasl-scram-512", "sasl-scram-256", "basic", "mtls", "tls", "none")',
    ],
    [
      { ...base, source: { ...msk, kind: 'MSK' } },
      'source.kind "MSK" is not a Kafka source kind (one of "msk", "self-managed")',
    ],
    [{ ...base, source: undefined }, 'source must be an object with a kind (one of "msk", "self-managed")'],
    [
      { ...base, onFailure: { type: 'dlq', queue: 'orders-failed' } },
      'onFailure.type "dlq" is not a failure destination (one of "sqs", "sns", "s3", "kafka")',
    ],
    // A Kafka topic's name where the SNS topic goes: the kafka type was meant.
    [
      { ...base, onFailure: { type: 'sns', topic: 'orders-failed' } },
      'onFailure.topic must be an SNS topic (ITopic) with onFailure type "sns"',
    ],
    [
      { ...base, onFailure: { type: 's3', bucket: 'failed-batches' } },
      'onFailure.bucket must be an S3 bucket (IBucket) with onFailure type "s3"',
    ],
    [
      { ...base, onFailure: { type: 's3' } },
      'onFailure.bucket must be an S3 bucket (IBucket) with onFailure type "s3"',
    ],
  ])('consumer with an unknown shape %#', (props, message) => {
    const build = () => new KafkaConsumerFunction(newStack(), 'C', props as never);
    expect(build).toThrow(KafkaConsumerConfigError);
    expect(build).toThrow(new KafkaConsumerConfigError(message));
  });

  it('accepts a group id with * where no IAM grant names the group (MSK SCRAM)', () => {
    const stack = newStack();
    const secret = secretsmanager.Secret.fromSecretCompleteArn(stack, 'S', SECRET_ARN);
    new KafkaConsumerFunction(stack, 'Scram', {
      ...base,
      source: { ...msk, auth: { type: 'sasl-scram-512', secret } },
      consumerGroupId: 'orders-*',
    });
    Template.fromStack(stack).hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      AmazonManagedKafkaEventSourceConfig: { ConsumerGroupId: 'orders-*' },
    });
    expect(JSON.stringify(roleStatements(Template.fromStack(stack), 'ScramRole'))).not.toContain('group/');
  });

  it('replay of an MSK IAM group with * or an empty group', () => {
    const source = { ...msk, network: importedNetwork(newStack()) };
    const replay = (consumerGroupId: string) => () =>
      new KafkaReplayFunction(newStack(), 'R', {
        entry: ENTRY,
        source,
        target: { ...target, consumerGroupId },
      });
    expect(replay('orders-*')).toThrow(KafkaReplayConfigError);
    expect(replay('orders-*')).toThrow(/target.consumerGroupId "orders-\*" contains "\*": with MSK IAM auth/);
    expect(replay('')).toThrow(
      new KafkaReplayConfigError(
        'target.consumerGroupId is empty: Lambda would consume as a group id of its own choosing, which the IAM policy and the replay function do not name',
      ),
    );
  });

  it('replay with an unknown authentication', () => {
    const source = { ...msk, auth: { type: 'IAM' }, network: importedNetwork(newStack()) };
    expect(() => new KafkaReplayFunction(newStack(), 'R', { entry: ENTRY, source, target } as never)).toThrow(
      new KafkaReplayConfigError(
        'source.auth.type "IAM" is not an authentication an MSK source takes (one of "iam", "sasl-scram-512", "mtls")',
      ),
    );
  });

  it.each([
    [['kafka.example.com'], /"kafka.example.com" is not host:port/],
    [
      ['SASL_SSL://kafka.example.com:9096'],
      /"SASL_SSL:\/\/kafka.example.com:9096" is not host:port .*no scheme/,
    ],
    [['kafka.example.com:9096', ''], /"" is not host:port/],
    [[], /must list at least one broker as host:port/],
    [
      Array.from({ length: 11 }, (_, i) => `b-${i}.example.com:9096`),
      /lists 11 brokers: a Kafka trigger takes at most 10/,
    ],
    [
      ['b1.example.com:9096', 'b2.example.com:9096', 'b1.example.com:9096'],
      'source.bootstrapServers lists "b1.example.com:9096" twice: CloudFormation refuses duplicate KafkaBootstrapServers (uniqueItems)',
    ],
  ])('consumer of self-managed brokers %#', (bootstrapServers, message) => {
    const secret = secretsmanager.Secret.fromSecretCompleteArn(newStack(), 'S', SECRET_ARN);
    const source: KafkaSource = { kind: 'self-managed', bootstrapServers, auth: { type: 'basic', secret } };
    const build = () => new KafkaConsumerFunction(newStack(), 'C', { ...base, source });
    expect(build).toThrow(KafkaConsumerConfigError);
    expect(build).toThrow(message);
  });

  it('consumer of self-managed brokers: ten servers, and a token list, pass', () => {
    const stack = newStack();
    const secret = secretsmanager.Secret.fromSecretCompleteArn(stack, 'S', SECRET_ARN);
    const ten = Array.from({ length: 10 }, (_, i) => `b-${i}.example.com:9096`);
    new KafkaConsumerFunction(stack, 'Ten', {
      ...base,
      source: { kind: 'self-managed', bootstrapServers: ten, auth: { type: 'basic', secret } },
    });
    const servers = new CfnParameter(stack, 'Servers', { type: 'CommaDelimitedList' });
    const tokenSource: KafkaSource = {
      kind: 'self-managed',
      bootstrapServers: servers.valueAsList,
      auth: { type: 'basic', secret },
    };
    const token = new KafkaConsumerFunction(stack, 'Token', {
      ...base,
      consumerGroupId: 'g2',
      source: tokenSource,
    });
    new KafkaReplayFunction(stack, 'TokenReplay', { entry: ENTRY, source: tokenSource, target: token });
    const template = Template.fromStack(stack);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      SelfManagedEventSource: { Endpoints: { KafkaBootstrapServers: ten } },
    });
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      SelfManagedEventSource: { Endpoints: { KafkaBootstrapServers: { Ref: 'Servers' } } },
    });
    // The replay function's one comma-separated variable, joined by CloudFormation.
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({ KAFKA_BOOTSTRAP_SERVERS: { 'Fn::Join': [',', { Ref: 'Servers' }] } }),
      },
    });
  });

  it('passes a filter pattern given as a Token unchecked, and checks the others', () => {
    const stack = newStack();
    const pattern = new CfnParameter(stack, 'Pattern').valueAsString;
    const literal = '{ "value": { "kind": ["click"] } }';
    new KafkaConsumerFunction(stack, 'C', {
      ...base,
      filterCriteria: { Filters: [{ Pattern: pattern }, { Pattern: literal }] },
    });
    Template.fromStack(stack).hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FilterCriteria: { Filters: [{ Pattern: { Ref: 'Pattern' } }, { Pattern: literal }] },
    });
    const build = () =>
      new KafkaConsumerFunction(stack, 'Invalid', {
        ...base,
        filterCriteria: { Filters: [{ Pattern: pattern }, { Pattern: '{ "value": nope }' }] },
      });
    expect(build).toThrow(
      new KafkaConsumerConfigError('filterCriteria.Filters[1].Pattern: is not valid JSON'),
    );
  });

  it('consumer of self-managed brokers in a VPC without security groups', () => {
    const stack = newStack();
    const secret = secretsmanager.Secret.fromSecretCompleteArn(stack, 'S', SECRET_ARN);
    const network = { ...importedNetwork(stack), securityGroups: [] };
    const source: KafkaSource = {
      kind: 'self-managed',
      bootstrapServers: ['k1.internal:9096'],
      auth: { type: 'basic', secret },
      network,
    };
    let id = 0;
    const build = () => new KafkaConsumerFunction(stack, `C${id++}`, { ...base, source });
    expect(build).toThrow(KafkaConsumerConfigError);
    expect(build).toThrow(/source.network.securityGroups is empty/);
  });

  // The trigger's API ranges (LAMBDA_LIMITS), whole numbers only, from the construct's props or mappingProps.
  it.each([
    [{ batchSize: 0 }, 'batchSize 0 is not a value Lambda accepts: an integer 1–10000'],
    [{ batchSize: -5 }, 'batchSize -5 is not a value Lambda accepts: an integer 1–10000'],
    [{ batchSize: 10_001 }, 'batchSize 10001 is not a value Lambda accepts: an integer 1–10000'],
    [{ batchSize: 2.5 }, 'batchSize 2.5 is not a value Lambda accepts: an integer 1–10000'],
    [{ batchSize: Number.NaN }, 'batchSize NaN is not a value Lambda accepts: an integer 1–10000'],
    [
      { mappingProps: { batchSize: 0 } },
      'mappingProps.batchSize 0 is not a value Lambda accepts: an integer 1–10000',
    ],
    [{ retryAttempts: 1.5 }, 'retryAttempts 1.5 is not a value Lambda accepts: an integer -1 or 0–10000'],
    [
      { mappingProps: { retryAttempts: -2 } },
      'mappingProps.retryAttempts -2 is not a value Lambda accepts: an integer -1 or 0–10000',
    ],
    [
      { provisionedPollers: { minimumPollers: 1.5, maximumPollers: 3 } },
      'provisionedPollers.minimumPollers 1.5 is not a value Lambda accepts: an integer 1–200',
    ],
    [
      { provisionedPollers: { minimumPollers: 1, maximumPollers: 2.5 } },
      'provisionedPollers.maximumPollers 2.5 is not a value Lambda accepts: an integer 1–2000',
    ],
    [
      { provisionedPollers: { minimumPollers: 0 } },
      'provisionedPollers.minimumPollers 0 is not a value Lambda accepts: an integer 1–200',
    ],
    [
      { provisionedPollers: { minimumPollers: 4, maximumPollers: 3 } },
      'provisionedPollers.maximumPollers (3) must be at least minimumPollers (4)',
    ],
    [
      {
        mappingProps: {
          metricsConfig: { metrics: [lambda.MetricType.EVENT_COUNT, lambda.MetricType.EVENT_COUNT] },
        },
      },
      'mappingProps.metricsConfig.metrics names EventCount twice: name each of EventCount, ErrorCount, KafkaMetrics at most once',
    ],
    [
      {
        mappingProps: {
          metricsConfig: {
            metrics: [
              lambda.MetricType.EVENT_COUNT,
              lambda.MetricType.ERROR_COUNT,
              lambda.MetricType.KAFKA_METRICS,
              lambda.MetricType.ERROR_COUNT,
            ],
          },
        },
      },
      'mappingProps.metricsConfig.metrics names ErrorCount twice: name each of EventCount, ErrorCount, KafkaMetrics at most once',
    ],
    [
      { mappingProps: { metricsConfig: { metrics: ['Latency' as lambda.MetricType] } } },
      'mappingProps.metricsConfig.metrics: "Latency" is not a metric group of a Kafka mapping (EventCount, ErrorCount, KafkaMetrics)',
    ],
  ])('consumer with numbers out of range %#', (overrides, message) => {
    const build = () => new KafkaConsumerFunction(newStack(), 'C', { ...base, ...overrides });
    expect(build).toThrow(KafkaConsumerConfigError);
    expect(build).toThrow(new KafkaConsumerConfigError(message));
  });

  // Lambda takes these in whole seconds; CDK's own conversion error names neither the prop nor the value.
  it.each([
    [
      { maxBatchingWindow: Duration.millis(1500) },
      'maxBatchingWindow Duration.millis(1500) (1.5 seconds) is not a whole number of seconds: Lambda takes MaximumBatchingWindowInSeconds in whole seconds',
    ],
    [
      { maxRecordAge: Duration.minutes(1.5).plus(Duration.millis(250)) },
      'maxRecordAge Duration.millis(90250) (90.25 seconds) is not a whole number of seconds: Lambda takes MaximumRecordAgeInSeconds in whole seconds',
    ],
    [
      { mappingProps: { maxRecordAge: Duration.millis(61_500) } },
      'mappingProps.maxRecordAge Duration.millis(61500) (61.5 seconds) is not a whole number of seconds: Lambda takes MaximumRecordAgeInSeconds in whole seconds',
    ],
    [
      { maxBatchingWindow: 2 as unknown as Duration },
      'maxBatchingWindow must be a Duration (e.g. Duration.seconds(2)), got 2',
    ],
  ])('consumer with a duration Lambda cannot take %#', (overrides, message) => {
    const build = () => new KafkaConsumerFunction(newStack(), 'C', { ...base, ...overrides });
    expect(build).toThrow(KafkaConsumerConfigError);
    expect(build).toThrow(new KafkaConsumerConfigError(message));
  });

  // aws-cdk-lib's EventSourceMapping refuses these too, but with errors outside KafkaLambdaCdkError, and only
  // once NodejsFunction has bundled the handler: refused first, by prop, with the API's range
  // (MaximumBatchingWindowInSeconds 0–300, MaximumRecordAgeInSeconds -1 or 60–604800:
  // https://docs.aws.amazon.com/lambda/latest/api/API_CreateEventSourceMapping.html).
  it.each([
    [
      { maxBatchingWindow: Duration.seconds(301) },
      'maxBatchingWindow Duration.seconds(301) (301 seconds) is not a batching window Lambda accepts: 0–300 seconds (MaximumBatchingWindowInSeconds)',
    ],
    [
      { mappingProps: { maxBatchingWindow: Duration.minutes(6) } },
      'mappingProps.maxBatchingWindow Duration.minutes(6) (360 seconds) is not a batching window Lambda accepts: 0–300 seconds (MaximumBatchingWindowInSeconds)',
    ],
    [
      { maxRecordAge: Duration.days(8) },
      'maxRecordAge Duration.days(8) (691200 seconds) is not a record age Lambda accepts: 60–604800 seconds, 1 minute to 7 days (MaximumRecordAgeInSeconds; for no limit, -1, take it out with mappingProps: { maxRecordAge: undefined })',
    ],
    [
      { maxRecordAge: Duration.seconds(30) },
      'maxRecordAge Duration.seconds(30) (30 seconds) is not a record age Lambda accepts: 60–604800 seconds, 1 minute to 7 days (MaximumRecordAgeInSeconds; for no limit, -1, take it out with mappingProps: { maxRecordAge: undefined })',
    ],
    [
      { startingPosition: lambda.StartingPosition.AT_TIMESTAMP },
      'startingPosition AT_TIMESTAMP needs startingPositionTimestamp (Unix seconds): the time a new consumer group starts reading at',
    ],
    [
      { startingPositionTimestamp: 1_700_000_000 },
      'startingPositionTimestamp 1700000000 is given with startingPosition TRIM_HORIZON (the default): Lambda takes a timestamp only with AT_TIMESTAMP (set startingPosition: StartingPosition.AT_TIMESTAMP, or leave the timestamp out)',
    ],
    [
      {
        startingPosition: lambda.StartingPosition.LATEST,
        mappingProps: { startingPositionTimestamp: 1_700_000_000 },
      },
      'mappingProps.startingPositionTimestamp 1700000000 is given with startingPosition LATEST: Lambda takes a timestamp only with AT_TIMESTAMP (set startingPosition: StartingPosition.AT_TIMESTAMP, or leave the timestamp out)',
    ],
    [{ batchSize: 0 }, 'batchSize 0 is not a value Lambda accepts: an integer 1–10000'],
  ])('consumer refused before its handler is bundled %#', (overrides, message) => {
    const stack = newStack();
    let id = 0;
    const build = () => new KafkaConsumerFunction(stack, `C${id++}`, { ...base, ...overrides });
    expect(build).toThrow(KafkaConsumerConfigError);
    expect(build).toThrow(KafkaLambdaCdkError);
    expect(build).toThrow(new KafkaConsumerConfigError(message));
    // NodejsFunction bundles in its constructor: no function, no bundling.
    expect(stack.node.findAll().filter((construct) => construct instanceof lambda.Function)).toEqual([]);
  });

  it('passes a batching window of 300 seconds and a record age of 60 seconds and of 7 days', () => {
    const stack = newStack();
    new KafkaConsumerFunction(stack, 'Short', {
      ...base,
      maxBatchingWindow: Duration.minutes(5),
      maxRecordAge: Duration.minutes(1),
    });
    new KafkaConsumerFunction(stack, 'Long', {
      ...base,
      consumerGroupId: 'g2',
      maxBatchingWindow: Duration.seconds(0),
      maxRecordAge: Duration.days(7),
    });
    const template = Template.fromStack(stack);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      MaximumBatchingWindowInSeconds: 300,
      MaximumRecordAgeInSeconds: 60,
    });
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      MaximumRecordAgeInSeconds: 604_800,
    });
  });

  // CreateEventSourceMapping takes at most 22 SourceAccessConfigurations, each URI 1–200 characters
  // (https://docs.aws.amazon.com/lambda/latest/api/API_CreateEventSourceMapping.html,
  // https://docs.aws.amazon.com/lambda/latest/api/API_SourceAccessConfiguration.html); CloudFormation's
  // schema says the same (maxItems 22, URI maxLength 200).
  describe('source access configurations', () => {
    const ids = (prefix: string, count: number) =>
      Array.from({ length: count }, (_, i) => `${prefix}-0a1b2c3d4e5f6${String(i).padStart(4, '0')}`);
    const selfManaged = (stack: Stack, subnets: number, groups: number, secretArn = SECRET_ARN) => {
      const source: KafkaSource = {
        kind: 'self-managed',
        bootstrapServers: ['k1.internal:9096'],
        auth: { type: 'basic', secret: secretsmanager.Secret.fromSecretCompleteArn(stack, 'S', secretArn) },
        rootCaCertificate: secretsmanager.Secret.fromSecretCompleteArn(stack, 'Ca', CA_ARN),
        network: importKafkaNetwork(stack, {
          vpcId: 'vpc-0a1b2c3d4e5f60000',
          subnetIds: ids('subnet', subnets),
          securityGroupIds: ids('sg', groups),
        }),
      };
      return source;
    };
    const LONG_SECRET_ARN = `arn:aws:secretsmanager:eu-west-1:111122223333:secret:${'k'.repeat(150)}-AbCdEf`;

    it('refuses more than 22, naming what they are and what to cut', () => {
      const stack = newStack();
      const build = () =>
        new KafkaConsumerFunction(stack, 'C', { ...base, source: selfManaged(stack, 16, 5) });
      expect(build).toThrow(
        new KafkaConsumerConfigError(
          'source gives the trigger 23 SourceAccessConfigurations (16 subnets of source.network.subnets, 5 source.network.securityGroups, source.auth.secret, source.rootCaCertificate): Lambda takes at most 22. Select 1 fewer subnet or security group',
        ),
      );
      expect(stack.node.findAll().filter((construct) => construct instanceof lambda.Function)).toEqual([]);
    });

    it('passes 22', () => {
      const stack = newStack();
      new KafkaConsumerFunction(stack, 'C', { ...base, source: selfManaged(stack, 15, 5) });
      const mapping = Template.fromStack(stack).findResources('AWS::Lambda::EventSourceMapping');
      expect(Object.values(mapping)[0]!.Properties.SourceAccessConfigurations).toHaveLength(22);
    });

    it.each([
      [
        'self-managed',
        (stack: Stack): KafkaSource => selfManaged(stack, 1, 1, LONG_SECRET_ARN),
        'source.auth.secret',
      ],
      [
        'MSK',
        (stack: Stack): KafkaSource => ({
          ...msk,
          auth: {
            type: 'sasl-scram-512',
            secret: secretsmanager.Secret.fromSecretCompleteArn(stack, 'S', LONG_SECRET_ARN),
          },
        }),
        'source.auth.secret',
      ],
    ])('refuses a %s secret ARN longer than 200 characters', (_kind, sourceOf, prop) => {
      const stack = newStack();
      const build = () => new KafkaConsumerFunction(stack, 'C', { ...base, source: sourceOf(stack) });
      expect(build).toThrow(
        new KafkaConsumerConfigError(
          `${prop} has an ARN of ${LONG_SECRET_ARN.length} characters: Lambda takes a SourceAccessConfiguration URI of at most 200 (give a secret with a shorter name)`,
        ),
      );
    });
  });

  // Lambda places a self-managed trigger's pollers in the given subnets: a selection of none is refused
  // at synth, naming the prop, rather than deployed without VPC_SUBNET or failed on CDK's own message.
  it.each([
    [
      { subnetType: ec2.SubnetType.PRIVATE_ISOLATED },
      /^source\.network\.subnets selects no subnet of source\.network\.vpc \(There are no 'Isolated' subnet groups in this VPC\. .*\): a self-managed trigger in a VPC needs at least one subnet for its pollers$/,
    ],
    [
      { subnets: [] },
      /^source\.network\.subnets selects no subnet of source\.network\.vpc: a self-managed trigger in a VPC needs at least one subnet for its pollers$/,
    ],
  ])('consumer of self-managed brokers in no subnet %#', (subnets, message) => {
    const stack = newStack();
    const vpc = new ec2.Vpc(stack, 'Vpc');
    const secret = secretsmanager.Secret.fromSecretCompleteArn(stack, 'S', SECRET_ARN);
    const source: KafkaSource = {
      kind: 'self-managed',
      bootstrapServers: ['k1.internal:9096'],
      auth: { type: 'basic', secret },
      network: { vpc, subnets, securityGroups: [new ec2.SecurityGroup(stack, 'Sg', { vpc })] },
    };
    let id = 0;
    const build = () => new KafkaConsumerFunction(stack, `C${id++}`, { ...base, source });
    expect(build).toThrow(KafkaConsumerConfigError);
    expect(build).toThrow(message);
  });

  it('replay function in no subnet of its network', () => {
    const stack = newStack();
    const vpc = new ec2.Vpc(stack, 'Vpc');
    const network = {
      vpc,
      subnets: { subnets: [] },
      securityGroups: [new ec2.SecurityGroup(stack, 'Sg', { vpc })],
    };
    const build = () =>
      new KafkaReplayFunction(stack, 'R', { entry: ENTRY, source: { ...msk, network }, target });
    expect(build).toThrow(
      new KafkaReplayConfigError(
        'source.network.subnets selects no subnet of source.network.vpc: the replay function in a VPC needs at least one subnet to reach the brokers',
      ),
    );
  });

  it.each([
    [-1, /startingPositionTimestamp -1 is not a time Lambda accepts: Unix seconds, 0 or more/],
    [Number.POSITIVE_INFINITY, /startingPositionTimestamp Infinity is not a time Lambda accepts/],
    [1.7e12, /startingPositionTimestamp 1700000000000 is in milliseconds .*give Unix seconds, 1700000000/],
    [Math.ceil(Date.now() / 1000) + 3600, /startingPositionTimestamp \d+ \(.*\) is in the future/],
  ])('consumer starting at timestamp %s', (startingPositionTimestamp, message) => {
    const props = {
      ...base,
      startingPosition: lambda.StartingPosition.AT_TIMESTAMP,
      startingPositionTimestamp,
    };
    const build = () => new KafkaConsumerFunction(newStack(), 'C', props);
    expect(build).toThrow(KafkaConsumerConfigError);
    expect(build).toThrow(message);
  });

  it.each([
    [
      { startingPosition: 'EARLIEST' },
      'startingPosition "EARLIEST" is not a starting position of a Kafka trigger (one of TRIM_HORIZON, LATEST, AT_TIMESTAMP)',
    ],
    [
      { mappingProps: { startingPosition: 'latest' } },
      'mappingProps.startingPosition "latest" is not a starting position of a Kafka trigger (one of TRIM_HORIZON, LATEST, AT_TIMESTAMP)',
    ],
  ])('consumer with an untyped starting position %#', (overrides, message) => {
    const build = () => new KafkaConsumerFunction(newStack(), 'C', { ...base, ...overrides } as never);
    expect(build).toThrow(new KafkaConsumerConfigError(message));
  });

  it('starts at timestamp 0, which CDK alone takes for a missing one', () => {
    const stack = newStack();
    new KafkaConsumerFunction(stack, 'C', {
      ...base,
      startingPosition: lambda.StartingPosition.AT_TIMESTAMP,
      startingPositionTimestamp: 0,
    });
    Template.fromStack(stack).hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      StartingPosition: 'AT_TIMESTAMP',
      StartingPositionTimestamp: 0,
    });
  });

  it('passes the limits themselves, a past timestamp and Tokens through', () => {
    const stack = newStack();
    const past = Math.floor(Date.now() / 1000) - 86_400;
    new KafkaConsumerFunction(stack, 'Edges', {
      ...base,
      batchSize: 10_000,
      retryAttempts: -1,
      startingPosition: lambda.StartingPosition.AT_TIMESTAMP,
      startingPositionTimestamp: past,
      provisionedPollers: { minimumPollers: 200, maximumPollers: 2000 },
      mappingProps: {
        metricsConfig: { metrics: [lambda.MetricType.ERROR_COUNT, lambda.MetricType.EVENT_COUNT] },
      },
    });
    const size = new CfnParameter(stack, 'Size', { type: 'Number' });
    new KafkaConsumerFunction(stack, 'Tokens', {
      ...base,
      consumerGroupId: 'g2',
      batchSize: size.valueAsNumber,
      retryAttempts: size.valueAsNumber,
      maxBatchingWindow: Duration.seconds(size.valueAsNumber),
      provisionedPollers: { minimumPollers: size.valueAsNumber, maximumPollers: size.valueAsNumber },
    });
    const template = Template.fromStack(stack);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      BatchSize: 10_000,
      MaximumRetryAttempts: -1,
      StartingPosition: 'AT_TIMESTAMP',
      StartingPositionTimestamp: past,
      ProvisionedPollerConfig: { MinimumPollers: 200, MaximumPollers: 2000 },
      MetricsConfig: { Metrics: ['ErrorCount', 'EventCount'] },
    });
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      BatchSize: { Ref: 'Size' },
      MaximumRetryAttempts: { Ref: 'Size' },
      MaximumBatchingWindowInSeconds: { Ref: 'Size' },
    });
  });

  // Options Kafka mappings do not take, and overrides that would bypass the construct's own checks.
  it.each([
    [{ parallelizationFactor: 2 }, /mappingProps.parallelizationFactor is for Kinesis and DynamoDB Streams/],
    [
      { tumblingWindow: Duration.seconds(30) },
      /mappingProps.tumblingWindow is for Kinesis and DynamoDB Streams/,
    ],
    [{ maxConcurrency: 5 }, /mappingProps.maxConcurrency is for SQS mappings only/],
    [
      { filters: [lambda.FilterCriteria.filter({ key: { id: [lambda.FilterRule.isEqual('a')] } })] },
      /mappingProps.filters bypasses the construct's checks of Kafka filters: use filterCriteria/,
    ],
    [
      { provisionedPollerConfig: { minimumPollers: 1, maximumPollers: 2, pollerGroupName: 'shop pollers' } },
      /mappingProps.provisionedPollerConfig bypasses the construct's checks of pollers: use provisionedPollers/,
    ],
    // What the construct derives its grants, queue and replay function from: refused from untyped callers
    // too, even as undefined (which would take the construct's value out of the mapping).
    [{ kafkaTopic: 'other-topic' }, /^mappingProps.kafkaTopic is set from topic, which the IAM policy/],
    [
      { kafkaConsumerGroupId: 'other-group' },
      /^mappingProps.kafkaConsumerGroupId is set from consumerGroupId, which the IAM policy/,
    ],
    [
      { onFailure: { bind: () => ({ destination: 'arn:aws:sns:eu-west-1:111122223333:dlq' }) } },
      /^mappingProps.onFailure is set from onFailure, which the role's grant on the destination/,
    ],
    [{ onFailure: undefined }, /^mappingProps.onFailure is set from onFailure/],
    [{ eventSourceArn: CLUSTER_ARN }, /^mappingProps.eventSourceArn is set from source.clusterArn/],
    [{ kafkaBootstrapServers: ['k:9092'] }, /^mappingProps.kafkaBootstrapServers is set from source/],
    [{ sourceAccessConfigurations: [] }, /^mappingProps.sourceAccessConfigurations is set from source/],
    [{ schemaRegistryConfig: {} }, /^mappingProps.schemaRegistryConfig is set from schemaRegistry/],
    [{ target: undefined }, /^mappingProps.target is this construct's function/],
    [{ filters: undefined }, /^mappingProps.filters bypasses the construct's checks of Kafka filters/],
  ])('consumer with mappingProps %#', (mappingProps, message) => {
    const build = () => new KafkaConsumerFunction(newStack(), 'C', { ...base, mappingProps } as never);
    expect(build).toThrow(KafkaConsumerConfigError);
    expect(build).toThrow(message);
  });

  /** The same MSK source with its cluster in `region`: a stack refuses a cluster of another Region. */
  const mskIn = (region: string): KafkaSource => ({
    ...msk,
    clusterArn: `arn:${region.startsWith('cn-') ? 'aws-cn' : 'aws'}:kafka:${region}:111122223333:cluster/shop/0f3c-uuid-1`,
  });

  it("consumer with a kafka:// destination where the Region's schema accepts only ARNs", () => {
    const props = { ...base, onFailure: { type: 'kafka', topic: 'orders-failed' } as const };
    const build = () =>
      new KafkaConsumerFunction(newStack('cn-northwest-1'), 'C', {
        ...props,
        source: mskIn('cn-northwest-1'),
      });
    expect(build).toThrow(UnsupportedRegionError);
    // In the construct's props: a stack of the user's own has no -c context of this repository's app.
    expect(build).toThrow(
      new UnsupportedRegionError(
        'cn-northwest-1',
        "a kafka:// on-failure destination cannot be deployed in cn-northwest-1: there (as in cn-north-1, cn-northwest-1, il-central-1) CloudFormation's schema for AWS::Lambda::EventSourceMapping accepts only ARNs as DestinationConfig.OnFailure.Destination. Send failed records to SQS instead: onFailure: { type: 'sqs' }",
      ),
    );
    expect(() => new KafkaConsumerFunction(newStack(), 'C', props)).not.toThrow();
    expect(
      () =>
        new KafkaConsumerFunction(newStack('ap-southeast-2'), 'C', {
          ...props,
          source: mskIn('ap-southeast-2'),
        }),
    ).not.toThrow();
  });

  it("consumer with a poller group where the Region's schema has none", () => {
    const props = {
      ...base,
      provisionedPollers: { minimumPollers: 1, maximumPollers: 2, pollerGroupName: 'shop' },
    };
    const build = () =>
      new KafkaConsumerFunction(newStack('cn-north-1'), 'C', { ...props, source: mskIn('cn-north-1') });
    expect(build).toThrow(UnsupportedRegionError);
    expect(build).toThrow(
      new UnsupportedRegionError(
        'cn-north-1',
        "a provisioned-poller group cannot be deployed in cn-north-1: there (as in cn-north-1, cn-northwest-1, il-central-1) CloudFormation's schema for AWS::Lambda::EventSourceMapping has no ProvisionedPollerConfig.PollerGroupName. Leave out provisionedPollers.pollerGroupName: the trigger then has pollers of its own",
      ),
    );
    expect(() => new KafkaConsumerFunction(newStack(), 'C', props)).not.toThrow();
  });

  it('warns, in its own terms, that on-failure delivery errors go unmeasured where only EventCount is', () => {
    const stack = newStack('il-central-1');
    new KafkaConsumerFunction(stack, 'C', { ...base, source: mskIn('il-central-1') });
    const warnings = Annotations.fromStack(stack).findWarning('*', Match.stringLikeRegexp('EventCount'));
    expect(warnings.map((warning) => warning.entry.data)).toEqual([
      "CloudFormation's schema in il-central-1 accepts only EventCount metrics on the mapping: ErrorCount and KafkaMetrics are off, so metricOnFailureDeliveryErrors() gets no data (an alarm on it would never fire): a failed delivery to the on-failure destination goes unnoticed [ack: kafka-lambda:eventCountOnlyMetrics]",
    ]);
  });

  // A project with exactOptionalPropertyTypes writes them so (infra/exact-optional.test-d.ts); they
  // mean what leaving them out means.
  it('takes an optional prop given as undefined for one left out', () => {
    const build = (explicit: boolean) => {
      const stack = newStack();
      const network = importedNetwork(stack);
      const unset = <T extends object>(props: T): T =>
        explicit
          ? props
          : (Object.fromEntries(Object.entries(props).filter(([, v]) => v !== undefined)) as T);
      const consumer = new KafkaConsumerFunction(
        stack,
        'C',
        unset({
          ...base,
          source: unset({ ...msk, network }),
          handler: undefined,
          startingPosition: undefined,
          startingPositionTimestamp: undefined,
          batchSize: undefined,
          maxBatchingWindow: undefined,
          retryAttempts: undefined,
          maxRecordAge: undefined,
          bisectBatchOnError: undefined,
          reportBatchItemFailures: undefined,
          provisionedPollers: unset({ minimumPollers: 2, maximumPollers: 4, pollerGroupName: undefined }),
          onFailure: unset({ type: 'sqs', queue: undefined } as const),
          enabled: undefined,
          filterCriteria: undefined,
          schemaRegistry: undefined,
          functionProps: undefined,
          mappingProps: undefined,
        }),
      );
      new KafkaReplayFunction(
        stack,
        'R',
        unset({
          entry: ENTRY,
          handler: undefined,
          source: consumer.source,
          target: consumer,
          allowedTopics: undefined,
          functionProps: undefined,
        }),
      );
      return Template.fromStack(stack).toJSON();
    };
    expect(build(true)).toEqual(build(false));
  });

  it('warns when provisioned pollers are turned off under settings AWS offers only with them', () => {
    const warningOf = (mappingProps: KafkaConsumerFunctionProps['mappingProps']) => {
      const stack = newStack();
      new KafkaConsumerFunction(stack, 'C', { ...base, mappingProps });
      return Annotations.fromStack(stack).findWarning(
        '*',
        Match.stringLikeRegexp('provisioned pollers are off'),
      );
    };
    expect(warningOf({})).toEqual([]);
    const off = warningOf({ provisionedPollerConfig: undefined });
    expect(off).toHaveLength(1);
    expect(String(off[0]!.entry.data)).toMatch(
      /AWS offers FunctionResponseTypes, MaximumRetryAttempts, MaximumRecordAgeInSeconds, BisectBatchOnFunctionError, MetricsConfig only in provisioned mode/,
    );
    expect(warningOf(ON_DEMAND_MAPPING)).toEqual([]);
    // Event source mapping logging is for Kafka mappings in provisioned mode only:
    // https://docs.aws.amazon.com/lambda/latest/dg/esm-logging.html
    const logging = warningOf({ ...ON_DEMAND_MAPPING, logLevel: lambda.EventSourceMappingLogLevel.WARN });
    expect(logging).toHaveLength(1);
    expect(String(logging[0]!.entry.data)).toMatch(/AWS offers LoggingConfig only in provisioned mode/);
  });

  it.each([
    [
      'cn-north-1',
      { metricsConfig: { metrics: [lambda.MetricType.EVENT_COUNT, lambda.MetricType.ERROR_COUNT] } },
      /^mappingProps.metricsConfig.metrics asks for ErrorCount, which cannot be deployed in cn-north-1: .* Ask for EventCount alone/,
    ],
    [
      'il-central-1',
      { metricsConfig: { metrics: [lambda.MetricType.KAFKA_METRICS] } },
      /^mappingProps.metricsConfig.metrics asks for KafkaMetrics, which cannot be deployed in il-central-1/,
    ],
    [
      'cn-northwest-1',
      { logLevel: lambda.EventSourceMappingLogLevel.INFO },
      /^mappingProps.logLevel cannot be deployed in cn-northwest-1: .* has no LoggingConfig. Leave out logLevel/,
    ],
  ])('consumer with mappingProps the schema of %s lacks', (region, mappingProps, message) => {
    const build = (stack: Stack) =>
      new KafkaConsumerFunction(stack, 'C', { ...base, source: mskIn(stack.region), mappingProps });
    expect(() => build(newStack(region))).toThrow(UnsupportedRegionError);
    expect(() => build(newStack(region))).toThrow(message);
    expect(() => build(newStack())).not.toThrow();
    expect(() => build(newStack('eu-west-1'))).not.toThrow();
  });

  it('keeps the metrics mappingProps asks for, without the EventCount-only warning', () => {
    const stack = newStack('il-central-1');
    new KafkaConsumerFunction(stack, 'C', {
      ...base,
      source: mskIn('il-central-1'),
      mappingProps: { metricsConfig: { metrics: [lambda.MetricType.EVENT_COUNT] } },
    });
    Template.fromStack(stack).hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      MetricsConfig: { Metrics: ['EventCount'] },
    });
    Annotations.fromStack(stack).hasNoWarning('*', Match.stringLikeRegexp('EventCount'));
  });

  it('replay with a misspelled prop', () => {
    const source = { ...msk, network: importedNetwork(newStack()) };
    expect(
      () =>
        new KafkaReplayFunction(newStack(), 'R', {
          entry: ENTRY,
          source,
          target,
          allowedTopic: ['orders'],
        } as never),
    ).toThrow(new KafkaReplayConfigError('unknown option "allowedTopic" — did you mean "allowedTopics"?'));
  });

  it('replay on MSK without a network', () => {
    expect(() => new KafkaReplayFunction(newStack(), 'R', { entry: ENTRY, source: msk, target })).toThrow(
      KafkaReplayConfigError,
    );
  });

  // The consumer's checks: IAM reads * and ? in the granted topic and group ARNs as wildcards.
  it.each([
    [
      { allowedTopics: ['*'] },
      'allowedTopics[0] "*" is not a topic name a Kafka trigger accepts (2–249 of a-z A-Z 0-9 . _ -, not starting with a dot)',
    ],
    [
      { allowedTopics: ['orders', 'orders-?'] },
      'allowedTopics[1] "orders-?" is not a topic name a Kafka trigger accepts (2–249 of a-z A-Z 0-9 . _ -, not starting with a dot)',
    ],
    [
      { target: { ...target, topic: 'orders*' } },
      'target.topic "orders*" is not a topic name a Kafka trigger accepts (2–249 of a-z A-Z 0-9 . _ -, not starting with a dot)',
    ],
    [
      { target: { ...target, consumerGroupId: 'bad group!' } },
      'target.consumerGroupId "bad group!" is not a consumer group id a Kafka trigger accepts (1–200 of a-z A-Z 0-9 - / * : _ + = . @)',
    ],
  ])('replay with a topic or group the role cannot be granted by name %#', (overrides, message) => {
    const stack = newStack();
    const source = { ...msk, network: importedNetwork(stack) };
    const build = () => new KafkaReplayFunction(stack, 'R', { entry: ENTRY, source, target, ...overrides });
    expect(build).toThrow(new KafkaReplayConfigError(message));
  });

  // Validated for every auth type: with SASL/SCRAM it is the trigger's EventSourceArn and the resource of
  // the role's kafka:* grants, with no topic or group ARN derived from it.
  it.each([['not-an-arn'], ['arn:aws:sqs:eu-west-1:111122223333:orders']])(
    'MSK cluster ARN %s with SASL/SCRAM',
    (clusterArn) => {
      const stack = newStack();
      const secret = secretsmanager.Secret.fromSecretCompleteArn(stack, 'S', SECRET_ARN);
      const source: KafkaSource = {
        kind: 'msk',
        clusterArn,
        auth: { type: 'sasl-scram-512', secret },
        network: importedNetwork(stack),
      };
      const message = `source.clusterArn "${clusterArn}" is not an MSK cluster ARN (arn:<partition>:kafka:<region>:<account>:cluster/<name>/<uuid>)`;
      expect(() => new KafkaConsumerFunction(stack, 'C', { ...base, source })).toThrow(
        new InvalidClusterArnError(clusterArn),
      );
      expect(() => new KafkaConsumerFunction(stack, 'C2', { ...base, source })).toThrow(message);
      expect(() => new KafkaReplayFunction(stack, 'R', { entry: ENTRY, source, target })).toThrow(message);
    },
  );

  // A trigger reads a cluster of its own Region, and of its own account by cluster ARN: another account's
  // needs a managed VPC connection ARN and kafka:DescribeVpcConnection, which the construct does not grant.
  // https://docs.aws.amazon.com/lambda/latest/dg/msk-cross-account.html
  const ACCOUNT = '444455556666';
  it.each([
    [
      'another account',
      { account: ACCOUNT, region: 'eu-west-1' },
      CLUSTER_ARN,
      'source.clusterArn "arn:aws:kafka:eu-west-1:111122223333:cluster/shop/0f3c-uuid-1" is a cluster of account 111122223333, but the stack deploys to account 444455556666: a Kafka trigger reaches another account\'s cluster only through an MSK managed VPC connection (its ARN, and kafka:DescribeVpcConnection), which these constructs do not support (https://docs.aws.amazon.com/lambda/latest/dg/msk-cross-account.html). Deploy the stack to account 111122223333',
    ],
    [
      'another Region',
      { region: 'eu-central-1' },
      CLUSTER_ARN,
      'source.clusterArn "arn:aws:kafka:eu-west-1:111122223333:cluster/shop/0f3c-uuid-1" is a cluster in eu-west-1, but the stack deploys to eu-central-1: a Kafka trigger reads an MSK cluster of its own Region only. Deploy the stack to eu-west-1',
    ],
    [
      'a managed VPC connection',
      { account: ACCOUNT, region: 'eu-west-1' },
      `arn:aws:kafka:eu-west-1:${ACCOUNT}:vpc-connection/111122223333/shop/51jn98b4-7`,
      `source.clusterArn "arn:aws:kafka:eu-west-1:${ACCOUNT}:vpc-connection/111122223333/shop/51jn98b4-7" is an MSK managed VPC connection, for a cluster of another account: these constructs do not support cross-account clusters (Lambda needs kafka:DescribeVpcConnection on the connection and the cluster owner's policy, https://docs.aws.amazon.com/lambda/latest/dg/msk-cross-account.html). Deploy the stack to account 111122223333 and give the cluster ARN`,
    ],
    // A Region's partition is the ARN's second field: a cluster in cn-north-1 is arn:aws-cn:kafka:….
    [
      'the commercial partition while the stack deploys to China',
      { account: '111122223333', region: 'cn-north-1' },
      'arn:aws:kafka:cn-north-1:111122223333:cluster/shop/0f3c-uuid-1',
      'source.clusterArn "arn:aws:kafka:cn-north-1:111122223333:cluster/shop/0f3c-uuid-1" names partition aws, but cn-north-1 is in partition aws-cn: an MSK cluster there is "arn:aws-cn:kafka:cn-north-1:111122223333:cluster/shop/0f3c-uuid-1"',
    ],
  ])('MSK cluster in %s', (_label, env, clusterArn, message) => {
    const build = (consumer: boolean) => {
      const stack = unbundledStack('S', env);
      const source: KafkaSource = { ...msk, clusterArn, network: importedNetwork(stack) };
      return consumer
        ? new KafkaConsumerFunction(stack, 'C', { ...base, source })
        : new KafkaReplayFunction(stack, 'R', { entry: ENTRY, source, target });
    };
    for (const consumer of [true, false]) {
      expect(() => build(consumer)).toThrow(ClusterOutsideStackEnvironmentError);
      expect(() => build(consumer)).toThrow(new ClusterOutsideStackEnvironmentError(clusterArn, message));
    }
  });

  it.each([
    ['neither account nor Region', undefined],
    ['the Region only', { region: 'eu-west-1' }],
    ['the account only', { account: '111122223333' }],
    ['the account and Region', { account: '111122223333', region: 'eu-west-1' }],
    ['another account, as a Token', { account: Aws.ACCOUNT_ID, region: 'eu-west-1' }],
  ])('accepts an MSK cluster where the stack names %s as the cluster', (_label, env) => {
    const stack = unbundledStack('S', env);
    const source: KafkaSource = { ...msk, network: importedNetwork(stack) };
    expect(() => new KafkaConsumerFunction(stack, 'C', { ...base, source })).not.toThrow();
    expect(() => new KafkaReplayFunction(stack, 'R', { entry: ENTRY, source, target })).not.toThrow();
  });

  // The role is granted, and the function connects to, the replay's own source: given a consumer as its
  // target, a replay of another cluster could never move the group the consumer's trigger commits to.
  describe('replay of a KafkaConsumerFunction', () => {
    const servers = ['b-1.example.com:9096', 'b-2.example.com:9096'];
    const selfManagedOn = (stack: Stack, bootstrapServers: readonly string[]): KafkaSource => ({
      kind: 'self-managed',
      bootstrapServers,
      auth: { type: 'basic', secret: secretsmanager.Secret.fromSecretCompleteArn(stack, 'S', SECRET_ARN) },
      network: importedNetwork(stack),
    });
    const OTHER_ARN = 'arn:aws:kafka:eu-west-1:111122223333:cluster/other/0f3c-uuid-2';

    it.each([
      [
        'another MSK cluster',
        (stack: Stack): KafkaSource => ({ ...msk, network: importedNetwork(stack) }),
        (consumer: KafkaSource): KafkaSource => ({ ...consumer, clusterArn: OTHER_ARN }) as KafkaSource,
        `source.clusterArn "${OTHER_ARN}" is not the cluster of target, a KafkaConsumerFunction reading "${CLUSTER_ARN}": the replay function would be granted, and connect to, a cluster its target's trigger does not read. Give it the consumer's source (source: consumer.source)`,
      ],
      [
        'other self-managed brokers',
        (stack: Stack): KafkaSource => selfManagedOn(stack, servers),
        (consumer: KafkaSource): KafkaSource =>
          ({
            ...consumer,
            bootstrapServers: ['b-1.example.com:9096', 'b-9.example.com:9096'],
          }) as KafkaSource,
        "source.bootstrapServers (b-1.example.com:9096, b-9.example.com:9096) are not the brokers of target, a KafkaConsumerFunction reading b-1.example.com:9096, b-2.example.com:9096: the replay function would be granted, and connect to, a cluster its target's trigger does not read. Give it the consumer's source (source: consumer.source)",
      ],
      [
        'self-managed brokers for an MSK consumer',
        (stack: Stack): KafkaSource => ({ ...msk, network: importedNetwork(stack) }),
        (consumer: KafkaSource): KafkaSource => ({
          kind: 'self-managed',
          bootstrapServers: servers,
          auth: { type: 'none' },
          network: consumer.network,
        }),
        `source is self-managed brokers, but target, a KafkaConsumerFunction, reads MSK cluster "${CLUSTER_ARN}": the replay function would be granted, and connect to, a cluster its target's trigger does not read. Give it the consumer's source (source: consumer.source)`,
      ],
    ])('refuses %s', (_label, consumerSource, replaySource, message) => {
      const stack = newStack();
      const consumer = new KafkaConsumerFunction(stack, 'C', { ...base, source: consumerSource(stack) });
      let id = 0;
      const build = () =>
        new KafkaReplayFunction(stack, `R${id++}`, {
          entry: ENTRY,
          source: replaySource(consumer.source),
          target: consumer,
        });
      expect(build).toThrow(KafkaReplayConfigError);
      expect(build).toThrow(new KafkaReplayConfigError(message));
    });

    it("accepts the consumer's cluster with another network or authentication, and its brokers in another order", () => {
      const stack = newStack();
      const consumer = new KafkaConsumerFunction(stack, 'C', { ...base, source: msk });
      const secret = secretsmanager.Secret.fromSecretCompleteArn(stack, 'Scram', SECRET_ARN);
      new KafkaReplayFunction(stack, 'R', {
        entry: ENTRY,
        source: { ...msk, auth: { type: 'sasl-scram-512', secret }, network: importedNetwork(stack) },
        target: consumer,
      });
      const other = newStack();
      const brokers = new KafkaConsumerFunction(other, 'C', {
        ...base,
        source: selfManagedOn(other, servers),
      });
      new KafkaReplayFunction(other, 'R', {
        entry: ENTRY,
        source: { ...brokers.source, bootstrapServers: [...servers].reverse() } as KafkaSource,
        target: brokers,
      });
    });

    it("refuses allowedTopics that leave out the target's topic", () => {
      const stack = newStack();
      const consumer = new KafkaConsumerFunction(stack, 'C', {
        ...base,
        source: { ...msk, network: importedNetwork(stack) },
      });
      const build = (allowedTopics: string[]) => () =>
        new KafkaReplayFunction(stack, `R${allowedTopics.length}`, {
          entry: ENTRY,
          source: consumer.source,
          target: consumer,
          allowedTopics,
        });
      expect(build(['payments'])).toThrow(
        new KafkaReplayConfigError(
          'allowedTopics leaves out target.topic "orders": a replay of the target\'s mapping moves its group on "orders", which the function would be neither allowed (REPLAY_ALLOWED_TOPICS) nor granted. Add "orders" to allowedTopics',
        ),
      );
      expect(build(['payments', 'orders'])).not.toThrow();
    });
  });

  it('replay with an empty allow-list', () => {
    const source = { ...msk, network: importedNetwork(newStack()) };
    expect(
      () => new KafkaReplayFunction(newStack(), 'R', { entry: ENTRY, source, target, allowedTopics: [] }),
    ).toThrow(/at least one topic/);
  });
});
