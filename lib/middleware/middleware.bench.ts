// kafkaBatch benchmarks, every figure a ratio against a baseline measured in this run:
// 1. CPU path: a 10,000-record (~5 MB) MSK event, JSON values, 10 partitions — the middleware against a
//    hand-written floor loop (decode, parse, call, build the response) and against Powertools'
//    kafkaConsumer doing the same work.
// 2. I/O path: the same event, a handler awaiting ~1 ms per record — wall time per ordering and
//    concurrency against the ideal and against a hand-written worker pool doing the same waits.
// 3. Memory: peak heap growth while processing, against the event's size.
// (Bundle size and import time of functions/orders: infra/bundle.bench.ts.)
import { setTimeout as sleep } from 'node:timers/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { kafkaConsumer } from '@aws-lambda-powertools/kafka';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { Bench, type Task } from 'tinybench';
import * as v from 'valibot';
import { encodeEventRecord } from '../kafka-event/encode.ts';
import type {
  KafkaBatchItemFailure,
  KafkaBatchResponse,
  KafkaEvent,
  KafkaEventRecord,
} from '../kafka-event/types.ts';
import { createLambdaContext } from '../lambda-runtime/context.ts';
import { type KafkaBatchLogger, type KafkaOrdering, kafkaBatch } from './index.ts';

const PARTITIONS = 10;
const RECORDS = 10_000;
const TOPIC = 'order-events';
const quiet: KafkaBatchLogger = { info() {}, warn() {}, error() {} };

interface Order {
  orderId: string;
  customerId: string;
  items: { sku: string; quantity: number; unitPrice: number }[];
  note: string;
}

function buildEvent(): KafkaEvent {
  const records: Record<string, KafkaEventRecord[]> = {};
  for (let i = 0; i < RECORDS; i++) {
    const partition = i % PARTITIONS;
    const order: Order = {
      orderId: `o-${100_000 + i}`,
      customerId: `customer-${i % 997}`,
      items: Array.from({ length: 3 }, (_, k) => ({
        sku: `SKU-${(i * 7 + k) % 500}`,
        quantity: 1 + (k % 3),
        unitPrice: 9.99 + k,
      })),
      note: 'gift wrap',
    };
    const list = records[`${TOPIC}-${partition}`] ?? [];
    records[`${TOPIC}-${partition}`] = list;
    list.push(
      encodeEventRecord({
        topic: TOPIC,
        partition,
        offset: 1_000_000 + Math.floor(i / PARTITIONS),
        timestamp: Date.now() - 60_000,
        key: order.customerId,
        value: JSON.stringify(order),
        headers: [['content-type', 'application/json']],
      }),
    );
  }
  return {
    eventSource: 'aws:kafka',
    eventSourceArn: 'arn:aws:kafka:eu-west-1:111122223333:cluster/c/1',
    bootstrapServers: 'b-1:9098',
    records,
  };
}

const event = buildEvent();
const eventBytes = Buffer.byteLength(JSON.stringify(event));
const context = (): Context => createLambdaContext({ timeoutMs: 900_000 });

// The per-record work every contender does: read a field of the parsed value.
let sink = 0;
const work = (order: Order): void => {
  sink += order.items.length;
};

const OrderSchema = v.object({
  orderId: v.string(),
  customerId: v.string(),
  items: v.array(v.object({ sku: v.string(), quantity: v.number(), unitPrice: v.number() })),
  note: v.string(),
});

/** The floor: what a careful hand-written handler does, nothing more. */
function floorLoop(input: KafkaEvent, validate: boolean): KafkaBatchResponse {
  const batchItemFailures: KafkaBatchItemFailure[] = [];
  for (const key in input.records) {
    for (const record of input.records[key]!) {
      try {
        const parsed = JSON.parse(Buffer.from(record.value!, 'base64').toString('utf8')) as Order;
        work(validate ? v.parse(OrderSchema, parsed) : parsed);
      } catch {
        batchItemFailures.push({
          itemIdentifier: { partition: `${record.topic}-${record.partition}`, offset: record.offset },
        });
      }
    }
  }
  return { batchItemFailures };
}

const middleware = middy().use(
  kafkaBatch({ logger: quiet, onRecord: (record) => work(record.json() as Order) }),
);
const middlewareNone = middy().use(
  kafkaBatch({ logger: quiet, ordering: 'none', onRecord: (record) => work(record.json() as Order) }),
);
const middlewareSchema = middy().use(
  kafkaBatch({ logger: quiet, value: OrderSchema, onRecord: (record) => work(record.data) }),
);

