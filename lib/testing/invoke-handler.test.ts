import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { HandlerInitError } from '../lambda-runtime/load-handler.ts';
import { failedOffsets } from './batch-response.ts';
import { InvalidEventInputError, kafkaEvent } from './event-builder.ts';
import {
  HandlerTimeoutError,
  InvalidInvokeOptionsError,
  type InvokeOptions,
  invokeHandler,
  ResponseMarshalError,
} from './invoke-handler.ts';

const event = kafkaEvent({ topic: 'orders', records: [{ value: 'x' }] });

describe('invokeHandler', () => {
  it('passes the event and a context whose remaining time counts down from timeoutMs', async () => {
    const seen = await invokeHandler(
      async (received, context) => {
        const before = context.getRemainingTimeInMillis();
        await sleep(30);
        return { received, before, after: context.getRemainingTimeInMillis(), name: context.functionName };
      },
      event,
      { timeoutMs: 2_000, functionName: 'orders' },
    );
    expect(seen.received).toEqual(event);
    expect(seen.name).toBe('orders');
    expect(seen.before).toBeLessThanOrEqual(2_000);
    expect(seen.before).toBeGreaterThan(1_900);
    expect(seen.before - seen.after).toBeGreaterThanOrEqual(25);
  });

  it('resolves to the response of a synchronous handler too', async () => {
    await expect(invokeHandler(() => ({ batchItemFailures: [] }), event)).resolves.toEqual({
      batchItemFailures: [],
    });
  });

  it('rethrows what the handler throws, synchronously or not', async () => {
    class OrderRejected extends Error {
      override readonly name = 'OrderRejected';
    }
    await expect(
      invokeHandler(async () => {
        throw new OrderRejected('no stock');
      }, event),
    ).rejects.toThrow(OrderRejected);
    await expect(
      invokeHandler(() => {
        throw new OrderRejected('sync');
      }, event),
    ).rejects.toThrow('sync');
  });

  it("refuses a callback-style handler, as Lambda's Node.js 24 runtime does, rather than resolve without its answer", async () => {
    const callbackStyle = ((_event: unknown, _context: unknown, callback: (e: null, r: string) => void) =>
      setTimeout(() => callback(null, 'late'), 1)) as unknown as () => Promise<string>;
    const error = await invokeHandler(callbackStyle, {}).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(HandlerInitError);
    expect(error).toMatchObject({ response: { errorType: 'Runtime.CallbackHandlerDeprecated' } });
  });

  it("fails with Lambda's timeout message when the handler outlives the timeout", async () => {
    const started = Date.now();
    const outcome = invokeHandler(() => new Promise(() => {}), event, { timeoutMs: 100 });
    await expect(outcome).rejects.toThrow(HandlerTimeoutError);
    await expect(outcome).rejects.toThrow('Task timed out after 0.10 seconds');
    expect(Date.now() - started).toBeGreaterThanOrEqual(95);
  });

  it('gives the handler a copy of the event, as Lambda delivers it: a middleware that drops records leaves the test’s event whole', async () => {
    const batch = kafkaEvent({ topic: 'orders', records: [{ value: 'a' }, { value: 'b' }, { value: 'c' }] });
    const before = structuredClone(batch);
    const response = await invokeHandler(async (received: typeof batch) => {
      received.records['orders-0'] = received.records['orders-0']!.filter((record) => record.offset !== 0);
      return { batchItemFailures: [{ itemIdentifier: { partition: 'orders-0', offset: 2 } }] };
    }, batch);
    expect(batch).toEqual(before);
    expect(failedOffsets(response, batch)).toEqual({ 'orders-0': [2] });
  });

  it('refuses an event JSON cannot carry, which Lambda could not deliver', async () => {
    await expect(invokeHandler(async () => ({}), { offset: 1n })).rejects.toThrow(
      new InvalidEventInputError(
        'the event cannot be sent as JSON, as Lambda sends events: Do not know how to serialize a BigInt',
      ),
    );
    await expect(invokeHandler(async () => ({}), undefined)).rejects.toThrow(InvalidEventInputError);
  });

  it('resolves to the response as Lambda reads it, through JSON: a getter on a class reads as absent, toJSON as its value', async () => {
    class BatchResult {
      readonly #failures: { itemIdentifier: { partition: string; offset: number } }[] = [];
      fail(partition: string, offset: number) {
        this.#failures.push({ itemIdentifier: { partition, offset } });
      }
      get batchItemFailures() {
        return this.#failures;
      }
    }
    const getter = await invokeHandler(async () => {
      const result = new BatchResult();
      result.fail('orders-0', 0);
      return result;
    }, event);
    // Lambda reads {}: a success, whatever the getter says.
    expect(getter).toStrictEqual({});
    expect(failedOffsets(getter, event)).toEqual({});
    const failures = [{ itemIdentifier: { partition: 'orders-0', offset: 0 } }];
    const viaToJson = await invokeHandler(
      async () => ({ toJSON: () => ({ batchItemFailures: failures }) }),
      event,
    );
    expect(viaToJson).toStrictEqual({ batchItemFailures: failures });
    await expect(invokeHandler(async () => undefined, event)).resolves.toBeNull();
  });

  it('fails a response JSON cannot carry with Runtime.MarshalError, as Lambda does, without quoting it', async () => {
    const circular = async () => {
      const response: Record<string, unknown> = { batchItemFailures: [], secret: 's3cr3t' };
      response.self = response;
      return response;
    };
    const error = await invokeHandler(circular, event).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ResponseMarshalError);
    expect(error).toMatchObject({
      message: expect.stringMatching(
        /^Runtime\.MarshalError: Unable to marshal response: Converting circular structure to JSON/,
      ),
      response: { errorType: 'Runtime.MarshalError', trace: [] },
    });
    expect((error as Error).message).not.toContain('s3cr3t');
    await expect(invokeHandler(async () => ({ count: 1n }), event)).rejects.toThrow(
      new ResponseMarshalError({
        errorType: 'Runtime.MarshalError',
        errorMessage: 'Unable to marshal response: Do not know how to serialize a BigInt',
        trace: [],
      }),
    );
  });

  it.each([
    [
      { timeoutMs: 0 },
      'timeoutMs must be above 0 and at most 840000 (840 s: Kafka triggers refuse longer timeouts), not 0',
    ],
    [{ timeoutMs: -1 }, /^timeoutMs must be above 0 .*, not -1$/],
    [{ timeoutMs: 900_001 }, /^timeoutMs must be above 0 and at most 840000 .*, not 900001$/],
    [{ timeoutMs: 2 ** 31 }, /^timeoutMs .*, not 2147483648$/],
    [{ timeoutMs: Number.NaN }, /^timeoutMs .*, not NaN$/],
    [{ timeoutMs: '5000' }, /^timeoutMs .*, not "5000"$/],
    [
      { memoryLimitInMB: -1 },
      'memoryLimitInMB must be a whole number from 128 to 10240, as Lambda allows, not -1',
    ],
    [{ memoryLimitInMB: 127 }, /^memoryLimitInMB .*, not 127$/],
    [{ memoryLimitInMB: 10_241 }, /^memoryLimitInMB .*, not 10241$/],
    [{ memoryLimitInMB: 512.5 }, /^memoryLimitInMB .*, not 512.5$/],
    [{ functionName: 7 }, 'functionName must be a string, not 7'],
    [{ timeout: 5_000 }, 'unknown option "timeout" — did you mean "timeoutMs"?'],
    [{ memorySize: 512 }, /^unknown option "memorySize"/],
  ])(
    'refuses %j, as Lambda would refuse such a function, before running the handler',
    async (options, message) => {
      let ran = false;
      const outcome = invokeHandler(
        async () => {
          ran = true;
        },
        event,
        options as InvokeOptions,
      );
      await expect(outcome).rejects.toThrow(InvalidInvokeOptionsError);
      await expect(outcome).rejects.toThrow(message);
      expect(ran).toBe(false);
    },
  );

  it('accepts the limits themselves: a 840 s timeout, 128 and 10,240 MB', async () => {
    for (const options of [{ timeoutMs: 840_000 }, { memoryLimitInMB: 128 }, { memoryLimitInMB: 10_240 }]) {
      await expect(invokeHandler(async () => 'ok', event, options)).resolves.toBe('ok');
    }
  });
});
