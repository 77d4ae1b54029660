import { expect, it } from 'vitest';
import {
  decodeValue,
  eventRecords,
  partialResponseMapping as mapping,
  recordId,
  seededTopic,
} from '../../test/support/emulator.ts';
import { committedOffsetsByKafkaTool, testKafka } from '../../test/support/kafka.ts';
import type { KafkaEvent } from '../kafka-event/types.ts';

const kafka = testKafka('emulator-filter');

/** Every third record is an order; the last records of each partition are noise (nothing after them matches). */
function kind(seq: number): string {
  return seq % 3 === 0 && seq < 40 ? 'order' : 'noise';
}

it('a filtered topic delivers exactly the matching records, and commits past the rest', async () => {
  const partitions = 2;
  const perPartition = 50;
  const { topic, group } = await seededTopic(kafka, 'filter', partitions, perPartition, (_p, seq) => ({
    seq,
    kind: kind(seq),
  }));
  const delivered: string[] = [];
  const kinds = new Set<string>();
  const esm = mapping({
    topic,
    consumerGroupId: group,
    batchSize: 5,
    filterCriteria: { Filters: [{ Pattern: JSON.stringify({ value: { kind: ['order'] } }) }] },
    function: {
      handler: async (event: KafkaEvent) => {
        for (const record of eventRecords(event)) {
          kinds.add(decodeValue<{ kind: string }>(record).kind);
          delivered.push(recordId(record));
        }
      },
    },
  });
  await esm.start();
  await esm.idle();
  await esm.stop();
  const expected: string[] = [];
  for (let p = 0; p < partitions; p++) {
    for (let seq = 0; seq < perPartition; seq++) if (kind(seq) === 'order') expected.push(`${p}:${seq}`);
  }
  expect([...kinds]).toEqual(['order']);
  expect([...delivered].sort()).toEqual([...expected].sort());
  expect(new Set(delivered).size).toBe(delivered.length);
  expect(esm.stats().recordsFiltered).toBe(partitions * perPartition - expected.length);
  expect(await committedOffsetsByKafkaTool(group)).toEqual(
    Array.from({ length: partitions }, (_, partition) => ({
      topic,
      partition,
      currentOffset: perPartition,
      logEndOffset: perPartition,
    })),
  );
});

it('records filtered out after a failing record are not committed past it before it is done', async () => {
  const { topic, group } = await seededTopic(kafka, 'filter-fail', 1, 10, (_p, seq) => ({
    seq,
    kind: seq === 2 ? 'order' : 'noise',
  }));
  const timeline: string[] = [];
  let calls = 0;
  const esm = mapping({
    topic,
    consumerGroupId: group,
    maximumRetryAttempts: 2,
    filterCriteria: { Filters: [{ Pattern: JSON.stringify({ value: { kind: ['order'] } }) }] },
    onEvent: (event) => {
      if (event.type === 'commit') timeline.push(`commit ${event.offsets[`${topic}-0`]}`);
    },
    function: {
      handler: async (event: KafkaEvent) => {
        calls++;
        timeline.push(
          `invoke ${eventRecords(event).map((r) => r.offset)} ${calls < 3 ? 'fails' : 'succeeds'}`,
        );
        if (calls < 3) throw new Error('not yet');
      },
    },
  });
  await esm.start();
  await esm.idle();
  await esm.stop();
  // Offsets 0-1 may be committed before offset 2 runs; nothing past 2 until it succeeds, then the
  // filtered tail (3-9) is committed past.
  const success = timeline.indexOf('invoke 2 succeeds');
  expect(timeline.filter((entry) => entry.startsWith('invoke'))).toEqual([
    'invoke 2 fails',
    'invoke 2 fails',
    'invoke 2 succeeds',
  ]);
  for (const entry of timeline.slice(0, success)) expect(['commit 2', 'invoke 2 fails']).toContain(entry);
  expect(timeline.at(-1)).toBe('commit 10');
  expect(await committedOffsetsByKafkaTool(group)).toEqual([
    { topic, partition: 0, currentOffset: 10, logEndOffset: 10 },
  ]);
});
