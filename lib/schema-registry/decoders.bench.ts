// Schema-registry decoders, every figure a ratio against a baseline measured in this run:
// 10,000-record events (10 partitions) of Avro and of Protobuf values — kafkaBatch with the decoders
// against a hand-written loop using the same library directly (goal ≤ 1.2x) and against Powertools'
// kafkaConsumer decoding the same records (goal ≥ 2x faster). Powertools reads Avro and Protobuf only
// as Lambda hands them over with EventRecordFormat SOURCE (framing removed, metadata present), so the
// comparison uses that event; kafkaBatch is also measured on Confluent-framed bytes resolving the
// writer schema by id from a registry (a loopback stand-in): one request per id, none after warm-up.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { kafkaConsumer } from '@aws-lambda-powertools/kafka';
import middy from '@middy/core';
import avsc from 'avsc';
import protobuf from 'protobufjs';
import { Bench, type Task } from 'tinybench';
import { avroDecoder } from '../avro/index.ts';
import { encodeEventRecord } from '../kafka-event/encode.ts';
import type {
  KafkaBatchItemFailure,
  KafkaBatchResponse,
  KafkaEvent,
  KafkaEventRecord,
} from '../kafka-event/types.ts';
import { createLambdaContext } from '../lambda-runtime/context.ts';
import { type KafkaBatchLogger, kafkaBatch } from '../middleware/index.ts';
import { protobufDecoder } from '../protobuf/index.ts';
import { confluentSchemaRegistry } from './registry.ts';

const PARTITIONS = 10;
const RECORDS = 10_000;
const TOPIC = 'order-events';
const SCHEMA_ID = 17;
const quiet: KafkaBatchLogger = { info() {}, warn() {}, error() {} };

interface Order {
  orderId: string;
  customerId: string;
  quantity: number;
  unitPrice: number;
  note: string;
}
const avroSchema = {
  type: 'record',
  name: 'Order',
  fields: [
    { name: 'orderId', type: 'string' },
    { name: 'customerId', type: 'string' },
    { name: 'quantity', type: 'int' },
    { name: 'unitPrice', type: 'double' },
    { name: 'note', type: 'string' },
  ],
};
const AvroOrder = avsc.Type.forSchema(avroSchema as avsc.Schema);
const proto = protobuf.parse(
  'syntax = "proto3"; message Order { string orderId = 1; string customerId = 2; int32 quantity = 3; double unitPrice = 4; string note = 5; }',
).root;
const ProtoOrder = proto.lookupType('Order');

const order = (i: number): Order => ({
  orderId: `o-${100_000 + i}`,
  customerId: `customer-${i % 997}`,
  quantity: 1 + (i % 5),
  unitPrice: 9.99 + (i % 7),
  note: 'gift wrap',
});

function confluentHeader(): Buffer {
  const header = Buffer.alloc(5);
  header.writeInt32BE(SCHEMA_ID, 1);
  return header;
}

/** An event whose values are `encode(i)`, with schema metadata when `dataFormat` is given (SOURCE). */
function buildEvent(encode: (i: number) => Buffer, dataFormat?: string): KafkaEvent {
  const records: Record<string, KafkaEventRecord[]> = {};
  for (let i = 0; i < RECORDS; i++) {
    const partition = i % PARTITIONS;
    const list = records[`${TOPIC}-${partition}`] ?? [];
    records[`${TOPIC}-${partition}`] = list;
    const record = encodeEventRecord({
      topic: TOPIC,
      partition,
      offset: 1_000_000 + Math.floor(i / PARTITIONS),
      timestamp: Date.now() - 60_000,
      key: `customer-${i % 997}`,
      value: encode(i),
    });
    if (dataFormat) record.valueSchemaMetadata = { dataFormat, schemaId: String(SCHEMA_ID) };
    list.push(record);
  }
  return { eventSource: 'aws:kafka', records } as KafkaEvent;
}

