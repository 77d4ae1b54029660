// The replay step of the demo (`npm start`): after the trigger emulator has stopped, move part of a
// partition back with the replay core and check that the emulator re-delivers it.

import { planTable } from '../lib/cli/commands/replay.ts';
import { recordingEventSourceMapping } from '../lib/emulator/recording.ts';
import { connectReplayKafka, executeReplay, planReplay } from '../lib/replay/index.ts';
import { DemoCheckError } from './errors.ts';

/**
 * The demo's self-check of the replay step failed: the trigger did not re-deliver exactly from the target.
 *
 * @example
 * ```ts
 * await runReplayDemo(demo).catch((e) => { if (e instanceof ReplayDemoCheckError) process.exitCode = 1; });
 * ```
 */
export class ReplayDemoCheckError extends DemoCheckError {}

/**
 * The replay step of `npm start`, run after the trigger emulator has stopped:
 * plans moving partition 0 of the demo's group back 5 records, executes it, then runs the emulator
 * again and checks that it re-delivers exactly from the target — and nothing from other partitions.
 *
 * @example
 * ```ts
 * const demo = await runDemo(brokers);
 * await runReplayDemo(demo); // prints step ⑦
 * ```
 */
export async function runReplayDemo(
  demo: { brokers: string[]; topic: string; groupId: string },
  out: (line?: string) => void = (line = '') => process.stdout.write(`${line}\n`),
): Promise<{ partition: number; target: number; redelivered: string[] }> {
  const { brokers, topic, groupId } = demo;
  const request = { groupId, topic, partitions: [0], target: { kind: 'shift', by: -5 } as const };
  const kafka = await connectReplayKafka({ brokers });
  let target: number;
  let high: number;
  try {
    const plan = await planReplay({ kafka, ...request });
    out(
      `⑦ replay       kafka-lambda replay --group ${groupId} --topic ${topic}:0 --shift-by -5 (dry run first):`,
    );
    for (const line of planTable(plan, false).split('\n')) out(`   ${line}`);
    const result = await executeReplay({ kafka, ...request, reason: 'kafka-lambda demo' });
    const applied = result.plan.partitions[0]!;
    ({ target, high } = applied);
    out(
      `   --execute: group ${groupId} moved from ${applied.committed} to ${target} on partition 0 (one commit, audit metadata), ${result.plan.totals.redeliver} record(s) to re-deliver`,
    );
  } finally {
    await kafka.disconnect();
  }

  const redelivered: string[] = [];
  const trigger = recordingEventSourceMapping({ brokers, topic, consumerGroupId: groupId }, redelivered);
  await trigger.start();
  try {
    await trigger.idle();
  } finally {
    await trigger.stop();
  }
  const expected = Array.from({ length: high - target }, (_, i) => `0:${target + i}`);
  if (redelivered.join() !== expected.join()) {
    throw new ReplayDemoCheckError(
      `expected re-delivery of ${expected.join(' ')}, got ${redelivered.join(' ') || 'nothing'}`,
    );
  }
  out(
    `   the trigger re-delivered partition 0 from offset ${target}: ${expected.map((e) => e.slice(2)).join(', ')} ✓`,
  );
  return { partition: 0, target, redelivered };
}
