// Runs the trigger emulator on a topic (argv: brokers, topic) whose first invocation fails, with an
// onEvent callback that throws at that failure, as a test's assertion inside it would. Prints, as one
// JSON line, which offsets the handler processed successfully, where the group ended and what reached
// this process as uncaught exceptions. Run in a process of its own: the callback's exception is
// rethrown outside the emulator, which a test runner would report as an error of its own run.
import { createLocalEventSourceMapping } from '../../lib/emulator/index.ts';

const [brokers, topic] = process.argv.slice(2) as [string, string];
const uncaught: string[] = [];
process.on('uncaughtException', (error) => uncaught.push(error.message));
const processed: number[] = [];
let failedOnce = false;
let thrown = false;
const mapping = createLocalEventSourceMapping({
  brokers: brokers.split(','),
  topic,
  consumerGroupId: `${topic}-group`,
  startingPosition: 'TRIM_HORIZON',
  maximumBatchingWindowInSeconds: 0,
  maximumRetryAttempts: -1,
  function: {
    handler: async (event: { records: Record<string, { offset: number }[]> }) => {
      const offsets = Object.values(event.records)
        .flat()
        .map((record) => record.offset);
      if (!failedOnce && offsets.includes(0)) {
        failedOnce = true;
        throw new Error('poison at 0, the first time only');
      }
      processed.push(...offsets);
      return { batchItemFailures: [] };
    },
  },
  onEvent: (event) => {
    if (!thrown && event.type === 'invoke' && event.outcome === 'function-error') {
      thrown = true;
      throw new Error('an assertion inside onEvent failed');
    }
  },
});
await mapping.start();
await mapping.idle();
const committed = mapping.stats().partitions.map((p) => p.committed);
await mapping.stop();
console.log(JSON.stringify({ processed: processed.sort((a, b) => a - b), committed, uncaught }));
