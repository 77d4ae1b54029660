import { Stack, Token } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { IConstruct } from 'constructs';
import { mskGroupArn, mskTopicArn } from './msk-arns.ts';
import { acknowledgeSecretKeyWildcard } from './nag.ts';

/**
 * The network-interface permissions Lambda uses, with the role of the function, to place ENIs in a VPC,
 * as AWS's managed policies for each use list them:
 * - `'trigger'`, the pollers of a Kafka trigger (MSK, or self-managed in a VPC): create, delete and
 *   describe ENIs, describe subnets, VPCs and security groups (AWSLambdaMSKExecutionRole);
 * - `'function'`, a VPC-attached function: create, delete, describe ENIs, describe subnets, and
 *   assign/unassign private IPs (AWSLambdaVPCAccessExecutionRole).
 *
 * The ENI actions are scoped to this account and region: the ENI ids do not exist before Lambda creates
 * them, and the Lambda guide asks for "all resource IDs" (`arn:…:ec2:<region>:<account>:*\/*`) when no
 * single id can be named. The Describe actions support no resource-level permissions at all, so AWS
 * requires `Resource: "*"` for them.
 *
 * @example
 * for (const statement of networkInterfaceStatements(fn, 'function')) fn.addToRolePolicy(statement);
 */
export function networkInterfaceStatements(
  scope: IConstruct,
  use: 'trigger' | 'function',
): iam.PolicyStatement[] {
  const stack = Stack.of(scope);
  return [
    new iam.PolicyStatement({
      sid: 'ManageNetworkInterfaces',
      actions: [
        'ec2:CreateNetworkInterface',
        'ec2:DeleteNetworkInterface',
        ...(use === 'function' ? ['ec2:AssignPrivateIpAddresses', 'ec2:UnassignPrivateIpAddresses'] : []),
      ],
      resources: [`arn:${stack.partition}:ec2:${stack.region}:${stack.account}:*/*`],
    }),
    new iam.PolicyStatement({
      sid: 'DescribeNetwork',
      actions: [
        'ec2:DescribeNetworkInterfaces',
        'ec2:DescribeSubnets',
        ...(use === 'trigger' ? ['ec2:DescribeVpcs', 'ec2:DescribeSecurityGroups'] : []),
      ],
      // AWS requires "*": EC2 Describe* actions have no resource-level permissions.
      resources: ['*'],
    }),
  ];
}

/**
 * `kms:Decrypt` on the key of a secret, for Secrets Manager decrypting that one secret on the role's behalf
 * (`kms:ViaService` and Secrets Manager's encryption context `SecretARN`). An MSK SCRAM secret must be
 * under a customer managed key (MSK guide, msk-password-limitations), and Lambda's guide asks for
 * `kms:Decrypt` on it (with-msk-permissions).
 *
 * The grant is in the role's own policy, whatever the key: `Secret.grantRead` grants decrypt to a
 * `ViaServicePrincipal`, which CDK can only write into a key policy, so for a key imported by ARN
 * (`kms.Key.fromKeyArn`) it grants nothing and says nothing. With the secret's `encryptionKey` the
 * resource is that key; without it (a secret imported by ARN or name) it is every key of the account and
 * Region, which the conditions narrow to this one secret. A key given as an alias (`alias/…`) is treated as
 * no key: IAM matches a key ARN, never an alias ARN, for a Decrypt request.
 *
 * The encryption context holds the secret's full ARN, which ends in `-` and six random characters
 * (https://docs.aws.amazon.com/secretsmanager/latest/userguide/security-encryption.html). A secret
 * imported by name or partial ARN has no `secretFullArn`, so its condition matches `<partial ARN>-??????`
 * (`StringLike`), as `Secret.grantRead` does for the secret itself; a full ARN is matched exactly.
 *
 * @example
 * const { statement, keyWildcard } = secretKeyStatement(role, secret);
 * role.addToPrincipalPolicy(statement);
 */
