// Emulator benchmarks, figures as ratios against a baseline measured in this run:
// 1. Throughput: 100,000 records (~300 B JSON orders, 16 partitions) through the emulator with a
//    no-op handler, in-process and in the sandbox (worker-thread environments, cold starts included),
//    against a plain kafkajs `eachBatch` consumer reading the same topic (goal ≥ 0.7). Each iteration
//    uses a fresh consumer group; joining the group is included for both.
// 2. Per-batch overhead: the in-memory cost of one 100-record batch through the emulator (encode as
//    Lambda does, take, serialise, parse for the handler, interpret the response) against only
//    encoding the same records to JSON.
// Uses KAFKA_BROKERS when set, otherwise starts the embedded broker.
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Kafka, type KafkaMessage, logLevel } from 'kafkajs';
import { Bench } from 'tinybench';
import { type EmbeddedBroker, startBroker } from '../broker/broker.ts';
import { encodeEventRecord } from '../kafka-event/encode.ts';
import { eventOverhead, serializeEvent, takeBatch, toPendingRecord } from './batch.ts';
import { createLocalEventSourceMapping } from './index.ts';
import { interpretResult } from './response.ts';

const PARTITIONS = 16;
const RECORDS = 100_000;

const broker: EmbeddedBroker | undefined = process.env.KAFKA_BROKERS ? undefined : await startBroker();
const brokers = process.env.KAFKA_BROKERS?.split(',') ?? [broker!.bootstrapServers];
const kafka = new Kafka({ clientId: 'emulator-bench', brokers, logLevel: logLevel.ERROR });
const topic = `bench-${randomBytes(4).toString('hex')}`;
const admin = kafka.admin();
await admin.connect();
await admin.createTopics({ topics: [{ topic, numPartitions: PARTITIONS }], waitForLeaders: true });
const producer = kafka.producer();
await producer.connect();
const order = (i: number) =>
  JSON.stringify({
    orderId: `o-${100_000 + i}`,
    customerId: `customer-${i % 997}`,
    items: [{ sku: `SKU-${i % 500}`, quantity: 1 + (i % 3), unitPrice: 19.99 }],
    currency: 'EUR',
    note: 'x'.repeat(150),
  });
for (let from = 0; from < RECORDS; from += 5_000) {
  await producer.send({
    topic,
    messages: Array.from({ length: 5_000 }, (_, k) => ({
      key: `customer-${(from + k) % 997}`,
      value: order(from + k),
      headers: { 'content-type': 'application/json' },
    })),
  });
}
await producer.disconnect();

const group = () => `bench-group-${randomBytes(4).toString('hex')}`;

async function plainConsumer(): Promise<void> {
  const consumer = kafka.consumer({ groupId: group(), maxWaitTimeInMs: 250 });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  let seen = 0;
  await new Promise<void>((resolve, reject) => {
    consumer
      .run({
        eachBatch: async ({ batch }) => {
          seen += batch.messages.length;
          if (seen >= RECORDS) resolve();
        },
      })
      .catch(reject);
  });
  await consumer.disconnect();
}

/** In-process: a handler function; sandbox: the same no-op as a module, in worker-thread environments. */
async function emulator(batchSize: number, mode: 'in-process' | 'sandbox' = 'in-process'): Promise<void> {
  let seen = 0;
  let done: () => void = () => {};
  const finished = new Promise<void>((resolve) => {
    done = resolve;
  });
  const count = (records: number) => {
    seen += records;
    if (seen >= RECORDS) done();
  };
  const mapping = createLocalEventSourceMapping({
    brokers,
    topic,
    consumerGroupId: group(),
    batchSize,
    maximumBatchingWindowInSeconds: 0,
    reportBatchItemFailures: true,
    ...(mode === 'sandbox'
      ? {
          function: { handler: fileURLToPath(new URL('../../bench/noop-handler.ts', import.meta.url)) },
          onEvent: (event) => {
            if (event.type === 'invoke' && event.outcome === 'success') count(event.records);
          },
        }
      : {
          function: {
            handler: async (event) => {
              for (const records of Object.values(event.records)) count(records.length);
              return { batchItemFailures: [] };
            },
          },
        }),
  });
  await mapping.start();
  await finished;
  await mapping.stop();
}

const e2e = new Bench({ iterations: 5, time: 0, warmup: false });
e2e.add('plain kafkajs eachBatch consumer (baseline)', plainConsumer);
e2e.add('emulator, batchSize 100 (Lambda default)', () => emulator(100));
e2e.add('emulator, batchSize 1,000', () => emulator(1_000));
e2e.add('emulator, sandbox (worker threads), batchSize 100', () => emulator(100, 'sandbox'));
e2e.add('emulator, sandbox (worker threads), batchSize 1,000', () => emulator(1_000, 'sandbox'));
await e2e.run();

const mean = (name: string) => {
  const result = e2e.getTask(name)?.result;
  if (!result || !('latency' in result)) throw new Error(`${name} did not complete`);
  return result.latency.mean;
};
const base = mean('plain kafkajs eachBatch consumer (baseline)');
const rows = e2e.tasks.map((task) => {
  const ms = mean(task.name);
  return {
    task: task.name,
    'time (ms)': ms.toFixed(0),
    'records/s': Math.round(RECORDS / (ms / 1000)).toLocaleString('en-US'),
    'throughput ratio': (base / ms).toFixed(2),
  };
});
console.table(rows);
// In-memory cost of one 100-record batch.
const messages: KafkaMessage[] = Array.from({ length: 100 }, (_, i) => ({
  key: Buffer.from(`customer-${i}`),
  value: Buffer.from(order(i)),
  timestamp: String(Date.now()),
  attributes: 0,
  offset: String(i),
  headers: { 'content-type': Buffer.from('application/json') },
}));
const header = {
  eventSource: 'aws:kafka' as const,
  eventSourceArn: 'arn:aws:kafka:us-east-1:0:cluster/c/1',
  bootstrapServers: brokers.join(','),
};
const micro = new Bench({ time: 1_000 });
micro.add('encode 100 records to JSON (baseline)', () => {
  JSON.stringify(
    messages.map((m) =>
      encodeEventRecord({
        topic,
        partition: 0,
        offset: Number(m.offset),
        timestamp: Number(m.timestamp),
        key: m.key,
        value: m.value,
        headers: Object.entries(m.headers ?? {}).map(([name, value]) => [name, value as Buffer]),
      }),
    ),
  );
});
micro.add('emulator batch: encode, take, serialise, parse, interpret', () => {
  const queue = { partition: 0, records: messages.map((m) => toPendingRecord(topic, 0, m)) };
  const { parts } = takeBatch([queue], topic, 100, eventOverhead(header));
  JSON.parse(serializeEvent(header, topic, parts));
  interpretResult({ kind: 'response', payload: { batchItemFailures: [] } }, topic, parts, true);
});
await micro.run();
const microMean = (i: number) => {
  const result = micro.tasks[i]?.result;
  if (!result || !('latency' in result)) throw new Error('micro task did not complete');
  return result.latency.mean;
};
console.table(
  micro.tasks.map((task, i) => ({
    task: task.name,
    'µs per batch': (microMean(i) * 1000).toFixed(0),
    'ratio to baseline': (microMean(i) / microMean(0)).toFixed(2),
  })),
);
console.log(
  `per-batch overhead beyond encoding (100 records): ${Math.max(0, (microMean(1) - microMean(0)) * 1000).toFixed(0)} µs`,
);

await admin.deleteTopics({ topics: [topic] }).catch(() => {});
await admin.disconnect();
await broker?.stop();
