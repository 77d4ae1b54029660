import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { format } from 'node:util';
import type { Command } from 'commander';
import { Kafka, logLevel } from 'kafkajs';
import { runReplayDemo } from '../../../demo/replay-step.ts';
import { startBroker } from '../../broker/index.ts';
import {
  createLocalEventSourceMapping,
  type FailureEnvelope,
  type MappingEvent,
} from '../../emulator/index.ts';
import { describeEvent } from '../../emulator/progress.ts';
import type { KafkaEvent } from '../../kafka-event/types.ts';
import { loadHandler } from '../../lambda-runtime/load-handler.ts';
import { partitionForKey } from '../../testing/partitioner.ts';
import { redirectConsole } from '../console.ts';
import { USAGE_EXIT_CODE } from '../usage.ts';

/**
 * Where the demo's data is, for steps appended after it (e.g. a replay).
 *
 * @example
 * ```ts
 * const { brokers, groupId, topic } = await runDemo(brokers);
 * ```
 */
export interface DemoResult {
  brokers: string[];
  topic: string;
  deadLetterTopic: string;
  groupId: string;
  partitions: number;
}

/**
 * The demo's self-check found a difference between what happened and what Lambda guarantees.
 *
 * @example
 * ```ts
 * await runDemo(brokers).catch((e) => { if (e instanceof DemoCheckError) process.exitCode = 1; });
 * ```
 */
export class DemoCheckError extends Error {
  override readonly name = 'DemoCheckError';
}

const PARTITIONS = 3;
const ORDERS = 60;
const FUNCTION = 'functions/orders/handler.ts';
const SKUS = ['coffee-beans-1kg', 'green-tea-100g', 'oat-milk-1l', 'dark-chocolate-200g', 'espresso-cups-x6'];
const POISON = [
  { at: 9, kind: 'value is not JSON', value: '{"orderId":"o-1009","customerId":"c-3","items":[{"sku"' },
  {
    at: 23,
    kind: 'quantity 0',
    order: { orderId: 'o-1023', customerId: 'c-8', items: [{ sku: 'oat-milk-1l', quantity: 0 }] },
  },
  {
    at: 41,
    kind: 'no customer',
    order: { orderId: 'o-1041', items: [{ sku: 'green-tea-100g', quantity: 2 }] },
  },
];
/**
 * The warehouse refuses these offsets' orders once with a 503 (a transient failure the retry recovers
 * from). Retries are counted per batch, so they sit more than a batch apart: several transient
 * failures in one batch could exhaust its retries and send a good order to the dead-letter topic.
 */
const FLAKY_OFFSETS = [4, 15];

interface Produced {
  partition: number;
  offset: number;
  key: string;
  poison?: string;
  orderId?: string;
}

const out = (text = '') => process.stdout.write(`${text}\n`);

function sampleOrder(i: number) {
  const items = Array.from({ length: 1 + (i % 3) }, (_, k) => ({
    sku: SKUS[(i + k * 2) % SKUS.length]!,
    quantity: 1 + ((i + k) % 4),
  }));
  return {
    orderId: `o-${1000 + i}`,
    customerId: `c-${(i * 7) % 11}`,
    items,
    placedAt: new Date(Date.UTC(2026, 10, 29, 9, 0, i)).toISOString(),
  };
}

