// The demo's replay step against the test broker: the offsets move, and the trigger emulator re-delivers
// exactly the records between the target and the log end.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectReplayKafka, type ReplayKafka } from '../lib/replay/index.ts';
import { committedOffsetsByKafkaTool, testBrokers, testKafka, uniqueName } from '../test/support/kafka.ts';
import { seedTopic } from '../test/support/seed-topic.ts';
import { DemoError } from './errors.ts';
import { ReplayDemoCheckError, runReplayDemo } from './replay-step.ts';

const topic = uniqueName('demo-replay');
let kafka: ReplayKafka;

beforeAll(async () => {
  await seedTopic(testKafka(), { topic, partitions: 3, records: 10 });
  kafka = await connectReplayKafka({ brokers: testBrokers() });
});
afterAll(async () => {
  await kafka?.disconnect();
});

describe('the replay step of the demo', () => {
  it('moves partition 0 back 5 records and the emulator re-delivers exactly those', async () => {
    const groupId = uniqueName('demo-replay-group');
    await kafka.commitOffsets({
      groupId,
      topic,
      offsets: [10, 10, 10].map((offset, partition) => ({ partition, offset, metadata: '' })),
    });
    const lines: string[] = [];
    const result = await runReplayDemo({ brokers: testBrokers(), topic, groupId }, (line = '') =>
      lines.push(line),
    );
    expect(result).toEqual({ partition: 0, target: 5, redelivered: ['0:5', '0:6', '0:7', '0:8', '0:9'] });
    expect(lines.join('\n')).toContain('the trigger re-delivered partition 0 from offset 5: 5, 6, 7, 8, 9 ✓');
    expect((await committedOffsetsByKafkaTool(groupId)).map((r) => r.currentOffset)).toEqual([10, 10, 10]);
  });

  it('its failed self-check is one of the demo’s errors', () => {
    const error = new ReplayDemoCheckError('expected re-delivery of 0:5, got nothing');
    expect(error).toBeInstanceOf(DemoError);
    expect(error.name).toBe('ReplayDemoCheckError');
  });
});
