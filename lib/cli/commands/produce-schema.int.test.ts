// kafka-lambda produce with --value-avro / --value-proto / --value-json-schema against the real broker
// and a real registry (Apicurio's Confluent-compatible API, or SCHEMA_REGISTRY_URL): the records it
// writes are decoded by an independent deserializer (@kafkajs/confluent-schema-registry) and by this
// project's decoder.
import { once } from 'node:events';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import type { KafkaMessage } from 'kafkajs';
import { beforeAll, describe, expect, it } from 'vitest';
import { testBrokers, testKafka, uniqueName } from '../../../test/support/kafka.ts';
import { useSchemaRegistry } from '../../../test/support/registry.ts';
import { runCli } from '../../../test/support/run-cli.ts';
import { avroDecoder } from '../../avro/index.ts';
import type { PendingRecord } from '../../emulator/batch.ts';
import { createSchemaResolver } from '../../emulator/schema-registry.ts';
import { KafkaRecord } from '../../middleware/record.ts';
import { confluentSchemaRegistry } from '../../schema-registry/registry.ts';

const kafka = testKafka('produce-schema-cli');
let url: string;

const registry = useSchemaRegistry();
beforeAll(() => {
  url = registry.url;
});

const schemaFile = (name: string) => `test/events/schemas/${name}`;
const orders = [
  { orderId: 'o-1', customerId: 'c-1', total: 1.5 },
  { orderId: 'o-2', customerId: 'c-2', total: 20 },
  { orderId: 'o-3', customerId: 'c-1', total: 0.25 },
];

/** Every record of the topic, in offset order (one partition), read by a plain kafkajs consumer. */
async function readAll(topic: string, count: number): Promise<KafkaMessage[]> {
  const consumer = kafka.consumer({ groupId: uniqueName('check') });
  const seen: KafkaMessage[] = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    const done = new Promise<void>((resolve) => {
      void consumer.run({
        eachMessage: async ({ message }) => {
          seen.push(message);
          if (seen.length === count) resolve();
        },
      });
    });
    await Promise.race([done, sleep(60_000)]);
  } finally {
    await consumer.disconnect();
  }
  return seen.sort((a, b) => Number(a.offset) - Number(b.offset));
}

async function produce(topic: string, schemaArgs: string[], input: string, registry = url) {
  return runCli(
    [
      'produce',
      '--topic',
      topic,
      '--partitions',
      '1',
      ...schemaArgs,
      '--schema-registry',
      registry,
      '--brokers',
      testBrokers().join(','),
    ],
    { input },
  );
}

async function topicExists(topic: string): Promise<boolean> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    return (await admin.listTopics()).includes(topic);
  } finally {
    await admin.disconnect();
  }
}

/** The registry's versions of a subject ([] when it has none). */
async function versionsOf(subject: string): Promise<number[]> {
  const response = await fetch(`${url}/subjects/${encodeURIComponent(subject)}/versions`);
  if (response.status === 404) return [];
  expect(response.ok).toBe(true);
  return (await response.json()) as number[];
}

/** The JSON the emulator's registry (EventRecordFormat JSON) hands a function for a record's value. */
async function emulatorJson(value: Buffer): Promise<unknown> {
  return JSON.parse(await emulatorText(value));
}

/** The same, as the text it is. */
async function emulatorText(value: Buffer): Promise<string> {
  const resolver = createSchemaResolver({
    SchemaRegistryURI: url,
    EventRecordFormat: 'JSON',
    SchemaValidationConfigs: [{ Attribute: 'VALUE' }],
  });
  const json = JSON.stringify({
    topic: 't',
    partition: 0,
    offset: 0,
    timestamp: 1,
    timestampType: 'CREATE_TIME',
    key: null,
    value: value.toString('base64'),
    headers: [],
  });
  const record: PendingRecord = {
    partition: 0,
    offset: 0,
    timestamp: 1,
    json,
    bytes: json.length,
    get encoded() {
      return JSON.parse(json);
    },
  };
  const outcome = await resolver.resolve(record);
  if (outcome.kind !== 'resolved') throw new Error(`the emulator failed the record: ${outcome.reason}`);
  return Buffer.from(outcome.record.encoded.value!, 'base64').toString();
}

