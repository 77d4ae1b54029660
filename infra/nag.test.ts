import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { networkInterfaceStatements } from './iam.ts';
import { KafkaConsumerFunction } from './kafka-consumer-function.ts';
import { importKafkaNetwork, type KafkaSource } from './kafka-source.ts';
import { acknowledgeNetworkInterfaceWildcards } from './nag.ts';
import { KafkaReplayFunction } from './replay-function.ts';

function roleWithNetworkInterfaces(acknowledged: boolean): Stack {
  const stack = new Stack(new App(), 'S');
  const role = new iam.Role(stack, 'Role', { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com') });
  for (const statement of networkInterfaceStatements(stack, 'trigger')) role.addToPrincipalPolicy(statement);
  if (acknowledged) acknowledgeNetworkInterfaceWildcards(role);
  return stack;
}

describe('acknowledgeNetworkInterfaceWildcards', () => {
  it('acknowledges exactly the two wildcard findings cdk-nag raises on the network-interface statements', () => {
    const unacknowledged = new AwsSolutionsChecks().validateScope(roleWithNetworkInterfaces(false));
    expect(unacknowledged.violations.map((violation) => violation.ruleName).sort()).toEqual([
      'AwsSolutions-IAM5[Resource::*]',
      'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ec2:<AWS::Region>:<AWS::AccountId>:*/*]',
    ]);
    expect(new AwsSolutionsChecks().validateScope(roleWithNetworkInterfaces(true)).violations).toEqual([]);
  });
});

describe('cdk-nag on the constructs in every kind of environment', () => {
  const ENTRY = join(import.meta.dirname, '../functions/orders/handler.ts');
  const CLUSTER_ARN = 'arn:aws:kafka:eu-west-1:111122223333:cluster/shop/0f3c-uuid-1';
  const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:AmazonMSK_shop-AbCdEf';

  // The wildcard ARNs name the account and Region as tokens where the stack has none, literally where it
  // has them: each acknowledgement must spell the finding the way cdk-nag does in each case.
  it.each([
    ['neither account nor Region', undefined],
    ['a Region only', { region: 'eu-west-1' }],
    ['an account and a Region', { account: '111122223333', region: 'eu-west-1' }],
  ])('passes AwsSolutions for a stack with %s', (_label, env) => {
    const stack = new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Nag', { env });
    const network = importKafkaNetwork(stack, {
      vpcId: 'vpc-0a1b2c3d4e5f60000',
      subnetIds: ['subnet-0a1b2c3d4e5f60001'],
      securityGroupIds: ['sg-0a1b2c3d4e5f60003'],
    });
    // Imported by ARN, without its key: the role gets the key wildcard of secretKeyStatement.
    const secret = secretsmanager.Secret.fromSecretCompleteArn(stack, 'Secret', SECRET_ARN);
    const source: KafkaSource = {
      kind: 'msk',
      clusterArn: CLUSTER_ARN,
      auth: { type: 'sasl-scram-512', secret },
      network,
    };
    const consumer = new KafkaConsumerFunction(stack, 'Orders', {
      entry: ENTRY,
      source,
      topic: 'orders',
      consumerGroupId: 'orders-consumer',
      schemaRegistry: {
        kind: 'glue',
        registryArn: 'arn:aws:glue:eu-west-1:111122223333:registry/shop',
        eventRecordFormat: 'JSON',
      },
    });
    new KafkaReplayFunction(stack, 'Replay', { entry: ENTRY, source, target: consumer });
    expect(new AwsSolutionsChecks().validateScope(stack).violations.map((v) => v.ruleName)).toEqual([]);
  });
});
