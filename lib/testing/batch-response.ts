import { readPosition } from '../kafka-event/rules.ts';
import type { KafkaEvent } from '../kafka-event/types.ts';
import { partitionKey } from '../kafka-event/types.ts';
import { KafkaTestingError } from './errors.ts';

/**
 * Lambda would not accept the response as a partial batch response and would retry the whole batch
 * (a malformed entry, or an identifier that is not a record of the event).
 *
 * @example
 * ```ts
 * failedOffsets({ batchItemFailures: [{ itemIdentifier: 'orders-0-5' }] }, event); // throws InvalidBatchResponseError
 * ```
 */
export class InvalidBatchResponseError extends KafkaTestingError {
  /** Always `'InvalidBatchResponseError'`. */
  override readonly name: string = 'InvalidBatchResponseError';
}

/**
 * The offsets a handler's response reports as failed, per `"<topic>-<partition>"`, ascending
 * (duplicates kept, so a handler reporting a record twice shows). `null`, `undefined`, `{}` and an empty
 * or null `batchItemFailures` mean the whole batch succeeded: `{}`.
 *
 * @example
 * ```ts
 * const response = await invokeHandler(handler, event);
 * expect(failedOffsets(response, event)).toEqual({ 'order-events-1': [4, 5, 6] });
 * ```
 * @throws InvalidBatchResponseError when Lambda would reject the response and retry the whole batch.
 */
export function failedOffsets(response: unknown, event: KafkaEvent): Record<string, number[]> {
  if (response === null || response === undefined) return {};
  if (typeof response !== 'object' || Array.isArray(response)) {
    throw new InvalidBatchResponseError(
      `the response must be an object with batchItemFailures, got ${Array.isArray(response) ? 'an array' : typeof response}`,
    );
  }
  const failures = (response as { batchItemFailures?: unknown }).batchItemFailures;
  if (failures === null || failures === undefined) return {};
  if (!Array.isArray(failures)) {
    throw new InvalidBatchResponseError(`batchItemFailures must be an array, got ${typeof failures}`);
  }
  const known = offsetsByPartition(event);
  const reported: Record<string, number[]> = {};
  failures.forEach((failure: unknown, index) => {
    const at = `batchItemFailures[${index}]`;
    const identifier = (failure as { itemIdentifier?: unknown } | null)?.itemIdentifier;
    if (identifier === null || typeof identifier !== 'object') {
      throw new InvalidBatchResponseError(
        `${at}.itemIdentifier must be an object { partition: "<topic>-<n>", offset: <number> }, got ${JSON.stringify(identifier) ?? 'undefined'}`,
      );
    }
    const { partition, offset } = identifier as { partition?: unknown; offset?: unknown };
    if (typeof partition !== 'string' || typeof offset !== 'number') {
      throw new InvalidBatchResponseError(
        `${at}.itemIdentifier must be { partition: string, offset: number }, got ${JSON.stringify(identifier)}`,
      );
    }
    if (!known.get(partition)?.has(offset)) {
      throw new InvalidBatchResponseError(
        `${at}.itemIdentifier ${partition}@${offset} is not a record of the event`,
      );
    }
    const offsets = reported[partition];
    if (offsets) offsets.push(offset);
    else reported[partition] = [offset];
  });
  for (const offsets of Object.values(reported)) offsets.sort((a, b) => a - b);
  return reported;
}

function offsetsByPartition(event: KafkaEvent): Map<string, Set<number>> {
  const known = new Map<string, Set<number>>();
  for (const partitionRecords of Object.values(event.records)) {
    for (const record of partitionRecords) {
      // Hand-written events may carry digit strings ("0"); kafkaBatch reads them as numbers, and so
      // does its response, so compare by the same reading.
      const partition = readPosition(record.partition) ?? record.partition;
      const offset = readPosition(record.offset) ?? record.offset;
      const key = partitionKey(record.topic, partition);
      const offsets = known.get(key);
      if (offsets) offsets.add(offset);
      else known.set(key, new Set([offset]));
    }
  }
  return known;
}
