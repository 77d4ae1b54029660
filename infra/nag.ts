import { Stack, Token, Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/**
 * The partition, Region and account of `scope`'s stack as cdk-nag spells them in a finding's resource: a
 * pseudo parameter (`<AWS::Region>`) where the stack leaves it to deployment, the literal value where the
 * stack's `env` names it (`eu-west-1`, `111122223333`). An acknowledgement must match the finding exactly.
 */
function arnEnvironmentAsNagSees(scope: IConstruct): { partition: string; region: string; account: string } {
  const stack = Stack.of(scope);
  const spelt = (value: string, pseudo: string): string =>
    Token.isUnresolved(value) ? `<${pseudo}>` : value;
  return {
    partition: spelt(stack.partition, 'AWS::Partition'),
    region: spelt(stack.region, 'AWS::Region'),
    account: spelt(stack.account, 'AWS::AccountId'),
  };
}

/**
 * Acknowledges, with their reasons, the two wildcard resources of {@link networkInterfaceStatements} for
 * cdk-nag's AwsSolutions-IAM5 on the role (or policy) that carries them.
 *
 * @example
 * acknowledgeNetworkInterfaceWildcards(role);
 */
export function acknowledgeNetworkInterfaceWildcards(scope: IConstruct): void {
  const { partition, region, account } = arnEnvironmentAsNagSees(scope);
  Validations.of(scope).acknowledge(
    {
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'EC2 Describe* actions (network interfaces, subnets, VPCs, security groups) support no resource-level permissions.',
    },
    {
      id: `AwsSolutions-IAM5[Resource::arn:${partition}:ec2:${region}:${account}:*/*]`,
      reason:
        'Lambda creates the ENIs at run time, so no id exists at deploy time; the Lambda guide asks for all resource ids of the account and region in that case.',
    },
  );
}

/**
 * Acknowledges, with its reason, the key wildcard of {@link secretKeyStatement} for cdk-nag's
 * AwsSolutions-IAM5 on the role (or policy) that carries it.
 *
 * @example
 * acknowledgeSecretKeyWildcard(role);
 */
export function acknowledgeSecretKeyWildcard(scope: IConstruct): void {
  const { partition, region, account } = arnEnvironmentAsNagSees(scope);
  Validations.of(scope).acknowledge({
    id: `AwsSolutions-IAM5[Resource::arn:${partition}:kms:${region}:${account}:key/*]`,
    reason:
      'A secret imported by ARN or name (or given with a key alias) names no key ARN; the grant holds only for Secrets Manager decrypting that secret (kms:ViaService, kms:EncryptionContext:SecretARN).',
  });
}