/** The warehouse the orders function calls, served locally: idempotent by order id, 503 once for FLAKY orders. */
async function startWarehouse(flaky: Set<string>): Promise<{
  url: string;
  server: Server;
  reserved: Set<string>;
  refusals: number;
  duplicates: number;
}> {
  const state = { reserved: new Set<string>(), refused: new Set<string>(), refusals: 0, duplicates: 0 };
  const server = createServer((request, response) => {
    const id = request.headers['idempotency-key'];
    request.resume();
    request.on('end', () => {
      const orderId = typeof id === 'string' ? id : '';
      if (flaky.has(orderId) && !state.refused.has(orderId)) {
        state.refused.add(orderId);
        state.refusals++;
        response.writeHead(503).end();
      } else if (state.reserved.has(orderId)) {
        state.duplicates++;
        response.writeHead(409).end();
      } else {
        state.reserved.add(orderId);
        response.writeHead(201).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    reserved: state.reserved,
    get refusals() {
      return state.refusals;
    },
    get duplicates() {
      return state.duplicates;
    },
  };
}

async function produceOrders(kafka: Kafka, topic: string): Promise<Produced[]> {
  const next = Array<number>(PARTITIONS).fill(0);
  const produced: Produced[] = [];
  const messages = [];
  for (let i = 0; i < ORDERS; i++) {
    const poison = POISON.find((p) => p.at === i);
    const order = sampleOrder(i);
    const key = poison?.order?.customerId ?? (poison?.order ? 'unknown' : order.customerId);
    const value = poison ? (poison.value ?? JSON.stringify(poison.order)) : JSON.stringify(order);
    const partition = partitionForKey(Buffer.from(key), PARTITIONS);
    produced.push({
      partition,
      offset: next[partition]!++,
      key,
      ...(poison ? { poison: poison.kind } : { orderId: order.orderId }),
    });
    messages.push({
      partition,
      key,
      value,
      headers: { 'content-type': 'application/json', source: 'shop-web' },
    });
  }
  const producer = kafka.producer({ allowAutoTopicCreation: false });
  await producer.connect();
  await producer.send({ topic, messages });
  await producer.disconnect();
  return produced;
}

async function readDeadLetters(kafka: Kafka, topic: string, count: number): Promise<FailureEnvelope[]> {
  const consumer = kafka.consumer({ groupId: `${topic}-reader-${Date.now()}`, maxWaitTimeInMs: 250 });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const envelopes: FailureEnvelope[] = [];
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, 10_000);
    void consumer.run({
      eachMessage: async ({ message }) => {
        envelopes.push(JSON.parse(message.value?.toString() ?? 'null') as FailureEnvelope);
        if (envelopes.length >= count) {
          clearTimeout(timer);
          resolve();
        }
      },
    });
  });
  await consumer.disconnect();
  return envelopes;
}

/**
 * Routes the function's console output (the middleware's JSON log lines) through `show`, which prints
 * its warnings and errors in one short line each and drops the rest, so the demo's story stays readable.
 */
function captureConsole(show: (line: string) => void): { restore: () => void } {
  const restore = redirectConsole(() => (...args) => {
    const text = format(...args);
    try {
      const entry = JSON.parse(text) as { level?: string; message?: string; errorMessage?: string };
      if (entry.level === 'ERROR' || entry.level === 'WARN') {
        show(
          `function log: ${entry.level} ${entry.message}${entry.errorMessage ? ` — ${entry.errorMessage}` : ''}`,
        );
      }
    } catch {
      show(`function log: ${text}`);
    }
  });
  return { restore };
}

/**
 * The demo on a running cluster: topics, sample orders (a few poison, a few refused once by the
 * warehouse), the orders function through the emulator, then the dead-letter topic and the committed
 * offsets. Throws {@link DemoCheckError} if anything was lost or misplaced.
 *
 * @example
 * ```ts
 * const result = await runDemo(['127.0.0.1:9092']);
 * ```
 */
export async function runDemo(brokers: string[]): Promise<DemoResult> {
  const kafka = new Kafka({ clientId: 'kafka-lambda-demo', brokers, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  const existing = new Set(await admin.listTopics());
  const suffix = existing.has('orders') ? `-${Date.now().toString(36)}` : '';
  const topic = `orders${suffix}`;
  const deadLetterTopic = `orders-dlq${suffix}`;
  const groupId = `orders-processor${suffix}`;
  await admin.createTopics({
    topics: [
      { topic, numPartitions: PARTITIONS },
      { topic: deadLetterTopic, numPartitions: 1 },
    ],
    waitForLeaders: true,
  });
  out(`② topics       ${topic} (${PARTITIONS} partitions), ${deadLetterTopic} (dead-letter topic)`);

  const produced = await produceOrders(kafka, topic);
  const poison = produced.filter((p) => p.poison);
  out(
    `③ produced     ${ORDERS} orders keyed by customer, ${poison.length} of them poison: ${poison
      .map((p) => `${topic}-${p.partition}@${p.offset} (${p.poison})`)
      .join(', ')}`,
  );

  const flaky = produced.filter((p) => p.orderId && FLAKY_OFFSETS.includes(p.offset));
  const warehouse = await startWarehouse(new Set(flaky.map((p) => p.orderId!)));
  // The function picks its downstream from the environment when its module loads.
  const previousUrl = process.env.RESERVATIONS_URL;
  process.env.RESERVATIONS_URL = warehouse.url;
  const handler = await loadHandler(FUNCTION).finally(() => {
    if (previousUrl === undefined) delete process.env.RESERVATIONS_URL;
    else process.env.RESERVATIONS_URL = previousUrl;
  });
  out(
    `   warehouse    a local HTTP stand-in the function calls; it refuses ${flaky.length} orders once with a 503: ${flaky
      .map((p) => `${topic}-${p.partition}@${p.offset}`)
      .join(', ')}`,
  );
  out(
    `④ trigger      ${FUNCTION} in-process · batchSize 10 · window 0.5 s · ReportBatchItemFailures · MaximumRetryAttempts 2 · OnFailure kafka://${deadLetterTopic}`,
  );
  out();

  const started = Date.now();
  const elapsed = () => `+${((Date.now() - started) / 1000).toFixed(2)}s`;
  const log = (event: MappingEvent) => {
    const line =
      event.type === 'invoke' && event.outcome === 'success'
        ? `ok: ${event.records} records (${Object.entries(event.offsets)
            .map(([key, [first, last]]) => (first === last ? `${key}@${first}` : `${key}@${first}..${last}`))
            .join(' ')}; attempt ${event.attempt})`
        : describeEvent(event);
    if (line) out(`   ${elapsed()}  ${line}`);
  };
  const functionLog = captureConsole((line) => out(`   ${elapsed()}    ${line}`));
  const mapping = createLocalEventSourceMapping({
    brokers,
    topic,
    consumerGroupId: groupId,
    batchSize: 10,
    reportBatchItemFailures: true,
    maximumRetryAttempts: 2,
    onFailure: `kafka://${deadLetterTopic}`,
    function: {
      handler: handler as (event: KafkaEvent) => Promise<unknown>,
      functionName: 'orders',
      timeoutSeconds: 10,
    },
    onEvent: log,
  });
  try {
    await mapping.start();
    await mapping.idle();
  } finally {
    await mapping.stop();
    functionLog.restore();
    warehouse.server.close();
  }
  const stats = mapping.stats();
  out();

  const envelopes = await readDeadLetters(kafka, deadLetterTopic, poison.length);
  out(`⑤ dead-letter  ${envelopes.length} records on ${deadLetterTopic} (Lambda's per-record envelope):`);
  for (const envelope of envelopes) {
    const offset = Number(envelope.KafkaBatchInfo.recordInfo.offset);
    const [record] = Object.values(envelope.payload.records).flat();
    const origin = produced.find((p) => p.partition === record?.partition && p.offset === offset);
    out(
      `   ${topic}-${record?.partition}@${offset}  ${envelope.requestContext.condition} after ${envelope.requestContext.approximateInvokeCount} invocations  key ${origin?.key}  (${origin?.poison ?? 'not poison!'})`,
    );
  }

  const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] });
  const ends = await admin.fetchTopicOffsets(topic);
  await admin.disconnect();
  out(`⑥ committed    offsets of group ${groupId}, read back from the broker:`);
  for (const end of ends.sort((a, b) => a.partition - b.partition)) {
    const at = committed?.partitions.find((p) => p.partition === end.partition)?.offset ?? '-';
    out(`   ${topic}-${end.partition}  committed ${at} of ${end.high}  lag ${Number(end.high) - Number(at)}`);
  }

  const expected = produced.filter((p) => p.orderId).map((p) => p.orderId!);
  const missing = expected.filter((id) => !warehouse.reserved.has(id));
  const misplaced = envelopes.filter((e) => {
    const [record] = Object.values(e.payload.records).flat();
    return !poison.some((p) => p.partition === record?.partition && p.offset === record?.offset);
  });
  const lag = ends.some(
    (end) => committed?.partitions.find((p) => p.partition === end.partition)?.offset !== end.high,
  );
  out();
  out(
    `report: ${ORDERS} orders → ${warehouse.reserved.size} reserved, ${envelopes.length} on the dead-letter topic; ` +
      `${stats.invocations} invocations, ${stats.partialFailures} partial failures, ${stats.retries} retries by offset, ` +
      `${warehouse.refusals} transient refusals recovered` +
      (warehouse.duplicates > 0
        ? `, ${warehouse.duplicates} redelivered orders absorbed by idempotency`
        : ''),
  );
  if (missing.length > 0 || misplaced.length > 0 || envelopes.length !== poison.length || lag) {
    throw new DemoCheckError(
      `self-check failed: ${missing.length} orders not reserved, ${misplaced.length} good records on the dead-letter topic, lag ${lag}`,
    );
  }
  out(
    'self-check: every valid order reserved, only poison on the dead-letter topic, all offsets committed ✓',
  );
  return { brokers, topic, deadLetterTopic, groupId, partitions: PARTITIONS };
}

