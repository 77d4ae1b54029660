import { Token } from 'aws-cdk-lib';
import { KafkaLambdaCdkError } from './errors.ts';

/**
 * The Regions where MSK Serverless (`AWS::MSK::ServerlessCluster`) exists, as the MSK Developer Guide
 * lists them (https://docs.aws.amazon.com/msk/latest/developerguide/serverless.html). Elsewhere (for
 * example us-west-1, me-south-1, the China and GovCloud Regions) CloudFormation has no such resource type.
 *
 * @example
 * MSK_SERVERLESS_REGIONS.includes('eu-west-1'); // true
 */
export const MSK_SERVERLESS_REGIONS: readonly string[] = [
  'us-east-1',
  'us-east-2',
  'us-west-2',
  'ca-central-1',
  'ap-south-1',
  'ap-southeast-1',
  'ap-southeast-2',
  'ap-northeast-1',
  'ap-northeast-2',
  'eu-central-1',
  'eu-north-1',
  'eu-west-1',
  'eu-west-2',
  'eu-west-3',
];

/**
 * The stack's Region cannot host what the app was asked to create. The message names the alternative.
 *
 * @example
 * try { buildApp(app, config); } catch (e) { if (e instanceof UnsupportedRegionError) console.error(e.message); }
 */
export class UnsupportedRegionError extends KafkaLambdaCdkError {
  override readonly name = 'UnsupportedRegionError';
  readonly region: string;
  constructor(region: string, message: string) {
    super(message);
    this.region = region;
  }
}

/**
 * Refuses an MSK Serverless cluster in a Region known at synth time where the service does not exist;
 * an environment-agnostic stack (Region a token) is not checked.
 *
 * @example
 * assertMskServerlessRegion(Stack.of(this).region);
 * @throws UnsupportedRegionError naming `-c cluster=provisioned` as the alternative.
 */
export function assertMskServerlessRegion(region: string): void {
  if (Token.isUnresolved(region) || MSK_SERVERLESS_REGIONS.includes(region)) return;
  throw new UnsupportedRegionError(
    region,
    `MSK Serverless is not available in ${region} (it is in ${MSK_SERVERLESS_REGIONS.join(', ')}): ` +
      'deploy an MSK provisioned cluster with -c cluster=provisioned, or use your own cluster with -c cluster=existing',
  );
}
