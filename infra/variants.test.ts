import { App } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { appConfigFromContext, InvalidContextError } from './app-config.ts';
import { type BuiltApp, buildApp } from './build-app.ts';
import { secretDecryptStatement, secretReadStatement, TEST_KEY_ARN } from './msk-test-stacks.ts';
import { UnsupportedRegionError } from './regions.ts';
import { allStatements, roleStatements } from './template-queries.ts';

// Each cluster variant of the app, from the same context values a user passes with `-c`. Bundling is
// covered by app.test.ts; these synths skip it (`aws:cdk:bundling-stacks: []`) to stay fast.
const CLUSTER_ARN = 'arn:aws:kafka:eu-west-1:111122223333:cluster/shop/0f3c-uuid-1';
const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:AmazonMSK_shop-AbCdEf';
const CERT_ARN = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:orders-client-cert-AbCdEf';
const VPC = {
  vpcId: 'vpc-0a1b2c3d4e5f60000',
  subnetIds: 'subnet-0a1b2c3d4e5f60001,subnet-0a1b2c3d4e5f60002',
  securityGroupIds: 'sg-0a1b2c3d4e5f60003',
};

function synth(context: Record<string, string>): { built: BuiltApp; application: Template } {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const built = buildApp(
    app,
    appConfigFromContext((key) => context[key]),
  );
  const application = Template.fromStack(built.application);
  for (const stack of [built.cluster, built.application]) {
    if (stack) expect(new AwsSolutionsChecks().validateScope(stack).violations).toEqual([]);
  }
  return { built, application };
}

/** What `cdk synth --strict` fails on: any warning of the app's stacks. */
function warnings(built: BuiltApp): string[] {
  return [built.cluster, built.application].flatMap((stack) =>
    stack
      ? Annotations.fromStack(stack)
          .findWarning('*', Match.anyValue())
          .map((warning) => `${warning.id}: ${String(warning.entry.data)}`)
      : [],
  );
}

