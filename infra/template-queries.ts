// Queries over synthesized templates shared by the infra tests.
import type { Template } from 'aws-cdk-lib/assertions';

/**
 * One IAM policy statement as it appears in a template.
 *
 * @example
 * const statement: TemplateStatement = { Effect: 'Allow', Action: 'kafka-cluster:Connect', Resource: clusterArn };
 */
export interface TemplateStatement {
  readonly Sid?: string;
  readonly Effect: string;
  readonly Action: string | string[];
  readonly Resource: unknown;
  readonly Condition?: Record<string, Record<string, unknown>>;
}

interface PolicyResource {
  Properties: { PolicyDocument: { Statement: TemplateStatement[] }; Roles: { Ref: string }[] };
}

/**
 * Every statement of every `AWS::IAM::Policy` attached to the role whose logical id starts with `rolePrefix`.
 *
 * @example
 * const statements = roleStatements(template, 'OrdersRole');
 */
export function roleStatements(template: Template, rolePrefix: string): TemplateStatement[] {
  const policies = Object.values(template.findResources('AWS::IAM::Policy')) as PolicyResource[];
  return policies
    .filter((policy) => policy.Properties.Roles.some((role) => role.Ref.startsWith(rolePrefix)))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement);
}

/**
 * Every statement of every `AWS::IAM::Policy` in the template.
 *
 * @example
 * for (const statement of allStatements(template)) console.log(statement.Action);
 */
export function allStatements(template: Template): TemplateStatement[] {
  const policies = Object.values(template.findResources('AWS::IAM::Policy')) as PolicyResource[];
  return policies.flatMap((policy) => policy.Properties.PolicyDocument.Statement);
}

/**
 * The logical id of the only resource of a type.
 *
 * @example
 * const mappingId = onlyResourceId(template, 'AWS::Lambda::EventSourceMapping');
 */
export function onlyResourceId(template: Template, type: string): string {
  const ids = Object.keys(template.findResources(type));
  if (ids.length !== 1) throw new Error(`expected one ${type}, found ${ids.length}`);
  return ids[0]!;
}

/**
 * The `Fn::Join` CloudFormation builds for an MSK topic or group ARN from a cluster ARN expression.
 *
 * @example
 * expect(statement.Resource).toEqual(mskArnJoin(clusterArn, 'topic', 'orders'));
 */
export function mskArnJoin(clusterArn: unknown, kind: 'topic' | 'group', name: string): unknown {
  const split = { 'Fn::Split': [':cluster/', clusterArn] };
  return {
    'Fn::Join': ['', [{ 'Fn::Select': [0, split] }, `:${kind}/`, { 'Fn::Select': [1, split] }, `/${name}`]],
  };
}

/**
 * The statement letting a replay function read and enable/disable one event source mapping, whose
 * ARN CloudFormation joins from the mapping's logical id.
 *
 * @example
 * expect(roleStatements(template, 'ReplayRole')).toContainEqual(controlMappingStatement(mappingId));
 */
export function controlMappingStatement(mappingId: unknown): TemplateStatement {
  return {
    Sid: 'ControlEventSourceMapping',
    Effect: 'Allow',
    Action: ['lambda:GetEventSourceMapping', 'lambda:UpdateEventSourceMapping'],
    Resource: {
      'Fn::Join': [
        '',
        [
          'arn:',
          { Ref: 'AWS::Partition' },
          ':lambda:',
          { Ref: 'AWS::Region' },
          ':',
          { Ref: 'AWS::AccountId' },
          ':event-source-mapping:',
          { Ref: mappingId },
        ],
      ],
    },
  };
}

/**
 * The account- and region-wide EC2 ARN of the network-interface statement.
 *
 * @example
 * expect(statement.Resource).toEqual(REGIONAL_EC2_ARN);
 */
export const REGIONAL_EC2_ARN = {
  'Fn::Join': [
    '',
    [
      'arn:',
      { Ref: 'AWS::Partition' },
      ':ec2:',
      { Ref: 'AWS::Region' },
      ':',
      { Ref: 'AWS::AccountId' },
      ':*/*',
    ],
  ],
};

/**
 * The two network-interface statements Lambda needs for ENIs, per use (see infra/iam.ts).
 *
 * @example
 * expect(roleStatements(template, 'ReplayRole')).toEqual(expect.arrayContaining(NETWORK_INTERFACE_STATEMENTS.function));
 */
export const NETWORK_INTERFACE_STATEMENTS = {
  /** A Kafka trigger's pollers (AWSLambdaMSKExecutionRole's ENI actions). */
  trigger: [
    {
      Sid: 'ManageNetworkInterfaces',
      Effect: 'Allow',
      Action: ['ec2:CreateNetworkInterface', 'ec2:DeleteNetworkInterface'],
      Resource: REGIONAL_EC2_ARN,
    },
    {
      Sid: 'DescribeNetwork',
      Effect: 'Allow',
      Action: [
        'ec2:DescribeNetworkInterfaces',
        'ec2:DescribeSubnets',
        'ec2:DescribeVpcs',
        'ec2:DescribeSecurityGroups',
      ],
      Resource: '*',
    },
  ],
  /** A VPC-attached function (AWSLambdaVPCAccessExecutionRole's ENI actions). */
  function: [
    {
      Sid: 'ManageNetworkInterfaces',
      Effect: 'Allow',
      Action: [
        'ec2:CreateNetworkInterface',
        'ec2:DeleteNetworkInterface',
        'ec2:AssignPrivateIpAddresses',
        'ec2:UnassignPrivateIpAddresses',
      ],
      Resource: REGIONAL_EC2_ARN,
    },
    {
      Sid: 'DescribeNetwork',
      Effect: 'Allow',
      Action: ['ec2:DescribeNetworkInterfaces', 'ec2:DescribeSubnets'],
      Resource: '*',
    },
  ],
} satisfies Record<string, TemplateStatement[]>;
