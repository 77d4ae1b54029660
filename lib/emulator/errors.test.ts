import { describe, expect, it } from 'vitest';
import {
  EmulatorError,
  EmulatorStateError,
  FunctionLoadError,
  InvalidMappingSettingError,
  InvokeRequestError,
  RecordTooLargeError,
} from './errors.ts';
import { compileFilterCriteria } from './filter.ts';

describe('emulator errors', () => {
  it('every error extends EmulatorError, names its class and keeps its cause', () => {
    const cause = new Error('socket hang up');
    const errors = [
      new EmulatorError('x', { cause }),
      new InvalidMappingSettingError('batchSize', 'must be at least 1', { cause }),
      new RecordTooLargeError('orders-0', 7, 7_000_000, 6_291_456, { cause }),
      new InvokeRequestError('Invoke orders failed', { cause }),
      new EmulatorStateError('cannot start a trigger emulator that is running', { cause }),
      new FunctionLoadError(
        'src/handlr.ts',
        'Runtime.ImportModuleError',
        'Cannot find module src/handlr.ts',
        {
          cause,
        },
      ),
    ];
    for (const error of errors) {
      expect(error).toBeInstanceOf(EmulatorError);
      expect(error).toBeInstanceOf(Error);
      expect(error.cause).toBe(cause);
      expect(error.name).toBe(error.constructor.name);
    }
    expect(errors[1]!.message).toBe('batchSize: must be at least 1');
    expect(errors[5]).toMatchObject({
      handler: 'src/handlr.ts',
      errorType: 'Runtime.ImportModuleError',
      message:
        'function.handler src/handlr.ts does not load: Runtime.ImportModuleError: Cannot find module src/handlr.ts',
    });
  });

  it('a malformed filter pattern is reported as a setting error that keeps what was wrong as its cause', () => {
    const criteria = (pattern: string) => ({ Filters: [{ Pattern: pattern }] });
    let error: unknown;
    try {
      compileFilterCriteria(criteria('{"value":{"n":[{"numeric":[">"]}]}}'));
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(InvalidMappingSettingError);
    expect((error as Error).cause).toBeInstanceOf(EmulatorError);
    expect(() => compileFilterCriteria(criteria('{not json'))).toThrow(
      expect.objectContaining({
        setting: 'filterCriteria.Filters[0].Pattern',
        cause: expect.any(SyntaxError),
      }),
    );
  });
});
