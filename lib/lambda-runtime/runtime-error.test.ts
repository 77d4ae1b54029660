import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { toRuntimeError, unhandledRejectionError } from './runtime-error.ts';

// Lambda's Node.js 24 runtime's formatError (aws-lambda-nodejs-runtime-interface-client src/utils/error.ts).
describe('toRuntimeError', () => {
  it("reports an error by its class's name, message and stack lines", () => {
    const error = new TypeError('bad input');
    expect(toRuntimeError(error)).toEqual({
      errorType: 'TypeError',
      errorMessage: 'bad input',
      trace: error.stack!.split('\n'),
    });
  });

  it('reports an error of another realm as an error', () => {
    const foreign = runInNewContext('new RangeError("far")') as Error;
    expect(toRuntimeError(foreign)).toMatchObject({ errorType: 'RangeError', errorMessage: 'far' });
  });

  it.each([
    ['a string', 'oops', { errorType: 'string', errorMessage: 'oops', trace: [] }],
    ['a number', 42, { errorType: 'number', errorMessage: '42', trace: [] }],
    ['undefined', undefined, { errorType: 'undefined', errorMessage: 'undefined', trace: [] }],
    ['null', null, { errorType: 'object', errorMessage: 'null', trace: [] }],
    // Told by class, not by shape: an object that looks like an error is an object.
    [
      'an error-shaped object',
      { name: 'Fake', message: 'm', stack: 's' },
      { errorType: 'object', errorMessage: '[object Object]', trace: [] },
    ],
    [
      'a null-prototype object',
      Object.create(null),
      {
        errorType: 'handled',
        errorMessage:
          'callback called with Error argument, but there was a problem while retrieving one or more of its message, name, and stack',
        trace: [],
      },
    ],
  ])('reports %s as the runtime does', (_name, thrown, expected) => {
    expect(toRuntimeError(thrown)).toEqual(expected);
  });

  it('writes DEL (0x7F) as %7F, as the runtime does', () => {
    expect(toRuntimeError(new Error('a\x7Fb'))).toMatchObject({ errorMessage: 'a%7Fb' });
  });

  it('reports an unhandled rejection as Runtime.UnhandledPromiseRejection with the reason as text', () => {
    expect(unhandledRejectionError(new Error('yikes'))).toEqual({
      errorType: 'Runtime.UnhandledPromiseRejection',
      errorMessage: 'Error: yikes',
      trace: ['Runtime.UnhandledPromiseRejection: Error: yikes'],
    });
  });
});
