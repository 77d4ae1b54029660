import { Stack, Token, Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/**
 * Acknowledges, with their reasons, the two wildcard resources of {@link networkInterfaceStatements} for
 * cdk-nag's AwsSolutions-IAM5 on the role (or policy) that carries them.
 *
 * @example
 * acknowledgeNetworkInterfaceWildcards(role);
 */
export function acknowledgeNetworkInterfaceWildcards(scope: IConstruct): void {
  // The ARN names the Region as a token in an environment-agnostic stack, literally when it has a Region.
  const region = Stack.of(scope).region;
  const regionInArn = Token.isUnresolved(region) ? '<AWS::Region>' : region;
  Validations.of(scope).acknowledge(
    {
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'EC2 Describe* actions (network interfaces, subnets, VPCs, security groups) support no resource-level permissions.',
    },
    {
      id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ec2:${regionInArn}:<AWS::AccountId>:*/*]`,
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
  const region = Stack.of(scope).region;
  const regionInArn = Token.isUnresolved(region) ? '<AWS::Region>' : region;
  Validations.of(scope).acknowledge({
    id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:kms:${regionInArn}:<AWS::AccountId>:key/*]`,
    reason:
      'A secret imported by ARN names no key; the grant holds only for Secrets Manager decrypting that secret (kms:ViaService, kms:EncryptionContext:SecretARN).',
  });
}
