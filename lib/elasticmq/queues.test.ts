import { describe, expect, it } from 'vitest';
import { withoutJavaOrCache } from '../../test/support/no-java.ts';
import { InvalidQueueNameError, queueNameProblem } from './queues.ts';
import { startElasticMq } from './server.ts';
import { startBackgroundSqs } from './state.ts';

describe('SQS queue names', () => {
  it.each(['orders-dlq', 'a', 'A_b-9', 'q'.repeat(80)])('%s is a standard queue name', (name) => {
    expect(queueNameProblem(name)).toBeUndefined();
  });

  it.each([
    ['bad name!', /not an SQS queue name/],
    ['', /not an SQS queue name/],
    ['q'.repeat(81), /not an SQS queue name/],
    ['orders.dlq', /not an SQS queue name/],
    ['orders.fifo', /FIFO queues are not supported/],
  ])('%j is refused: %s', (name, problem) => {
    expect(queueNameProblem(name)).toMatch(problem);
  });

  describe('before anything runs (no Java, nothing cached)', () => {
    withoutJavaOrCache();

    it.each([
      ['startElasticMq', () => startElasticMq({ queues: ['ok', 'orders.fifo'] })],
      ['startBackgroundSqs', () => startBackgroundSqs(['bad name!'])],
    ])('%s refuses a bad queue name, naming it, instead of timing out after start-up', async (_, start) => {
      const error = await start().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidQueueNameError);
      expect((error as Error).message).toMatch(/^queue "(orders\.fifo|bad name!)": /);
    });
  });
});
