import { describe, expect, it } from 'vitest';
import { createTopic, testBrokers, testKafka, uniqueName } from '../../test/support/kafka.ts';
import { runKafkaTool } from '../broker/broker.ts';
import { partitionForKey } from './partitioner.ts';

describe('partitionForKey (real Java producer)', () => {
  it("places every key where Apache Kafka's own producer places it", async () => {
    const topic = uniqueName('partitioner');
    const partitions = 7;
    await createTopic(testKafka(), topic, partitions);
    // VerifiableProducer sends keys "0".."199" with the Java client's default partitioner and prints
    // the partition each record landed in.
    const result = await runKafkaTool('org.apache.kafka.tools.VerifiableProducer', [
      '--bootstrap-server',
      testBrokers().join(','),
      '--topic',
      topic,
      '--max-messages',
      '200',
      '--repeating-keys',
      '200',
      '--acks',
      '-1',
    ]);
    expect(result.code).toBe(0);
    const sent = result.stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { name: string; key?: string; partition?: number })
      .filter((event) => event.name === 'producer_send_success');
    expect(sent).toHaveLength(200);
    expect(new Set(sent.map((event) => event.partition)).size).toBe(partitions);
    for (const { key, partition } of sent) {
      expect({ key, partition }).toEqual({ key, partition: partitionForKey(Buffer.from(key!), partitions) });
    }
  });
});
