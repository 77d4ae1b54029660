// The CDK app (`npx cdk synth|deploy`, see cdk.json). Configuration comes from context: `-c cluster=…` etc.,
// documented in infra/app-config.ts and the README's Deploy section.
import { App } from 'aws-cdk-lib';
import { appConfigFromContext } from './app-config.ts';
import { buildApp } from './build-app.ts';

const app = new App();
buildApp(
  app,
  appConfigFromContext((key) => app.node.tryGetContext(key)),
);
app.synth();
