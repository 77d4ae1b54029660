import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeValue } from '../../../test/support/decoding.ts';
import { runCli } from '../../../test/support/run-cli.ts';
import { avroDecoder } from '../../avro/index.ts';
import type { KafkaEvent } from '../../kafka-event/types.ts';
import { partitionForKey } from '../../testing/partitioner.ts';
import { validateKafkaEvent } from '../../testing/validate-event.ts';
import { expandTemplate } from './event.ts';

const text = (base64: string | null | undefined) =>
  base64 == null ? base64 : Buffer.from(base64, 'base64').toString();
const records = (event: KafkaEvent) => Object.values(event.records).flat();

async function event(args: string[]): Promise<KafkaEvent> {
  const run = await runCli(['event', ...args]);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return validateKafkaEvent(JSON.parse(run.stdout));
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kafka-lambda-event-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('expandTemplate', () => {
  it('replaces {i} and {i%N}, leaving JSON braces alone', () => {
    expect(expandTemplate('{"orderId":"o-{i}","customer":"c-{i%3}","n":{i}}', 7)).toBe(
      '{"orderId":"o-7","customer":"c-1","n":7}',
    );
    expect(expandTemplate('{j} {i%} {I}', 7)).toBe('{j} {i%} {I}');
  });
});

describe('kafka-lambda event', () => {
  it('prints an MSK event whose keyed records sit where Kafka would put them, with templated values and headers', async () => {
    const base = 1_764_400_000_000;
    const built = await event([
      '--topic',
      'order-events',
      '--partitions',
      '3',
      '--count',
      '8',
      '--key',
      'customer-{i%4}',
      '--value',
      '{"orderId":"o-{i}"}',
      '--header',
      'trace=t-{i}',
      '--header',
      'source=cli',
      '--start-offset',
      '100',
      '--timestamp',
      String(base),
    ]);
    expect(built.eventSource).toBe('aws:kafka');
    const all = records(built);
    expect(all).toHaveLength(8);
    for (const record of all) {
      const i = record.timestamp - base;
      expect(text(record.key)).toBe(`customer-${i % 4}`);
      expect(text(record.value)).toBe(`{"orderId":"o-${i}"}`);
      expect(record.partition).toBe(partitionForKey(Buffer.from(`customer-${i % 4}`), 3));
      expect(record.headers).toEqual([
        { trace: [...Buffer.from(`t-${i}`)] },
        { source: [...Buffer.from('cli')] },
      ]);
    }
    for (const run of Object.values(built.records)) {
      expect(run.map((r) => r.offset)).toEqual(run.map((_, i) => 100 + i));
    }
  });

  it('spreads records without a key round-robin, with no key field and a default JSON value', async () => {
    const built = await event(['--topic', 'clicks', '--partitions', '3', '--count', '7']);
    expect(
      Object.fromEntries(
        Object.entries(built.records).map(([key, run]) => [key, run.map((r) => text(r.value))]),
      ),
    ).toEqual({
      'clicks-0': ['{"index":0}', '{"index":3}', '{"index":6}'],
      'clicks-1': ['{"index":1}', '{"index":4}'],
      'clicks-2': ['{"index":2}', '{"index":5}'],
    });
    expect(records(built).some((r) => 'key' in r)).toBe(false);
  });

  it('prints a self-managed event', async () => {
    const built = await event(['--topic', 'clicks', '--self-managed']);
    expect(built.eventSource).toBe('SelfManagedKafka');
    expect(built).not.toHaveProperty('eventSourceArn');
  });

  it('takes the cluster ARN, the brokers and an ISO 8601 or epoch timestamp', async () => {
    const arn = 'arn:aws:kafka:eu-west-1:111122223333:cluster/shop/0f3c-1';
    const built = await event([
      '--topic',
      'orders',
      '--count',
      '2',
      '--event-source-arn',
      arn,
      '--bootstrap-servers',
      'b-1.shop:9098,b-2.shop:9098',
      '--timestamp',
      '2026-01-01T01:00:00+01:00',
    ]);
    expect(built).toMatchObject({ eventSourceArn: arn, bootstrapServers: 'b-1.shop:9098,b-2.shop:9098' });
    expect(records(built).map((r) => r.timestamp)).toEqual([Date.UTC(2026, 0, 1), Date.UTC(2026, 0, 1) + 1]);
    const zoneless = await event(['--topic', 'orders', '--timestamp', '2026-01-01T00:00:00']);
    expect(records(zoneless)[0]!.timestamp).toBe(Date.UTC(2026, 0, 1));
    const epoch = await event([
      '--topic',
      'orders',
      '--timestamp',
      '1767225600000',
      '--self-managed',
      '--bootstrap-servers',
      'kafka:9092',
    ]);
    expect(epoch).toMatchObject({ eventSource: 'SelfManagedKafka', bootstrapServers: 'kafka:9092' });
    expect(records(epoch)[0]!.timestamp).toBe(1767225600000);
  });

  it.each([
    [
      ['--timestamp', 'yesterday'],
      /'--timestamp <time>' argument 'yesterday' is invalid\. timestamp "yesterday" is not ISO 8601/,
    ],
    [
      ['--timestamp', '1767225600'],
      /looks like epoch seconds \(2026-01-01T00:00:00\.000Z\): .* give 1767225600000/,
    ],
    [['--event-source-arn', 'arn:aws:sqs:eu-west-1:111122223333:q'], /must be an MSK cluster ARN/],
    [
      ['--bootstrap-servers', 'SASL_SSL://b-1:9096'],
      /^error: --bootstrap-servers: entry 1 of 1 is not host:port/,
    ],
    // Never quoted: an entry with a user part holds a password, and is refused.
    [
      ['--bootstrap-servers', 'b-1:9096,alice:s3cret@b-2:9096'],
      /^error: --bootstrap-servers: entry 2 of 2 has a user part \(…@host:port\)[^\n]*\n$/,
    ],
    [['--bootstrap-servers', 'b-1:9096,,b-2:9096'], /^error: --bootstrap-servers: entry 2 of 3 is empty\n$/],
    [
      ['--self-managed', '--event-source-arn', 'arn:aws:kafka:eu-west-1:111122223333:cluster/a/b'],
      /self-managed events have none/,
    ],
    // Schema options without a schema: refused, not ignored (a plain event was printed).
    [
      ['--format', 'json', '--value', '{}'],
      /^error: --format needs a schema: --value-avro, --value-proto or --value-json-schema\n$/,
    ],
    [['--schema-id', '7'], /^error: --schema-id needs a schema: --value-avro/],
    [['--type', 'shop.Order'], /^error: --type needs --value-proto \(it names its message type\)\n$/],
    [
      ['--proto-path', 'protos'],
      /^error: --proto-path needs --value-proto \(it is where the \.proto file's imports are\)\n$/,
    ],
  ])('refuses %j (exit 2)', async (args, message) => {
    const run = await runCli(['event', '--topic', 'orders', ...args]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).not.toContain('s3cret');
  });

  it('reads values from a file: a template when it is UTF-8, bytes as they are otherwise', async () => {
    const json = join(dir, 'order.json');
    const avro = join(dir, 'order.avro');
    await writeFile(json, '{"orderId":"o-{i}","note":"café"}\n');
    await writeFile(avro, Uint8Array.of(0x0e, 0x06, 0x41, 0x64, 0xff, 0x7b, 0x69, 0x7d));
    const fromJson = await event(['--topic', 't', '--count', '2', '--value-file', json]);
    expect(records(fromJson).map((r) => text(r.value))).toEqual([
      '{"orderId":"o-0","note":"café"}\n',
      '{"orderId":"o-1","note":"café"}\n',
    ]);
    const fromAvro = await event(['--topic', 't', '--count', '2', '--value-file', avro]);
    expect(records(fromAvro).map((r) => Buffer.from(r.value!, 'base64').toString('hex'))).toEqual([
      '0e064164ff7b697d',
      '0e064164ff7b697d',
    ]);
  });

  it('refuses a --value-file template with {i%0}, naming the option (exit 2)', async () => {
    const template = join(dir, 'modulo-zero.json');
    await writeFile(template, '{"a":{i%0}}');
    const run = await runCli(['event', '--topic', 't', '--value-file', template]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      `option '--value-file <path>' argument '${template}' is invalid. {i%N} needs a whole number N ≥ 1`,
    );
  });

  it('refuses a --value-proto value with a field the message lacks, naming its path (exit 2), instead of writing an empty message', async () => {
    const proto = join(dir, 'order.proto');
    await writeFile(
      proto,
      'syntax = "proto3"; package shop; message Item { string sku = 1; } message Order { string order_id = 1; repeated Item items = 2; }',
    );
    const base = ['event', '--topic', 'orders', '--value-proto', proto, '--type', 'shop.Order', '--value'];
    const misspelt = await runCli([...base, '{"orderI":"o-1"}']);
    expect(misspelt.code).toBe(2);
    expect(misspelt.stdout).toBe('');
    expect(misspelt.stderr).toBe(
      'error: value does not fit shop.Order at orderI: is not a field of the message\n',
    );
    const nested = await runCli([...base, '{"orderId":"o-1","items":[{"skew":"s"}]}']);
    expect(nested.code).toBe(2);
    expect(nested.stderr).toContain('at items.0.skew: is not a field of the message');
    // Both the proto name and the lowerCamelCase JSON name are the field.
    for (const value of ['{"order_id":"o-1"}', '{"orderId":"o-1"}']) {
      const [record] = records(await event([...base.slice(1), value, '--format', 'json']));
      expect(JSON.parse(text(record!.value)!)).toEqual({ order_id: 'o-1', items: [] });
    }
  });

  it('refuses a schema file that is not JSON, saying where parsing stopped without quoting it (exit 2)', async () => {
    const notSchema = join(dir, 'echo.ts');
    await writeFile(notSchema, 'export const SECRET_TOKEN = "x";\n');
    for (const flag of ['--value-avro', '--value-json-schema']) {
      const run = await runCli(['event', '--topic', 'av', flag, notSchema, '--value', '{"a":"x"}']);
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toBe(
        `error: ${notSchema}: not a valid ${flag === '--value-avro' ? 'Avro schema' : 'JSON Schema'}: not JSON: JSON.parse failed at position 0 (line 1 column 1) (its message is withheld: it quotes the file)\n`,
      );
    }
  });

  it('refuses a .proto file that does not parse, saying where without quoting it (exit 2)', async () => {
    const proto = join(dir, 'broken.proto');
    await writeFile(
      proto,
      'syntax = "proto3";\nmessage Order {\n  string SECRET_TOKEN = 1\n  int32 n = 2;\n}\n',
    );
    const run = await runCli(['event', '--topic', 't', '--value-proto', proto, '--type', 'Order']);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      `error: ${proto}: not a valid .proto file: parsing failed at line 4 column 3, ';' expected (its message is withheld: it quotes the file)\n`,
    );
  });

  it('encodes a --value-proto message whose file imports a sibling file and a well-known type, a Timestamp given as RFC 3339 text', async () => {
    const protos = join(dir, 'imports');
    await mkdir(join(protos, 'shop'), { recursive: true });
    await writeFile(
      join(protos, 'shop', 'money.proto'),
      'syntax = "proto3"; package shop; message Money { int64 units = 1; }',
    );
    await writeFile(
      join(protos, 'shop', 'invoice.proto'),
      'syntax = "proto3"; package shop;\nimport "money.proto";\nimport "google/protobuf/timestamp.proto";\nmessage Invoice { Money total = 1; google.protobuf.Timestamp at = 2; }\n',
    );
    const value = '{"total":{"units":"5"},"at":"2024-05-01T12:00:00Z"}';
    const args = [
      '--topic',
      't',
      '--value-proto',
      join(protos, 'shop', 'invoice.proto'),
      '--type',
      'shop.Invoice',
    ];
    const [record] = records(await event([...args, '--value', value, '--format', 'json']));
    expect(JSON.parse(text(record!.value)!)).toEqual({
      total: { units: '5' },
      at: { seconds: '1714564800', nanos: 0 },
    });
    // An import written from a root folder is found in a --proto-path folder (protoc's -I), and only there.
    await writeFile(
      join(protos, 'shop', 'order.proto'),
      'syntax = "proto3"; package shop;\nimport "shop/money.proto";\nmessage Order { Money total = 1; }\n',
    );
    const order = [
      '--topic',
      't',
      '--value-proto',
      join(protos, 'shop', 'order.proto'),
      '--type',
      'shop.Order',
    ];
    const missing = await runCli(['event', ...order, '--value', '{}']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(
      /order\.proto: an import at line 2 column 1 names a file that is in none of: /,
    );
    const found = records(
      await event([...order, '--proto-path', protos, '--value', '{"total":{"units":1}}']),
    );
    expect(Buffer.from(found[0]!.value!, 'base64').subarray(6)).toEqual(Buffer.from([0x0a, 2, 0x08, 1]));
  });

  it("reads Google's common types (google/type/*.proto), which protobufjs does not ship, from --proto-path, and names one found nowhere", async () => {
    const protos = join(dir, 'known');
    await mkdir(join(protos, 'vendor', 'google', 'type'), { recursive: true });
    // A stand-in written for this test (the fields it needs), not Google's file.
    await writeFile(
      join(protos, 'vendor', 'google', 'type', 'date.proto'),
      'syntax = "proto3"; package google.type; message Date { int32 year = 1; int32 month = 2; int32 day = 3; }',
    );
    const proto = join(protos, 'due.proto');
    await writeFile(
      proto,
      'syntax = "proto3";\nimport "google/type/date.proto";\nmessage Due { google.type.Date on = 1; }\n',
    );
    const base = ['--topic', 't', '--value-proto', proto, '--type', 'Due', '--value', '{"on":{"year":2024}}'];
    const missing = await runCli(['event', ...base]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(
      `error: ${proto}: the import at line 2 column 1 of google/type/date.proto, one of the files Confluent's registry knows by name (not registered as a schema reference), is in none of: ${protos}, the working directory; protobufjs does not ship it: give the folder holding a copy (google/type/date.proto under it, as in Google's googleapis repository) with --proto-path, as protoc's -I\n`,
    );
    const [record] = records(await event([...base, '--proto-path', join(protos, 'vendor')]));
    // Confluent's framing, message index [0], then on (1: Date { year: 2024 }).
    expect(Buffer.from(record!.value!, 'base64').subarray(5)).toEqual(
      Buffer.from([0, 0x0a, 3, 0x08, 0xe8, 0x0f]),
    );
  });

  it('encodes Avro bytes, fixed and decimal values given as base64 text, and says so when one is not', async () => {
    const avsc = join(dir, 'payment.avsc');
    await writeFile(
      avsc,
      JSON.stringify({
        type: 'record',
        name: 'Payment',
        fields: [
          { name: 'amount', type: { type: 'bytes', logicalType: 'decimal', precision: 9, scale: 2 } },
          { name: 'hash', type: { type: 'fixed', name: 'Hash', size: 2 } },
        ],
      }),
    );
    const base = ['--topic', 't', '--value-avro', avsc, '--format', 'source', '--value'];
    const [record] = records(await event([...base, '{"amount":"BNI=","hash":"AAE="}']));
    expect(Buffer.from(record!.value!, 'base64')).toEqual(Buffer.from([4, 0x04, 0xd2, 0x00, 0x01]));
    const refused = await runCli(['event', ...base, '{"amount":12.34,"hash":"AAE="}']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      "error: value does not fit the Avro schema at amount (expected decimal: base64 text of its unscaled two's-complement integer)\n",
    );
  });

  it('encodes an Avro long beyond 2^53 − 1 from its exact digits, which the decoder reads back exactly', async () => {
    const reading = {
      type: 'record',
      name: 'Reading',
      fields: [
        { name: 'id', type: 'long' },
        { name: 'maybe', type: ['null', 'long'] },
        { name: 'price', type: 'double' },
      ],
    };
    const avsc = join(dir, 'reading.avsc');
    await writeFile(avsc, JSON.stringify(reading));
    const value = '{"id":9007199254740993,"maybe":-9223372036854775808,"price":9007199254740993}';
    const expected = { id: 9007199254740993n, maybe: -9223372036854775808n, price: 9007199254740992 };
    const registry = {
      registry: 'confluent' as const,
      stats: { requests: 0, cacheHits: 0 },
      getSchema: async (id: string) => ({ id, type: 'AVRO' as const, definition: JSON.stringify(reading) }),
    };
    const encoded = async (format: string) => {
      const [record] = records(
        await event(['--topic', 't', '--value-avro', avsc, '--format', format, '--value', value]),
      );
      return { bytes: Buffer.from(record!.value!, 'base64'), metadata: record!.valueSchemaMetadata };
    };
    const confluent = await encoded('confluent');
    const source = await encoded('source');
    const json = await encoded('json');
    expect(json.bytes.toString()).toBe(
      '{"id":9007199254740993,"maybe":-9223372036854775808,"price":9007199254740992}',
    );
    for (const [decoder, { bytes, metadata }] of [
      [avroDecoder({ registry }), confluent],
      [avroDecoder({ registry, schema: reading, eventRecordFormat: 'SOURCE' }), source],
      [avroDecoder({ registry, schema: reading, eventRecordFormat: 'JSON' }), json],
    ] as const)
      expect({ ...((await decodeValue(decoder, bytes, metadata)) as object) }).toEqual(expected);
    for (const beyond of ['9223372036854775808', '1.5', '1e20']) {
      const refused = await runCli([
        'event',
        '--topic',
        't',
        '--value-avro',
        avsc,
        '--value',
        `{"id":${beyond},"maybe":null,"price":1}`,
      ]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toBe(
        'error: value does not fit the Avro schema at id (expected a long, an integer from −2^63 to 2^63 − 1)\n',
      );
    }
  });

  it('lists its exit codes in --help: 0 printed, 2 invalid flags or input', async () => {
    const help = await runCli(['event', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(
      /\nExit codes:\n {2}0 {2}the event is printed .*\n {2}2 {2}invalid flags or input: /,
    );
    // The codes it names are the ones it exits with.
    expect((await runCli(['event', '--topic', 't', '--count', '0'])).code).toBe(2);
    expect((await runCli(['event', '--topic', 't'])).code).toBe(0);
  });

  it('feeds kafka-lambda invoke', async () => {
    const printed = await runCli([
      'event',
      '--topic',
      'orders',
      '--count',
      '3',
      '--value',
      'fail',
      '--start-offset',
      '7',
    ]);
    const run = await runCli(['invoke', 'test/support/handlers/handlers.ts', '--event', '-'], {
      input: printed.stdout,
    });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      batchItemFailures: [7, 8, 9].map((offset) => ({ itemIdentifier: { partition: 'orders-0', offset } })),
    });
  });

  it("warns when the event outgrows Lambda's 6 MB payload limit", async () => {
    const big = join(dir, 'big.bin');
    await writeFile(big, Buffer.alloc(700, 0xff));
    const run = await runCli(['event', '--topic', 't', '--count', '10000', '--value-file', big]);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(
      /^warning: the event is \d+\.\d MB; Lambda never sends more than 6 MB in one invocation\n$/,
    );
    expect(records(JSON.parse(run.stdout))).toHaveLength(10_000);
  });

  it.each([
    [[], /required option '--topic <name>' not specified/],
    [['--topic', 'bad topic'], /error: topic "bad topic" is not a valid Kafka topic name/],
    [
      ['--topic', 't', '--count', '0'],
      /'--count <n>' argument '0' is invalid\. must be an integer from 1 to 10000/,
    ],
    [['--topic', 't', '--count', '10001'], /argument '10001' is invalid/],
    [['--topic', 't', '--partitions', 'two'], /'--partitions <n>' argument 'two' is invalid/],
    [
      ['--topic', 't', '--start-offset', '-1'],
      /'--start-offset <n>' argument '-1' is invalid\. must be an integer ≥ 0/,
    ],
    [
      ['--topic', 't', '--value', 'x', '--value-file', 'package.json'],
      /option '--value-file <path>' cannot be used with option '--value <template>'/,
    ],
    [
      ['--topic', 't', '--value-file', 'nope.bin'],
      /'--value-file <path>' argument 'nope\.bin' is invalid\. cannot read it: ENOENT/,
    ],
    [
      ['--topic', 't', '--header', 'novalue'],
      /'--header <name=value>' argument 'novalue' is invalid\. must be name=value/,
    ],
    [
      ['--topic', 't', '--value', 'v-{i%0}'],
      /argument 'v-\{i%0\}' is invalid\. \{i%N\} needs a whole number N ≥ 1/,
    ],
    [['--topic', 't', '--key', 'k-{i%-1}'], /argument 'k-\{i%-1\}' is invalid\. \{i%N\} needs a whole/],
    [['--topic', 't', '--count', '1e3'], /'--count <n>' argument '1e3' is invalid/],
    [['--topic', 't', '--count', '0x10'], /'--count <n>' argument '0x10' is invalid/],
    [
      ['--topic', 't', '--value-avro', 'nope.avsc'],
      /'--value-avro <file\.avsc>' argument 'nope\.avsc' is invalid\. cannot read it: ENOENT/,
    ],
    [
      ['--topic', 't', '--value-json-schema', '.'],
      /'--value-json-schema <file\.json>' argument '\.' is invalid\. cannot read it: EISDIR/,
    ],
  ])('exits 2 on bad usage: %j', async (args, message) => {
    const run = await runCli(['event', ...args]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(message);
  });
});