const avroBody = (i: number) => AvroOrder.toBuffer(order(i));
const protoBody = (i: number) => Buffer.from(ProtoOrder.encode(ProtoOrder.create(order(i))).finish());
const avroSource = buildEvent(avroBody, 'AVRO');
const avroFramed = buildEvent((i) => Buffer.concat([confluentHeader(), avroBody(i)]));
// Confluent SOURCE keeps the message-index byte (Powertools expects it); [0] is the single byte 0.
const protoSource = buildEvent((i) => Buffer.concat([Buffer.from([0]), protoBody(i)]), 'PROTOBUF');

const context = () => createLambdaContext({ timeoutMs: 900_000 });
let sink = 0;
const work = (value: unknown): void => {
  sink += (value as Order).quantity;
};

// A loopback Confluent-compatible registry, counting requests.
let registryRequests = 0;
const server = createServer((_request, response) => {
  registryRequests++;
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ schema: JSON.stringify(avroSchema) }));
});
server.listen(0, '127.0.0.1');
await once(server, 'listening');
const registry = confluentSchemaRegistry({
  url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/apis/ccompat/v7`,
});

/** The floor: base64, skip the prefix, decode with the library, call, build the response. */
function handLoop(
  input: KafkaEvent,
  skip: number,
  decodeBody: (bytes: Buffer) => unknown,
): KafkaBatchResponse {
  const batchItemFailures: KafkaBatchItemFailure[] = [];
  for (const key in input.records) {
    for (const record of input.records[key]!) {
      try {
        work(decodeBody(Buffer.from(record.value!, 'base64').subarray(skip)));
      } catch {
        batchItemFailures.push({
          itemIdentifier: { partition: `${record.topic}-${record.partition}`, offset: record.offset },
        });
      }
    }
  }
  return { batchItemFailures };
}

const middyWith = (value: Parameters<typeof kafkaBatch>[0]['value']) =>
  middy().use(kafkaBatch({ logger: quiet, value, onRecord: (record) => work(record.data) }));
const avroSourceMiddleware = middyWith(avroDecoder({ schema: avroSchema, eventRecordFormat: 'SOURCE' }));
const avroRegistryMiddleware = middyWith(avroDecoder({ registry, schema: avroSchema }));
const protoSourceMiddleware = middyWith(protobufDecoder({ type: ProtoOrder, eventRecordFormat: 'SOURCE' }));

const powertoolsWith = (value: NonNullable<Parameters<typeof kafkaConsumer>[1]>['value']) =>
  kafkaConsumer<unknown, unknown>(
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
    { value },
  );
const powertoolsAvro = powertoolsWith({ type: 'avro', schema: JSON.stringify(avroSchema) });
const powertoolsProto = powertoolsWith({ type: 'protobuf', schema: ProtoOrder as never });

// What the middleware itself costs per record, without any decoding: the share of the gaps above
// that no decoder can remove.
const bytesOnlyMiddleware = middy().use(
  kafkaBatch({ logger: quiet, onRecord: (record) => work({ quantity: record.value?.length ?? 0 }) }),
);

const contenders: [string, () => unknown][] = [
  ['Avro: hand loop (avsc)', () => handLoop(avroSource, 0, (b) => AvroOrder.fromBuffer(b))],
  ['Avro: kafkaBatch + avroDecoder (SOURCE)', () => avroSourceMiddleware(avroSource, context())],
  ['Avro: powertools kafkaConsumer (SOURCE)', () => powertoolsAvro(avroSource as never, context())],
  ['Avro: hand loop, Confluent-framed', () => handLoop(avroFramed, 5, (b) => AvroOrder.fromBuffer(b))],
  ['Avro: kafkaBatch + avroDecoder, framed, registry', () => avroRegistryMiddleware(avroFramed, context())],
  ['Protobuf: hand loop (protobufjs)', () => handLoop(protoSource, 1, (b) => ProtoOrder.decode(b))],
  ['Protobuf: kafkaBatch + protobufDecoder (SOURCE)', () => protoSourceMiddleware(protoSource, context())],
  ['Protobuf: powertools kafkaConsumer (SOURCE)', () => powertoolsProto(protoSource as never, context())],
  ['No decoding: hand loop, base64 only', () => handLoop(avroSource, 0, (b) => ({ quantity: b.length }))],
  ['No decoding: kafkaBatch, record.value only', () => bytesOnlyMiddleware(avroSource, context())],
];

// Sanity: every contender decodes every record and reports nothing.
for (const [name, run] of contenders) {
  const response = (await run()) as KafkaBatchResponse;
  if (response.batchItemFailures.length !== 0) throw new Error(`${name} reported failures`);
}
const requestsAfterWarmUp = registryRequests;

function median(task: Task | undefined): number {
  const result = task?.result;
  if (result === undefined || !('latency' in result))
    throw new Error(`benchmark ${task?.name} did not complete`);
  return result.latency.p50;
}

console.log(`${RECORDS} records, ${PARTITIONS} partitions per event`);
// Short rounds over all contenders, repeated, so that a slow spell of a shared machine hits all alike.
const ROUNDS = 9;
const perRound: number[][] = contenders.map(() => []);
for (let round = 0; round < ROUNDS; round++) {
  const bench = new Bench({ iterations: 5, time: 0, warmupIterations: round === 0 ? 5 : 1 });
  for (const [name, run] of contenders) bench.add(name, async () => void (await run()));
  await bench.run();
  bench.tasks.forEach((task, i) => {
    perRound[i]!.push(median(task));
  });
}
server.close();
const mid = (values: number[]) => values.toSorted((a, b) => a - b)[values.length >> 1]!;
const ratio = (a: number, b: number) => mid(perRound[a]!.map((value, round) => value / perRound[b]![round]!));
const ms = (i: number) => mid(perRound[i]!).toFixed(2);
console.table([
  { task: contenders[0]![0], 'median (ms)': ms(0), ratio: '1.00x (baseline)' },
  {
    task: contenders[1]![0],
    'median (ms)': ms(1),
    ratio: `${ratio(1, 0).toFixed(2)}x hand loop (goal ≤ 1.2x)`,
  },
  {
    task: contenders[2]![0],
    'median (ms)': ms(2),
    ratio: `kafkaBatch ${ratio(2, 1).toFixed(2)}x faster (goal ≥ 2x)`,
  },
  { task: contenders[3]![0], 'median (ms)': ms(3), ratio: '1.00x (baseline)' },
  {
    task: contenders[4]![0],
    'median (ms)': ms(4),
    ratio: `${ratio(4, 3).toFixed(2)}x hand loop (goal ≤ 1.2x)`,
  },
  { task: contenders[5]![0], 'median (ms)': ms(5), ratio: '1.00x (baseline)' },
  {
    task: contenders[6]![0],
    'median (ms)': ms(6),
    ratio: `${ratio(6, 5).toFixed(2)}x hand loop (goal ≤ 1.2x)`,
  },
  {
    task: contenders[7]![0],
    'median (ms)': ms(7),
    ratio: `kafkaBatch ${ratio(7, 6).toFixed(2)}x faster (goal ≥ 2x)`,
  },
  { task: contenders[8]![0], 'median (ms)': ms(8), ratio: '1.00x (baseline)' },
  {
    task: contenders[9]![0],
    'median (ms)': ms(9),
    ratio: `${ratio(9, 8).toFixed(2)}x hand loop (the middleware alone)`,
  },
]);
const decodedWithRegistry = RECORDS * (1 + ROUNDS * 6); // sanity run + warm-ups and iterations
console.log(
  `Schema resolution: ${registryRequests} registry request(s) for 1 schema id (${requestsAfterWarmUp} during warm-up, ${registryRequests - requestsAfterWarmUp} after); registry client cache hits ${registry.stats.cacheHits}; ≈${decodedWithRegistry} framed records decoded, hit rate ${((1 - registryRequests / decodedWithRegistry) * 100).toFixed(4)}%`,
);
if (sink === 0) throw new Error('nothing was decoded');
