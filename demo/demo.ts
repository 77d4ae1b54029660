// The demo on a running cluster: the example orders function (functions/orders) behind Lambda's Kafka
// trigger, emulated, with a warehouse that fails now and then and a few poison records.
import { format } from 'node:util';
import { ensureTopics } from 'kafka-lambda/broker';
import {
  type AsyncHandler,
  createLocalEventSourceMapping,
  describeEvent,
  type FailureEnvelope,
  type KafkaEvent,
  type MappingEvent,
  type MappingStats,
} from 'kafka-lambda/emulator';
import { Kafka, logLevel } from 'kafkajs';
import { DemoCheckError } from './errors.ts';
import { type DemoOrder, demoOrders, ORDER_COUNT, ORDER_PARTITIONS } from './orders.ts';
import { startWarehouse } from './warehouse.ts';

/** The example function, found next to this file whatever the working directory. */
const ORDERS_FUNCTION = new URL('../functions/orders/handler.ts', import.meta.url);
/** How the demo names the function in its output: its path in this repository. */
const ORDERS_FUNCTION_NAME = 'functions/orders/handler.ts';

/**
 * Where the demo's data is, for steps appended after it (the replay step).
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
 * Prints a line of the demo's story (stdout by default).
 *
 * @example
 * ```ts
 * const lines: string[] = [];
 * await runDemo(brokers, (line = '') => lines.push(line));
 * ```
 */
export type DemoOutput = (line?: string) => void;

const stdout: DemoOutput = (line = '') => process.stdout.write(`${line}\n`);

