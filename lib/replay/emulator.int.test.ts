// End to end with the trigger emulator (createLocalEventSourceMapping) standing in for Lambda's pollers:
// the model of the Lambda API stops the emulator when the mapping reaches Disabled and starts it again when
// it is Enabled; after a replay to offset N, the emulator re-delivers exactly from N on each replayed partition.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelEventSourceMapping } from '../../test/support/esm-model.ts';
import { committedOffsetsByKafkaTool, testBrokers, testKafka, uniqueName } from '../../test/support/kafka.ts';
import { seedTopic } from '../../test/support/seed-topic.ts';
import type { LocalEventSourceMapping } from '../emulator/index.ts';
import { recordingEventSourceMapping } from '../emulator/recording.ts';
import { connectReplayKafka, type ReplayKafka } from './connection.ts';
import { executeReplay } from './execute.ts';

let kafka: ReplayKafka;
beforeAll(async () => {
  kafka = await connectReplayKafka({ brokers: testBrokers() });
});
afterAll(async () => {
  await kafka?.disconnect();
});

describe('replay with the emulator as the trigger', () => {
  it('re-delivers exactly from the target offset on each replayed partition, and nothing else', async () => {
    const topic = uniqueName('replay-emu');
    const groupId = uniqueName('replay-emu-group');
    await seedTopic(testKafka(), { topic, partitions: 3, records: 10 });

    const delivered: string[] = [];
    const emulator = (): LocalEventSourceMapping =>
      recordingEventSourceMapping({ brokers: testBrokers(), topic, consumerGroupId: groupId }, delivered);

    let trigger: LocalEventSourceMapping | undefined = emulator();
    await trigger.start();
    await trigger.idle();
    expect(delivered).toHaveLength(30);
    expect((await committedOffsetsByKafkaTool(groupId)).map((r) => r.currentOffset)).toEqual([10, 10, 10]);

    const model = modelEventSourceMapping({
      uuid: 'esm-emu',
      topic,
      groupId,
      onSettled: async (state) => {
        if (state === 'Disabled') {
          await trigger?.stop();
          trigger = undefined;
        } else {
          trigger = emulator();
          await trigger.start();
        }
      },
    });
    delivered.length = 0;
    const result = await executeReplay({
      kafka,
      mapping: { lambda: model.lambda, uuid: 'esm-emu' },
      partitions: [0, 2],
      target: { kind: 'offset', offset: 4 },
      reason: 'emulator e2e',
      timeouts: { pollIntervalMs: 20, groupMs: 30_000 },
    });
    expect(result.plan.partitions.map((p) => [p.partition, p.committed, p.target, p.redeliver])).toEqual([
      [0, 10, 4, 6],
      [2, 10, 4, 6],
    ]);
    expect(model.state()).toBe('Enabled');
    await trigger!.idle();
    await trigger!.stop();

    const sorted = (xs: string[]) => [...xs].sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
    expect(sorted(delivered)).toEqual(
      sorted(['0', '2'].flatMap((p) => [4, 5, 6, 7, 8, 9].map((o) => `${p}:${o}`))),
    );
    expect((await committedOffsetsByKafkaTool(groupId)).map((r) => r.currentOffset)).toEqual([10, 10, 10]);
  });
});
