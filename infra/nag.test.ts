import { App, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { networkInterfaceStatements } from './iam.ts';
import { mskConsumerStack, TEST_ENV, TEST_KEY_ARN } from './msk-test-stacks.ts';
import { acknowledgeNetworkInterfaceWildcards } from './nag.ts';

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
  const SCRAM_ARN = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:AmazonMSK_shop-AbCdEf';
  const CERT_ARN = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:orders-client-cert-AbCdEf';
  const ENVIRONMENTS = [
    ['neither account nor Region', undefined],
    ['a Region only', { region: 'eu-west-1' }],
    ['an account and a Region', TEST_ENV],
  ] as const;
  const SECRETS = [
    // Imported by ARN, without its key: the role gets the key wildcard of secretKeyStatement.
    ['a SCRAM secret without its key', { auth: 'sasl-scram-512', secretArn: SCRAM_ARN }],
    // Under a key imported by ARN: the role's own policy names the key.
    [
      'an mTLS certificate under an imported key',
      { auth: 'mtls', secretArn: CERT_ARN, keyArn: TEST_KEY_ARN },
    ],
  ] as const;

  // The wildcard ARNs name the account and Region as tokens where the stack has none, literally where it
  // has them: each acknowledgement must spell the finding the way cdk-nag does in each case.
  it.each(
    ENVIRONMENTS.flatMap(([label, env]) =>
      SECRETS.map(([secret, auth]) => [label, secret, env, auth] as const),
    ),
  )('passes AwsSolutions for a stack with %s and %s', (_label, _secret, env, auth) => {
    const { stack } = mskConsumerStack({
      id: 'Nag',
      env,
      ...auth,
      consumerProps: {
        schemaRegistry: {
          kind: 'glue',
          registryArn: 'arn:aws:glue:eu-west-1:111122223333:registry/shop',
          eventRecordFormat: 'JSON',
        },
      },
    });
    expect(new AwsSolutionsChecks().validateScope(stack).violations.map((v) => v.ruleName)).toEqual([]);
  });
});
