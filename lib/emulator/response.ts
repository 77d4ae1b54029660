import type { BatchPart } from './batch.ts';

/**
 * What an invocation returned: a JSON response, or a function error (throw, timeout, crash).
 *
 * @example
 * ```ts
 * const result: InvokeResult = { kind: 'response', payload: { batchItemFailures: [] } };
 * ```
 */
export type InvokeResult = (
  | { kind: 'response'; payload: unknown }
  | {
      kind: 'function-error';
      errorType: string;
      errorMessage: string;
      /**
       * The error's stack as Lambda's Node.js runtime reports it (the error response's `trace`, the
       * `stack` of its `Invoke Error` log line): a header line `<type>: <message>`, then the frames. Only
       * when the runtime has one (a thrown `Error`); none for a timeout, a `process.exit`, a thrown value
       * that is not an `Error`, or a function reached through the Invoke API.
       */
      trace?: string[];
    }
) & {
  /**
   * Through the Invoke API: Lambda's own request id and the version that ran (`ExecutedVersion`), which
   * an on-failure envelope reports. Local invocations use the emulator's request id and `$LATEST`.
   */
  ranAs?: { requestId?: string; executedVersion?: string };
};

/**
 * How Lambda reads an invocation's result for a batch.
 *
 * @example
 * ```ts
 * if (outcome.kind === 'partial') outcome.failed.get(3); // [1042, 1050]
 * ```
 */
export type BatchOutcome =
  | { kind: 'success' }
  /** `trace`: the function error's stack, when the runtime reported one (see {@link InvokeResult}). */
  | { kind: 'function-error'; errorType: string; errorMessage: string; trace?: string[] }
  | { kind: 'invalid-response'; reason: string }
  /** Reported failures per partition number: unique offsets, ascending, all in the batch. */
  | { kind: 'partial'; failed: Map<number, number[]> };

function describe(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
}

/**
 * Interprets an invocation's result for a batch as Lambda does. With `reportBatchItemFailures` off the
 * response is ignored. With it on, `batchItemFailures` empty, null or absent (or no response at all)
 * means success; every identifier must be `{partition: "<topic>-<n>", offset: <number>}` naming a
 * record of the batch, or the whole batch counts as failed.
 *
 * @example
 * ```ts
 * interpretResult({ kind: 'response', payload: { batchItemFailures: [] } }, 'orders', parts, true); // { kind: 'success' }
 * ```
 */
export function interpretResult(
  result: InvokeResult,
  topic: string,
  parts: readonly BatchPart[],
  reportBatchItemFailures: boolean,
): BatchOutcome {
  if (result.kind === 'function-error') return { ...result };
  if (!reportBatchItemFailures) return { kind: 'success' };
  const payload = result.payload;
  if (payload === null || payload === undefined) return { kind: 'success' };
  if (typeof payload !== 'object' || Array.isArray(payload)) {
    return { kind: 'invalid-response', reason: `the response is ${describe(payload)}, not an object` };
  }
  const failures = (payload as { batchItemFailures?: unknown }).batchItemFailures;
  if (failures === null || failures === undefined) return { kind: 'success' };
  if (!Array.isArray(failures)) {
    return { kind: 'invalid-response', reason: `batchItemFailures is ${describe(failures)}, not an array` };
  }
  if (failures.length === 0) return { kind: 'success' };

  const offsetsByKey = new Map<string, { partition: number; offsets: Set<number> }>();
  for (const part of parts) {
    offsetsByKey.set(`${topic}-${part.partition}`, {
      partition: part.partition,
      offsets: new Set(part.records.map((record) => record.offset)),
    });
  }
  const failed = new Map<number, Set<number>>();
  for (const [index, failure] of failures.entries()) {
    const identifier = (failure as { itemIdentifier?: unknown } | null)?.itemIdentifier;
    if (typeof identifier !== 'object' || identifier === null || Array.isArray(identifier)) {
      return {
        kind: 'invalid-response',
        reason: `batchItemFailures[${index}].itemIdentifier is ${describe(identifier)}; Kafka needs {partition, offset}`,
      };
    }
    const { partition, offset } = identifier as { partition?: unknown; offset?: unknown };
    if (typeof partition !== 'string' || typeof offset !== 'number' || !Number.isInteger(offset)) {
      return {
        kind: 'invalid-response',
        reason: `batchItemFailures[${index}].itemIdentifier needs a string partition and an integer offset`,
      };
    }
    const known = offsetsByKey.get(partition);
    if (!known?.offsets.has(offset)) {
      return {
        kind: 'invalid-response',
        reason: `batchItemFailures[${index}] names ${partition}@${offset}, which is not in the batch`,
      };
    }
    const set = failed.get(known.partition) ?? new Set<number>();
    failed.set(known.partition, set.add(offset));
  }
  return {
    kind: 'partial',
    failed: new Map([...failed].map(([p, set]) => [p, [...set].sort((a, b) => a - b)])),
  };
}
