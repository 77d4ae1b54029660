// kafka-lambda dev with the trigger's schema registry (--schema-registry) and --filter, against the real
// broker and a real registry: the filter sees the deserialized value, an unknown schema goes to the destination.
import { readFileSync } from 'node:fs';
import { SchemaType } from '@kafkajs/confluent-schema-registry';
import { describe, expect, it } from 'vitest';
import {
  createTopic,
  createTopicWith,
  testBrokers,
  testKafka,
  uniqueName,
} from '../../../test/support/kafka.ts';
import { useSchemaRegistry } from '../../../test/support/registry.ts';
import { runCli } from '../../../test/support/run-cli.ts';

const kafka = testKafka('dev-schema-cli');
const registry = useSchemaRegistry();

describe('kafka-lambda dev --schema-registry', () => {
  it('delivers decoded Avro orders that pass --filter, and sends an unknown schema to the destination', async () => {
    const schema = readFileSync(new URL('../../../test/events/schemas/order.avsc', import.meta.url), 'utf8');
    const id = await registry.register(SchemaType.AVRO, schema, `${uniqueName('dev-orders')}-value`);
    const unknown = Buffer.alloc(9);
    unknown.writeInt32BE(2_000_000_001, 1);
    const topic = uniqueName('dev-avro');
    await createTopic(kafka, `${topic}-dlq`, 1);
    const order = (orderId: string, customerId: string) =>
      registry.producer.encode(id, { orderId, customerId, total: 1.5 });
    await createTopicWith(kafka, topic, [
      { value: await order('o-1', 'c-1') },
      { value: await order('o-2', 'c-2') },
      { value: unknown },
      { value: await order('o-3', 'c-1') },
    ]);

    const run = await runCli(
      [
        'dev',
        'functions/orders-avro/handler.ts',
        '--topic',
        topic,
        '--brokers',
        testBrokers().join(','),
        '--schema-registry',
        registry.url,
        '--event-record-format',
        'JSON',
        '--filter',
        '{"value":{"customerId":["c-1"]}}',
        '--on-failure',
        `kafka://${topic}-dlq`,
        '--window',
        '0',
        '--exit-when-idle',
      ],
      { env: { EVENT_RECORD_FORMAT: 'JSON' } },
    );
    expect(run.code).toBe(0);
    const received = [...run.stdout.matchAll(/"orderId":"(o-\d)"/g)].map((match) => match[1]);
    expect(received).toEqual(['o-1', 'o-3']);
    expect(run.stderr).toContain(`${topic}-0@2 → on-failure destination (SCHEMA_NOT_FOUND)`);
    expect(run.stderr.trimEnd().split('\n').at(-1)).toBe(`offsets committed by this run: ${topic}-0=4`);
  }, 300_000);
});
