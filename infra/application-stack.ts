import { join } from 'node:path';
import { CfnOutput, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as sns from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import { KafkaLambdaCdkError } from './errors.ts';
import { type FailureDestination, KafkaConsumerFunction } from './kafka-consumer-function.ts';
import type { KafkaSource } from './kafka-source.ts';
import { acceptsOnlyEventCountMetrics } from './regions.ts';
import { KafkaReplayFunction } from './replay-function.ts';
import { KafkaVpcEndpoints } from './vpc-endpoints.ts';

/** The repository root: functions are bundled by path from here, and its lock file pins their dependencies. */
const ROOT = join(import.meta.dirname, '..');

/**
 * Props of {@link KafkaLambdaAppStack}.
 *
 * @example
 * const props: KafkaLambdaAppStackProps = { source: clusterStack.source, topic: 'orders', offsetLagThreshold: 5000 };
 */
export interface KafkaLambdaAppStackProps extends StackProps {
  /** The cluster, or a function that imports it (VPC, secrets by ARN) into this stack. */
  readonly source: KafkaSource | ((stack: Stack) => KafkaSource);
  /** @default 'orders' */
  readonly topic?: string;
  /** @default 'orders-consumer' */
  readonly consumerGroupId?: string;
  /** @default { type: 'sqs' } */
  readonly onFailure?: FailureDestination;
  /** Alarm when the trigger's OffsetLag stays above this many records for 5 minutes. @default 1000 */
  readonly offsetLagThreshold?: number;
  /** SNS topic the alarms notify. @default none (alarms only show in CloudWatch) */
  readonly alarmTopicArn?: string;
  /** The consumer's handler file. @default functions/orders/handler.ts */
  readonly consumerEntry?: string;
  /** The replay handler file. @default functions/replay/handler.ts */
  readonly replayEntry?: string;
  /** Share the consumer's provisioned pollers with other mappings of this group name. @default its own pollers */
  readonly pollerGroupName?: string;
  /** Environment of the orders consumer (e.g. `RESERVATIONS_FAILURE_RATE` to see retries and the DLQ). */
  readonly consumerEnvironment?: Record<string, string>;
  /**
   * Interface VPC endpoints in the source's network for the AWS APIs the consumer's trigger and the replay
   * function call there, for a VPC without a NAT gateway. @default false
   */
  readonly vpcEndpoints?: boolean;
}

/**
 * The application: the example orders consumer with its Kafka trigger and dead-letter queue, the replay
 * function for its consumer group, alarms on offset lag and dead-letter depth, and the outputs
 * `kafka-lambda replay --function` needs.
 *
 * @example
 * new KafkaLambdaAppStack(app, 'KafkaLambdaApp', { source: clusterStack.source });
 */
export class KafkaLambdaAppStack extends Stack {
  readonly consumer: KafkaConsumerFunction;
  readonly replay: KafkaReplayFunction;
  /** The interface endpoints, with `vpcEndpoints`. */
  readonly vpcEndpoints: KafkaVpcEndpoints | undefined;

  constructor(scope: Construct, id: string, props: KafkaLambdaAppStackProps) {
    super(scope, id, props);
    const source = typeof props.source === 'function' ? props.source(this) : props.source;
    const bundlingRoot = { projectRoot: ROOT, depsLockFilePath: join(ROOT, 'package-lock.json') };
    this.consumer = new KafkaConsumerFunction(this, 'Orders', {
      entry: props.consumerEntry ?? join(ROOT, 'functions/orders/handler.ts'),
      source,
      topic: props.topic ?? 'orders',
      consumerGroupId: props.consumerGroupId ?? 'orders-consumer',
      onFailure: props.onFailure,
      provisionedPollers: { minimumPollers: 1, maximumPollers: 3, pollerGroupName: props.pollerGroupName },
      functionProps: { ...bundlingRoot, environment: props.consumerEnvironment },
    });
    this.replay = new KafkaReplayFunction(this, 'Replay', {
      entry: props.replayEntry ?? join(ROOT, 'functions/replay/handler.ts'),
      source,
      target: this.consumer,
      functionProps: bundlingRoot,
    });
    if (props.vpcEndpoints) {
      if (source.network === undefined)
        throw new KafkaLambdaCdkError(
          'vpcEndpoints needs a source with a network (VPC, subnets, security groups)',
        );
      this.vpcEndpoints = new KafkaVpcEndpoints(this, 'VpcEndpoints', {
        network: source.network,
        services: [...this.consumer.vpcEndpointServices, ...this.replay.vpcEndpointServices],
      });
    }

    const alarmAction =
      props.alarmTopicArn === undefined
        ? undefined
        : new actions.SnsAction(sns.Topic.fromTopicArn(this, 'AlarmTopic', props.alarmTopicArn));
    const alarms = [
      this.consumer.metricOffsetLag().createAlarm(this, 'OffsetLagAlarm', {
        alarmDescription: `The orders consumer is more than ${props.offsetLagThreshold ?? 1000} records behind its topic.`,
        threshold: props.offsetLagThreshold ?? 1000,
        evaluationPeriods: 5,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        // No data: no records flowing and no lag reported; not an outage by itself.
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
    ];
    // A failed delivery to the dead-letter destination is a record given up on and not parked: silent
    // data loss unless it is replayed from Kafka. Where the mapping can only report EventCount (see
    // regions.ts), the metric never has data and an alarm on it would never fire: none is made, and the
    // consumer construct's synth warning says so.
    if (!acceptsOnlyEventCountMetrics(this.region)) {
      alarms.push(
        this.consumer.metricOnFailureDeliveryErrors().createAlarm(this, 'DeadLetterDeliveryAlarm', {
          alarmDescription:
            'The trigger could not deliver failed records to its on-failure destination: replay them from Kafka.',
          threshold: 0,
          evaluationPeriods: 1,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
          treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        }),
      );
    }
    if (this.consumer.failureQueue) {
      alarms.push(
        this.consumer.failureQueue
          .metricApproximateNumberOfMessagesVisible({
            period: Duration.minutes(1),
            statistic: cloudwatch.Stats.MAXIMUM,
          })
          .createAlarm(this, 'DeadLetterAlarm', {
            alarmDescription:
              'Records failed for good: their offsets are in the dead-letter queue, ready to replay.',
            threshold: 0,
            evaluationPeriods: 1,
            comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
            treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
          }),
      );
    }
    if (alarmAction) for (const alarm of alarms) alarm.addAlarmAction(alarmAction);

    new CfnOutput(this, 'ConsumerFunctionName', { value: this.consumer.function.functionName });
    new CfnOutput(this, 'ConsumerLogGroupName', { value: this.consumer.function.logGroup.logGroupName });
    new CfnOutput(this, 'MappingUuid', { value: this.consumer.mappingUuid });
    new CfnOutput(this, 'ConsumerGroupId', { value: this.consumer.consumerGroupId });
    new CfnOutput(this, 'Topic', { value: this.consumer.topic });
    new CfnOutput(this, 'ReplayFunctionName', { value: this.replay.function.functionName });
    if (this.consumer.failureQueue) {
      new CfnOutput(this, 'DeadLetterQueueUrl', { value: this.consumer.failureQueue.queueUrl });
    }
  }
}
