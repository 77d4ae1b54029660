import { Stack, Token, Validations } from 'aws-cdk-lib';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
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

/**
 * A resource of a policy statement as cdk-nag spells it in a finding: the value CloudFormation gets, with
 * `Fn::Join` joined, `Ref` as `<Name>`, `Fn::GetAtt` as `<Resource.Attribute>`, `Fn::Sub`'s `${…}` as `<…>`.
 */
function resourceAsNagSees(scope: IConstruct, resource: string): string {
  const spell = (value: unknown): string => {
    if (typeof value === 'string') return value.replaceAll('${', '<').replaceAll('}', '>');
    if (typeof value !== 'object' || value === null) return JSON.stringify(value);
    const node = value as Record<string, unknown>;
    if (Array.isArray(node['Fn::Join'])) {
      const [delimiter, parts] = node['Fn::Join'] as [string, unknown[]];
      return parts.map(spell).join(delimiter);
    }
    if (Array.isArray(node['Fn::GetAtt'])) {
      const [logicalId, attribute] = node['Fn::GetAtt'] as [unknown, unknown];
      return `<${spell(logicalId)}.${spell(attribute)}>`;
    }
    if ('Ref' in node) return `<${spell(node.Ref)}>`;
    if ('Fn::Sub' in node) return spell(node['Fn::Sub']);
    if ('Fn::ImportValue' in node) return spell(node['Fn::ImportValue']);
    return JSON.stringify(value);
  };
  return spell(Stack.of(scope).resolve(resource));
}

/**
 * Acknowledges, with its reason, the object wildcard (`<bucket ARN>/*`) of an S3 on-failure destination's
 * `s3:PutObject` for cdk-nag's AwsSolutions-IAM5 on the role (or policy) that carries it.
 *
 * @example
 * acknowledgeFailureBucketObjects(role, bucket);
 */
export function acknowledgeFailureBucketObjects(scope: IConstruct, bucket: IBucket): void {
  Validations.of(scope).acknowledge({
    id: `AwsSolutions-IAM5[Resource::${resourceAsNagSees(scope, bucket.arnForObjects('*'))}]`,
    reason:
      "Lambda names the objects it writes to an S3 on-failure destination at run time; s3:PutObject is granted on this one bucket's objects only.",
  });
}

/**
 * Acknowledges, with its reason, the stream wildcard of a log group given to a function (`functionProps.logGroup`)
 * for cdk-nag's AwsSolutions-IAM5 on the role (or policy) that carries it: the ARN of a log group imported by
 * name ends in `:*`, its log streams. A log group of the app is granted by `Fn::GetAtt`, which cdk-nag reads
 * without a wildcard: nothing to acknowledge then.
 *
 * @example
 * acknowledgeLogStreams(role, logGroup.logGroupArn);
 */
export function acknowledgeLogStreams(scope: IConstruct, logGroupArn: string): void {
  const resource = resourceAsNagSees(scope, logGroupArn);
  if (!resource.includes('*')) return;
  Validations.of(scope).acknowledge({
    id: `AwsSolutions-IAM5[Resource::${resource}]`,
    reason:
      'The function writes its logs to streams Lambda creates at run time, in this one log group: the grant names the group and its streams (:*).',
  });
}
