// Emulator benchmarks, figures as ratios against a baseline measured in this run:
// 1. Throughput: 100,000 records (~300 B JSON orders, 16 partitions) through the trigger emulator with
//    a no-op handler, in both modes: in-process (a handler function) and in the sandbox (the same no-op
//    as a module, in worker-thread execution environments, boots and cold starts included), each
//    against a plain kafkajs `eachBatch` consumer reading the same topic (goal ≥ 0.7, aim 0.9). Each
//    run uses a fresh consumer group (joining it is included for all) and a fresh sandbox. The tasks run
//    in rounds, one run of each per round in a rotating order, and each ratio is the median over rounds
//    of that round's baseline time over the task's: on a shared machine, load that comes and goes hits
//    a round's tasks alike instead of whichever task ran while it lasted. Next to it, the same ratio for
//    the second half of the records alone (from the 50,000th record read to the last): by then every
//    run has joined its group and, in the sandbox, started its environments (the table says how many
//    started later), so it is the throughput once warm, cold starts excluded; the full-run ratio stays
//    the figure of record.
// 2. Per-batch overhead: the in-memory cost of one 100-record batch through the emulator (encode as
//    Lambda does, take, hand over as text, packed or as objects, interpret the response) against only
//    encoding the same records to JSON.
// 3. A warm sandbox invocation of that 100-record event against the same invocation in-process.
// 4. A sandbox cold start against starting a bare worker thread; and what starting 16 bare threads at
//    once takes next to the baseline run (the boots alone of one environment per partition).
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { Kafka, type KafkaMessage, logLevel } from 'kafkajs';
import { Bench } from 'tinybench';
import { type EmbeddedBroker, startBroker } from '../broker/broker.ts';
import { encodeEventRecord } from '../kafka-event/encode.ts';
import { unpackKafkaEvent } from '../kafka-event/packed-event.ts';
import { createSandbox } from '../lambda-runtime/sandbox.ts';
import { batchEvent, eventOverhead, takeBatch, toPendingRecord } from './batch.ts';
import { createLocalEventSourceMapping } from './index.ts';
import { createInvoker } from './invoke.ts';
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

/** What one run measured besides its total time. */
interface RunResult {
  /** From the moment half the records were read (or handled) to the last one (ms). */
  secondHalfMs: number;
  /** Sandbox: environments the run started, and how many of them after the halfway point. */
  environments?: number;
  lateEnvironments?: number;
}

/** Counts records toward {@link RECORDS}, noting when half were seen and resolving when all were. */
function recordCounter() {
  let seen = 0;
  let halfAt: number | undefined;
  let done: () => void = () => {};
  let fail: (error: unknown) => void = () => {};
  const finished = new Promise<void>((resolve, reject) => {
    done = resolve;
    fail = reject;
  });
  return {
    finished,
    fail: (error: unknown) => fail(error),
    get halfReached() {
      return halfAt !== undefined;
    },
    count(records: number) {
      seen += records;
      if (halfAt === undefined && seen >= RECORDS / 2) halfAt = performance.now();
      if (seen >= RECORDS) done();
    },
    /** Once finished: the second half's duration. */
    secondHalfMs: () => performance.now() - (halfAt ?? Number.NaN),
  };
}

async function plainConsumer(): Promise<RunResult> {
  const consumer = kafka.consumer({ groupId: group(), maxWaitTimeInMs: 50 });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const counter = recordCounter();
  consumer.run({ eachBatch: async ({ batch }) => counter.count(batch.messages.length) }).catch(counter.fail);
  await counter.finished;
  const secondHalfMs = counter.secondHalfMs();
  await consumer.disconnect();
  return { secondHalfMs };
}

/**
 * One run through the trigger emulator. In-process: a handler function; sandbox: the same no-op as a
 * module, in worker-thread environments.
 */