describe('kafka-lambda produce with a schema registry', () => {
  it.each([
    ['Avro', ['--value-avro', schemaFile('order.avsc')]],
    ['Protobuf', ['--value-proto', schemaFile('order.proto'), '--type', 'shop.Order']],
    ['JSON Schema', ['--value-json-schema', schemaFile('order.schema.json')]],
  ])(
    '%s: registers the schema and writes Confluent-framed records an independent deserializer decodes',
    async (_format, schemaArgs) => {
      const topic = uniqueName('produce-schema');
      const run = await produce(topic, schemaArgs, `${orders.map((o) => JSON.stringify(o)).join('\n')}\n`);
      expect(run.stderr).toMatch(new RegExp(`registered \\S+ as schema \\d+ \\(subject ${topic}-value\\)`));
      expect(run.code).toBe(0);
      const messages = await readAll(topic, orders.length);
      const independent = new SchemaRegistry({ host: url });
      const decoded = await Promise.all(messages.map((m) => independent.decode(m.value!)));
      expect(decoded.map((value) => ({ ...value }))).toEqual(orders);
    },
    120_000,
  );

  it("frames Avro with the registry's id, so kafka-lambda/avro resolves it by id", async () => {
    const topic = uniqueName('produce-avro');
    const produced = await runCli(
      [
        'produce',
        '--topic',
        topic,
        '--partitions',
        '1',
        '--value-avro',
        schemaFile('order.avsc'),
        '--count',
        '2',
        '--value',
        '{"orderId":"o-{i}","customerId":"c-{i}","total":{i}.5}',
        '--schema-registry',
        url,
        '--brokers',
        testBrokers().join(','),
      ],
      {},
    );
    expect(produced.code).toBe(0);
    const id = Number(/as schema (\d+)/.exec(produced.stderr)?.[1]);
    const messages = await readAll(topic, 2);
    expect(messages.map((m) => m.value!.readInt32BE(1))).toEqual([id, id]);
    const decoder = avroDecoder({ registry: confluentSchemaRegistry({ url }) });
    const values = [];
    for (const message of messages) {
      const record = new KafkaRecord(
        {
          topic,
          partition: 0,
          offset: Number(message.offset),
          timestamp: 0,
          timestampType: 'CREATE_TIME',
          value: message.value!.toString('base64'),
        },
        topic,
        0,
        Number(message.offset),
      ) as KafkaRecord<unknown, unknown>;
      values.push(await decoder.decode(record.value!, record, 'value', new AbortController().signal));
    }
    expect(values.map((value) => ({ ...(value as object) }))).toEqual([
      { orderId: 'o-0', customerId: 'c-0', total: 0.5 },
      { orderId: 'o-1', customerId: 'c-1', total: 1.5 },
    ]);
  }, 120_000);

  it('Avro: keeps the digits of a long beyond 2^53 − 1, which the decoder and the emulator read back exactly', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kafka-lambda-produce-long-'));
    try {
      const avsc = join(dir, 'reading.avsc');
      const reading = {
        type: 'record',
        name: 'Reading',
        namespace: uniqueName('longs').replaceAll('-', '_'),
        fields: [
          { name: 'id', type: 'long' },
          { name: 'maybe', type: ['null', 'long'] },
        ],
      };
      await writeFile(avsc, JSON.stringify(reading));
      const topic = uniqueName('produce-long');
      const run = await produce(
        topic,
        ['--value-avro', avsc],
        '{"id":9007199254740993,"maybe":-9223372036854775808}\n{"id":9223372036854775808,"maybe":null}\n',
      );
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(
        'line 2: value does not fit the Avro schema at id (expected a long, an integer from −2^63 to 2^63 − 1)',
      );
      const [message] = await readAll(topic, 1);
      const decoder = avroDecoder({ registry: confluentSchemaRegistry({ url }) });
      const record = new KafkaRecord(
        {
          topic,
          partition: 0,
          offset: 0,
          timestamp: 0,
          timestampType: 'CREATE_TIME',
          value: message!.value!.toString('base64'),
        },
        topic,
        0,
        0,
      ) as KafkaRecord<unknown, unknown>;
      const decoded = await decoder.decode(record.value!, record, 'value', new AbortController().signal);
      expect({ ...(decoded as object) }).toEqual({ id: 9007199254740993n, maybe: -9223372036854775808n });
      expect(await emulatorText(message!.value!)).toBe(
        '{"id":9007199254740993,"maybe":-9223372036854775808}',
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('stops at a value that does not fit the schema (exit 2, naming the line, not the value), after sending what came before', async () => {
    const topic = uniqueName('produce-bad');
    const run = await produce(
      topic,
      ['--value-avro', schemaFile('order.avsc')],
      `${JSON.stringify(orders[0])}\n{"orderId":"secret-o-2","customerId":"c-2","total":"twenty"}\n`,
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('line 2: value does not fit the Avro schema at total');
    expect(run.stderr).not.toContain('secret-o-2');
    expect(run.stderr).toContain('1 record(s) before it were sent');
  }, 120_000);

  it('registers the files a .proto imports as schema references, each under the import as subject (well-known types left out), and the emulator decodes the records', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kafka-lambda-produce-proto-'));
    try {
      // Import names unique to the run: the registry may be the user's own, kept between runs.
      const money = `${uniqueName('money')}.proto`;
      const unit = `shop/${uniqueName('unit')}.proto`;
      await mkdir(join(dir, 'shop'));
      await writeFile(join(dir, unit), 'syntax = "proto3";\npackage shop;\nenum Unit { CENT = 0; }\n');
      await writeFile(
        join(dir, money),
        `syntax = "proto3";\npackage shop;\nimport "${unit}";\nmessage Money { int64 amount = 1; Unit unit = 2; }\n`,
      );
      const invoice = join(dir, 'invoice.proto');
      await writeFile(
        invoice,
        `syntax = "proto3";\npackage shop;\nimport "${money}";\nimport "google/protobuf/timestamp.proto";\nmessage Invoice { string id = 1; Money total = 2; google.protobuf.Timestamp at = 3; }\n`,
      );
      const topic = uniqueName('produce-proto-refs');
      const run = await produce(
        topic,
        ['--value-proto', invoice, '--type', 'shop.Invoice', '--proto-path', dir],
        '{"id":"i-1","total":{"amount":"250"},"at":"2024-05-01T12:00:00Z"}\n',
      );
      expect(run.stderr).toContain(
        `registered ${join(dir, unit)} as version 1 of subject ${unit} (imported by the schema)`,
      );
      expect(run.code).toBe(0);
      expect(await versionsOf(unit)).toEqual([1]);
      expect(await versionsOf(money)).toEqual([1]);
      expect(await versionsOf('google/protobuf/timestamp.proto')).toEqual([]);
      const latest = (await (await fetch(`${url}/subjects/${topic}-value/versions/latest`)).json()) as {
        references?: unknown;
      };
      expect(latest.references).toEqual([{ name: money, subject: money, version: 1 }]);
      const [message] = await readAll(topic, 1);
      expect(await emulatorJson(message!.value!)).toEqual({
        id: 'i-1',
        total: { amount: '250', unit: 'CENT' },
        at: { seconds: '1714564800', nanos: 0 },
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it("does not register the files Confluent's registry knows by name (google/type), as Confluent's serializer, and says where to get one missing", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kafka-lambda-produce-known-'));
    try {
      // A stand-in for google/type/money.proto written for this test (the fields it needs), in a vendored folder.
      await mkdir(join(dir, 'vendor', 'google', 'type'), { recursive: true });
      await writeFile(
        join(dir, 'vendor', 'google', 'type', 'money.proto'),
        'syntax = "proto3";\npackage google.type;\nmessage Money { string currency_code = 1; int64 units = 2; int32 nanos = 3; }\n',
      );
      const pkg = uniqueName('priced').replaceAll('-', '_');
      const priced = join(dir, 'priced.proto');
      await writeFile(
        priced,
        `syntax = "proto3";\npackage ${pkg};\nimport "google/type/money.proto";\nmessage Priced { google.type.Money price = 1; }\n`,
      );
      const topic = uniqueName('produce-known');
      const args = ['--value-proto', priced, '--type', `${pkg}.Priced`];
      const missing = await produce(topic, args, '{"price":{"currency_code":"EUR","units":"3"}}\n');
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain(
        "the import at line 3 column 1 of google/type/money.proto, one of the files Confluent's registry knows by name (not registered as a schema reference), is in none of: ",
      );
      expect(await topicExists(topic)).toBe(false);
      const run = await produce(
        topic,
        [...args, '--proto-path', join(dir, 'vendor')],
        '{"price":{"currency_code":"EUR","units":"3"}}\n',
      );
      expect(run.stderr).not.toContain('imported by the schema');
      expect(run.code).toBe(0);
      expect(await versionsOf('google/type/money.proto')).toEqual([]);
      const latest = (await (await fetch(`${url}/subjects/${topic}-value/versions/latest`)).json()) as {
        references?: unknown;
      };
      expect(latest.references ?? []).toEqual([]);
      const [message] = await readAll(topic, 1);
      // Confluent's framing, the message index [0], then price (1: Money { currency_code, units }).
      expect(message!.value!.subarray(5)).toEqual(
        Buffer.from([0, 0x0a, 7, 0x0a, 3, ...Buffer.from('EUR'), 0x10, 3]),
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('refuses a first value that does not fit the schema before registering it and creating the topic (exit 2)', async () => {
    const topic = uniqueName('produce-bad-first');
    const run = await produce(
      topic,
      ['--value-avro', schemaFile('order.avsc')],
      '{"orderId":"secret-o-1","customerId":"c-1","total":"twenty"}\n',
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'kafka-lambda produce: line 1: value does not fit the Avro schema at total (expected a number (double)); nothing was sent\n',
    );
    expect(await topicExists(topic)).toBe(false);
    expect(await versionsOf(`${topic}-value`)).toEqual([]);
  }, 120_000);

  it('names the registry without its query when it cannot be reached or refuses (exit 1), creating no topic', async () => {
    const server = createServer((_request, response) => {
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end('{"error_code":500,"message":"internal"}');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const avro = ['--value-avro', schemaFile('order.avsc')];
    const line = `${JSON.stringify(orders[0])}\n`;
    try {
      const topic = uniqueName('produce-registry-refuses');
      const refused = await produce(topic, avro, line, `${base}/?api_key=SECRET-KEY`);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toBe(
        `kafka-lambda produce: the schema registry at ${base} did not register the schema for subject ${topic}-value (HTTP 500: internal); nothing was sent\n`,
      );
      expect(await topicExists(topic)).toBe(false);
    } finally {
      server.close();
    }
    const unreachable = await produce(
      uniqueName('produce-registry-unreachable'),
      avro,
      line,
      'http://127.0.0.1:1/apis/ccompat/v7?api_key=SECRET-KEY',
    );
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toContain(
      'the schema registry at http://127.0.0.1:1/apis/ccompat/v7 cannot be reached',
    );
    expect(unreachable.stderr).not.toContain('SECRET');
  }, 120_000);

  it('refuses a schema option without a registry, and --value-proto without --type (exit 2, before looking for a cluster)', async () => {
    // No --brokers: the schema flags are checked first, so no cluster is needed to be told.
    const base = ['produce', '--topic', uniqueName('produce-usage')];
    const noRegistry = await runCli([...base, '--value-avro', schemaFile('order.avsc')], {
      env: { SCHEMA_REGISTRY_URL: '' },
    });
    expect(noRegistry.code).toBe(2);
    expect(noRegistry.stderr).toContain('--value-avro needs --schema-registry');
    const noType = await runCli([
      ...base,
      '--value-proto',
      schemaFile('order.proto'),
      '--schema-registry',
      url,
    ]);
    expect(noType.code).toBe(2);
    expect(noType.stderr).toContain('--value-proto needs --type');
  }, 120_000);
});
