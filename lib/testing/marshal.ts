import type { RuntimeErrorResponse } from '../lambda-runtime/runtime-error.ts';
import { toRuntimeError } from '../lambda-runtime/runtime-error.ts';

/**
 * A handler's response as Lambda's runtime sends it: its JSON text (`'null'` for a value JSON has no
 * text for, such as `undefined`), or, for a response `JSON.stringify` cannot write (a
 * circular object, a BigInt, a throwing `toJSON`), the `Runtime.MarshalError` Lambda fails the
 * invocation with. The error's message is the serialiser's, which names types and property names,
 * never the response's values.
 *
 * The same rule as the sandbox's and `kafka-lambda invoke --in-process`'s, kept here so that
 * `invokeHandler` reads a response exactly as they do.
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
