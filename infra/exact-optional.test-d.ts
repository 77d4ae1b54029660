// Compiled with `exactOptionalPropertyTypes: true` by infra/tsconfig.exact-optional.json (which
// exact-optional.test.ts runs), and with the project's settings by `npm run check`. A project with that
// setting may pass an explicit `undefined`: every prop the constructs take `undefined` for says
// `| undefined`, or such a call fails to compile (TS2375, TS2379) though it would synthesize. The README's
// on-demand switch, `mappingProps: { provisionedPollerConfig: undefined }`, is one.
import { type App, Duration, Stack } from 'aws-cdk-lib';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import {
  type FailureDestination,
  KafkaConsumerFunction,
  type KafkaNetwork,
  KafkaReplayFunction,
  type KafkaSource,
  type SchemaRegistry,
} from './index.ts';

declare const app: App;
declare const network: KafkaNetwork;
declare const secret: secretsmanager.ISecret;
declare const maybeSecret: secretsmanager.ISecret | undefined;
declare const maybeNetwork: KafkaNetwork | undefined;
declare const maybeQueue: sqs.IQueue | undefined;
declare const maybeNumber: number | undefined;
declare const maybeString: string | undefined;
declare const maybeBoolean: boolean | undefined;
declare const maybeDuration: Duration | undefined;
declare const maybeTopics: string[] | undefined;
declare const maybeFailure: FailureDestination | undefined;
declare const maybeRegistry: SchemaRegistry | undefined;
declare const maybeVpc: ec2.IVpc | undefined;

/** Never called: what a project under exactOptionalPropertyTypes writes, checked by the compiler only. */
export function constructsTakeUndefined(): void {
  const stack = new Stack(app, 'S');
  const base = { entry: 'src/handler.ts', topic: 'orders', consumerGroupId: 'orders-consumer' } as const;
  const msk: KafkaSource = {
    kind: 'msk',
    clusterArn: 'arn:aws:kafka:eu-west-1:111122223333:cluster/shop/0f3c-uuid-1',
    auth: { type: 'iam' },
    network: maybeNetwork,
  };
  const selfManaged: KafkaSource = {
    kind: 'self-managed',
    bootstrapServers: ['b-1.example.com:9096'],
    auth: { type: 'basic', secret },
    rootCaCertificate: maybeSecret,
    network: undefined,
  };

  // The README's on-demand mapping: provisioned pollers off, and the settings AWS offers only with them.
  new KafkaConsumerFunction(stack, 'OnDemand', {
    ...base,
    source: msk,
    onFailure: { type: 'sqs', queue: maybeQueue },
    mappingProps: {
      provisionedPollerConfig: undefined,
      reportBatchItemFailures: undefined,
      retryAttempts: undefined,
      maxRecordAge: undefined,
      bisectBatchOnError: undefined,
      metricsConfig: undefined,
      logLevel: undefined,
      maxBatchingWindow: maybeDuration,
    },
  });

  // Every optional prop, as a value that may be undefined.
  const consumer = new KafkaConsumerFunction(stack, 'Maybe', {
    ...base,
    source: selfManaged,
    handler: maybeString,
    startingPosition: Math.random() > 0.5 ? lambda.StartingPosition.LATEST : undefined,
    startingPositionTimestamp: maybeNumber,
    batchSize: maybeNumber,
    maxBatchingWindow: maybeDuration,
    retryAttempts: maybeNumber,
    maxRecordAge: Math.random() > 0.5 ? Duration.days(2) : undefined,
    bisectBatchOnError: maybeBoolean,
    reportBatchItemFailures: maybeBoolean,
    provisionedPollers: { minimumPollers: maybeNumber, maximumPollers: 3, pollerGroupName: maybeString },
    onFailure: maybeFailure,
    enabled: maybeBoolean,
    filterCriteria: undefined,
    schemaRegistry: maybeRegistry,
    functionProps: undefined,
  });
  new KafkaConsumerFunction(stack, 'Registry', {
    ...base,
    source: msk,
    schemaRegistry: {
      kind: 'confluent',
      url: 'https://registry.example.com',
      auth: undefined,
      rootCaCertificate: maybeSecret,
      eventRecordFormat: 'JSON',
      validate: undefined,
    },
    provisionedPollers: undefined,
    mappingProps: undefined,
  });

  new KafkaReplayFunction(stack, 'Replay', {
    source: { ...msk, network: maybeVpc === undefined ? network : undefined },
    target: consumer,
    entry: maybeString,
    handler: undefined,
    allowedTopics: maybeTopics,
    functionProps: undefined,
  });

  new KafkaConsumerFunction(stack, 'Pollers', {
    ...base,
    source: msk,
    // @ts-expect-error mappingProps takes provisionedPollerConfig only as undefined: pollers are provisionedPollers
    mappingProps: { provisionedPollerConfig: { minimumPollers: 1, maximumPollers: 2 } },
  });
}
