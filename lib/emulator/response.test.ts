import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { BatchPart } from './batch.ts';
import { interpretResult } from './response.ts';

function part(partition: number, offsets: number[]): BatchPart {
  return {
    partition,
    end: offsets[offsets.length - 1]! + 1,
    records: offsets.map((offset) => ({
      partition,
      offset,
      timestamp: 0,
      encoded: { topic: 'orders', partition, offset, timestamp: 0, timestampType: 'CREATE_TIME' },
      json: '',
      bytes: 0,
    })),
  };
}

const parts = [part(0, [10, 11, 12]), part(3, [7, 8])];
const respond = (payload: unknown) => interpretResult({ kind: 'response', payload }, 'orders', parts, true);
const failure = (partition: unknown, offset: unknown) => ({ itemIdentifier: { partition, offset } });

describe('interpretResult', () => {
  it.each([
    ['null', null],
    ['undefined', undefined],
    ['{}', {}],
    ['an empty list', { batchItemFailures: [] }],
    ['a null list', { batchItemFailures: null }],
  ])('reads %s as success', (_name, payload) => {
    expect(respond(payload)).toEqual({ kind: 'success' });
  });

  it('groups reported offsets per partition, unique and ascending', () => {
    expect(
      respond({
        batchItemFailures: [
          failure('orders-0', 12),
          failure('orders-0', 11),
          failure('orders-0', 12),
          failure('orders-3', 8),
        ],
      }),
    ).toEqual({
      kind: 'partial',
      failed: new Map([
        [0, [11, 12]],
        [3, [8]],
      ]),
    });
  });

  it.each([
    ['a string identifier', { batchItemFailures: [{ itemIdentifier: 'orders-0-11' }] }],
    ['an offset not in the batch', { batchItemFailures: [failure('orders-0', 13)] }],
    ['a partition not in the batch', { batchItemFailures: [failure('orders-1', 11)] }],
    ['an offset of another partition', { batchItemFailures: [failure('orders-3', 11)] }],
    ['a string offset', { batchItemFailures: [failure('orders-0', '11')] }],
    ['a numeric partition', { batchItemFailures: [failure(0, 11)] }],
    ['a fractional offset', { batchItemFailures: [failure('orders-0', 11.5)] }],
    ['a wrong key name', { batchItemFailures: [{ identifier: { partition: 'orders-0', offset: 11 } }] }],
    ['a null entry', { batchItemFailures: [null] }],
    ['a non-list', { batchItemFailures: { 'orders-0': 11 } }],
    ['a string response', 'ok'],
    ['an array response', [failure('orders-0', 11)]],
  ])('reads %s as a whole-batch failure', (_name, payload) => {
    expect(respond(payload).kind).toBe('invalid-response');
  });

  it('fails the whole batch when one identifier of several is invalid', () => {
    expect(respond({ batchItemFailures: [failure('orders-0', 11), failure('orders-0', 99)] })).toMatchObject({
      kind: 'invalid-response',
      reason: 'batchItemFailures[1] names orders-0@99, which is not in the batch',
    });
  });

  it('ignores the response when reportBatchItemFailures is off', () => {
    const result = { kind: 'response' as const, payload: { batchItemFailures: [failure('orders-0', 11)] } };
    expect(interpretResult(result, 'orders', parts, false)).toEqual({ kind: 'success' });
  });

  it('passes function errors through, with their trace', () => {
    const result = { kind: 'function-error' as const, errorType: 'TypeError', errorMessage: 'x' };
    expect(interpretResult(result, 'orders', parts, true)).toEqual(result);
    const traced = { ...result, trace: ['TypeError: x', '    at handler (file:///app/handler.ts:3:9)'] };
    expect(interpretResult(traced, 'orders', parts, false)).toEqual(traced);
  });

  it('accepts exactly the identifiers of records in the batch (property)', () => {
    const inBatch = new Set(['0:10', '0:11', '0:12', '3:7', '3:8']);
    fc.assert(
      fc.property(
        fc.array(fc.record({ p: fc.constantFrom(0, 1, 3), o: fc.integer({ min: 6, max: 13 }) }), {
          minLength: 1,
          maxLength: 6,
        }),
        (ids) => {
          const outcome = respond({ batchItemFailures: ids.map(({ p, o }) => failure(`orders-${p}`, o)) });
          const valid = ids.every(({ p, o }) => inBatch.has(`${p}:${o}`));
          expect(outcome.kind).toBe(valid ? 'partial' : 'invalid-response');
        },
      ),
    );
  });
});
