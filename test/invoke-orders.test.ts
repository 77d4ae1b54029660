import { describe, expect, it } from 'vitest';
import { runCli } from './support/run-cli.ts';

// End to end: the README's example function, its sample event, the real CLI process.
describe('kafka-lambda invoke functions/orders/handler.ts (the README example)', () => {
  it('reports exactly the invalid order o-1005 and the later records of its partition', async () => {
    const run = await runCli([
      'invoke',
      'functions/orders/handler.ts',
      '--event',
      'test/events/msk-order-events.json',
    ]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      batchItemFailures: [1042, 1043, 1044].map((offset) => ({
        itemIdentifier: { partition: 'order-events-1', offset },
      })),
    });
    expect(run.stderr.trimEnd().split('\n').at(-1)).toMatch(
      /^\[invoke\] partial failure: 9 records in 3 partitions, 3 reported failed \(order-events-1: 1042-1044\); /,
    );
  });
});