/**
 * `kafka-lambda demo`: the main job (`npm start`).
 *
 * @example
 * ```ts
 * registerDemoCommand(program);
 * ```
 */
export function registerDemoCommand(program: Command): void {
  program
    .command('demo')
    .description(
      "start a broker, produce sample orders (some poison, some refused once downstream), run the orders function through Lambda's Kafka trigger emulator, show retries by offset, the dead-letter topic and the committed offsets, then replay part of a partition",
    )
    .action(async () => {
      if (!existsSync(FUNCTION)) {
        // An installed package has no example function: the demo belongs to the repository.
        console.error(
          `kafka-lambda demo is a repository command: it runs the example function ${FUNCTION} of a clone of kafka-lambda (npm start there). For your own handler: kafka-lambda dev <handler> --topic <topic>`,
        );
        process.exitCode = USAGE_EXIT_CODE;
        return;
      }
      out("kafka-lambda demo: Lambda's Kafka trigger, locally, against a real broker");
      out();
      const external = process.env.KAFKA_BROKERS;
      if (!external) out('starting the embedded Apache Kafka broker…');
      const broker = external ? undefined : await startBroker();
      const brokers = external?.split(',') ?? [broker!.bootstrapServers];
      out(
        broker
          ? `① broker       embedded Apache Kafka ${broker.version} at ${broker.bootstrapServers}`
          : `① broker       ${external} (KAFKA_BROKERS)`,
      );
      try {
        await runReplayDemo(await runDemo(brokers));
      } finally {
        await broker?.stop();
      }
    });
}
