import fc from 'fast-check';
import { Partitioners } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { murmur2, partitionForKey } from './partitioner.ts';

describe('murmur2', () => {
  it("matches the Java client's test vectors", () => {
    // From Apache Kafka's UtilsTest.testMurmur2.
    const vectors: Array<[string, number]> = [
      ['21', -973932308],
      ['foobar', -790332482],
      ['a-little-bit-long-string', -985981536],
      ['a-little-bit-longer-string', -1486304829],
      ['lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8', -58897971],
      ['abc', 479470107],
    ];
    for (const [key, hash] of vectors) expect(murmur2(Buffer.from(key))).toBe(hash);
  });
});

describe('partitionForKey', () => {
  it("picks the partition kafkajs' DefaultPartitioner picks, for any key and partition count", () => {
    const partitioner = Partitioners.DefaultPartitioner();
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), fc.integer({ min: 1, max: 64 }), (key, count) => {
        const partitionMetadata = Array.from({ length: count }, (_, partitionId) => ({
          partitionId,
          leader: 0,
          partitionErrorCode: 0,
          replicas: [0],
          isr: [0],
        }));
        const expected = partitioner({
          topic: 't',
          partitionMetadata,
          message: { key: Buffer.from(key), value: null },
        });
        expect(partitionForKey(key, count)).toBe(expected);
      }),
      { numRuns: 500 },
    );
  });
});