// Powertools: kafkaConsumer decodes the records; building the partial response is left to the handler.
const powertools = kafkaConsumer<unknown, Order>(
  async (consumed) => {
    const batchItemFailures: KafkaBatchItemFailure[] = [];
    for (const record of consumed.records) {
      try {
        work(record.value);
      } catch {
        batchItemFailures.push({
          itemIdentifier: { partition: `${record.topic}-${record.partition}`, offset: record.offset },
        });
      }
    }
    return { batchItemFailures };
  },
  { value: { type: 'json' } },
);

function median(task: Task | undefined): number {
  const result = task?.result;
  if (result === undefined || !('latency' in result))
    throw new Error(`benchmark ${task?.name} did not complete`);
  return result.latency.p50;
}

// Sanity: every contender processes every record and reports nothing.
for (const [name, run] of [
  ['floor', async () => floorLoop(event, false)],
  ['middleware', () => middleware(event, context())],
  ['powertools', () => powertools(event as never, context())],
] as const) {
  const response = (await run()) as KafkaBatchResponse;
  if (response.batchItemFailures.length !== 0) throw new Error(`${name} reported failures`);
}

console.log(
  `CPU path: ${RECORDS} records, ${PARTITIONS} partitions, event ${(eventBytes / 1e6).toFixed(1)} MB`,
);
const contenders: [string, () => unknown][] = [
  ['floor loop', () => floorLoop(event, false)],
  ['kafkaBatch (partition)', () => middleware(event, context())],
  ['kafkaBatch (none)', () => middlewareNone(event, context())],
  ['powertools kafkaConsumer', () => powertools(event as never, context())],
  ['floor loop + valibot', () => floorLoop(event, true)],
  ['kafkaBatch + valibot schema', () => middlewareSchema(event, context())],
];
// The machine may be shared and noisy: short tinybench rounds over all contenders, repeated, so that
// a slow spell hits every contender alike; each figure is the median of the rounds' medians.
const ROUNDS = 15;
const perRound: number[][] = contenders.map(() => []);
for (let round = 0; round < ROUNDS; round++) {
  const cpu = new Bench({ iterations: 8, time: 0, warmupIterations: round === 0 ? 10 : 2 });
  for (const [name, run] of contenders) cpu.add(name, async () => void (await run()));
  await cpu.run();
  cpu.tasks.forEach((task, i) => {
    perRound[i]!.push(median(task));
  });
}
const mid = (values: number[]) => values.toSorted((a, b) => a - b)[values.length >> 1]!;
// Ratios are taken within each round (same machine state), then the median across rounds.
const ratio = (a: number, b: number) => mid(perRound[a]!.map((value, round) => value / perRound[b]![round]!));
const ms = (i: number) => mid(perRound[i]!).toFixed(2);
console.table([
  { task: 'floor loop', 'median (ms)': ms(0), ratio: '1.00x (baseline)' },
  {
    task: 'kafkaBatch (partition)',
    'median (ms)': ms(1),
    ratio: `${ratio(1, 0).toFixed(2)}x floor (goal ≤ 1.10x)`,
  },
  { task: 'kafkaBatch (none)', 'median (ms)': ms(2), ratio: `${ratio(2, 0).toFixed(2)}x floor` },
  {
    task: 'powertools kafkaConsumer',
    'median (ms)': ms(3),
    ratio: `kafkaBatch ${ratio(3, 1).toFixed(2)}x faster (goal ≥ 2x)`,
  },
  { task: 'floor loop + valibot', 'median (ms)': ms(4), ratio: '1.00x (baseline)' },
  {
    task: 'kafkaBatch + valibot schema',
    'median (ms)': ms(5),
    ratio: `${ratio(5, 4).toFixed(2)}x floor + valibot`,
  },
]);

// I/O path ------------------------------------------------------------------------------------------
const LATENCY_MS = 1;
const longestPartition = Math.max(...Object.values(event.records).map((list) => list.length));
const longestKey = (() => {
  const counts = new Map<string, number>();
  for (const list of Object.values(event.records))
    for (const r of list)
      counts.set(`${r.partition}/${r.key}`, (counts.get(`${r.partition}/${r.key}`) ?? 0) + 1);
  return Math.max(...counts.values());
})();

/** Wall time of one invocation, best of `rounds`. */
async function wall(run: () => Promise<unknown>, rounds = 2): Promise<number> {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < rounds; i++) {
    const start = performance.now();
    await run();
    best = Math.min(best, performance.now() - start);
  }
  return best;
}

