import { App, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { networkInterfaceStatements } from './iam.ts';
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
