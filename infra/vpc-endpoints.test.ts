import { Template } from 'aws-cdk-lib/assertions';
import * as sns from 'aws-cdk-lib/aws-sns';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { KafkaLambdaCdkError } from './errors.ts';
import { importKafkaNetwork } from './kafka-source.ts';
import {
  clicksConsumer,
  mskConsumerStack,
  publicBrokers,
  TEST_NETWORK,
  unbundledStack,
} from './msk-test-stacks.ts';
import type { KafkaReplayFunction } from './replay-function.ts';
import { type KafkaVpcEndpointService, KafkaVpcEndpoints } from './vpc-endpoints.ts';

const SCRAM_ARN = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:AmazonMSK_shop-AbCdEf';

/** The endpoint services of a template, by the last part of their `com.amazonaws.<region>.<name>`. */
function endpointServices(template: Template): string[] {
  return Object.values(template.findResources('AWS::EC2::VPCEndpoint'))
    .map((endpoint) => {
      const name = JSON.stringify(endpoint.Properties.ServiceName);
      return /\.([a-z]+)"\]\]\}$|\.([a-z]+)"$/.exec(name)?.slice(1).find(Boolean) ?? name;
    })
    .sort();
}

describe('what each construct says it calls from its VPC', { timeout: 60_000 }, () => {
  it('an MSK consumer in provisioned mode (the default) with an SQS destination: sqs; its replay function: lambda, secretsmanager, kafka', () => {
    const { stack, consumer } = mskConsumerStack({
      id: 'Scram',
      auth: 'sasl-scram-512',
      secretArn: SCRAM_ARN,
    });
    expect(consumer.vpcEndpointServices).toEqual(['sqs']);
    const replay = stack.node.findChild('OrdersReplay') as KafkaReplayFunction;
    expect([...replay.vpcEndpointServices].sort()).toEqual(['kafka', 'lambda', 'secretsmanager']);
  });

  it('in on-demand mode the trigger itself calls lambda and sts (and secretsmanager for its secret)', () => {
    const { consumer } = mskConsumerStack({
      id: 'OnDemand',
      auth: 'sasl-scram-512',
      secretArn: SCRAM_ARN,
      consumerProps: { mappingProps: { provisionedPollerConfig: undefined } },
    });
    expect([...consumer.vpcEndpointServices].sort()).toEqual(['lambda', 'secretsmanager', 'sqs', 'sts']);
  });

  it('an SNS destination is sns; a Kafka destination needs no endpoint', () => {
    const stack = unbundledStack('Destinations', undefined);
    const source = { ...publicBrokers({ type: 'none' }), network: importKafkaNetwork(stack, TEST_NETWORK) };
    const topic = new sns.Topic(stack, 'Failures', { enforceSSL: true });
    expect(
      clicksConsumer(stack, 'ToSns', source, { onFailure: { type: 'sns', topic } }).vpcEndpointServices,
    ).toEqual(['sns']);
    expect(
      clicksConsumer(stack, 'ToKafka', source, {
        consumerGroupId: 'clicks-consumer-2',
        onFailure: { type: 'kafka', topic: 'clicks-failed' },
      }).vpcEndpointServices,
    ).toEqual([]);
  });
});

describe('KafkaVpcEndpoints', { timeout: 60_000 }, () => {
  it('makes one private-DNS endpoint per service in the network’s subnets, admitting only its security groups on 443', () => {
    const { stack, source, consumer } = mskConsumerStack({
      id: 'Endpoints',
      auth: 'sasl-scram-512',
      secretArn: SCRAM_ARN,
    });
    const replay = stack.node.findChild('OrdersReplay') as KafkaReplayFunction;
    const endpoints = new KafkaVpcEndpoints(stack, 'Endpoints', {
      network: source.network!,
      services: [...consumer.vpcEndpointServices, ...replay.vpcEndpointServices, 'lambda'],
    });
    const template = Template.fromStack(stack);
    expect(endpointServices(template)).toEqual(['kafka', 'lambda', 'secretsmanager', 'sqs']);
    expect([...endpoints.endpoints.keys()]).toEqual(['kafka', 'lambda', 'secretsmanager', 'sqs']);
    for (const endpoint of Object.values(template.findResources('AWS::EC2::VPCEndpoint'))) {
      expect(endpoint.Properties).toMatchObject({
        VpcEndpointType: 'Interface',
        PrivateDnsEnabled: true,
        VpcId: TEST_NETWORK.vpcId,
        SubnetIds: [...TEST_NETWORK.subnetIds],
      });
    }
    const group = Object.keys(template.findResources('AWS::EC2::SecurityGroup'));
    expect(group).toHaveLength(1);
    expect(Object.values(template.findResources('AWS::EC2::SecurityGroupIngress'))).toEqual([
      {
        Type: 'AWS::EC2::SecurityGroupIngress',
        Properties: expect.objectContaining({
          GroupId: { 'Fn::GetAtt': [group[0], 'GroupId'] },
          IpProtocol: 'tcp',
          FromPort: 443,
          ToPort: 443,
          SourceSecurityGroupId: TEST_NETWORK.securityGroupIds[0],
        }),
      },
    ]);
    expect(new AwsSolutionsChecks().validateScope(stack).violations).toEqual([]);
  });

  it('refuses no services, and a service it does not know, by name', () => {
    const stack = unbundledStack('Refusals', undefined);
    const network = importKafkaNetwork(stack, TEST_NETWORK);
    expect(() => new KafkaVpcEndpoints(stack, 'None', { network, services: [] })).toThrow(
      new KafkaLambdaCdkError('KafkaVpcEndpoints needs at least one service'),
    );
    expect(
      () =>
        new KafkaVpcEndpoints(stack, 'Unknown', {
          network,
          services: ['glue' as KafkaVpcEndpointService],
        }),
    ).toThrow(/unknown service "glue" \(one of lambda, sts, secretsmanager, kafka, sqs, sns\)/);
  });
});
