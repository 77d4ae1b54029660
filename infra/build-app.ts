import { type App, Validations } from 'aws-cdk-lib';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { Construct } from 'constructs';
import type { AppConfig } from './app-config.ts';
import { KafkaLambdaAppStack } from './application-stack.ts';
import { KafkaClusterStack } from './cluster-stack.ts';
import { importKafkaNetwork, type KafkaSource } from './kafka-source.ts';

/**
 * The stacks {@link buildApp} created: the cluster stack only when the app creates the cluster.
 *
 * @example
 * const { cluster, application } = buildApp(app, config);
 */
export interface BuiltApp {
  readonly cluster: KafkaClusterStack | undefined;
  readonly application: KafkaLambdaAppStack;
}

function secret(scope: Construct, id: string, arn: string): secretsmanager.ISecret {
  return secretsmanager.Secret.fromSecretCompleteArn(scope, id, arn);
}

/**
 * Builds the app's stacks from a configuration and checks every stack with cdk-nag's AwsSolutions rules.
 * Env-agnostic stacks: synth needs no account, region or credentials.
 *
 * @example
 * const app = new App();
 * buildApp(app, appConfigFromContext((key) => app.node.tryGetContext(key)));
 */
export function buildApp(app: App, config: AppConfig): BuiltApp {
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  const { cluster } = config;
  const env = config.region === undefined ? undefined : { region: config.region };
  let clusterStack: KafkaClusterStack | undefined;
  let sourceFor: (scope: Construct) => KafkaSource;
  switch (cluster.kind) {
    case 'serverless':
    case 'provisioned': {
      const stack = new KafkaClusterStack(app, `${config.prefix}Cluster`, {
        env,
        description: `kafka-lambda: VPC and MSK ${cluster.kind === 'serverless' ? 'Serverless' : 'provisioned'} cluster`,
        variant: cluster.kind,
        natGateways: cluster.natGateways,
        sqsEndpoint: config.failureTopic === undefined,
        ...(cluster.kind === 'provisioned' && {
          kafkaVersion: cluster.kafkaVersion,
          brokerInstanceType: cluster.brokerInstanceType,
        }),
      });
      clusterStack = stack;
      sourceFor = () => stack.source;
      break;
    }
    case 'existing':
      sourceFor = (scope) => ({
        kind: 'msk',
        clusterArn: cluster.clusterArn,
        auth:
          cluster.auth === 'iam' || cluster.secretArn === undefined
            ? { type: 'iam' }
            : { type: 'sasl-scram-512', secret: secret(scope, 'KafkaSecret', cluster.secretArn) },
        network: importKafkaNetwork(scope, cluster.network),
      });
      break;
    case 'self-managed':
      sourceFor = (scope) => ({
        kind: 'self-managed',
        bootstrapServers: cluster.bootstrapServers,
        auth:
          cluster.auth === 'tls' || cluster.auth === 'none' || cluster.secretArn === undefined
            ? { type: cluster.auth === 'tls' ? 'tls' : 'none' }
            : { type: cluster.auth, secret: secret(scope, 'KafkaSecret', cluster.secretArn) },
        rootCaCertificate:
          cluster.rootCaSecretArn === undefined
            ? undefined
            : secret(scope, 'KafkaRootCa', cluster.rootCaSecretArn),
        network: cluster.network && importKafkaNetwork(scope, cluster.network),
      });
      break;
  }
  const application = new KafkaLambdaAppStack(app, `${config.prefix}App`, {
    env,
    description: 'kafka-lambda: orders consumer, replay function, dead-letter queue, alarms',
    source: sourceFor,
    topic: config.topic,
    consumerGroupId: config.consumerGroupId,
    onFailure:
      config.failureTopic === undefined ? { type: 'sqs' } : { type: 'kafka', topic: config.failureTopic },
    offsetLagThreshold: config.offsetLagThreshold,
    alarmTopicArn: config.alarmTopicArn,
    pollerGroupName: config.pollerGroupName,
    consumerEnvironment:
      config.failureRate === undefined
        ? undefined
        : { RESERVATIONS_FAILURE_RATE: String(config.failureRate) },
  });
  return { cluster: clusterStack, application };
}