async function produceOrders(kafka: Kafka, topic: string, orders: DemoOrder[]): Promise<void> {
  const producer = kafka.producer({ allowAutoTopicCreation: false });
  await producer.connect();
  try {
    await producer.send({
      topic,
      messages: orders.map(({ partition, key, value }) => ({
        partition,
        key,
        value,
        headers: { 'content-type': 'application/json', source: 'shop-web' },
      })),
    });
  } finally {
    await producer.disconnect();
  }
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

const CONSOLE_METHODS = ['log', 'info', 'warn', 'error', 'debug'] as const;

/**
 * Routes the function's console output (the middleware's JSON log lines) through `show`, which prints
 * its warnings and errors in one short line each and drops the rest, so the demo's story stays readable.
 * Returns the function that puts the console back.
 */
function captureFunctionLogs(show: (line: string) => void): () => void {
  const saved = CONSOLE_METHODS.map((name) => [name, console[name]] as const);
  const capture = (...args: unknown[]) => {
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
  };
  for (const name of CONSOLE_METHODS) console[name] = capture;
  return () => {
    for (const [name, original] of saved) console[name] = original;
  };
}

/**
 * Loads the orders function with its downstream pointed at `reservationsUrl`: the function picks its
 * downstream from the environment when its module loads.
 */
async function loadOrdersFunction(reservationsUrl: string): Promise<AsyncHandler<KafkaEvent>> {
  const previousUrl = process.env.RESERVATIONS_URL;
  process.env.RESERVATIONS_URL = reservationsUrl;
  try {
    const { handler } = (await import(
      ORDERS_FUNCTION.href
    )) as typeof import('../functions/orders/handler.ts');
    return handler;
  } finally {
    if (previousUrl === undefined) delete process.env.RESERVATIONS_URL;
    else process.env.RESERVATIONS_URL = previousUrl;
  }
}

/**
 * The demo on a running cluster: topics, sample orders (a few poison, a few refused once by the
 * warehouse), the orders function through the trigger emulator, then the dead-letter topic and the
 * committed offsets. Throws {@link DemoCheckError} if anything was lost or misplaced.
 *
 * @example
 * ```ts
 * const result = await runDemo(['127.0.0.1:9092']);
 * ```
 */
export async function runDemo(brokers: string[], out: DemoOutput = stdout): Promise<DemoResult> {
  const kafka = new Kafka({ clientId: 'kafka-lambda-demo', brokers, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  try {
    // On a cluster that already has `orders` (a previous run, or KAFKA_BROKERS), the demo uses fresh names.
    const suffix = (await admin.listTopics()).includes('orders') ? `-${Date.now().toString(36)}` : '';
    const topic = `orders${suffix}`;
    const deadLetterTopic = `orders-dlq${suffix}`;
    const groupId = `orders-processor${suffix}`;
    await ensureTopics({
      brokers,
      topics: [
        { topic, partitions: ORDER_PARTITIONS },
        { topic: deadLetterTopic, partitions: 1 },
      ],
    });
    out(`② topics       ${topic} (${ORDER_PARTITIONS} partitions), ${deadLetterTopic} (dead-letter topic)`);

    const orders = demoOrders();
    await produceOrders(kafka, topic, orders);
    const poison = orders.filter((order) => order.poison);
    out(
      `③ produced     ${ORDER_COUNT} orders keyed by customer, ${poison.length} of them poison: ${poison
        .map((p) => `${topic}-${p.partition}@${p.offset} (${p.poison})`)
        .join(', ')}`,
    );

    const refusedOnce = orders.filter((order) => order.refusedOnce);
    const warehouse = await startWarehouse(new Set(refusedOnce.map((order) => order.orderId!)));
    let stats: MappingStats;
    try {
      const handler = await loadOrdersFunction(warehouse.url);
      out(
        `   warehouse    a local HTTP stand-in the function calls; it refuses ${refusedOnce.length} orders once with a 503: ${refusedOnce
          .map((p) => `${topic}-${p.partition}@${p.offset}`)
          .join(', ')}`,
      );
      out(
        `④ trigger      ${ORDERS_FUNCTION_NAME} in-process · batchSize 10 · window 0.5 s · ReportBatchItemFailures · MaximumRetryAttempts 2 · OnFailure kafka://${deadLetterTopic}`,
      );
      out();

      const started = Date.now();
      const elapsed = () => `+${((Date.now() - started) / 1000).toFixed(2)}s`;
      const log = (event: MappingEvent) => {
        const line =
          event.type === 'invoke' && event.outcome === 'success'
            ? `ok: ${event.records} records (${Object.entries(event.offsets)
                .map(([key, [first, last]]) =>
                  first === last ? `${key}@${first}` : `${key}@${first}..${last}`,
                )
                .join(' ')}; attempt ${event.attempt})`
            : describeEvent(event);
        if (line) out(`   ${elapsed()}  ${line}`);
      };
      const restoreConsole = captureFunctionLogs((line) => out(`   ${elapsed()}    ${line}`));
      const trigger = createLocalEventSourceMapping({
        brokers,
        topic,
        consumerGroupId: groupId,
        batchSize: 10,
        reportBatchItemFailures: true,
        maximumRetryAttempts: 2,
        onFailure: `kafka://${deadLetterTopic}`,
        // Provisioned mode, as the stack deploys the trigger: AWS offers the settings above only there.
        provisionedPollerConfig: { minimumPollers: 1, maximumPollers: 3 },
        function: { handler, functionName: 'orders', timeoutSeconds: 10 },
        onEvent: log,
      });
      try {
        await trigger.start();
        await trigger.idle();
      } finally {
        await trigger.stop();
        restoreConsole();
      }
      stats = trigger.stats();
    } finally {
      await warehouse.close();
    }
    out();

    const envelopes = await readDeadLetters(kafka, deadLetterTopic, poison.length);
    out(`⑤ dead-letter  ${envelopes.length} records on ${deadLetterTopic} (Lambda's per-record envelope):`);
    for (const envelope of envelopes) {
      const offset = Number(envelope.KafkaBatchInfo.recordInfo.offset);
      const [record] = Object.values(envelope.payload.records).flat();
      const origin = orders.find((p) => p.partition === record?.partition && p.offset === offset);
      out(
        `   ${topic}-${record?.partition}@${offset}  ${envelope.requestContext.condition} after ${envelope.requestContext.approximateInvokeCount} invocations  key ${origin?.key}  (${origin?.poison ?? 'not poison!'})`,
      );
    }

    const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] });
    const ends = await admin.fetchTopicOffsets(topic);
    out(`⑥ committed    offsets of group ${groupId}, read back from the broker:`);
    for (const end of ends.sort((a, b) => a.partition - b.partition)) {
      const at = committed?.partitions.find((p) => p.partition === end.partition)?.offset ?? '-';
      out(
        `   ${topic}-${end.partition}  committed ${at} of ${end.high}  lag ${Number(end.high) - Number(at)}`,
      );
    }

    const expected = orders.filter((p) => p.orderId).map((p) => p.orderId!);
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
      `report: ${ORDER_COUNT} orders → ${warehouse.reserved.size} reserved, ${envelopes.length} on the dead-letter topic; ` +
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
    return { brokers, topic, deadLetterTopic, groupId, partitions: ORDER_PARTITIONS };
  } finally {
    await admin.disconnect();
  }
}
