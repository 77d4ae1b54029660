import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { Construct } from 'constructs';
import { KafkaLambdaCdkError } from './errors.ts';
import type { KafkaNetwork } from './kafka-source.ts';

/**
 * An AWS API that a Kafka trigger or the replay function calls from inside a VPC, by its endpoint
 * service name (`com.amazonaws.<region>.<name>`).
 *
 * @example
 * const services: KafkaVpcEndpointService[] = ['lambda', 'secretsmanager'];
 */
export type KafkaVpcEndpointService = 'lambda' | 'sts' | 'secretsmanager' | 'kafka' | 'sqs' | 'sns';

const SERVICES: Record<KafkaVpcEndpointService, ec2.InterfaceVpcEndpointAwsService> = {
  lambda: ec2.InterfaceVpcEndpointAwsService.LAMBDA,
  sts: ec2.InterfaceVpcEndpointAwsService.STS,
  secretsmanager: ec2.InterfaceVpcEndpointAwsService.SECRETS_MANAGER,
  kafka: ec2.InterfaceVpcEndpointAwsService.KAFKA,
  sqs: ec2.InterfaceVpcEndpointAwsService.SQS,
  sns: ec2.InterfaceVpcEndpointAwsService.SNS,
};

/**
 * Props of {@link KafkaVpcEndpoints}.
 *
 * @example
 * const props: KafkaVpcEndpointsProps = {
 *   network,
 *   services: [...consumer.vpcEndpointServices, ...replay.vpcEndpointServices],
 * };
 */
export interface KafkaVpcEndpointsProps {
  /** The VPC and subnets to put the endpoints in; its security groups are the ones admitted on port 443. */
  readonly network: KafkaNetwork;
  /** The APIs to reach; repeats are made once. */
  readonly services: readonly KafkaVpcEndpointService[];
}

/**
 * Interface VPC endpoints (AWS PrivateLink, private DNS on) for the AWS APIs that functions in a VPC without
 * a NAT gateway call: the replay function's `lambda` (pause and resume the trigger), `secretsmanager` or
 * `kafka`, and the trigger's on-failure `sqs` or `sns`, plus `lambda` and `sts` for a trigger in on-demand
 * mode. Each construct lists what it needs in `vpcEndpointServices`. Endpoints with private DNS are one per
 * service and VPC: add only those the VPC lacks.
 * https://docs.aws.amazon.com/lambda/latest/dg/with-msk-cluster-network.html
 *
 * @example
 * new KafkaVpcEndpoints(stack, 'Endpoints', {
 *   network,
 *   services: [...consumer.vpcEndpointServices, ...replay.vpcEndpointServices],
 * });
 */
export class KafkaVpcEndpoints extends Construct {
  /** The endpoints made, by service. */
  readonly endpoints: ReadonlyMap<KafkaVpcEndpointService, ec2.InterfaceVpcEndpoint>;
  /** The endpoints' own security group: HTTPS from the network's security groups, nothing else. */
  readonly securityGroup: ec2.SecurityGroup;

  /**
   * @param scope - The construct (usually a stack) to add the endpoints to.
   * @param id - The construct's id.
   * @param props - The network and the services.
   * @throws KafkaLambdaCdkError when `services` is empty or names a service this construct does not know.
   */
  constructor(scope: Construct, id: string, props: KafkaVpcEndpointsProps) {
    super(scope, id);
    const services = [...new Set(props.services)];
    if (services.length === 0) throw new KafkaLambdaCdkError('KafkaVpcEndpoints needs at least one service');
    for (const service of services) {
      if (!Object.hasOwn(SERVICES, service)) {
        throw new KafkaLambdaCdkError(
          `KafkaVpcEndpoints: unknown service "${String(service)}" (one of ${Object.keys(SERVICES).join(', ')})`,
        );
      }
    }
    this.securityGroup = new ec2.SecurityGroup(this, 'SecurityGroup', {
      vpc: props.network.vpc,
      description: 'Interface endpoints of the AWS APIs the Kafka functions call',
      allowAllOutbound: false,
    });
    for (const group of props.network.securityGroups) {
      this.securityGroup.addIngressRule(group, ec2.Port.tcp(443), 'AWS API calls of the Kafka functions');
    }
    const endpoints = new Map<KafkaVpcEndpointService, ec2.InterfaceVpcEndpoint>();
    for (const service of services.sort()) {
      endpoints.set(
        service,
        new ec2.InterfaceVpcEndpoint(this, service, {
          vpc: props.network.vpc,
          service: SERVICES[service],
          subnets: props.network.subnets,
          securityGroups: [this.securityGroup],
          privateDnsEnabled: true,
          open: false,
        }),
      );
    }
    this.endpoints = endpoints;
  }
}
