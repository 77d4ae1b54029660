import { describe, expect, it } from 'vitest';
import { LambdaRuntimeError, SandboxClosedError } from './errors.ts';
import { HandlerInitError, HandlerNotFoundError, loadHandler } from './load-handler.ts';
import { createSandbox } from './sandbox.ts';

describe('local Lambda runtime errors', () => {
  it('every error extends LambdaRuntimeError, names its class and keeps its cause', () => {
    const cause = new Error('disk gone');
    const errors = [
      new LambdaRuntimeError('x', { cause }),
      new HandlerNotFoundError('Cannot import a.ts: disk gone', 'Runtime.ImportModuleError', { cause }),
      new HandlerInitError({ errorType: 'Error', errorMessage: 'disk gone', trace: [] }, { cause }),
      new SandboxClosedError({ cause }),
    ];
    for (const error of errors) {
      expect(error).toBeInstanceOf(LambdaRuntimeError);
      expect(error.cause).toBe(cause);
      expect(error.name).toBe(error.constructor.name);
    }
  });

  it('a reference to no module is a HandlerNotFoundError, as Lambda reports it (Runtime.ImportModuleError)', async () => {
    const error = await loadHandler('test/support/handlers/missing.ts').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(HandlerNotFoundError);
    expect(error).toMatchObject({ lambdaErrorType: 'Runtime.ImportModuleError' });
  });

  it("a module failing in its init phase is a HandlerInitError whose cause is the module's error", async () => {
    const error = await loadHandler('test/support/handlers/init-throws.ts').catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(HandlerInitError);
    expect(error).toBeInstanceOf(LambdaRuntimeError);
    expect(error).toMatchObject({
      response: { errorType: 'Error', errorMessage: 'ORDERS_TABLE is not set' },
    });
    expect((error as Error).cause).toMatchObject({ message: 'ORDERS_TABLE is not set' });
  });

  it('a closed sandbox refuses invocations with SandboxClosedError', async () => {
    const sandbox = createSandbox({
      handler: 'test/support/handlers/sandbox-handlers.ts#counts',
      timeoutSeconds: 5,
    });
    await sandbox.close();
    await expect(sandbox.invoke('{}', 'a')).rejects.toBeInstanceOf(SandboxClosedError);
    await expect(sandbox.prewarm()).rejects.toBeInstanceOf(SandboxClosedError);
  });
});
