import { afterEach, describe, expect, it } from 'vitest';
import { HandlerInitError, HandlerNotFoundError } from '../lambda-runtime/index.ts';
import { prepareLocalFunction, useFunctionTimeZone } from './local-function.ts';

const fixtures = 'test/support/handlers/handlers.ts';
const saved = { ...process.env };

describe('prepareLocalFunction', () => {
  afterEach(() => {
    for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
    Object.assign(process.env, saved);
  });

  it("in process, gives this process the function's variables and the ones Lambda reserves", async () => {
    const fn = await prepareLocalFunction(fixtures, {
      timeoutSeconds: 3,
      memoryLimitInMB: 256,
      functionName: 'orders',
      inProcess: true,
      environment: { STAGE: 'dev' },
    });
    expect(typeof fn.handler).toBe('function');
    expect(process.env).toMatchObject({
      STAGE: 'dev',
      _HANDLER: fixtures,
      AWS_LAMBDA_FUNCTION_NAME: 'orders',
      AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '256',
      AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
      AWS_LAMBDA_LOG_GROUP_NAME: '/aws/lambda/orders',
      LAMBDA_TASK_ROOT: process.cwd(),
    });
  });

  it.each([true, false])(
    'refuses a reference to no module, and a module failing in its init phase (inProcess: %s)',
    async (inProcess) => {
      const options = {
        timeoutSeconds: 3,
        memoryLimitInMB: 1024,
        functionName: 'orders',
        inProcess,
        environment: {},
      };
      await expect(prepareLocalFunction('test/support/handlers/missing.ts', options)).rejects.toBeInstanceOf(
        HandlerNotFoundError,
      );
      await expect(
        prepareLocalFunction('test/support/handlers/init-throws.ts', options),
      ).rejects.toBeInstanceOf(HandlerInitError);
    },
  );
});

describe('useFunctionTimeZone', () => {
  it("is UTC unless the function's own variables set TZ", () => {
    process.env.TZ = 'America/New_York';
    useFunctionTimeZone({});
    expect(new Date(2026, 0, 1).getTimezoneOffset()).toBe(0);
    useFunctionTimeZone({ TZ: 'Asia/Tokyo' });
    expect(new Date(2026, 0, 1).getTimezoneOffset()).toBe(-540);
    useFunctionTimeZone({});
  });
});
