import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { appConfigFromContext } from './app-config.ts';
import { type BuiltApp, buildApp } from './build-app.ts';
import { mskIamConsumerStatements, mskIamReplayStatements } from './msk-test-stacks.ts';
import {
  allStatements,
  controlMappingStatement,
  mskArnJoin,
  NETWORK_INTERFACE_STATEMENTS,
  onlyResourceId,
  roleStatements,
} from './template-queries.ts';

// The default app (`npx cdk synth` with cdk.json's context): a new MSK Serverless cluster, the orders
// consumer and the replay function, bundled for real. Synthesized once for every assertion of this file.
describe('the default app (MSK Serverless)', () => {
  let built: BuiltApp;
  let cluster: Template;
  let application: Template;
  let assemblyDir: string;
  let clusterArn: unknown;
  let mappingId: string;

  beforeAll(() => {
    const app = new App();
    built = buildApp(
      app,
      appConfigFromContext(() => undefined),
    );
    cluster = Template.fromStack(built.cluster!);
    application = Template.fromStack(built.application);
    assemblyDir = app.synth().directory;
    mappingId = onlyResourceId(application, 'AWS::Lambda::EventSourceMapping');
    clusterArn = application.findResources('AWS::Lambda::EventSourceMapping')[mappingId]!.Properties
      .EventSourceArn;
  }, 120_000);

  it('creates an MSK Serverless cluster with IAM auth in private subnets, admitting pollers and clients on 9098', () => {
    cluster.hasResourceProperties('AWS::MSK::ServerlessCluster', {
      ClientAuthentication: { Sasl: { Iam: { Enabled: true } } },
      VpcConfigs: [{ SubnetIds: Match.arrayWith([{ Ref: Match.stringLikeRegexp('privateSubnet1') }]) }],
    });
    const brokers = onlyResourceIdMatching(cluster, 'AWS::EC2::SecurityGroup', 'BrokerSecurityGroup');
    const clients = onlyResourceIdMatching(cluster, 'AWS::EC2::SecurityGroup', 'ClientSecurityGroup');
    for (const source of [brokers, clients]) {
      cluster.hasResourceProperties('AWS::EC2::SecurityGroupIngress', {
        GroupId: { 'Fn::GetAtt': [brokers, 'GroupId'] },
        SourceSecurityGroupId: { 'Fn::GetAtt': [source, 'GroupId'] },
        IpProtocol: 'tcp',
        FromPort: 9098,
        ToPort: 9098,
      });
    }
    expect(clusterArn).toEqual({
      'Fn::ImportValue': expect.stringMatching(/^KafkaLambdaCluster:.*ClusterArn/),
    });
    // Lambda's pollers deliver on-failure records to SQS from inside the cluster VPC.
    cluster.hasResourceProperties('AWS::EC2::VPCEndpoint', {
      ServiceName: { 'Fn::Join': ['', ['com.amazonaws.', { Ref: 'AWS::Region' }, '.sqs']] },
      VpcEndpointType: 'Interface',
      PrivateDnsEnabled: true,
    });
    cluster.hasResourceProperties('AWS::EC2::SecurityGroupIngress', {
      GroupId: {
        'Fn::GetAtt': [onlyResourceIdMatching(cluster, 'AWS::EC2::SecurityGroup', 'SqsEndpoint'), 'GroupId'],
      },
      SourceSecurityGroupId: { 'Fn::GetAtt': [brokers, 'GroupId'] },
      FromPort: 443,
      ToPort: 443,
    });
  });

  it('configures the trigger with partial batch responses, provisioned pollers and bounded failure handling', () => {
    application.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: Match.stringLikeRegexp('^OrdersFunction') },
      Topics: ['orders'],
      AmazonManagedKafkaEventSourceConfig: { ConsumerGroupId: 'orders-consumer' },
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: 100,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ProvisionedPollerConfig: { MinimumPollers: 1, MaximumPollers: 3 },
      MaximumRetryAttempts: 3,
      MaximumRecordAgeInSeconds: 86_400,
      BisectBatchOnFunctionError: true,
      DestinationConfig: {
        OnFailure: { Destination: { 'Fn::GetAtt': [Match.stringLikeRegexp('^OrdersFailureQueue'), 'Arn'] } },
      },
      Enabled: true,
    });
  });

  it('runs both functions on nodejs24.x, arm64, from real minified ESM bundles', () => {
    const functions = application.findResources('AWS::Lambda::Function');
    expect(Object.keys(functions).sort()).toEqual([
      expect.stringMatching(/^OrdersFunction/),
      expect.stringMatching(/^ReplayFunction/),
    ]);
    for (const fn of Object.values(functions)) {
      expect(fn.Properties).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
      });
      const bundle = join(
        assemblyDir,
        `asset.${fn.Properties.Code.S3Key.replace(/\.zip$/, '')}`,
        'index.mjs',
      );
      const code = readFileSync(bundle, 'utf8');
      // Assertions on booleans: a failure must not print a whole bundle.
      expect(code.startsWith("import{createRequire}from'node:module';")).toBe(true);
      expect(/export\{[^}]*\bas handler\}/.test(code)).toBe(true);
      expect(code.length / code.split('\n').length).toBeGreaterThan(1000); // minified: long lines
      expect(existsSync(`${bundle}.map`)).toBe(true);
    }
  });

  it('configures the replay function for the trigger: mapping, group, allowed topics, auth, VPC', () => {
    application.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: {
          NODE_OPTIONS: '--enable-source-maps --disable-warning=TimeoutNegativeWarning',
          REPLAY_MAPPING_UUID: { Ref: mappingId },
          REPLAY_CONSUMER_GROUP_ID: 'orders-consumer',
          REPLAY_ALLOWED_TOPICS: 'orders',
          KAFKA_AUTH: 'iam',
          KAFKA_CLUSTER_ARN: clusterArn,
        },
      },
      VpcConfig: {
        SubnetIds: [
          { 'Fn::ImportValue': Match.stringLikeRegexp('privateSubnet1') },
          { 'Fn::ImportValue': Match.stringLikeRegexp('privateSubnet2') },
        ],
        SecurityGroupIds: [{ 'Fn::ImportValue': Match.stringLikeRegexp('ClientSecurityGroup') }],
      },
    });
  });

  it('never lets Lambda retry an asynchronous replay (a retried shift would move the offsets twice)', () => {
    const replayFunction = Object.keys(
      application.findResources('AWS::Lambda::Function', {
        Properties: { Environment: { Variables: { REPLAY_MAPPING_UUID: Match.anyValue() } } },
      }),
    );
    expect(replayFunction).toHaveLength(1);
    application.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: replayFunction[0] },
      MaximumRetryAttempts: 0,
    });
  });

  it('grants the consumer only its cluster, topic, group, queue, logs and ENIs', () => {
    expect(roleStatements(application, 'OrdersRole')).toEqual([
      {
        Effect: 'Allow',
        Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        Resource: { 'Fn::GetAtt': [expect.stringMatching(/^OrdersLogs/), 'Arn'] },
      },
      {
        Effect: 'Allow',
        Action: 'sqs:SendMessage',
        Resource: { 'Fn::GetAtt': [expect.stringMatching(/^OrdersFailureQueue/), 'Arn'] },
      },
      ...mskIamConsumerStatements(
        clusterArn,
        mskArnJoin(clusterArn, 'topic', 'orders'),
        mskArnJoin(clusterArn, 'group', 'orders-consumer'),
      ),
      ...NETWORK_INTERFACE_STATEMENTS.trigger,
    ]);
  });

  it('grants the replay function only its mapping, cluster, topic, group, logs and ENIs', () => {
    expect(roleStatements(application, 'ReplayRole')).toEqual([
      {
        Effect: 'Allow',
        Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        Resource: { 'Fn::GetAtt': [expect.stringMatching(/^ReplayLogs/), 'Arn'] },
      },
      controlMappingStatement(mappingId),
      ...mskIamReplayStatements(
        clusterArn,
        mskArnJoin(clusterArn, 'topic', 'orders'),
        mskArnJoin(clusterArn, 'group', 'orders-consumer'),
      ),
      ...NETWORK_INTERFACE_STATEMENTS.function,
    ]);
  });

  it('has no IAM statement besides those two roles, and "*" only where EC2 requires it', () => {
    const statements = [...allStatements(application), ...allStatements(cluster)];
    const ofRoles = [
      ...roleStatements(application, 'OrdersRole'),
      ...roleStatements(application, 'ReplayRole'),
    ];
    const flowLogs = allStatements(cluster);
    expect(statements).toHaveLength(ofRoles.length + flowLogs.length);
    const wildcards = statements.filter((statement) => JSON.stringify(statement.Resource).includes('*'));
    expect(wildcards.map((statement) => statement.Sid).sort()).toEqual([
      'DescribeNetwork',
      'DescribeNetwork',
      'ManageNetworkInterfaces',
      'ManageNetworkInterfaces',
    ]);
    // The VPC flow-log role writes to its own log group only.
    expect(flowLogs).toEqual([
      {
        Effect: 'Allow',
        Action: ['logs:CreateLogStream', 'logs:PutLogEvents', 'logs:DescribeLogStreams'],
        Resource: { 'Fn::GetAtt': [expect.stringMatching(/^FlowLogsGroup/), 'Arn'] },
      },
    ]);
  });

  it('alarms on the trigger offset lag and on the dead-letter queue depth', () => {
    application.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/Lambda',
      MetricName: 'OffsetLag',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: Match.stringLikeRegexp('^OrdersFunction') } }],
      Statistic: 'Maximum',
      Threshold: 1000,
      ComparisonOperator: 'GreaterThanThreshold',
    });
    application.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [
        {
          Name: 'QueueName',
          Value: { 'Fn::GetAtt': [Match.stringLikeRegexp('^OrdersFailureQueue'), 'QueueName'] },
        },
      ],
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
    });
  });

  it('outputs what `kafka-lambda replay` needs: the replay function name and the mapping UUID', () => {
    application.hasOutput('ReplayFunctionName', {
      Value: { Ref: Match.stringLikeRegexp('^ReplayFunction') },
    });
    application.hasOutput('MappingUuid', { Value: { Ref: mappingId } });
    application.hasOutput('ConsumerGroupId', { Value: 'orders-consumer' });
    application.hasOutput('ConsumerLogGroupName', { Value: { Ref: Match.stringLikeRegexp('^OrdersLogs') } });
  });

  it('outputs what a client inside the VPC needs: the cluster, the VPC, its private subnets, the client group', () => {
    cluster.hasOutput('ClusterArn', { Value: Match.anyValue() });
    cluster.hasOutput('VpcId', { Value: { Ref: Match.stringLikeRegexp('^Vpc') } });
    cluster.hasOutput('PrivateSubnetIds', { Value: Match.anyValue() });
    cluster.hasOutput('ClientSecurityGroupId', {
      Value: { 'Fn::GetAtt': [Match.stringLikeRegexp('^ClientSecurityGroup'), 'GroupId'] },
    });
  });

  it('passes cdk-nag AwsSolutions on every stack', () => {
    for (const stack of [built.cluster!, built.application]) {
      expect(new AwsSolutionsChecks().validateScope(stack).violations).toEqual([]);
    }
  });
});

function onlyResourceIdMatching(template: Template, type: string, prefix: string): string {
  const ids = Object.keys(template.findResources(type)).filter((id) => id.startsWith(prefix));
  expect(ids).toHaveLength(1);
  return ids[0]!;
}
