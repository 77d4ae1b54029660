// Replay benchmarks: plan + execute (no mapping, so no mapping waits) on topics of 1, 10 and 100
// partitions. Figures:
// 1. Broker round trips (Kafka protocol requests counted through kafkajs instrumentation) of a plan and of
//    an execute, per partition count — they must not grow with the partitions (ratio 100 vs 1 ≈ 1).
// 2. Wall time of plan and of execute on 100 partitions, as ratios against the same on 1 partition, and
//    execute against kafkajs' own admin.setOffsets (which joins the group) on the same 100 partitions.
// Uses KAFKA_BROKERS when set, otherwise starts the embedded broker.
import { randomBytes } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { Bench } from 'tinybench';
import { seedTopic } from '../../test/support/seed-topic.ts';
import { type EmbeddedBroker, startBroker } from '../broker/broker.ts';
import { connectReplayKafka } from './connection.ts';
import { executeReplay } from './execute.ts';
import { planReplay } from './plan.ts';

const broker: EmbeddedBroker | undefined = process.env.KAFKA_BROKERS ? undefined : await startBroker();
const brokers = process.env.KAFKA_BROKERS?.split(',') ?? [broker!.bootstrapServers];
const kafkajs = new Kafka({ clientId: 'replay-bench', brokers, logLevel: logLevel.NOTHING });
const replay = await connectReplayKafka({ brokers });
const SIZES = [1, 10, 100] as const;
const id = () => randomBytes(4).toString('hex');

const topics = new Map<number, string>();
for (const partitions of SIZES) {
  const topic = `bench-replay-${partitions}-${id()}`;
  await seedTopic(kafkajs, { topic, partitions, records: 20 });
  topics.set(partitions, topic);
}

/** A group whose offsets sit at 15 on every partition of the topic. */
async function freshGroup(partitions: number): Promise<string> {
  const groupId = `bench-replay-group-${id()}`;
  await replay.commitOffsets({
    groupId,
    topic: topics.get(partitions)!,
    offsets: Array.from({ length: partitions }, (_, partition) => ({ partition, offset: 15, metadata: '' })),
  });
  return groupId;
}

async function counted(action: () => Promise<unknown>): Promise<number> {
  const before = replay.requestCount();
  await action();
  return replay.requestCount() - before;
}

const plan = (partitions: number, groupId: string) =>
  planReplay({
    kafka: replay,
    groupId,
    topic: topics.get(partitions)!,
    target: { kind: 'shift', by: -5 },
  });
const execute = (partitions: number, groupId: string) =>
  executeReplay({
    kafka: replay,
    groupId,
    topic: topics.get(partitions)!,
    target: { kind: 'shift', by: -5 },
  });

console.log('Broker round trips (Kafka requests), first call on a fresh group then steady state:');
const trips: Record<string, number | string>[] = [];
for (const partitions of SIZES) {
  const groupId = await freshGroup(partitions);
  const other = await freshGroup(partitions);
  trips.push({
    partitions,
    'plan (first)': await counted(() => plan(partitions, groupId)),
    plan: await counted(() => plan(partitions, groupId)),
    execute: await counted(() => execute(partitions, other)),
  });
}
console.table(trips);
const ratio = (key: string) => (Number(trips[2]![key]) / Number(trips[0]![key])).toFixed(2);
console.log(`round trips, 100 partitions vs 1: plan ×${ratio('plan')}, execute ×${ratio('execute')}`);

// Execute alternates its target so every run really moves the offsets of the same group.
let flip = 0;
const move = (partitions: number, groupId: string) =>
  executeReplay({
    kafka: replay,
    groupId,
    topic: topics.get(partitions)!,
    target: { kind: 'offset', offset: flip++ % 2 === 0 ? 5 : 10 },
  });
const [one, hundred] = [await freshGroup(1), await freshGroup(100)];
const bench = new Bench({ iterations: 20, warmupIterations: 3 });
bench
  .add('plan, 1 partition', async () => void (await plan(1, one)))
  .add('plan, 100 partitions', async () => void (await plan(100, hundred)))
  .add('execute, 1 partition', async () => void (await move(1, one)))
  .add('execute, 100 partitions', async () => void (await move(100, hundred)));
await bench.run();

// kafkajs admin.setOffsets for comparison (joins the group with a consumer, no metadata): fewer samples.
const admin = kafkajs.admin();
await admin.connect();
const baseline = new Bench({ iterations: 5, warmupIterations: 1 });
baseline.add('kafkajs admin.setOffsets, 100 partitions', async () => {
  await admin.setOffsets({
    groupId: `bench-replay-kafkajs-${id()}`,
    topic: topics.get(100)!,
    partitions: Array.from({ length: 100 }, (_, partition) => ({ partition, offset: '10' })),
  });
});
await baseline.run();
await admin.disconnect();

function latency(task: Bench['tasks'][number]) {
  const result = task.result;
  if (!('latency' in result))
    throw new Error(`${task.name}: ${'error' in result ? result.error.message : result.state}`);
  return result.latency;
}
const mean = (b: Bench, name: string) => latency(b.tasks.find((t) => t.name === name)!).mean;
const table = [...bench.tasks, ...baseline.tasks].map((t) => ({
  task: t.name,
  'mean ms': latency(t).mean.toFixed(1),
  'p99 ms': latency(t).p99.toFixed(1),
  samples: latency(t).samplesCount,
}));
console.table(table);
const vsKafkajs =
  mean(bench, 'execute, 100 partitions') / mean(baseline, 'kafkajs admin.setOffsets, 100 partitions');
console.log(
  `time, 100 partitions vs 1: plan ×${(mean(bench, 'plan, 100 partitions') / mean(bench, 'plan, 1 partition')).toFixed(2)}, execute ×${(
    mean(bench, 'execute, 100 partitions') / mean(bench, 'execute, 1 partition')
  ).toFixed(
    2,
  )}; execute vs kafkajs admin.setOffsets (100 partitions): ×${vsKafkajs.toFixed(4)} (${Math.round(1 / vsKafkajs)} times faster)`,
);

await replay.disconnect();
await broker?.stop();