describe('cluster variants', { timeout: 60_000 }, () => {
  it('cluster=provisioned: an MSK cluster with IAM auth, TLS everywhere and broker logs', () => {
    const { built } = synth({ cluster: 'provisioned' });
    Template.fromStack(built.cluster!).hasResourceProperties('AWS::MSK::Cluster', {
      KafkaVersion: '3.9.x',
      NumberOfBrokerNodes: 2,
      BrokerNodeGroupInfo: { InstanceType: 'kafka.t3.small' },
      ClientAuthentication: { Sasl: { Iam: { Enabled: true } }, Unauthenticated: { Enabled: false } },
      EncryptionInfo: { EncryptionInTransit: { ClientBroker: 'TLS', InCluster: true } },
      LoggingInfo: { BrokerLogs: { CloudWatchLogs: { Enabled: true } } },
    });
  });

  it('cluster=existing: no cluster stack; the trigger and IAM name the given cluster', () => {
    const { built, application } = synth({ cluster: 'existing', clusterArn: CLUSTER_ARN, ...VPC });
    expect(built.cluster).toBeUndefined();
    application.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: CLUSTER_ARN,
      AmazonManagedKafkaEventSourceConfig: { ConsumerGroupId: 'orders-consumer' },
      SourceAccessConfigurations: Match.absent(),
    });
    const resources = roleStatements(application, 'OrdersRole').map((statement) => statement.Resource);
    expect(resources).toContain('arn:aws:kafka:eu-west-1:111122223333:topic/shop/0f3c-uuid-1/orders');
    expect(resources).toContain(
      'arn:aws:kafka:eu-west-1:111122223333:group/shop/0f3c-uuid-1/orders-consumer',
    );
    application.hasResourceProperties('AWS::Lambda::Function', {
      VpcConfig: {
        SubnetIds: ['subnet-0a1b2c3d4e5f60001', 'subnet-0a1b2c3d4e5f60002'],
        SecurityGroupIds: ['sg-0a1b2c3d4e5f60003'],
      },
    });
    // The imported network (importKafkaNetwork) passes `cdk synth --strict`.
    expect(warnings(built)).toEqual([]);
  });

  // Lambda's MSK authentications with a secret: https://docs.aws.amazon.com/lambda/latest/dg/msk-cluster-auth.html
  it.each([
    ['sasl-scram-512', SECRET_ARN, 'SASL_SCRAM_512_AUTH'],
    ['mtls', CERT_ARN, 'CLIENT_CERTIFICATE_TLS_AUTH'],
  ])('cluster=existing auth=%s: the secret instead of kafka-cluster actions', (auth, secretArn, type) => {
    const { built, application } = synth({
      cluster: 'existing',
      clusterArn: CLUSTER_ARN,
      auth,
      secretArn,
      ...VPC,
    });
    application.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: CLUSTER_ARN,
      SourceAccessConfigurations: [{ Type: type, URI: secretArn }],
    });
    application.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ KAFKA_AUTH: auth, KAFKA_SECRET_ARN: secretArn }) },
    });
    const actions = allStatements(application).flatMap((statement) => statement.Action);
    expect(actions.filter((action) => action.startsWith('kafka-cluster:'))).toEqual([]);
    // Only SCRAM lists the cluster's secrets; Kafka ACLs authorise an mTLS client by its certificate.
    expect(actions.includes('kafka:ListScramSecrets')).toBe(auth === 'sasl-scram-512');
    for (const role of ['OrdersRole', 'ReplayRole']) {
      expect(roleStatements(application, role)).toContainEqual(secretReadStatement(secretArn));
    }
    // The secret's key is one the app is not told (an MSK SCRAM secret is always under a customer managed
    // key): both roles (trigger and replay) may decrypt it, but only through Secrets Manager and only for
    // this secret.
    const decrypt = allStatements(application).filter((statement) => statement.Action === 'kms:Decrypt');
    expect(decrypt).toHaveLength(2);
    for (const statement of decrypt) {
      expect(statement).toMatchObject({
        Effect: 'Allow',
        Resource: { 'Fn::Join': ['', expect.arrayContaining([':kms:', ':key/*'])] },
        Condition: {
          StringEquals: {
            'kms:ViaService': {
              'Fn::Join': ['', ['secretsmanager.', { Ref: 'AWS::Region' }, '.amazonaws.com']],
            },
            'kms:EncryptionContext:SecretARN': secretArn,
          },
        },
      });
    }
    expect(warnings(built)).toEqual([]);
  });

  // -c secretKmsKeyArn: the key is imported by ARN, whose key policy CDK cannot change, so the grant must
  // be in the roles' own policies, naming that key (infra/iam.ts, secretKeyStatement).
  it.each([
    ['existing auth=mtls', { cluster: 'existing', clusterArn: CLUSTER_ARN, auth: 'mtls', ...VPC }, CERT_ARN],
    [
      'existing auth=sasl-scram-512',
      { cluster: 'existing', clusterArn: CLUSTER_ARN, auth: 'sasl-scram-512', ...VPC },
      SECRET_ARN,
    ],
    [
      'self-managed auth=mtls',
      { cluster: 'self-managed', bootstrapServers: 'k.example.com:9094', auth: 'mtls' },
      CERT_ARN,
    ],
  ])(
    '%s with secretKmsKeyArn: both roles decrypt the secret with that key alone',
    (_label, context, secretArn) => {
      const { built, application } = synth({ ...context, secretArn, secretKmsKeyArn: TEST_KEY_ARN });
      application.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        SourceAccessConfigurations: Match.arrayWith([
          {
            Type: context.auth === 'mtls' ? 'CLIENT_CERTIFICATE_TLS_AUTH' : 'SASL_SCRAM_512_AUTH',
            URI: secretArn,
          },
        ]),
      });
      for (const role of ['OrdersRole', 'ReplayRole']) {
        const statements = roleStatements(application, role);
        expect(statements).toContainEqual(secretReadStatement(secretArn));
        expect(
          statements.filter((statement) => [statement.Action].flat().some((a) => a.startsWith('kms:'))),
        ).toEqual([secretDecryptStatement(TEST_KEY_ARN, secretArn, { Ref: 'AWS::Region' })]);
      }
      expect(JSON.stringify(application.toJSON())).not.toContain(':key/*');
      expect(warnings(built)).toEqual([]);
    },
  );

  it("auth=mtls with the app's own cluster: refused at synth, naming cluster=existing", () => {
    for (const cluster of ['serverless', 'provisioned']) {
      const build = () => synth({ cluster, auth: 'mtls', secretArn: CERT_ARN });
      expect(build).toThrow(InvalidContextError);
      expect(build).toThrow(/AWS Private CA.*-c cluster=existing .* -c auth=mtls/);
    }
  });

  it('cluster=self-managed: bootstrap servers with a secret, reachable without a VPC', () => {
    const { built, application } = synth({
      cluster: 'self-managed',
      bootstrapServers: 'kafka-1.example.com:9096,kafka-2.example.com:9096',
      secretArn: SECRET_ARN,
    });
    expect(built.cluster).toBeUndefined();
    application.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      SelfManagedEventSource: {
        Endpoints: { KafkaBootstrapServers: ['kafka-1.example.com:9096', 'kafka-2.example.com:9096'] },
      },
      SelfManagedKafkaEventSourceConfig: { ConsumerGroupId: 'orders-consumer' },
      SourceAccessConfigurations: [{ Type: 'SASL_SCRAM_512_AUTH', URI: SECRET_ARN }],
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    application.hasOutput('MappingUuid', { Value: { Ref: Match.anyValue() } });
    application.resourcePropertiesCountIs('AWS::Lambda::Function', { VpcConfig: Match.anyValue() }, 0);
  });

  it('cluster=self-managed with a VPC: the trigger and the replay function use its subnets', () => {
    const { built, application } = synth({
      cluster: 'self-managed',
      bootstrapServers: 'k.internal:9092',
      auth: 'none',
      ...VPC,
    });
    application.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      SourceAccessConfigurations: [
        { Type: 'VPC_SUBNET', URI: 'subnet-0a1b2c3d4e5f60001' },
        { Type: 'VPC_SUBNET', URI: 'subnet-0a1b2c3d4e5f60002' },
        { Type: 'VPC_SECURITY_GROUP', URI: 'sg-0a1b2c3d4e5f60003' },
      ],
    });
    application.resourcePropertiesCountIs('AWS::Lambda::Function', { VpcConfig: Match.anyValue() }, 1);
    expect(warnings(built)).toEqual([]);
  });

  it('failureTopic: failed records go to a Kafka topic the consumer may write', () => {
    const { built, application } = synth({ failureTopic: 'orders-failed' });
    Template.fromStack(built.cluster!).resourceCountIs('AWS::EC2::VPCEndpoint', 0);
    application.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      DestinationConfig: { OnFailure: { Destination: 'kafka://orders-failed' } },
    });
    expect(
      roleStatements(application, 'OrdersRole').find((statement) => statement.Sid === 'MskWriteFailureTopic'),
    ).toMatchObject({
      Action: ['kafka-cluster:DescribeTopic', 'kafka-cluster:WriteData'],
    });
    application.resourceCountIs('AWS::SQS::Queue', 0);
    // Offset lag and failed deliveries to the failure topic; no queue-depth alarm without a queue.
    application.resourceCountIs('AWS::CloudWatch::Alarm', 2);
  });

  it('alarms on failed deliveries to the dead-letter destination, per mapping', () => {
    const { application } = synth({});
    const mappingId = Object.keys(application.findResources('AWS::Lambda::EventSourceMapping'))[0]!;
    application.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/Lambda',
      MetricName: 'OnFailureDestinationDeliveryErrorCount',
      Dimensions: [{ Name: 'EventSourceMappingUUID', Value: { Ref: mappingId } }],
      Statistic: 'Sum',
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
      TreatMissingData: 'notBreaching',
    });
  });

  it('pollerGroupName: the trigger shares provisioned pollers with the named group', () => {
    const { application } = synth({ pollerGroupName: 'shop' });
    application.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      ProvisionedPollerConfig: { MinimumPollers: 1, MaximumPollers: 3, PollerGroupName: 'shop' },
    });
  });
});

