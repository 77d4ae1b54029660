import { types } from 'node:util';

/**
 * A function error as Lambda's Node.js runtime reports it: in the invocation's error response and in
 * the `Invoke Error` log line.
 *
 * @example
 * ```ts
 * const error: RuntimeErrorResponse = { errorType: 'TypeError', errorMessage: 'x is undefined', trace: [] };
 * ```
 */
export interface RuntimeErrorResponse {
  errorType: string;
  errorMessage: string;
  trace: string[];
}

/** What the runtime says when a thrown value's members cannot be read (a null-prototype object, a throwing getter). */
const UNREADABLE_ERROR: RuntimeErrorResponse = {
  errorType: 'handled',
  errorMessage:
    'callback called with Error argument, but there was a problem while retrieving one or more of its message, name, and stack',
  trace: [],
};

function isErrorLike(value: unknown): value is Error {
  if (types.isNativeError(value)) return true;
  const candidate = value as { name?: unknown; message?: unknown; stack?: unknown } | null;
  return (
    typeof candidate === 'object' &&
    candidate !== null &&
    typeof candidate.name === 'string' &&
    typeof candidate.message === 'string' &&
    typeof candidate.stack === 'string'
  );
}

/**
 * Describes whatever a handler threw or rejected with, as Lambda's Node.js runtime does: an error's
 * `name`, `message` and stack lines; any other value's `typeof` and `toString()`; and, when reading
 * those throws (a null-prototype object has no `toString`), the runtime's fixed `handled` answer.
 * Never throws. See https://docs.aws.amazon.com/lambda/latest/dg/nodejs-exceptions.html
 *
 * @example
 * ```ts
 * toRuntimeError(new TypeError('bad')); // { errorType: 'TypeError', errorMessage: 'bad', trace: ['TypeError: bad', …] }
 * toRuntimeError('oops'); // { errorType: 'string', errorMessage: 'oops', trace: [] }
 * ```
 */
export function toRuntimeError(value: unknown): RuntimeErrorResponse {
  try {
    if (isErrorLike(value)) {
      return {
        errorType: String(value.name),
        errorMessage: String(value.message),
        trace: typeof value.stack === 'string' ? value.stack.split('\n') : [],
      };
    }
    return { errorType: typeof value, errorMessage: String(value), trace: [] };
  } catch {
    return { ...UNREADABLE_ERROR, trace: [] };
  }
}

/**
 * The error Lambda's Node.js runtime reports for a promise rejection nobody handled during an
 * invocation: type `Runtime.UnhandledPromiseRejection`, message the rejection reason as a string.
 *
 * @example
 * ```ts
 * unhandledRejectionError(new Error('yikes')); // { errorType: 'Runtime.UnhandledPromiseRejection', errorMessage: 'Error: yikes', … }
 * ```
 */
export function unhandledRejectionError(reason: unknown): RuntimeErrorResponse {
  let errorMessage: string;
  try {
    errorMessage = String(reason);
  } catch {
    errorMessage = toRuntimeError(reason).errorMessage;
  }
  const errorType = 'Runtime.UnhandledPromiseRejection';
  return { errorType, errorMessage, trace: [`${errorType}: ${errorMessage}`] };
}