async function emulator(
  batchSize: number,
  mode: 'in-process' | 'sandbox',
  maximumPollers?: number,
): Promise<RunResult> {
  let environments = 0;
  let lateEnvironments = 0;
  const counter = recordCounter();
  const count = (records: number) => counter.count(records);
  const mapping = createLocalEventSourceMapping({
    brokers,
    topic,
    consumerGroupId: group(),
    batchSize,
    maximumBatchingWindowInSeconds: 0,
    reportBatchItemFailures: true,
    ...(maximumPollers === undefined ? {} : { provisionedPollerConfig: { maximumPollers } }),
    ...(mode === 'sandbox'
      ? {
          function: {
            handler: noopModule,
            onSandboxEvent: (event) => {
              if (event.type !== 'init') return;
              environments++;
              if (counter.halfReached) lateEnvironments++;
            },
          },
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
  await counter.finished;
  const secondHalfMs = counter.secondHalfMs();
  await mapping.stop();
  return mode === 'sandbox' ? { secondHalfMs, environments, lateEnvironments } : { secondHalfMs };
}

const noopModule = fileURLToPath(new URL('../../bench/noop-handler.ts', import.meta.url));
const BASELINE = 'plain kafkajs eachBatch consumer (baseline)';
const tasks: { name: string; mode?: 'in-process' | 'sandbox'; run: () => Promise<RunResult> }[] = [
  { name: BASELINE, run: plainConsumer },
  {
    name: 'emulator in-process, batchSize 100 (Lambda default)',
    mode: 'in-process',
    run: () => emulator(100, 'in-process'),
  },
  {
    name: 'emulator in-process, batchSize 1,000',
    mode: 'in-process',
    run: () => emulator(1_000, 'in-process'),
  },
  {
    name: 'emulator sandbox, batchSize 100 (Lambda default)',
    mode: 'sandbox',
    run: () => emulator(100, 'sandbox'),
  },
  { name: 'emulator sandbox, batchSize 1,000', mode: 'sandbox', run: () => emulator(1_000, 'sandbox') },
  {
    name: 'emulator sandbox, batchSize 100, 1 provisioned poller (5 at once)',
    mode: 'sandbox',
    run: () => emulator(100, 'sandbox', 1),
  },
];
const ROUNDS = 5;
/** Per task, one entry per round: its time (ms) and what the run measured besides. */
const runs = new Map(tasks.map((task) => [task.name, [] as (RunResult & { ms: number })[]]));
for (let round = 0; round < ROUNDS; round++) {
  for (let i = 0; i < tasks.length; i++) {
    const task = tasks[(round + i) % tasks.length]!;
    const began = performance.now();
    const result = await task.run();
    runs.get(task.name)!.push({ ms: performance.now() - began, ...result });
  }
}
const median = (values: number[]) => {
  const sorted = values.toSorted((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const baseline = runs.get(BASELINE)!;
console.table(
  tasks.map((task) => {
    const own = runs.get(task.name)!;
    const ms = median(own.map((run) => run.ms));
    const ratios = own.map((run, round) => baseline[round]!.ms / run.ms);
    const warmRatios = own.map((run, round) => baseline[round]!.secondHalfMs / run.secondHalfMs);
    return {
      task: task.name,
      'median time (ms)': ms.toFixed(0),
      'records/s': Math.round(RECORDS / (ms / 1000)).toLocaleString('en-US'),
      'ratio to baseline': median(ratios).toFixed(2),
      'ratio per round': ratios.map((ratio) => ratio.toFixed(2)).join(' '),
      'second half: ratio': median(warmRatios).toFixed(2),
      'second half: per round': warmRatios.map((ratio) => ratio.toFixed(2)).join(' '),
      environments: task.mode === 'sandbox' ? own.map((run) => run.environments).join(' ') : '',
      'started in second half':
        task.mode === 'sandbox' ? own.map((run) => run.lateEnvironments).join(' ') : '',
    };
  }),
);
// What starting one environment per partition costs before any code of the sandbox runs: 16 bare
// worker threads started at once (the median of three), against the baseline run's median time.
const bareBoots: number[] = [];
for (let i = 0; i < 3; i++) {
  const began = performance.now();
  const workers = Array.from(
    { length: PARTITIONS },
    () => new Worker("require('node:worker_threads').parentPort.postMessage('up')", { eval: true }),
  );
  await Promise.all(workers.map((worker) => once(worker, 'message')));
  bareBoots.push(performance.now() - began);
  await Promise.all(workers.map((worker) => worker.terminate()));
}
const baselineMs = median(baseline.map((run) => run.ms));
console.log(
  `${PARTITIONS} bare worker threads started at once: ${median(bareBoots).toFixed(0)} ms, ${(median(bareBoots) / baselineMs).toFixed(2)}× the baseline run (${baselineMs.toFixed(0)} ms)`,
);

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
micro.add('emulator batch, as text (Invoke API): wrap, take, serialise, parse, interpret', () => {
  const queue = { partition: 0, records: messages.map((m) => toPendingRecord(topic, 0, m)) };
  const { parts } = takeBatch([queue], topic, 100, eventOverhead(header));
  JSON.parse(batchEvent(header, topic, parts).json());
  interpretResult({ kind: 'response', payload: { batchItemFailures: [] } }, topic, parts, true);
});
micro.add('emulator batch, packed (sandbox): wrap, take, pack, unpack, interpret', () => {
  const queue = { partition: 0, records: messages.map((m) => toPendingRecord(topic, 0, m)) };
  const { parts } = takeBatch([queue], topic, 100, eventOverhead(header));
  unpackKafkaEvent(batchEvent(header, topic, parts).packed()!);
  interpretResult({ kind: 'response', payload: { batchItemFailures: [] } }, topic, parts, true);
});
micro.add('emulator batch, as objects (in-process): wrap, take, build, interpret', () => {
  const queue = { partition: 0, records: messages.map((m) => toPendingRecord(topic, 0, m)) };
  const { parts } = takeBatch([queue], topic, 100, eventOverhead(header));
  batchEvent(header, topic, parts).parse();
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
const beyondEncoding = (i: number) => `${Math.max(0, (microMean(i) - microMean(0)) * 1000).toFixed(0)} µs`;
console.log(
  `per-batch overhead beyond encoding (100 records): as text ${beyondEncoding(1)}, packed ${beyondEncoding(2)}, as objects ${beyondEncoding(3)}`,
);

// A warm invocation with that 100-record event: in the sandbox (the batch packed, its buffers moved to
// the environment, the event built there, the response back) against the same no-op module loaded in-process (the event built as
// objects in this thread).
const event = batchEvent(header, topic, [
  takeBatch(
    [{ partition: 0, records: messages.map((m) => toPendingRecord(topic, 0, m)) }],
    topic,
    100,
    eventOverhead(header),
  ).parts[0]!,
]);
const payload = event.json();
const invokers = {
  'in-process (baseline)': createInvoker({ handler: noopModule, inProcess: true }),
  sandbox: createInvoker({ handler: noopModule }),
};
for (const invoker of Object.values(invokers)) await invoker.invoke(event, 'warm-up');
const invocations = new Bench({ time: 1_000 });
for (const [name, invoker] of Object.entries(invokers)) {
  invocations.add(`warm invocation, ${name}`, async () => {
    await invoker.invoke(event, 'request');
  });
}
await invocations.run();
const invocationMean = (i: number) => {
  const result = invocations.tasks[i]?.result;
  if (!result || !('latency' in result)) throw new Error('invocation task did not complete');
  return result.latency.mean;
};
console.table(
  invocations.tasks.map((task, i) => ({
    task: task.name,
    'µs per invocation': (invocationMean(i) * 1000).toFixed(0),
    'ratio to baseline': (invocationMean(i) / invocationMean(0)).toFixed(2),
  })),
);
for (const invoker of Object.values(invokers)) await invoker.close();

// A cold start: a fresh sandbox's first invocation of the no-op module (boot, init phase, invocation,
// then close) against starting and ending a bare worker thread, the floor of any environment.
const coldStarts = new Bench({ iterations: 10, time: 0 });
coldStarts.add('bare worker thread, started and ended (baseline)', async () => {
  const worker = new Worker("require('node:worker_threads').parentPort.postMessage('up')", { eval: true });
  await once(worker, 'message');
  await worker.terminate();
});
coldStarts.add('sandbox cold start: boot, init, invoke, close', async () => {
  const sandbox = createSandbox({ handler: noopModule, timeoutSeconds: 30 });
  await sandbox.invoke(payload, 'cold');
  await sandbox.close();
});
await coldStarts.run();
const coldStartMedian = (i: number) => {
  const result = coldStarts.tasks[i]?.result;
  if (!result || !('latency' in result)) throw new Error('cold start task did not complete');
  return result.latency.p50;
};
console.table(
  coldStarts.tasks.map((task, i) => ({
    task: task.name,
    'median ms': coldStartMedian(i).toFixed(0),
    'ratio to baseline': (coldStartMedian(i) / coldStartMedian(0)).toFixed(2),
  })),
);

await admin.deleteTopics({ topics: [topic] }).catch(() => {});
await admin.disconnect();
await broker?.stop();
