import { types } from 'node:util';
import { LAMBDA_LIMITS } from '../kafka-event/limits.ts';

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

// Lambda's Node.js 24 runtime tells errors by class (`instanceof Error`, here also an error of another
// realm), not by shape: a thrown `{ name, message, stack }` object is reported as an object.
function isError(value: unknown): value is Error {
  return value instanceof Error || types.isNativeError(value);
}

// The runtime writes DEL (0x7F) as %7F in an error it reports.
const escapeDel = (text: string) => text.replaceAll('\x7F', '%7F');

/**
 * Describes whatever a handler threw or rejected with, as Lambda's Node.js 24 runtime does (its
 * `formatError`, aws-lambda-nodejs-runtime-interface-client src/utils/error.ts): an error's `name`,
 * `message` and stack lines; any other value's `typeof` and `toString()`; and, when reading
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
    if (isError(value)) {
      return {
        errorType: escapeDel(String(value.name)),
        errorMessage: escapeDel(String(value.message)),
        trace: typeof value.stack === 'string' ? escapeDel(value.stack).split('\n') : [],
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

/**
 * The error of a response above Lambda's limit (6,291,556 bytes of JSON), or `undefined` for one within
 * it: Lambda's runtime cannot post it, and the invocation fails with this error instead.
 *
 * @example
 * ```ts
 * responseSizeError(JSON.stringify({ debug: 'x'.repeat(7e6) }))?.errorType; // 'Function.ResponseSizeTooLarge'
 * ```
 */
export function responseSizeError(json: string): RuntimeErrorResponse | undefined {
  // A UTF-16 length is at most its UTF-8 byte length: only a long text is measured.
  if (
    json.length <= LAMBDA_LIMITS.responseBytes / 3 ||
    Buffer.byteLength(json) <= LAMBDA_LIMITS.responseBytes
  )
    return undefined;
  return {
    errorType: 'Function.ResponseSizeTooLarge',
    errorMessage: `Response payload size exceeded maximum allowed payload size (${LAMBDA_LIMITS.responseBytes} bytes).`,
    trace: [],
  };
}

/**
 * A handler's response as Lambda's runtime sends it: its JSON text (`'null'` for a value JSON has no
 * text for, such as `undefined`), or, for a response `JSON.stringify` cannot write (a
 * circular object, a BigInt, a throwing `toJSON`), the `Runtime.MarshalError` Lambda fails the
 * invocation with. The error's message is the serialiser's, which names types and property names,
 * never the response's values.
 *
 * One rule for the sandbox, `kafka-lambda invoke --in-process` and `invokeHandler`, so that each reads a
 * response exactly as the others do.
 *
 * @example
 * ```ts
 * marshalResponse({ batchItemFailures: [] }); // { json: '{"batchItemFailures":[]}' }
 * marshalResponse({ n: 1n }).error?.errorType; // 'Runtime.MarshalError'
 * ```
 */
export function marshalResponse(
  response: unknown,
): { json: string; error?: undefined } | { json?: undefined; error: RuntimeErrorResponse } {
  try {
    return { json: JSON.stringify(response) ?? 'null' };
  } catch (error) {
    const { errorMessage } = toRuntimeError(error);
    return {
      error: {
        errorType: 'Runtime.MarshalError',
        errorMessage: `Unable to marshal response: ${errorMessage}`,
        trace: [],
      },
    };
  }
}
