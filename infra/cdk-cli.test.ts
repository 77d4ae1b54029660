import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');

// One real `npx cdk synth` (the CLI, cdk.json, infra/app.ts, bundling, cdk-nag), as a user runs it from a
// fresh clone: no AWS credentials, profile or region in the environment. Slow, so it runs once.
describe('npx cdk synth', () => {
  const out = mkdtempSync(join(tmpdir(), 'kafka-lambda-cdk-out-'));
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('synthesizes every stack without AWS credentials or lookups', () => {
    const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('AWS_')));
    const result = spawnSync('npx', ['cdk', 'synth', '--output', out, '--ci'], {
      cwd: ROOT,
      env: {
        ...env,
        CDK_DISABLE_VERSION_CHECK: '1',
        // Not even the shared files in the home directory: synth must work for a machine that never had AWS.
        AWS_CONFIG_FILE: join(out, 'no-config'),
        AWS_SHARED_CREDENTIALS_FILE: join(out, 'no-credentials'),
      },
      encoding: 'utf8',
      timeout: 240_000,
    });
    const output = `${result.stdout}\n${result.stderr}`;
    expect(result.status, output).toBe(0);
    expect(output).toContain('Successfully synthesized');
    expect(output).toMatch(/KafkaLambdaCluster, KafkaLambdaApp|KafkaLambdaApp, KafkaLambdaCluster/);

    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
    expect(JSON.stringify(manifest.missing ?? [])).toBe('[]'); // no context lookups were needed
    const cluster = JSON.parse(readFileSync(join(out, 'KafkaLambdaCluster.template.json'), 'utf8'));
    const app = JSON.parse(readFileSync(join(out, 'KafkaLambdaApp.template.json'), 'utf8'));
    const types = (template: { Resources: Record<string, { Type: string }> }) =>
      Object.values(template.Resources).map((resource) => resource.Type);
    expect(types(cluster)).toContain('AWS::MSK::ServerlessCluster');
    expect(types(app)).toEqual(
      expect.arrayContaining(['AWS::Lambda::EventSourceMapping', 'AWS::Lambda::Function']),
    );
    expect(Object.keys(app.Outputs)).toEqual(expect.arrayContaining(['ReplayFunctionName', 'MappingUuid']));
  }, 240_000);
});
