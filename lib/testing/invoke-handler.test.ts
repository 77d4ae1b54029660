import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { HandlerInitError } from '../lambda-runtime/load-handler.ts';
import { kafkaEvent } from './event-builder.ts';
import { HandlerTimeoutError, invokeHandler } from './invoke-handler.ts';

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
    expect(seen.received).toBe(event);
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
});
