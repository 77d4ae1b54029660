import { CfnOutput, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as msk from 'aws-cdk-lib/aws-msk';
import type { Construct } from 'constructs';
import type { MskSource } from './kafka-source.ts';
import { assertMskServerlessRegion } from './regions.ts';

/** The private IAM-auth listener of MSK (Serverless and provisioned). */
const IAM_PORT = ec2.Port.tcp(9098);

/**
 * Props of {@link KafkaClusterStack}.
 *
 * @example
 * const props: KafkaClusterStackProps = { variant: 'provisioned', brokerInstanceType: 'kafka.m7g.large' };
 */
export interface KafkaClusterStackProps extends StackProps {
  /** `serverless`: MSK Serverless (IAM auth only). `provisioned`: an MSK cluster with IAM auth and TLS. */
  readonly variant: 'serverless' | 'provisioned';
  /** @default the stack name */
  readonly clusterName?: string;
  /** NAT gateways for the private subnets (Lambda's pollers and the replay function reach AWS APIs). @default 1 */
  readonly natGateways?: number;
  /**
   * An SQS interface endpoint in the cluster VPC. Lambda's Kafka pollers deliver on-failure records to
   * SQS from the cluster VPC and the Lambda guide requires an endpoint of the destination service there.
   * Turn off when failed records go to a Kafka topic. @default true
   */
  readonly sqsEndpoint?: boolean;
  /** Provisioned only. @default '3.9.x' */
  readonly kafkaVersion?: string;
  /** Provisioned only. @default 'kafka.t3.small' */
  readonly brokerInstanceType?: string;
}

/**
 * A VPC (two AZs, private subnets behind NAT) and an MSK cluster with IAM authentication in it, plus a
 * client security group the cluster admits. `source` describes it for {@link KafkaConsumerFunction} and
 * {@link KafkaReplayFunction}.
 *
 * @example
 * const cluster = new KafkaClusterStack(app, 'KafkaLambdaCluster', { variant: 'serverless' });
 * new KafkaLambdaAppStack(app, 'KafkaLambdaApp', { source: cluster.source, ... });
 */
export class KafkaClusterStack extends Stack {
  readonly vpc: ec2.Vpc;
  readonly clientSecurityGroup: ec2.SecurityGroup;
  readonly clusterArn: string;
  readonly source: MskSource;

  constructor(scope: Construct, id: string, props: KafkaClusterStackProps) {
    super(scope, id, props);
    if (props.variant === 'serverless') assertMskServerlessRegion(this.region);
    const clusterName = props.clusterName ?? this.stackName;
    this.vpc = new ec2.Vpc(this, 'Vpc', {
      maxAzs: 2,
      natGateways: props.natGateways ?? 1,
      subnetConfiguration: [
        { name: 'public', subnetType: ec2.SubnetType.PUBLIC, cidrMask: 24 },
        { name: 'private', subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS, cidrMask: 22 },
      ],
    });
    this.vpc.addFlowLog('FlowLogs', {
      destination: ec2.FlowLogDestination.toCloudWatchLogs(
        new logs.LogGroup(this, 'FlowLogsGroup', {
          retention: logs.RetentionDays.ONE_WEEK,
          removalPolicy: RemovalPolicy.DESTROY,
        }),
      ),
    });

    const brokerSecurityGroup = new ec2.SecurityGroup(this, 'BrokerSecurityGroup', {
      vpc: this.vpc,
      description: 'MSK brokers; also used by the ENIs of Lambda Kafka pollers',
    });
    // The trigger's pollers sit in the cluster's own security group, so the group must admit itself.
    brokerSecurityGroup.addIngressRule(brokerSecurityGroup, IAM_PORT, 'Lambda Kafka pollers (IAM auth)');
    this.clientSecurityGroup = new ec2.SecurityGroup(this, 'ClientSecurityGroup', {
      vpc: this.vpc,
      description: 'Kafka clients (replay function, tools)',
    });
    brokerSecurityGroup.addIngressRule(this.clientSecurityGroup, IAM_PORT, 'Kafka clients (IAM auth)');
    if (props.sqsEndpoint ?? true) {
      const endpointSecurityGroup = new ec2.SecurityGroup(this, 'SqsEndpointSecurityGroup', {
        vpc: this.vpc,
        description: 'SQS endpoint for on-failure records of Lambda Kafka pollers',
      });
      // The pollers' ENIs carry the broker security group.
      endpointSecurityGroup.addIngressRule(brokerSecurityGroup, ec2.Port.tcp(443), 'Lambda Kafka pollers');
      this.vpc.addInterfaceEndpoint('SqsEndpoint', {
        service: ec2.InterfaceVpcEndpointAwsService.SQS,
        subnets: { subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS },
        securityGroups: [endpointSecurityGroup],
        open: false,
      });
    }

    const subnetIds = this.vpc.selectSubnets({ subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS }).subnetIds;
    const iamOnly = { sasl: { iam: { enabled: true } } };
    if (props.variant === 'serverless') {
      const cluster = new msk.CfnServerlessCluster(this, 'Cluster', {
        clusterName,
        clientAuthentication: iamOnly,
        vpcConfigs: [{ subnetIds, securityGroups: [brokerSecurityGroup.securityGroupId] }],
      });
      this.clusterArn = cluster.attrArn;
    } else {
      const brokerLogs = new logs.LogGroup(this, 'BrokerLogs', {
        retention: logs.RetentionDays.ONE_MONTH,
        removalPolicy: RemovalPolicy.DESTROY,
      });
      const cluster = new msk.CfnCluster(this, 'Cluster', {
        clusterName,
        kafkaVersion: props.kafkaVersion ?? '3.9.x',
        numberOfBrokerNodes: subnetIds.length,
        brokerNodeGroupInfo: {
          instanceType: props.brokerInstanceType ?? 'kafka.t3.small',
          clientSubnets: subnetIds,
          securityGroups: [brokerSecurityGroup.securityGroupId],
          storageInfo: { ebsStorageInfo: { volumeSize: 100 } },
        },
        clientAuthentication: { ...iamOnly, unauthenticated: { enabled: false } },
        encryptionInfo: { encryptionInTransit: { clientBroker: 'TLS', inCluster: true } },
        loggingInfo: { brokerLogs: { cloudWatchLogs: { enabled: true, logGroup: brokerLogs.logGroupName } } },
      });
      this.clusterArn = cluster.attrArn;
    }

    this.source = {
      kind: 'msk',
      clusterArn: this.clusterArn,
      auth: { type: 'iam' },
      network: {
        vpc: this.vpc,
        subnets: { subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS },
        securityGroups: [this.clientSecurityGroup],
      },
    };
    // What CloudShell's "Create VPC environment" asks for (the README's deploy steps): VPC, subnet, group.
    new CfnOutput(this, 'ClusterArn', { value: this.clusterArn });
    new CfnOutput(this, 'VpcId', { value: this.vpc.vpcId });
    new CfnOutput(this, 'ClientSecurityGroupId', { value: this.clientSecurityGroup.securityGroupId });
    new CfnOutput(this, 'PrivateSubnetIds', { value: subnetIds.join(',') });
  }
}
