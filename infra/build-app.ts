import { type App, Validations } from 'aws-cdk-lib';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { Construct } from 'constructs';
import type { AppConfig } from './app-config.ts';
import { KafkaLambdaAppStack } from './application-stack.ts';
import { KafkaClusterStack } from './cluster-stack.ts';
import { importKafkaNetwork, type KafkaSource } from './kafka-source.ts';
import { assertKafkaDestinationRegion, assertPollerGroupRegion, UnsupportedRegionError } from './regions.ts';

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

/**
 * A secret imported by its complete ARN, with the KMS key it is under when the app is told it
 * (`-c secretKmsKeyArn=…`): the roles' `kms:Decrypt` then names that key instead of any key of the account
 * and Region (infra/iam.ts, secretKeyStatement).
 */
function secret(scope: Construct, id: string, arn: string, kmsKeyArn?: string): secretsmanager.ISecret {
  if (kmsKeyArn === undefined) return secretsmanager.Secret.fromSecretCompleteArn(scope, id, arn);
  return secretsmanager.Secret.fromSecretAttributes(scope, id, {
    secretCompleteArn: arn,
    encryptionKey: kms.Key.fromKeyArn(scope, `${id}Key`, kmsKeyArn),
  });
}

/**
 * Runs a construct's Region check on the app's configuration, so that its refusal (in the construct's
 * props) also says what to change in this app's context.
 */
function checkRegion(check: () => void, inThisApp: string): void {
  try {
    check();
  } catch (error) {
    if (!(error instanceof UnsupportedRegionError)) throw error;
    throw new UnsupportedRegionError(error.region, `${error.message}. In this app, ${inThisApp}`, {
      cause: error,
    });
  }
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
  const { cluster, region } = config;
  if (region !== undefined && config.failureTopic !== undefined)
    checkRegion(
      () => assertKafkaDestinationRegion(region),
      'leave out -c failureTopic: failed records then go to an SQS queue',
    );
  if (region !== undefined && config.pollerGroupName !== undefined)
    checkRegion(() => assertPollerGroupRegion(region), 'leave out -c pollerGroupName');
  const env = region === undefined ? undefined : { region };
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
    case 'existing': {
      // SCRAM or mutual TLS (Lambda's CLIENT_CERTIFICATE_TLS_AUTH): the secret's ARN is the trigger's
      // source access configuration, https://docs.aws.amazon.com/lambda/latest/dg/msk-cluster-auth.html
      const { auth, secretArn } = cluster;
      sourceFor = (scope) => ({
        kind: 'msk',
        clusterArn: cluster.clusterArn,
        auth:
          auth === 'iam' || secretArn === undefined
            ? { type: 'iam' }
            : { type: auth, secret: secret(scope, 'KafkaSecret', secretArn, cluster.secretKmsKeyArn) },
        network: importKafkaNetwork(scope, cluster.network),
      });
      break;
    }
    case 'self-managed':
      sourceFor = (scope) => ({
        kind: 'self-managed',
        bootstrapServers: cluster.bootstrapServers,
        auth:
          cluster.auth === 'tls' || cluster.auth === 'none' || cluster.secretArn === undefined
            ? { type: cluster.auth === 'tls' ? 'tls' : 'none' }
            : {
                type: cluster.auth,
                secret: secret(scope, 'KafkaSecret', cluster.secretArn, cluster.secretKmsKeyArn),
              },
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
    vpcEndpoints: config.vpcEndpoints,
    consumerEnvironment:
      config.failureRate === undefined
        ? undefined
        : { RESERVATIONS_FAILURE_RATE: String(config.failureRate) },
  });
  return { cluster: clusterStack, application };
}
