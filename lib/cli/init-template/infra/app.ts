import { App, CfnOutput, Stack } from 'aws-cdk-lib';
import {
  importKafkaNetwork,
  KafkaConsumerFunction,
  KafkaReplayFunction,
  type KafkaSource,
} from 'kafka-lambda/cdk';

const app = new App();
const stack = new Stack(app, 'OrdersConsumer');

/** A value of cdk.json's `context` (or `-c key=value`): the cluster and network this app deploys next to. */
function setting(key: string): string {
  const value: unknown = app.node.tryGetContext(key);
  if (typeof value !== 'string' || value === '')
    throw new Error(`set "${key}" in cdk.json's context or with -c ${key}=…`);
  return value;
}

const source: KafkaSource = {
  kind: 'msk',
  clusterArn: setting('clusterArn'),
  auth: { type: 'iam' },
  network: importKafkaNetwork(stack, {
    vpcId: setting('vpcId'),
    subnetIds: setting('subnetIds').split(','),
    securityGroupIds: setting('securityGroupIds').split(','),
  }),
};

const consumer = new KafkaConsumerFunction(stack, 'Orders', {
  entry: 'src/handler.ts',
  source,
  topic: setting('topic'),
  consumerGroupId: setting('consumerGroupId'),
});
// The replay function ships in kafka-lambda, already bundled: no entry to point at.
const replay = new KafkaReplayFunction(stack, 'OrdersReplay', { source, target: consumer });
consumer.metricOffsetLag().createAlarm(stack, 'OffsetLagAlarm', { threshold: 1000, evaluationPeriods: 5 });

new CfnOutput(stack, 'MappingUuid', { value: consumer.mappingUuid });
new CfnOutput(stack, 'ReplayFunctionName', { value: replay.function.functionName });
