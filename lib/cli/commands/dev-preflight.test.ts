// dev --invoke checks the function it would call before it reads anything: the --endpoint accepts a
// connection, or (without --endpoint) the AWS SDK finds credentials. Neither check invokes the function.
// --brokers names a port nothing listens on: a check that passed ends on the cluster's error (exit 1), one
// that failed comes first (exit 2). No broker is needed.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../test/support/run-cli.ts';
import { freePort, packageRoot, processOutput } from '../../maven-server/index.ts';

const cli = join(packageRoot, 'bin/kafka-lambda.js');

let noBroker: string;
let closedPort: number;
beforeAll(async () => {
  noBroker = `127.0.0.1:${await freePort()}`;
  closedPort = await freePort();
});

describe('kafka-lambda dev --invoke --endpoint', () => {
  it('refuses an endpoint where nothing accepts connections, naming --endpoint, before the cluster', async () => {
    const run = await runCli([
      'dev',
      '--invoke',
      'orders-fn',
      '--endpoint',
      `http://user:secret@127.0.0.1:${closedPort}/?token=t`,
      '--topic',
      'orders',
      '--brokers',
      noBroker,
      '--exit-when-idle',
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      `kafka-lambda dev: --endpoint http://127.0.0.1:${closedPort}: nothing accepts connections at 127.0.0.1:${closedPort} (ECONNREFUSED): start the Invoke API there first (e.g. sam local start-lambda), or correct --endpoint\n`,
    );
  });

  it.each([['127.0.0.1:3001'], ['ftp://127.0.0.1:3001'], ['not a url']])(
    'refuses %j: not an http(s) URL',
    async (endpoint) => {
      const run = await runCli([
        'dev',
        '--invoke',
        'orders-fn',
        '--endpoint',
        endpoint,
        '--topic',
        'orders',
        '--brokers',
        noBroker,
      ]);
      expect(run.code).toBe(2);
      expect(run.stderr).toBe(
        "kafka-lambda dev: --endpoint: not an http(s) URL; give the Invoke API's, e.g. http://127.0.0.1:3001 (sam local start-lambda)\n",
      );
    },
  );
});

describe('kafka-lambda dev --invoke without --endpoint', () => {
  let home: string;
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'kafka-lambda-dev-aws-'));
  });
  afterAll(() => rm(home, { recursive: true, force: true }));

  /** The CLI with no AWS configuration but `aws`: an empty home, no AWS_* variable, no instance metadata. */
  const runWithAws = (aws: Record<string, string>) => {
    const env: NodeJS.ProcessEnv = {};
    for (const [name, value] of Object.entries(process.env)) if (!name.startsWith('AWS_')) env[name] = value;
    Object.assign(env, {
      HOME: home,
      AWS_CONFIG_FILE: join(home, 'no-config'),
      AWS_SHARED_CREDENTIALS_FILE: join(home, 'no-credentials'),
      // The chain's last resort asks the EC2 instance metadata service: not from a test.
      AWS_EC2_METADATA_DISABLED: 'true',
      ...aws,
    });
    const child = spawn(
      process.execPath,
      [cli, 'dev', '--invoke', 'orders-fn', '--topic', 'orders', '--brokers', noBroker, '--exit-when-idle'],
      { cwd: packageRoot, env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    return processOutput(child);
  };

  it('says in one line that the AWS SDK found no credentials, and how to give them (exit 2)', async () => {
    const run = await runWithAws({});
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'kafka-lambda dev: --invoke orders-fn calls the AWS Lambda Invoke API, and the AWS SDK could not get credentials (CredentialsProviderError: Could not load credentials from any providers): set AWS_PROFILE (after aws configure or aws sso login) or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or give --endpoint for a local Invoke API (sam local start-lambda)\n',
    );
  });

  it('a profile that does not exist is no credentials either', async () => {
    const run = await runWithAws({ AWS_PROFILE: 'no-such-profile' });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^kafka-lambda dev: --invoke orders-fn .*could not get credentials \(/);
    expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
  });

  it('with credentials the check passes without calling AWS, and the cluster is next', async () => {
    const run = await runWithAws({
      AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
      AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(new RegExp(`^kafka-lambda dev: ${noBroker}: `));
    expect(run.stderr).not.toContain('credentials');
    expect(run.stderr).not.toContain('wJalrXUtnFEMI');
  });
});
