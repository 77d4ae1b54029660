import type { StandardSchemaV1 } from '@standard-schema/spec';
import { KafkaSchemaError, KafkaSchemaThrewError, type RecordPosition } from './errors.ts';
import { isThenable } from './thenable.ts';

/**
 * Runs a record's key or value through a Standard Schema and hands its output to `keep`: at once, or
 * once an asynchronous schema has answered (then the result is a promise). Issues are a
 * {@link KafkaSchemaError} (a poison record, named by its paths only); a schema that throws or rejects
 * is a {@link KafkaSchemaThrewError} (retried, its message withheld). The middleware's `key`/`value`
 * schemas and the decoders' `validate` both go through it. `absent`: the record has no such field
 * (the input is `null` for a tombstone's value or a missing key), for the error to say so.
 *
 * @example
 * ```ts
 * validateField(OrderSchema, record.json(), record, 'value', (order) => save(order));
 * ```
 */
export function validateField<TOutput, TKept>(
  schema: StandardSchemaV1<unknown, TOutput>,
  input: unknown,
  position: RecordPosition,
  field: 'key' | 'value',
  keep: (output: TOutput) => TKept,
  absent = false,
): TKept | Promise<TKept> {
  let result: StandardSchemaV1.Result<TOutput> | PromiseLike<StandardSchemaV1.Result<TOutput>>;
  try {
    result = schema['~standard'].validate(input);
  } catch (error) {
    throw new KafkaSchemaThrewError(position, field, error);
  }
  if (isThenable(result))
    return Promise.resolve(result).then(
      (settled) => keep(accepted(settled, position, field, absent)),
      (error: unknown) => {
        throw new KafkaSchemaThrewError(position, field, error);
      },
    );
  return keep(accepted(result, position, field, absent));
}

function accepted<TOutput>(
  result: StandardSchemaV1.Result<TOutput>,
  position: RecordPosition,
  field: 'key' | 'value',
  absent: boolean,
): TOutput {
  if (result.issues) throw KafkaSchemaError.fromIssues(position, field, result.issues, absent);
  return result.value;
}
