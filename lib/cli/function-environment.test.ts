import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FunctionEnvironmentError, readFunctionEnvironment } from './function-environment.ts';

describe('readFunctionEnvironment', () => {
  let dir: string;
  const file = async (name: string, content: string) => {
    await writeFile(join(dir, name), content);
    return join(dir, name);
  };
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'function-env-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('reads dotenv files in order (a later one wins), then --env-vars over them', async () => {
    const first = await file('a.env', '# comment\nA=1\nB="two words"\nexport C=3\n');
    const second = await file('b.env', 'A=override\n');
    const vars = await file('flat.json', JSON.stringify({ C: 'from-json', D: 4, E: true }));
    expect(
      await readFunctionEnvironment({ dotenv: [first, second], envVars: vars, functionName: 'f' }),
    ).toEqual({
      A: 'override',
      B: 'two words',
      C: 'from-json',
      D: '4',
      E: 'true',
    });
  });

  it("reads SAM's form: Parameters for every function, the function's own entry over it, other functions ignored", async () => {
    const vars = await file(
      'sam.json',
      JSON.stringify({
        Parameters: { STAGE: 'dev', TABLE: 'all' },
        orders: { TABLE: 'orders' },
        other: { SECRET: 'no' },
      }),
    );
    expect(await readFunctionEnvironment({ envVars: vars, functionName: 'orders' })).toEqual({
      STAGE: 'dev',
      TABLE: 'orders',
    });
    expect(await readFunctionEnvironment({ envVars: vars, functionName: 'payments' })).toEqual({
      STAGE: 'dev',
      TABLE: 'all',
    });
  });

  it.each([
    ['missing.json', undefined, /--env-vars .*missing\.json: ENOENT/],
    ['list.json', '[1]', /must be a JSON object/],
    ['text.json', 'STAGE=dev', /is not JSON/],
    ['mixed.json', '{"A": "1", "orders": {"B": "2"}}', /mixes variables and objects/],
    ['nested.json', '{"orders": {"B": {"deep": 1}}}', /orders: B must be a string, number or boolean/],
    ['null.json', '{"A": null}', /null\.json: A must be a string, number or boolean/],
    [
      'elsewhere.json',
      '{"payments": {"A": "1"}}',
      /has no "Parameters" and no entry for function "orders" \(it has "payments"\): name the function with --function-name/,
    ],
    [
      'region.json',
      '{"AWS_REGION": "eu-west-3", "A": "1"}',
      /sets AWS_REGION, which Lambda reserves and sets itself \(the region is this shell's AWS_REGION, us-east-1 without one\)$/,
    ],
  ])('refuses %s with a FunctionEnvironmentError naming the file', async (name, content, message) => {
    const path = content === undefined ? join(dir, name) : await file(name, content);
    const error = await readFunctionEnvironment({ envVars: path, functionName: 'orders' }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(FunctionEnvironmentError);
    expect((error as Error).message).toMatch(message);
  });

  it.each([
    [
      'unquoted.json',
      '{"DB_PASSWORD": SECRET-ENV-VALUE-1}',
      'JSON.parse failed at position 16 (line 1 column 17)',
    ],
    [
      'trailing.json',
      '{"A":"x",\n"DB_PASSWORD": "SECRET-ENV-VALUE-2",\n}',
      'JSON.parse failed at position 47 (line 3 column 1)',
    ],
  ])('refuses %s as not JSON saying where, never quoting the file', async (name, content, where) => {
    const error = await readFunctionEnvironment({
      envVars: await file(name, content),
      functionName: 'orders',
    }).catch((e: unknown) => e as Error);
    expect(error).toBeInstanceOf(FunctionEnvironmentError);
    expect(error.message).toContain(`is not JSON: ${where}`);
    expect(error.cause).toBeInstanceOf(SyntaxError);
    expect(inspect(error, { depth: 10 })).not.toContain('SECRET');
  });

  it('refuses a variable Lambda reserves, from a dotenv file too', async () => {
    const dotenv = await file('reserved.env', '_HANDLER=x\nLAMBDA_TASK_ROOT=/var/task\nOK=1\n');
    await expect(readFunctionEnvironment({ dotenv: [dotenv], functionName: 'f' })).rejects.toThrow(
      /^--dotenv .*reserved\.env set LAMBDA_TASK_ROOT, _HANDLER, which Lambda reserves/,
    );
    const credentials = await file('credentials.env', 'AWS_ACCESS_KEY_ID=AKIA0\nAWS_SECRET_ACCESS_KEY=s\n');
    expect(await readFunctionEnvironment({ dotenv: [credentials], functionName: 'f' })).toEqual({
      AWS_ACCESS_KEY_ID: 'AKIA0',
      AWS_SECRET_ACCESS_KEY: 's',
    });
  });

  it('refuses a dotenv file it cannot read', async () => {
    await expect(
      readFunctionEnvironment({ dotenv: [join(dir, 'none.env')], functionName: 'f' }),
    ).rejects.toThrow(/--dotenv .*none\.env: ENOENT/);
  });
});