export function secretKeyStatement(
  scope: IConstruct,
  secret: secretsmanager.ISecret,
): { readonly statement: iam.PolicyStatement; readonly keyWildcard: boolean } {
  const stack = Stack.of(scope);
  const keyArn = secret.encryptionKey?.keyArn;
  const keyWildcard = keyArn === undefined || keyArn.includes(':alias/');
  const viaService = { 'kms:ViaService': `secretsmanager.${stack.region}.amazonaws.com` };
  const fullArn = secret.secretFullArn;
  const statement = new iam.PolicyStatement({
    actions: ['kms:Decrypt'],
    resources: [keyWildcard ? `arn:${stack.partition}:kms:${stack.region}:${stack.account}:key/*` : keyArn],
    conditions:
      fullArn === undefined
        ? {
            StringEquals: viaService,
            StringLike: { 'kms:EncryptionContext:SecretARN': `${secret.secretArn}-??????` },
          }
        : { StringEquals: { ...viaService, 'kms:EncryptionContext:SecretARN': fullArn } },
  });
  return { statement, keyWildcard };
}

/**
 * Lets `role` read `secrets` and decrypt them through Secrets Manager (see {@link secretKeyStatement}),
 * whether their key is the app's, imported, or unknown. Used for the trigger's role (the source's and the
 * schema registry's secrets) and the replay function's.
 *
 * @example
 * grantSecretsRead(role, [source.auth.secret]);
 */
export function grantSecretsRead(role: iam.IRole, secrets: readonly secretsmanager.ISecret[]): void {
  let wildcard = false;
  for (const secret of secrets) {
    // Its key-policy grant (a key of the app) may stay: the role's own statement below is what holds for
    // an imported key.
    secret.grantRead(role);
    const { statement, keyWildcard } = secretKeyStatement(role, secret);
    role.addToPrincipalPolicy(statement);
    wildcard ||= keyWildcard;
  }
  if (wildcard) acknowledgeSecretKeyWildcard(role);
}

/**
 * Why a consumer group cannot be granted by name (the `MskConsumerGroup` statements of
 * {@link mskTriggerStatements} and {@link mskReplayStatements}), or `undefined` when it can. IAM reads
 * `*` and `?` in a Resource ARN as wildcards
 * (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_resource.html), so the
 * group ARN of `orders-*` (a group id Lambda's pattern allows) would grant every group starting with
 * `orders-`. `prop` names the group id in the message.
 *
 * @example
 * const problem = consumerGroupGrantProblem('consumerGroupId', 'orders-*'); // explains the wildcard
 */
export function consumerGroupGrantProblem(prop: string, groupId: string): string | undefined {
  if (Token.isUnresolved(groupId)) return undefined;
  const wildcard = [...groupId].find((char) => char === '*' || char === '?');
  if (wildcard === undefined) return undefined;
  return (
    `${prop} "${groupId}" contains "${wildcard}": with MSK IAM auth the role is granted the group by its ARN, ` +
    `where IAM reads "${wildcard}" as a wildcard, so it could join and commit as every group that matches; ` +
    `choose a group id without * or ?`
  );
}

/**
 * What a Kafka trigger on an MSK cluster needs: the control-plane reads Lambda makes to find the brokers
 * (and with SASL/SCRAM the cluster's secrets), and with IAM auth the `kafka-cluster:*` data-plane actions
 * that aws-cdk-lib does not add — connect to the cluster, read the one topic, join and commit as the one
 * consumer group, and write the failure topic if failed records go to Kafka. With SCRAM or mTLS, Kafka
 * ACLs authorise the data plane, and the role needs only the secret (`grantSecretsRead`).
 *
 * @example
 * mskTriggerStatements({ clusterArn, topic: 'orders', consumerGroupId: 'orders-consumer', auth: 'iam' });
 */