/** Lengths of the runs that must be sequential under an ordering: partitions, keys, or single records. */
function laneLengths(ordering: KafkaOrdering): number[] {
  const lanes = new Map<string, number>();
  for (const list of Object.values(event.records))
    for (const r of list) {
      const lane =
        ordering === 'partition'
          ? `${r.partition}`
          : ordering === 'key'
            ? `${r.partition}/${r.key}`
            : `${r.partition}@${r.offset}`;
      lanes.set(lane, (lanes.get(lane) ?? 0) + 1);
    }
  return [...lanes.values()];
}

/** The hand-written floor: `concurrency` workers pulling lanes, awaiting 1 ms per record. */
async function handWrittenPool(lanes: number[], concurrency: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let lane = lanes[next++]; lane !== undefined; lane = lanes[next++])
      for (let k = 0; k < lane; k++) await sleep(LATENCY_MS);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, lanes.length) }, worker));
}

console.log(
  `\nI/O path: handler awaits ${LATENCY_MS} ms per record (longest partition ${longestPartition}, longest key ${longestKey} records)`,
);
const rows = [];
const ioCases: [KafkaOrdering, number][] = [
  ['partition', 5],
  ['partition', 10],
  ['key', 10],
  ['key', 100],
  ['key', 500],
  ['none', 10],
  ['none', 100],
  ['none', 500],
];
for (const [ordering, concurrency] of ioCases) {
  const handler = middy().use(
    kafkaBatch({ logger: quiet, ordering, concurrency, onRecord: () => sleep(LATENCY_MS) }),
  );
  const steps =
    ordering === 'partition'
      ? Math.ceil(PARTITIONS / concurrency) * longestPartition
      : Math.max(Math.ceil(RECORDS / concurrency), ordering === 'key' ? longestKey : 1);
  const lanes = laneLengths(ordering);
  const pooled = await wall(() => handWrittenPool(lanes, concurrency));
  const measured = await wall(() => handler(event, context()));
  rows.push({
    ordering,
    concurrency,
    'ideal (ms)': steps * LATENCY_MS,
    'hand-written pool (ms)': pooled.toFixed(0),
    'kafkaBatch (ms)': measured.toFixed(0),
    'vs ideal': `${(measured / (steps * LATENCY_MS)).toFixed(2)}x`,
    'vs pool': `${(measured / pooled).toFixed(2)}x`,
  });
}
console.table(rows);

// Memory ---------------------------------------------------------------------------------------------
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Peak heap growth (bytes) during one run, sampled every 250 records and at the end. */
async function peakGrowth(run: (sample: () => void) => Promise<unknown> | unknown): Promise<number> {
  gc();
  gc();
  const { heapUsed: before } = process.memoryUsage();
  let peak = before;
  let count = 0;
  const sample = () => {
    if (++count % 250 === 0) peak = Math.max(peak, process.memoryUsage().heapUsed);
  };
  await run(sample);
  peak = Math.max(peak, process.memoryUsage().heapUsed);
  return peak - before;
}

const memoryRows = [];
for (const [name, run] of [
  [
    'floor loop',
    (sample: () => void) => {
      for (const key in event.records)
        for (const record of event.records[key]!) {
          work(JSON.parse(Buffer.from(record.value!, 'base64').toString('utf8')) as Order);
          sample();
        }
    },
  ],
  [
    'floor loop + valibot',
    (sample: () => void) => {
      for (const key in event.records)
        for (const record of event.records[key]!) {
          work(v.parse(OrderSchema, JSON.parse(Buffer.from(record.value!, 'base64').toString('utf8'))));
          sample();
        }
    },
  ],
  [
    'kafkaBatch (partition)',
    (sample: () => void) =>
      middy().use(
        kafkaBatch({
          logger: quiet,
          onRecord: (record) => {
            work(record.json() as Order);
            sample();
          },
        }),
      )(event, context()),
  ],
  [
    'kafkaBatch + valibot schema',
    (sample: () => void) =>
      middy().use(
        kafkaBatch({
          logger: quiet,
          value: OrderSchema,
          onRecord: (record) => {
            work(record.data);
            sample();
          },
        }),
      )(event, context()),
  ],
] as const) {
  const growths = [];
  for (let i = 0; i < 3; i++) growths.push(await peakGrowth(run));
  const growth = Math.min(...growths);
  memoryRows.push({
    task: name,
    'peak heap growth (MB)': (growth / 1e6).toFixed(1),
    'vs event size': `${(growth / eventBytes).toFixed(2)}x (goal ≤ 3x)`,
  });
}
console.log(`\nMemory: event ${(eventBytes / 1e6).toFixed(1)} MB (JSON)`);
console.table(memoryRows);
if (sink === 0) console.log('');
