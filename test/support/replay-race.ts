import type { ReplayKafka } from '../../lib/replay/connection.ts';
import { executeReplay } from '../../lib/replay/execute.ts';
import type { ReplayProgress } from '../../lib/replay/types.ts';

/**
 * A connection, and the progress callback to pass with it, on which another replay (a group-only shift
 * by `by`) runs whole as the hold step starts: after this replay planned, before it reads the offsets it
 * holds the group against. Every read of the committed offsets from then on waits for the other to end.
 */
export function racedAtHold(
  kafka: ReplayKafka,
  other: { groupId: string; topic: string; by: number },
): { kafka: ReplayKafka; onProgress: (progress: ReplayProgress) => void } {
  let holding = false;
  let done: Promise<unknown> | undefined;
  const admin = new Proxy(kafka.admin, {
    get(target, property, receiver) {
      if (property !== 'fetchOffsets') return Reflect.get(target, property, receiver);
      return async (...args: Parameters<typeof target.fetchOffsets>) => {
        if (holding)
          done ??= executeReplay({
            kafka,
            groupId: other.groupId,
            topic: other.topic,
            target: { kind: 'shift', by: other.by },
            reason: 'the other replay',
          });
        await done;
        return target.fetchOffsets(...args);
      };
    },
  });
  return {
    kafka: { ...kafka, admin },
    onProgress: (progress) => {
      if (progress.step === 'hold-group') holding = true;
    },
  };
}
