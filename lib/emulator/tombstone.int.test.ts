import { expect, it } from 'vitest';
import { eventRecords } from '../../test/support/emulator.ts';
import { createTopicWith, testBrokers, testKafka, uniqueName } from '../../test/support/kafka.ts';
import type { KafkaEvent, KafkaEventRecord } from '../kafka-event/types.ts';
import { createLocalEventSourceMapping, type TombstoneValue } from './index.ts';

const kafka = testKafka('tombstone-int');

/** The records a handler is given for a topic holding a record and a tombstone of its key. */
async function delivered(tombstoneValue: TombstoneValue | undefined): Promise<KafkaEventRecord[]> {
  const topic = uniqueName('tombstone');
  await createTopicWith(kafka, topic, [
    { key: 'k', value: 'v' },
    { key: 'k', value: null },
  ]);
  const records: KafkaEventRecord[] = [];
  const esm = createLocalEventSourceMapping({
    brokers: testBrokers(),
    topic,
    consumerGroupId: uniqueName('tombstone-group'),
    maximumBatchingWindowInSeconds: 0,
    ...(tombstoneValue ? { tombstoneValue } : {}),
    function: { handler: async (event: KafkaEvent) => void records.push(...eventRecords(event)) },
  });
  await esm.start();
  await esm.idle();
  await esm.stop();
  return records;
}

// AWS documents neither form; Lambda events have been seen with `"value": null` and with no value field
// (Powertools for AWS Lambda (TypeScript) issues 4988 and 5016).
it('a tombstone is delivered with "value": null by default, and without a value field with tombstoneValue absent', async () => {
  const byDefault = await delivered(undefined);
  expect(byDefault.map((r) => r.value)).toEqual([Buffer.from('v').toString('base64'), null]);
  expect(byDefault[1]).toHaveProperty('value', null);

  const absent = await delivered('absent');
  expect(absent[0]?.value).toBe(Buffer.from('v').toString('base64'));
  expect(absent[1]).not.toHaveProperty('value');
  expect(absent[1]).toMatchObject({ offset: 1, key: Buffer.from('k').toString('base64'), headers: [] });
});

it('refuses a tombstoneValue other than null or absent', () => {
  expect(() =>
    createLocalEventSourceMapping({
      brokers: testBrokers(),
      topic: 'orders',
      tombstoneValue: 'undefined' as TombstoneValue,
      function: { handler: async () => {} },
    }),
  ).toThrow(/tombstoneValue/);
});
