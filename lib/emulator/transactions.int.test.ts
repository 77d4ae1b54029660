import { expect, it } from 'vitest';
import { eventRecords } from '../../test/support/emulator.ts';
import { createTopic, testBrokers, testKafka, uniqueName } from '../../test/support/kafka.ts';
import { testProducer } from '../../test/support/producer.ts';
import type { KafkaEvent } from '../kafka-event/types.ts';
import { createLocalEventSourceMapping } from './index.ts';

const kafka = testKafka('emulator-transactions');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it('moves on after a fetch that holds only an aborted transaction and its marker', async () => {
  const topic = uniqueName('txn');
  await createTopic(kafka, topic, 1);
  const invoked: number[] = [];
  const esm = createLocalEventSourceMapping({
    brokers: testBrokers(),
    topic,
    consumerGroupId: uniqueName('txn-group'),
    maximumBatchingWindowInSeconds: 0,
    function: {
      handler: async (event: KafkaEvent) => void invoked.push(...eventRecords(event).map((r) => r.offset)),
    },
  });
  const plain = testProducer(kafka);
  const transactional = kafka.producer({
    transactionalId: uniqueName('txn-producer'),
    idempotent: true,
    maxInFlightRequests: 1,
  });
  await Promise.all([plain.connect(), transactional.connect()]);
  try {
    await esm.start();
    await plain.send({ topic, messages: [{ value: 'a' }, { value: 'b' }] }); // offsets 0, 1
    await esm.idle();
    const transaction = await transactional.transaction();
    await transaction.send({ topic, messages: [{ value: 'x' }, { value: 'y' }] }); // offsets 2, 3
    await transaction.abort(); // abort marker at 4
    await sleep(1_500); // the mapping fetches the aborted records alone; kafkajs hands it none of them
    await plain.send({ topic, messages: [{ value: 'c' }, { value: 'd' }, { value: 'e' }] }); // offsets 5..7
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline && esm.stats().partitions[0]?.committed !== 8) await sleep(50);
  } finally {
    await esm.stop();
    await Promise.all([plain.disconnect(), transactional.disconnect()]);
  }
  expect(invoked).toEqual([0, 1, 5, 6, 7]);
  expect(esm.stats().partitions[0]?.committed).toBe(8);
});
