// A trigger that only notes what it delivers: the replay demo's and replay tests' check that a replay
// re-delivers exactly from its target.
import type { KafkaEvent } from '../kafka-event/types.ts';
import { createLocalEventSourceMapping, type LocalEventSourceMapping } from './emulator.ts';

/**
 * An emulated trigger (no batching window) whose function appends `<partition>:<offset>` of every record
 * it receives to `delivered`, in delivery order, and reports no failures.
 *
 * @example
 * ```ts
 * const delivered: string[] = [];
 * const trigger = recordingEventSourceMapping({ brokers, topic: 'orders', consumerGroupId: 'g' }, delivered);
 * await trigger.start();
 * await trigger.idle(); // delivered: ['0:5', '0:6', …]
 * ```
 */
export function recordingEventSourceMapping(
  source: { brokers: string[]; topic: string; consumerGroupId: string },
  delivered: string[],
): LocalEventSourceMapping {
  return createLocalEventSourceMapping({
    ...source,
    maximumBatchingWindowInSeconds: 0,
    function: {
      handler: async (event: KafkaEvent) => {
        for (const records of Object.values(event.records)) {
          for (const record of records) delivered.push(`${record.partition}:${record.offset}`);
        }
        return { batchItemFailures: [] };
      },
    },
  });
}