export function mskTriggerStatements(options: {
  clusterArn: string;
  topic: string;
  consumerGroupId: string;
  auth: 'iam' | 'sasl-scram-512' | 'mtls';
  failureTopic?: string;
}): iam.PolicyStatement[] {
  const { clusterArn, topic, consumerGroupId, auth, failureTopic } = options;
  const iamAuth = auth === 'iam';
  const statements = [
    new iam.PolicyStatement({
      sid: 'MskClusterMetadata',
      // One of DescribeCluster and DescribeClusterV2 is enough, and only V2 works for MSK Serverless; the
      // Lambda guide recommends V2 (AWS plans to take DescribeCluster out of AWSLambdaMSKExecutionRole).
      // https://docs.aws.amazon.com/lambda/latest/dg/with-msk-permissions.html
      actions: [
        'kafka:DescribeClusterV2',
        'kafka:GetBootstrapBrokers',
        ...(auth === 'sasl-scram-512' ? ['kafka:ListScramSecrets'] : []),
      ],
      resources: [clusterArn],
    }),
  ];
  if (!iamAuth) return statements;
  statements.push(
    new iam.PolicyStatement({
      sid: 'MskConnect',
      // DescribeClusterDynamicConfiguration: listed by older Lambda docs; harmless, and safe if still checked.
      // MSK's IAM reference marks it not applicable to MSK Serverless, but a Serverless cluster's ARN looks
      // like a provisioned one's (and is a Token when the app creates it): the grant cannot tell them apart.
      actions: ['kafka-cluster:Connect', 'kafka-cluster:DescribeClusterDynamicConfiguration'],
      resources: [clusterArn],
    }),
    new iam.PolicyStatement({
      sid: 'MskReadTopic',
      actions: ['kafka-cluster:DescribeTopic', 'kafka-cluster:ReadData'],
      resources: [mskTopicArn(clusterArn, topic)],
    }),
    new iam.PolicyStatement({
      sid: 'MskConsumerGroup',
      actions: ['kafka-cluster:DescribeGroup', 'kafka-cluster:AlterGroup'],
      resources: [mskGroupArn(clusterArn, consumerGroupId)],
    }),
  );
  if (failureTopic !== undefined) {
    statements.push(
      // AWS's example policy for a Kafka on-failure topic also grants DescribeCluster on the cluster:
      // https://docs.aws.amazon.com/lambda/latest/dg/kafka-on-failure-destination.html
      new iam.PolicyStatement({
        sid: 'MskDescribeClusterForFailureTopic',
        actions: ['kafka-cluster:DescribeCluster'],
        resources: [clusterArn],
      }),
      new iam.PolicyStatement({
        sid: 'MskWriteFailureTopic',
        actions: ['kafka-cluster:DescribeTopic', 'kafka-cluster:WriteData'],
        resources: [mskTopicArn(clusterArn, failureTopic)],
      }),
    );
  }
  return statements;
}

/**
 * What the replay function needs on an MSK cluster with IAM auth: find the brokers, connect, read the
 * allowed topics' offsets (`ReadData`: Kafka authorises an offset commit with READ on the topic) and
 * describe and move the one consumer group's offsets.
 *
 * @example
 * mskReplayStatements({ clusterArn, topics: ['orders'], consumerGroupId: 'orders-consumer' });
 */
export function mskReplayStatements(options: {
  clusterArn: string;
  topics: readonly string[];
  consumerGroupId: string;
  iamAuth: boolean;
}): iam.PolicyStatement[] {
  const { clusterArn, topics, consumerGroupId, iamAuth } = options;
  const statements = [
    new iam.PolicyStatement({
      sid: 'MskBootstrapBrokers',
      actions: ['kafka:GetBootstrapBrokers'],
      resources: [clusterArn],
    }),
  ];
  if (!iamAuth) return statements;
  statements.push(
    new iam.PolicyStatement({
      sid: 'MskConnect',
      actions: ['kafka-cluster:Connect'],
      resources: [clusterArn],
    }),
    new iam.PolicyStatement({
      sid: 'MskReadTopics',
      actions: ['kafka-cluster:DescribeTopic', 'kafka-cluster:ReadData'],
      resources: topics.map((topic) => mskTopicArn(clusterArn, topic)),
    }),
    new iam.PolicyStatement({
      sid: 'MskConsumerGroup',
      actions: ['kafka-cluster:DescribeGroup', 'kafka-cluster:AlterGroup'],
      resources: [mskGroupArn(clusterArn, consumerGroupId)],
    }),
  );
  return statements;
}

/**
 * Pause, inspect and resume one event source mapping, and nothing else.
 *
 * @example
 * replayFn.addToRolePolicy(mappingControlStatement(consumer.mappingArn));
 */
export function mappingControlStatement(mappingArn: string): iam.PolicyStatement {
  return new iam.PolicyStatement({
    sid: 'ControlEventSourceMapping',
    actions: ['lambda:GetEventSourceMapping', 'lambda:UpdateEventSourceMapping'],
    resources: [mappingArn],
  });
}