describe('vpcEndpoints: interface endpoints in an imported network', { timeout: 60_000 }, () => {
  const services = (application: Template) =>
    Object.values(application.findResources('AWS::EC2::VPCEndpoint'))
      .map((endpoint) => JSON.stringify(endpoint.Properties.ServiceName).match(/\.([a-z]+)"\]\]\}$/)?.[1])
      .sort();

  it('cluster=existing: lambda and kafka for the replay function, sqs for the dead-letter queue', () => {
    const { built, application } = synth({
      cluster: 'existing',
      clusterArn: CLUSTER_ARN,
      vpcEndpoints: 'true',
      ...VPC,
    });
    expect(services(application)).toEqual(['kafka', 'lambda', 'sqs']);
    expect(warnings(built)).toEqual([]);
  });

  it('self-managed with a SCRAM secret, failed records to Kafka: lambda and secretsmanager', () => {
    const { application } = synth({
      cluster: 'self-managed',
      bootstrapServers: 'k.internal:9096',
      secretArn: SECRET_ARN,
      failureTopic: 'orders-failed',
      vpcEndpoints: 'true',
      ...VPC,
    });
    expect(services(application)).toEqual(['lambda', 'secretsmanager']);
  });

  it('none unless asked', () => {
    const { application } = synth({ cluster: 'existing', clusterArn: CLUSTER_ARN, ...VPC });
    application.resourceCountIs('AWS::EC2::VPCEndpoint', 0);
  });

  it.each([
    [
      { vpcEndpoints: 'true' },
      /the app's own VPC \(cluster=serverless\) reaches AWS APIs through its NAT gateway/,
    ],
    [
      {
        cluster: 'self-managed',
        bootstrapServers: 'k.example.com:9096',
        secretArn: SECRET_ARN,
        vpcEndpoints: 'true',
      },
      /self-managed brokers without vpcId\/subnetIds\/securityGroupIds put no function in a VPC/,
    ],
    [
      { cluster: 'existing', clusterArn: CLUSTER_ARN, vpcEndpoints: 'yes', ...VPC },
      /expected true or false, got "yes"/,
    ],
  ])('refuses %j at synth', (context, message) => {
    expect(() => appConfigFromContext((key) => (context as Record<string, string>)[key])).toThrow(
      expect.objectContaining({
        name: 'InvalidContextError',
        key: 'vpcEndpoints',
        message: expect.stringMatching(message),
      }),
    );
  });
});

describe('regions known at synth time', { timeout: 60_000 }, () => {
  it.each(['us-west-1', 'me-south-1', 'cn-north-1', 'us-gov-west-1'])(
    'refuses MSK Serverless in %s and names the alternative',
    (region) => {
      const build = () => synth({ region });
      expect(build).toThrow(UnsupportedRegionError);
      expect(build).toThrow(/-c cluster=provisioned/);
    },
  );

  it('builds MSK provisioned in a Region without MSK Serverless', () => {
    const { built } = synth({ region: 'us-west-1', cluster: 'provisioned' });
    expect(built.cluster!.region).toBe('us-west-1');
    expect(built.application.region).toBe('us-west-1');
  });

  it('builds MSK Serverless where it exists', () => {
    const { built } = synth({ region: 'eu-west-1' });
    Template.fromStack(built.cluster!).resourceCountIs('AWS::MSK::ServerlessCluster', 1);
  });

  // The Regions whose CloudFormation schema for the mapping is the older one (cfn-lint v1.51.0).
  const OLDER_MAPPING_SCHEMA = ['cn-north-1', 'cn-northwest-1', 'il-central-1'];
  const ALL_METRICS = ['EventCount', 'ErrorCount', 'KafkaMetrics'];

  it.each(OLDER_MAPPING_SCHEMA)(
    'refuses a kafka:// destination in %s and names the SQS alternative',
    (region) => {
      const build = () => synth({ region, cluster: 'provisioned', failureTopic: 'orders-failed' });
      expect(build).toThrow(UnsupportedRegionError);
      expect(build).toThrow(`a kafka:// on-failure destination cannot be deployed in ${region}`);
      // The construct's message, in its props, and what to change in this app's context.
      expect(build).toThrow(
        /Send failed records to SQS instead: onFailure: \{ type: 'sqs' \}\. In this app, leave out -c failureTopic: failed records then go to an SQS queue$/,
      );
    },
  );

  it.each(OLDER_MAPPING_SCHEMA)(
    'builds the SQS destination in %s, with EventCount metrics only (all its schema accepts) and a warning',
    (region) => {
      const { built, application } = synth({ region, cluster: 'provisioned' });
      application.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [Match.anyValue(), 'Arn'] } } },
        MetricsConfig: { Metrics: ['EventCount'] },
      });
      application.resourceCountIs('AWS::SQS::Queue', 1);
      // No alarm on a metric the mapping cannot report: it would never fire.
      expect(
        application.findResources('AWS::CloudWatch::Alarm', {
          Properties: { MetricName: 'OnFailureDestinationDeliveryErrorCount' },
        }),
      ).toEqual({});
      application.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: 'OffsetLag' });
      Annotations.fromStack(built.application).hasWarning(
        '*',
        Match.stringLikeRegexp(`schema in ${region} accepts only EventCount metrics`),
      );
    },
  );

  it('refuses a poller group name where the schema has none, and names the alternative', () => {
    const build = () => synth({ region: 'il-central-1', cluster: 'provisioned', pollerGroupName: 'shop' });
    expect(build).toThrow(UnsupportedRegionError);
    expect(build).toThrow(
      /no ProvisionedPollerConfig.PollerGroupName\. Leave out provisionedPollers\.pollerGroupName: the trigger then has pollers of its own\. In this app, leave out -c pollerGroupName$/,
    );
  });

  it('keeps kafka://, a poller group and every metric group in a Region whose schema accepts them', () => {
    const { built, application } = synth({
      region: 'eu-west-1',
      failureTopic: 'orders-failed',
      pollerGroupName: 'shop',
    });
    application.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      DestinationConfig: { OnFailure: { Destination: 'kafka://orders-failed' } },
      MetricsConfig: { Metrics: ALL_METRICS },
      ProvisionedPollerConfig: { PollerGroupName: 'shop' },
    });
    application.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'OnFailureDestinationDeliveryErrorCount',
    });
    Annotations.fromStack(built.application).hasNoWarning('*', Match.stringLikeRegexp('EventCount'));
  });

  it('checks nothing in an environment-agnostic stack: kafka:// and every metric group', () => {
    const { built, application } = synth({ cluster: 'provisioned', failureTopic: 'orders-failed' });
    expect(built.application.region).toMatch(/^\$\{Token\[AWS\.Region\.\d+\]\}$/);
    application.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      DestinationConfig: { OnFailure: { Destination: 'kafka://orders-failed' } },
      MetricsConfig: { Metrics: ALL_METRICS },
    });
  });
});
