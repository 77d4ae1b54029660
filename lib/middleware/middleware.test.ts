import { setTimeout as sleep } from 'node:timers/promises';
import { inspect } from 'node:util';
import middy from '@middy/core';
import type { StandardSchemaV1 } from '@standard-schema/spec';
import * as v from 'valibot';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import type { KafkaEvent } from '../kafka-event/types.ts';
import {
  createLambdaContext,
  failedOffsets,
  invokeHandler,
  type KafkaRecordInput,
  kafkaEvent,
  type RecordPayload,
} from '../testing/index.ts';
import {
  KafkaBatchFailedError,
  type KafkaBatchLogger,
  type KafkaBatchOptions,
  KafkaBatchOptionsError,
  KafkaEventError,
  type KafkaRecord,
  KafkaSchemaError,
  kafkaBatch,
} from './index.ts';

interface LogLine {
  level: 'info' | 'warn' | 'error';
  message: string;
  [attribute: string]: unknown;
}

function captureLogger(): { lines: LogLine[]; logger: KafkaBatchLogger } {
  const lines: LogLine[] = [];
  const add = (level: LogLine['level']) => (message: string, attributes: Record<string, unknown>) => {
    lines.push({ level, message, ...attributes });
  };
  return { lines, logger: { info: add('info'), warn: add('warn'), error: add('error') } };
}

function run<V = unknown, K = string | null>(
  options: KafkaBatchOptions<V, K>,
  event: KafkaEvent,
  timeoutMs = 30_000,
) {
  const handler = middy().use(kafkaBatch(options));
  return invokeHandler(handler, event, { timeoutMs });
}

/** `count` records per partition, values `{ n }` numbered in offset order. */
function numbered(partitions: number, count: number, key?: (p: number, i: number) => string | null) {
  const records: KafkaRecordInput[] = [];
  for (let i = 0; i < count; i++)
    for (let p = 0; p < partitions; p++)
      records.push({ partition: p, value: { n: i }, ...(key ? { key: key(p, i) } : {}) });
  return kafkaEvent({ topic: 'order-events', partitions, records });
}

const id = (record: KafkaRecord<unknown, unknown>) => `${record.partition}@${record.offset}`;

/** Counts records in flight, overall and per partition. */
function inFlight() {
  let now = 0;
  let max = 0;
  const perPartition = new Map<number, number>();
  let maxPerPartition = 0;
  return {
    get max() {
      return max;
    },
    get maxPerPartition() {
      return maxPerPartition;
    },
    async around(record: KafkaRecord<unknown, unknown>, ms: number): Promise<void> {
      now++;
      max = Math.max(max, now);
      const p = (perPartition.get(record.partition) ?? 0) + 1;
      perPartition.set(record.partition, p);
      maxPerPartition = Math.max(maxPerPartition, p);
      await sleep(ms);
      perPartition.set(record.partition, perPartition.get(record.partition)! - 1);
      now--;
    },
  };
}

describe('kafkaBatch: partition ordering (default)', () => {
  it('reports the failed record and the rest of its partition only; later records are not started', async () => {
    const { logger } = captureLogger();
    const event = numbered(3, 4);
    const started: string[] = [];
    const response = await run(
      {
        logger,
        onRecord: async (record) => {
          started.push(id(record));
          if (record.partition === 1 && record.offset === 1) throw new Error('warehouse down');
        },
      },
      event,
    );
    expect(failedOffsets(response, event)).toEqual({ 'order-events-1': [1, 2, 3] });
    expect(started.filter((s) => s.startsWith('1@'))).toEqual(['1@0', '1@1']);
    expect(started.filter((s) => !s.startsWith('1@')).sort()).toEqual([
      '0@0',
      '0@1',
      '0@2',
      '0@3',
      '2@0',
      '2@1',
      '2@2',
      '2@3',
    ]);
  });

  it('runs a partition one record at a time in offset order, partitions in parallel', async () => {
    const { logger } = captureLogger();
    const tracker = inFlight();
    const order = new Map<number, number[]>();
    const response = await run(
      {
        logger,
        onRecord: async (record) => {
          order.set(record.partition, [...(order.get(record.partition) ?? []), record.offset]);
          await tracker.around(record, 2);
        },
      },
      numbered(4, 5),
    );
    expect(response).toEqual({ batchItemFailures: [] });
    expect(tracker.maxPerPartition).toBe(1);
    expect(tracker.max).toBe(4);
    expect([...order.values()]).toEqual(Array.from({ length: 4 }, () => [0, 1, 2, 3, 4]));
  });

  it('bounds parallel partitions by concurrency', async () => {
    const { logger } = captureLogger();
    const tracker = inFlight();
    await run({ logger, concurrency: 2, onRecord: (record) => tracker.around(record, 2) }, numbered(5, 2));
    expect(tracker.max).toBe(2);
  });

  it('runs synchronous handlers without waiting between records', async () => {
    const { logger } = captureLogger();
    const seen: string[] = [];
    const event = numbered(2, 3);
    const response = await run(
      {
        logger,
        onRecord: (record) => {
          seen.push(id(record));
          if (id(record) === '0@1') throw new Error('bad');
        },
      },
      event,
    );
    expect(seen).toEqual(['0@0', '0@1', '1@0', '1@1', '1@2']);
    expect(failedOffsets(response, event)).toEqual({ 'order-events-0': [1, 2] });
  });
});

describe('kafkaBatch: key ordering', () => {
  it('keeps one key in order and runs keys in parallel', async () => {
    const { logger } = captureLogger();
    const tracker = inFlight();
    const byKey = new Map<string | null, number[]>();
    // One partition, keys a/b/c interleaved: a at offsets 0,3,6, b at 1,4,7, c at 2,5,8.
    const event = kafkaEvent({
      topic: 'order-events',
      records: Array.from({ length: 9 }, (_, i) => ({ partition: 0, key: 'abc'[i % 3]!, value: { i } })),
    });
    const response = await run(
      {
        logger,
        ordering: 'key',
        onRecord: async (record) => {
          byKey.set(record.keyData, [...(byKey.get(record.keyData) ?? []), record.offset]);
          await tracker.around(record, 2);
        },
      },
      event,
    );
    expect(response).toEqual({ batchItemFailures: [] });
    expect(byKey.get('a')).toEqual([0, 3, 6]);
    expect(byKey.get('b')).toEqual([1, 4, 7]);
    expect(byKey.get('c')).toEqual([2, 5, 8]);
    expect(tracker.max).toBe(3);
  });

  it('once a record fails, starts no later record of its partition, whatever the key, and reports them', async () => {
    const { logger } = captureLogger();
    // Two partitions, keys a/b/c interleaved at offsets 0..5; 0@1 (key b) fails while 0@0 (a) and
    // 0@2 (c) are still running: those two complete, but neither a@3 nor c@5 starts. Lambda resumes
    // partition 0 from offset 1, so they come back anyway; running them now would repeat them on
    // every retry. Partition 1 goes on.
    const records = [];
    for (let i = 0; i < 6; i++)
      for (let p = 0; p < 2; p++) records.push({ partition: p, key: 'abc'[i % 3]!, value: { i } });
    const event = kafkaEvent({ topic: 'order-events', partitions: 2, records });
    const started: string[] = [];
    const completed: string[] = [];
    const response = await run(
      {
        logger,
        ordering: 'key',
        onRecord: async (record) => {
          started.push(id(record));
          if (id(record) === '0@1') {
            await sleep(1);
            throw new Error('b fails at 1');
          }
          await sleep(record.partition === 0 ? 20 : 1);
          completed.push(id(record));
        },
      },
      event,
    );
    expect(failedOffsets(response, event)).toEqual({ 'order-events-0': [1, 3, 4, 5] });
    expect(started.filter((s) => s.startsWith('0@')).sort()).toEqual(['0@0', '0@1', '0@2']);
    expect(completed.filter((s) => s.startsWith('0@')).sort()).toEqual(['0@0', '0@2']);
    expect(completed.filter((s) => s.startsWith('1@'))).toHaveLength(6);
  });

  it('a failure of a keyless record stops its partition too', async () => {
    const { logger } = captureLogger();
    const event = numbered(2, 4, () => null);
    const started: string[] = [];
    const response = await run(
      {
        logger,
        ordering: 'key',
        concurrency: 1,
        onRecord: (record) => {
          started.push(id(record));
          if (id(record) === '1@1') throw new Error('down');
        },
      },
      event,
    );
    expect(failedOffsets(response, event)).toEqual({ 'order-events-1': [1, 2, 3] });
    expect(started).toEqual(['0@0', '0@1', '0@2', '0@3', '1@0', '1@1']);
  });

  it('treats keyless records as independent', async () => {
    const { logger } = captureLogger();
    const tracker = inFlight();
    const event = numbered(1, 6, () => null);
    await run(
      { logger, ordering: 'key', concurrency: 4, onRecord: (record) => tracker.around(record, 2) },
      event,
    );
    expect(tracker.max).toBe(4);
  });
});

describe('kafkaBatch: no ordering', () => {
  it('runs up to concurrency records at once and reports every record not processed', async () => {
    const { logger } = captureLogger();
    const tracker = inFlight();
    const event = numbered(2, 10);
    const response = await run(
      {
        logger,
        ordering: 'none',
        concurrency: 5,
        onRecord: async (record) => {
          if (record.partition === 0 && record.offset === 2) throw new Error('boom');
          await tracker.around(record, 3);
        },
      },
      event,
    );
    expect(tracker.max).toBe(5);
    const reported = failedOffsets(response, event);
    expect(Object.keys(reported)).toEqual(['order-events-0']);
    // Offset 2 failed at once while 0, 1, 3, 4 were in flight; 5..9 were never started.
    expect(reported['order-events-0']).toEqual([2, 5, 6, 7, 8, 9]);
  });
});

describe('kafkaBatch: whole-batch outcomes', () => {
  it('returns an empty failure list for an event without records', async () => {
    const { logger, lines } = captureLogger();
    const response = await run(
      { logger, onRecord: () => {} },
      { eventSource: 'SelfManagedKafka', bootstrapServers: 'k:9092', records: {} },
    );
    expect(response).toEqual({ batchItemFailures: [] });
    expect(lines).toMatchObject([{ message: 'Kafka batch processed', records: 0 }]);
  });

  it('returns the response when every record failed, or throws when asked to', async () => {
    const { logger } = captureLogger();
    const event = numbered(2, 2);
    const failing = () => {
      throw new Error('down');
    };
    const response = await run({ logger, onRecord: failing }, event);
    expect(failedOffsets(response, event)).toEqual({ 'order-events-0': [0, 1], 'order-events-1': [0, 1] });
    await expect(run({ logger, onRecord: failing, throwOnBatchFailure: true }, event)).rejects.toBeInstanceOf(
      KafkaBatchFailedError,
    );
    // One success is enough to return a partial response.
    const partial = await run(
      {
        logger,
        throwOnBatchFailure: true,
        onRecord: (r) => (r.offset === 0 && r.partition === 0 ? undefined : failing()),
      },
      event,
    );
    expect(failedOffsets(partial, event)).toEqual({ 'order-events-0': [1], 'order-events-1': [0, 1] });
  });

  it('throws a typed error, logged, for an event that is not a Kafka event', async () => {
    const { logger, lines } = captureLogger();
    const handler = middy().use(kafkaBatch({ logger, onRecord: () => {} }));
    const badRecord = {
      eventSource: 'aws:kafka',
      records: { 'orders-0': [{ topic: 'orders', partition: 0 }] },
    };
    await expect(handler(badRecord as never, createLambdaContext())).rejects.toMatchObject({
      name: 'KafkaEventError',
      field: 'records["orders-0"][0].offset',
    });
    await expect(handler({ Records: [] } as never, createLambdaContext())).rejects.toBeInstanceOf(
      KafkaEventError,
    );
    expect(lines.map((l) => [l.level, l.message, l.errorName])).toEqual([
      ['error', 'Invalid Kafka event', 'KafkaEventError'],
      ['error', 'Invalid Kafka event', 'KafkaEventError'],
    ]);
  });

  it('refuses an event a parser middleware replaced before it (Powertools parser), running no record', async () => {
    // As @aws-lambda-powertools/parser's KafkaMskEventSchema leaves the event: brokers split into an
    // array, keys and values decoded to text, header values to strings.
    const text = z.string().transform((base64) => Buffer.from(base64, 'base64').toString());
    const parsedMsk = z.object({
      eventSource: z.literal('aws:kafka'),
      eventSourceArn: z.string(),
      bootstrapServers: z.string().transform((servers) => servers.split(',')),
      records: z.record(
        z.string(),
        z.array(
          z.looseObject({
            key: text.optional(),
            value: text,
            headers: z.array(
              z.record(
                z.string(),
                z.array(z.number()).transform((bytes) => String.fromCharCode(...bytes)),
              ),
            ),
          }),
        ),
      ),
    });
    const parser = {
      before: (request: { event: unknown }) => {
        request.event = parsedMsk.parse(request.event);
      },
    };
    const { logger, lines } = captureLogger();
    const ran: number[] = [];
    const handler = middy()
      .use(parser)
      .use(
        kafkaBatch({
          logger,
          value: z.object({ card: z.string() }),
          onRecord: (record) => void ran.push(record.offset),
        }),
      );
    const event = kafkaEvent({
      topic: 'orders',
      records: [
        { key: 'customer-1', value: { card: 'SECRET-PAN' }, headers: { trace: 'abc' } },
        { key: 'customer-2', value: { card: 'SECRET-PAN' } },
      ],
    });
    const failure = await invokeHandler(handler, event).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(KafkaEventError);
    expect(failure).toMatchObject({ field: 'bootstrapServers' });
    expect((failure as Error).message).toMatch(
      /bootstrapServers is an array, .*a parser middleware placed before kafkaBatch \(such as Powertools' parser/,
    );
    expect(ran).toEqual([]);
    expect(lines.map((l) => [l.level, l.message, l.errorName])).toEqual([
      ['error', 'Invalid Kafka event', 'KafkaEventError'],
    ]);
    expect(JSON.stringify([lines, (failure as Error).message])).not.toMatch(/SECRET|customer-/);
  });

  it('builds identifiers from the records’ own fields when the map key disagrees', async () => {
    const { logger } = captureLogger();
    const event = kafkaEvent({ topic: 'mytopic', records: [{ partition: 12, offset: 3, value: 'x' }] });
    const mismatched = { ...event, records: { 'mytopic-0': event.records['mytopic-12']! } };
    const response = await run(
      {
        logger,
        onRecord: () => {
          throw new Error('x');
        },
      },
      mismatched,
    );
    expect(response).toEqual({
      batchItemFailures: [{ itemIdentifier: { partition: 'mytopic-12', offset: 3 } }],
    });
  });
});

describe('kafkaBatch: anything a handler throws is a failure of its record', () => {
  const revokedProxy = () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    return proxy;
  };
  const thrown: [string, () => unknown, { errorName: string; errorMessage: string }][] = [
    [
      'a null-prototype object',
      () => Object.create(null),
      { errorName: 'object', errorMessage: '[object Object]' },
    ],
    ['undefined', () => undefined, { errorName: 'undefined', errorMessage: 'undefined' }],
    ['null', () => null, { errorName: 'null', errorMessage: 'null' }],
    ['a symbol', () => Symbol('boom'), { errorName: 'symbol', errorMessage: 'Symbol(boom)' }],
    ['a bigint', () => 10n, { errorName: 'bigint', errorMessage: '10' }],
    ['a string', () => 'boom', { errorName: 'string', errorMessage: 'boom' }],
    [
      'an error-like object from another realm or library',
      () => ({ name: 'AxiosError', message: 'socket hang up' }),
      { errorName: 'AxiosError', errorMessage: 'socket hang up' },
    ],
    [
      'an object whose toString throws',
      () => ({
        toString() {
          throw new Error('no');
        },
      }),
      { errorName: 'object', errorMessage: '[object Object]' },
    ],
    [
      'an Error whose message getter throws',
      () =>
        Object.defineProperty(new TypeError(), 'message', {
          get() {
            throw new Error('no');
          },
        }),
      { errorName: 'TypeError', errorMessage: '[object Error]' },
    ],
    ['a revoked proxy', revokedProxy, { errorName: 'object', errorMessage: 'unprintable' }],
  ];

  it.each(thrown)(
    '%s, thrown or rejected: the record is reported and logged, the batch goes on',
    async (_, value, described) => {
      for (const mode of ['throw', 'reject'] as const) {
        const { logger, lines } = captureLogger();
        const event = numbered(2, 4);
        const started: string[] = [];
        const response = await run(
          {
            logger,
            onRecord: async (record) => {
              started.push(id(record));
              if (mode === 'reject') await sleep(1);
              if (id(record) === '0@1') throw value();
            },
          },
          event,
        );
        expect(failedOffsets(response, event)).toEqual({ 'order-events-0': [1, 2, 3] });
        expect(started.sort()).toEqual(['0@0', '0@1', '1@0', '1@1', '1@2', '1@3']);
        expect(lines.filter((l) => l.level === 'error')).toEqual([
          {
            level: 'error',
            message: 'Kafka record failed',
            topic: 'order-events',
            partition: 0,
            offset: 1,
            ...described,
          },
        ]);
      }
    },
  );

  it('in every ordering and with partition runs, and when onPoison throws anything', async () => {
    const event = numbered(2, 3, (p) => `customer-${p}`);
    for (const ordering of ['partition', 'key', 'none'] as const) {
      const response = await run(
        {
          logger: captureLogger().logger,
          ordering,
          onRecord: (record) => {
            if (id(record) === '1@0') throw Object.create(null);
          },
        },
        event,
      );
      expect(failedOffsets(response, event), ordering).toEqual({ 'order-events-1': [0, 1, 2] });
    }
    const runs = await run(
      {
        logger: captureLogger().logger,
        onPartition: (records) => {
          if (records[0]!.partition === 1) throw revokedProxy();
        },
      },
      event,
    );
    expect(failedOffsets(runs, event)).toEqual({ 'order-events-1': [0, 1, 2] });
    const poisoned = kafkaEvent({ topic: 't', records: [{ value: '{bad' }, { value: {} }] });
    const handedOver = await run(
      {
        logger: captureLogger().logger,
        onPoison: () => {
          throw Symbol('dead letter queue down');
        },
        onRecord: (record) => void record.json(),
      },
      poisoned,
    );
    expect(failedOffsets(handedOver, poisoned)).toEqual({ 't-0': [0, 1] });
  });

  it('a logger that throws or rejects fails nothing: the failure goes to the console', async () => {
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const event = numbered(2, 3);
      for (const broken of [
        () => {
          throw Object.create(null);
        },
        () => Promise.reject(new Error('log shipper down')),
      ]) {
        consoleError.mockClear();
        const logger = { info: broken, warn: broken, error: broken } as unknown as KafkaBatchLogger;
        const metrics = {
          addMetric: () => {
            throw new RangeError('bad unit');
          },
        };
        const started: string[] = [];
        const response = await run(
          {
            logger,
            metrics,
            onRecord: async (record) => {
              started.push(id(record));
              await sleep(1);
              if (id(record) === '0@1') throw new Error('down');
            },
          },
          event,
        );
        await sleep(5);
        expect(failedOffsets(response, event)).toEqual({ 'order-events-0': [1, 2] });
        expect(started.sort()).toEqual(['0@0', '0@1', '1@0', '1@1', '1@2']);
        const fallback = consoleError.mock.calls.map((call) => JSON.parse(call[0] as string));
        // The record failure, the metrics failure and the summary: each logged, each failing.
        expect(fallback.map((line) => line.loggedMessage)).toEqual([
          'Kafka record failed',
          'Kafka batch processed',
          'Kafka batch metrics not added',
        ]);
        expect(fallback[0]).toMatchObject({ level: 'ERROR', message: 'Kafka batch logger failed' });
      }
    } finally {
      consoleError.mockRestore();
    }
  });
});

describe('kafkaBatch: schemas and poison records', () => {
  const Order = v.object({ id: v.string(), total: v.number() });
  const orders = (values: RecordPayload[]) =>
    kafkaEvent({ topic: 'order-events', records: values.map((value) => ({ partition: 0, value })) });

  it('hands the handler schema output as record.data (valibot)', async () => {
    const { logger } = captureLogger();
    const seen: unknown[] = [];
    await run(
      { logger, value: Order, onRecord: (record) => void seen.push(record.data) },
      orders([{ id: 'a', total: 1, extra: true }]),
    );
    expect(seen).toEqual([{ id: 'a', total: 1 }]);
  });

  it('applies transforms (zod) and key schemas', async () => {
    const { logger } = captureLogger();
    const seen: unknown[] = [];
    const event = kafkaEvent({ topic: 't', records: [{ key: '42', value: { at: '2026-01-02T00:00:00Z' } }] });
    await run(
      {
        logger,
        key: z.string().transform(Number),
        value: z.object({ at: z.iso.datetime().transform((s) => new Date(s)) }),
        onRecord: (record) => void seen.push(record.keyData, record.data.at),
      },
      event,
    );
    expect(seen).toEqual([42, new Date('2026-01-02T00:00:00Z')]);
  });

  it('supports asynchronous schemas', async () => {
    const { logger } = captureLogger();
    const asyncPositive: StandardSchemaV1<unknown, number> = {
      '~standard': {
        version: 1 as const,
        vendor: 'test',
        validate: async (input: unknown) => {
          await sleep(1);
          return typeof input === 'number' && input > 0
            ? { value: input * 10 }
            : { issues: [{ message: 'not positive' }] };
        },
      },
    };
    const seen: number[] = [];
    const event = orders([1, -1, 2]);
    const response = await run(
      { logger, value: asyncPositive, onRecord: (r) => void seen.push(r.data) },
      event,
    );
    expect(seen).toEqual([10]);
    expect(failedOffsets(response, event)).toEqual({ 'order-events-0': [1, 2] });
  });

  it('reports a poison record by default, logging its position and the rejected paths only', async () => {
    const { logger, lines } = captureLogger();
    const event = orders([
      { id: 'a', total: 1 },
      { id: 'b', total: 'SECRET-TOTAL' },
      { id: 'c', total: 3 },
    ]);
    const response = await run({ logger, value: Order, onRecord: () => {} }, event);
    expect(failedOffsets(response, event)).toEqual({ 'order-events-0': [1, 2] });
    const errors = lines.filter((l) => l.level === 'error');
    expect(errors).toEqual([
      {
        level: 'error',
        message: 'Kafka poison record reported',
        topic: 'order-events',
        partition: 0,
        offset: 1,
        errorName: 'KafkaSchemaError',
        errorMessage: 'order-events-0@1: value failed schema validation at total',
      },
    ]);
    expect(JSON.stringify(lines)).not.toContain('SECRET');
  });

  it('says a tombstone or a missing key is null when its schema refuses null, and a nullable schema takes it', async () => {
    const { logger, lines } = captureLogger();
    const event = kafkaEvent({
      topic: 'order-events',
      records: [
        { partition: 0, key: 'customer-1', value: null },
        { partition: 0, key: 'customer-1', value: undefined },
        { partition: 0, value: { id: 'c', total: 3 } },
        { partition: 0, key: 'customer-1', value: 'null' },
      ],
    });
    const poison: unknown[] = [];
    await run(
      {
        logger,
        key: v.string(),
        value: Order,
        onPoison: (_record, error) => void poison.push(error),
        onRecord: () => {},
      },
      event,
    );
    expect(poison.map((error) => (error as Error).message)).toEqual([
      "order-events-0@0: value is null (a tombstone: the record has no value), which its schema refuses (failed schema validation at (root)); make it accept null (v.nullable(…), z.nullable(…)) or skip such records with onPoison: 'skip'",
      "order-events-0@1: value is null (a tombstone: the record has no value), which its schema refuses (failed schema validation at (root)); make it accept null (v.nullable(…), z.nullable(…)) or skip such records with onPoison: 'skip'",
      "order-events-0@2: key is null (the record has no key), which its schema refuses (failed schema validation at (root)); make it accept null (v.nullable(…), z.nullable(…)) or skip such records with onPoison: 'skip'",
      // The JSON text null is a value like any other: its schema's paths only.
      'order-events-0@3: value failed schema validation at (root)',
    ]);
    expect(poison.every((error) => error instanceof KafkaSchemaError)).toBe(true);
    expect((poison[0] as KafkaSchemaError).paths).toEqual(['']);
    expect(JSON.stringify(lines)).not.toContain('customer-1');

    const seen: unknown[] = [];
    const response = await run(
      { logger, value: v.nullable(Order), onRecord: (record) => void seen.push(record.data) },
      kafkaEvent({ topic: 'order-events', records: [{ value: null }, { value: { id: 'a', total: 1 } }] }),
    );
    expect(response).toEqual({ batchItemFailures: [] });
    expect(seen).toEqual([null, { id: 'a', total: 1 }]);
  });

  it("logs a handler's JSON.parse or schema-library error by where it failed, never by its message quoting the data", async () => {
    const { logger, lines } = captureLogger();
    const event = orders([{ id: 'a', total: 'SECRET-TOTAL' }]);
    const handlers = [
      (record: KafkaRecord) => JSON.parse(`oops ${record.text()}`),
      (record: KafkaRecord) => v.parse(Order, record.json()),
      (record: KafkaRecord) => z.object({ id: z.string(), total: z.number() }).parse(record.json()),
    ];
    for (const onRecord of handlers) await run({ logger, onRecord }, event);
    expect(lines.filter((l) => l.level === 'error').map((l) => [l.errorName, l.errorMessage])).toEqual([
      ['SyntaxError', 'JSON.parse failed (its message is withheld: it quotes the text parsed)'],
      ['ValiError', 'failed schema validation at total (its message is withheld: it may quote the data)'],
      ['ZodError', 'failed schema validation at total (its message is withheld: it may quote the data)'],
    ]);
    expect(JSON.stringify(lines)).not.toContain('SECRET');
  });

  it('skips poison records when asked, counting them', async () => {
    const { logger, lines } = captureLogger();
    const seen: number[] = [];
    const event = orders([{ id: 'a', total: 1 }, 'not an order', { id: 'c', total: 3 }]);
    const response = await run(
      { logger, value: Order, onPoison: 'skip', onRecord: (r) => void seen.push(r.offset) },
      event,
    );
    expect(response).toEqual({ batchItemFailures: [] });
    expect(seen).toEqual([0, 2]);
    expect(lines.find((l) => l.message === 'Kafka batch processed')).toMatchObject({
      processed: 2,
      skipped: 1,
      failed: 0,
    });
    expect(lines.find((l) => l.message === 'Kafka poison record skipped')).toMatchObject({
      level: 'warn',
      offset: 1,
    });
  });

  it('hands poison records to onPoison, reporting them if it fails', async () => {
    const { logger } = captureLogger();
    const deadLetters: [number, string, unknown][] = [];
    const event = orders([{ id: 'a', total: 1 }, { id: 'b' }, { id: 'c', total: 3 }]);
    const response = await run(
      {
        logger,
        value: Order,
        onPoison: async (record, error) => {
          await sleep(1);
          deadLetters.push([record.offset, error.name, record.raw.value]);
        },
        onRecord: () => {},
      },
      event,
    );
    expect(response).toEqual({ batchItemFailures: [] });
    expect(deadLetters).toEqual([[1, 'KafkaSchemaError', event.records['order-events-0']![1]!.value]]);

    const failingDeadLetter = await run(
      {
        logger,
        value: Order,
        onPoison: () => {
          throw new Error('dlq unavailable');
        },
        onRecord: () => {},
      },
      event,
    );
    expect(failedOffsets(failingDeadLetter, event)).toEqual({ 'order-events-0': [1, 2] });
  });

  it('treats a decode error thrown while the handler reads the record as poison', async () => {
    const { logger } = captureLogger();
    const broken = kafkaEvent({
      topic: 'order-events',
      records: [
        { partition: 0, value: '{"fine":1}' },
        { partition: 0, value: '{broken' },
      ],
    });
    const response = await run(
      { logger, onPoison: 'skip', onRecord: (record) => void record.json() },
      broken,
    );
    expect(response).toEqual({ batchItemFailures: [] });
    const reported = await run({ logger, onRecord: (record) => void record.json() }, broken);
    expect(failedOffsets(reported, broken)).toEqual({ 'order-events-0': [1] });
  });

  it('never skips a record whose value something changed before the middleware (not base64): it is reported, not poison', async () => {
    const { lines, logger } = captureLogger();
    const event = kafkaEvent({
      topic: 'order-events',
      records: [
        { partition: 0, value: { id: 1 } },
        { partition: 0, value: { id: 2 } },
        { partition: 0, value: { id: 3 } },
      ],
    });
    // As a value-decoding middleware before kafkaBatch (e.g. @middy/event-normalizer) leaves them:
    // parsed JSON and decoded text where Lambda sends base64.
    const changed = structuredClone(event);
    const records = changed.records['order-events-0']!;
    (records[1] as { value: unknown }).value = { id: 2 };
    (records[2] as { value: unknown }).value = 'hello world';
    const seen: number[] = [];
    for (const onPoison of ['skip', 'report', () => {}] as const) {
      seen.length = 0;
      const response = await run(
        { logger, onPoison, onRecord: (record) => void seen.push((record.json() as { id: number }).id) },
        changed,
      );
      expect(failedOffsets(response, changed)).toEqual({ 'order-events-0': [1, 2] });
      expect(seen).toEqual([1]);
    }
    expect(lines.find((line) => line.offset === 1)).toMatchObject({
      level: 'error',
      message: 'Kafka record failed',
      errorName: 'KafkaRecordEncodingError',
    });
  });

  it('in key ordering, a reported poison record stops its partition from there; a skipped one stops nothing', async () => {
    const { logger } = captureLogger();
    const event = kafkaEvent({
      topic: 't',
      partitions: 2,
      records: [
        { partition: 0, key: 'a', value: 'oops' },
        { partition: 0, key: 'b', value: { id: 'b', total: 1 } },
        { partition: 0, key: 'a', value: { id: 'a', total: 2 } },
        { partition: 1, key: 'a', value: { id: 'a', total: 3 } },
      ],
    });
    const handled: string[] = [];
    const onRecord = (record: KafkaRecord<unknown, unknown>) => void handled.push(id(record));
    const response = await run({ logger, ordering: 'key', value: Order, onRecord }, event);
    expect(failedOffsets(response, event)).toEqual({ 't-0': [0, 1, 2] });
    expect(handled).toEqual(['1@0']);
    handled.length = 0;
    const skipped = await run({ logger, ordering: 'key', value: Order, onPoison: 'skip', onRecord }, event);
    expect(skipped).toEqual({ batchItemFailures: [] });
    expect(handled.sort()).toEqual(['0@1', '0@2', '1@0']);
  });
});

describe('kafkaBatch: deadline', () => {
  it('keeps a deadline beyond setTimeout’s 2^31−1 ms limit (no instant timeout, no overflow warning)', async () => {
    const { logger, lines } = captureLogger();
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const event = numbered(1, 3);
      const context = { ...createLambdaContext(), getRemainingTimeInMillis: () => 2 ** 31 + 5_000 };
      const handler = middy().use(kafkaBatch({ logger, onRecord: () => sleep(15) }));
      expect(await handler(event, context)).toEqual({ batchItemFailures: [] });
      await sleep(1); // process warnings are emitted on the next tick
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.map((w) => w.name)).not.toContain('TimeoutOverflowWarning');
    expect(lines.find((l) => l.message === 'Kafka batch processed')).toMatchObject({ timedOut: false });
  });

  it('still stops at a deadline beyond 2^31−1 ms (the timer is re-armed, not dropped)', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      const { logger } = captureLogger();
      const event = numbered(1, 2);
      const deadline = Date.now() + 2 ** 31 + 5_000;
      const context = { ...createLambdaContext(), getRemainingTimeInMillis: () => deadline - Date.now() };
      const handler = middy().use(
        kafkaBatch({ logger, timeoutReserveMs: 1000, onRecord: () => new Promise(() => {}) }),
      );
      let response: unknown;
      void handler(event, context).then((r) => {
        response = r;
      });
      await vi.advanceTimersByTimeAsync(2 ** 31 - 1);
      expect(response).toBeUndefined();
      await vi.advanceTimersByTimeAsync(5_000);
      expect(failedOffsets(response, event)).toEqual({ 'order-events-0': [0, 1] });
    } finally {
      vi.useRealTimers();
    }
  });

  it('returns before the Lambda timeout when a handler hangs, reporting what did not complete', async () => {
    const { logger, lines } = captureLogger();
    const event = numbered(2, 3);
    let signal: AbortSignal | undefined;
    const started = Date.now();
    const response = await run(
      {
        logger,
        timeoutReserveMs: 300,
        onRecord: (record, batch) => {
          signal = batch.signal;
          if (record.partition === 1 && record.offset === 1) return new Promise(() => {});
          return sleep(5);
        },
      },
      event,
      800,
    );
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(400);
    expect(elapsed).toBeLessThan(800);
    expect(failedOffsets(response, event)).toEqual({ 'order-events-1': [1, 2] });
    expect(signal?.aborted).toBe(true);
    expect((signal!.reason as Error).name).toBe('TimeoutError');
    expect(lines.find((l) => l.message === 'Kafka batch processed')).toMatchObject({
      timedOut: true,
      processed: 4,
    });
  });

  it('stops starting records at the deadline, also for synchronous handlers', async () => {
    const { logger } = captureLogger();
    const event = numbered(1, 50);
    const context = createLambdaContext({ timeoutMs: 1200 });
    const handler = middy().use(
      kafkaBatch({
        logger,
        timeoutReserveMs: 1000,
        onRecord: () => {
          const until = Date.now() + 20;
          while (Date.now() < until) {} // busy: the timer cannot fire, the per-record check must
        },
      }),
    );
    const response = await handler(event, context);
    const reported = failedOffsets(response, event)['order-events-0']!;
    expect(reported.length).toBeGreaterThan(35);
    expect(reported.at(-1)).toBe(49);
    expect(context.getRemainingTimeInMillis()).toBeGreaterThan(900);
  });

  it('returns when synchronous records pass the deadline while another partition hangs', async () => {
    const { logger } = captureLogger();
    const event = numbered(2, 30);
    const started = Date.now();
    const response = await run(
      {
        logger,
        concurrency: 2,
        timeoutReserveMs: 1000,
        onRecord: (record) => {
          if (record.partition === 0) return new Promise(() => {});
          const until = Date.now() + 20;
          while (Date.now() < until) {}
          return undefined;
        },
      },
      event,
      1300,
    );
    expect(Date.now() - started).toBeLessThan(1000);
    const reported = failedOffsets(response, event);
    expect(reported['order-events-0']).toHaveLength(30);
    expect(reported['order-events-1']!.length).toBeGreaterThan(10);
  });

  it('with throwOnBatchFailure, a batch that ran out of time before any record says so, not that all failed', async () => {
    const { logger } = captureLogger();
    const event = numbered(2, 2);
    const error = await run(
      { logger, timeoutReserveMs: 5000, throwOnBatchFailure: true, onRecord: () => {} },
      event,
      3000,
    ).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(KafkaBatchFailedError);
    expect(error).toMatchObject({
      records: 4,
      failed: 0,
      timedOut: true,
      message:
        "No record of the batch of 4 was processed: 0 failed, the others did not start before the invocation's deadline (timeoutReserveMs)",
    });
    const allFailed = await run(
      { logger, throwOnBatchFailure: true, onRecord: () => Promise.reject(new Error('down')) },
      event,
    ).catch((thrown: unknown) => thrown);
    // The first record of each partition failed; the second waits behind it.
    expect(allFailed).toMatchObject({
      records: 4,
      failed: 2,
      timedOut: false,
      message:
        'No record of the batch of 4 was processed: 2 failed, the others wait behind them in their partitions',
    });
  });

  it('starts nothing when the reserve is already used up, and says so in one warning', async () => {
    const { logger, lines } = captureLogger();
    const onRecord = vi.fn();
    const event = numbered(2, 2);
    const response = await run({ logger, timeoutReserveMs: 5000, onRecord }, event, 3000);
    expect(onRecord).not.toHaveBeenCalled();
    expect(failedOffsets(response, event)).toEqual({ 'order-events-0': [0, 1], 'order-events-1': [0, 1] });
    const warnings = lines.filter((l) => l.level === 'warn');
    expect(warnings).toEqual([
      {
        level: 'warn',
        message: 'Kafka batch not started: the invocation has no time left beyond timeoutReserveMs',
        remainingTimeMs: expect.any(Number),
        timeoutReserveMs: 5000,
      },
    ]);
    expect(warnings[0]!.remainingTimeMs).toBeGreaterThan(2500);
    expect(warnings[0]!.remainingTimeMs).toBeLessThanOrEqual(3000);
    // With time left (however little), no warning: the reserve is not misconfigured.
    const { logger: enough, lines: enoughLines } = captureLogger();
    await run({ logger: enough, timeoutReserveMs: 2900, onRecord }, event, 3000);
    expect(onRecord).toHaveBeenCalled();
    expect(enoughLines.filter((l) => l.level === 'warn')).toEqual([]);
  });

  it('hands every record the same signal and the invocation’s Lambda context', async () => {
    const { logger } = captureLogger();
    const context = createLambdaContext({ awsRequestId: 'req-1' });
    const seen = new Set<unknown>();
    const handler = middy().use(
      kafkaBatch({
        logger,
        onRecord: (_record, batch) => void seen.add(batch).add(batch.context.awsRequestId),
      }),
    );
    await handler(numbered(2, 2), context);
    expect([...seen].filter((v) => typeof v === 'object')).toHaveLength(1);
    expect(seen.has('req-1')).toBe(true);
  });

  it('tells every handler where the records come from: the trigger kind, the MSK cluster, the brokers', async () => {
    const sources: unknown[] = [];
    const options = {
      logger: captureLogger().logger,
      onRecord: (_r: unknown, { source }: { source: unknown }) => void sources.push(source),
    };
    const records = [{ partition: 0, value: { n: 1 } }];
    await run(options, {
      ...kafkaEvent({
        topic: 'order-events',
        records,
        eventSourceArn: 'arn:aws:kafka:eu-west-1:111122223333:cluster/orders/abc',
        bootstrapServers: 'b-1.orders:9098, b-2.orders:9098',
      }),
    });
    await run(
      options,
      kafkaEvent({
        topic: 'order-events',
        records,
        eventSource: 'SelfManagedKafka',
        bootstrapServers: 'kafka:9092',
      }),
    );
    const { bootstrapServers: _none, ...withoutServers } = kafkaEvent({ topic: 'order-events', records });
    await run(options, withoutServers as KafkaEvent);
    expect(sources).toEqual([
      {
        eventSource: 'aws:kafka',
        eventSourceArn: 'arn:aws:kafka:eu-west-1:111122223333:cluster/orders/abc',
        bootstrapServers: ['b-1.orders:9098', 'b-2.orders:9098'],
      },
      { eventSource: 'SelfManagedKafka', eventSourceArn: undefined, bootstrapServers: ['kafka:9092'] },
      expect.objectContaining({ eventSource: 'aws:kafka', bootstrapServers: [] }),
    ]);
  });

  it('runs without a deadline when the context has no remaining time', async () => {
    const { logger } = captureLogger();
    const handler = middy().use(kafkaBatch({ logger, onRecord: () => sleep(1) }));
    expect(await handler(numbered(1, 2), {} as never)).toEqual({ batchItemFailures: [] });
  });
});

describe('kafkaBatch: partition runs (onPartition)', () => {
  it('gives each partition’s run at once, partitions in parallel', async () => {
    const { logger } = captureLogger();
    const runs: string[][] = [];
    const response = await run(
      {
        logger,
        onPartition: async (records) => {
          runs.push(records.map(id));
          await sleep(1);
        },
      },
      numbered(2, 3),
    );
    expect(response).toEqual({ batchItemFailures: [] });
    expect(runs.sort()).toEqual([
      ['0@0', '0@1', '0@2'],
      ['1@0', '1@1', '1@2'],
    ]);
  });

  it('reports from the first returned failure onward, or the whole run when it throws', async () => {
    const { logger, lines } = captureLogger();
    const event = numbered(2, 4);
    const response = await run(
      {
        logger,
        onPartition: (records) => {
          if (records[0]!.partition === 1) throw new Error('bulk write failed');
          return [records[3]!, records[1]!];
        },
      },
      event,
    );
    expect(failedOffsets(response, event)).toEqual({
      'order-events-0': [1, 2, 3],
      'order-events-1': [0, 1, 2, 3],
    });
    expect(lines.find((l) => l.message === 'Kafka batch processed')).toMatchObject({
      processed: 1,
      failed: 6,
    });
  });

  it('reports the returned record by identity even when the handler sorted its array in place', async () => {
    // Grouping by customer before a bulk write moves offset 0 (customer c-4) to the end.
    const event = kafkaEvent({
      topic: 'orders',
      records: ['c-4', 'c-1', 'c-2', 'c-3'].map((key) => ({ key, value: { key } })),
    });
    const { logger, lines } = captureLogger();
    const response = await run(
      {
        logger,
        onPartition: (records) => {
          records.sort((a, b) => String(a.keyData).localeCompare(String(b.keyData)));
          return [records.find((record) => record.offset === 0)!];
        },
      },
      event,
    );
    expect(failedOffsets(response, event)).toEqual({ 'orders-0': [0, 1, 2, 3] });
    expect(lines.find((l) => l.message === 'Kafka partition run reported failed records')).toMatchObject({
      offset: 0,
    });
  });

  it('gives the handler its own array: emptying or refilling it changes nothing', async () => {
    const event = numbered(1, 3);
    const { logger } = captureLogger();
    const response = await run(
      {
        logger,
        onPartition: (records) => {
          const failed = records[1]!;
          records.length = 0;
          records.push(failed, failed);
          return records;
        },
      },
      event,
    );
    expect(failedOffsets(response, event)).toEqual({ 'order-events-0': [1, 2] });
  });

  it('matches a returned stand-in by topic, partition and offset', async () => {
    const event = numbered(1, 3);
    const { logger } = captureLogger();
    const response = await run(
      {
        logger,
        onPartition: (records) => [{ ...records[2]! } as KafkaRecord<unknown>],
      },
      event,
    );
    expect(failedOffsets(response, event)).toEqual({ 'order-events-0': [2] });
  });

  it('reports the whole run, with an error line, when the handler returns records not in its run', async () => {
    const event = numbered(2, 3);
    const { logger, lines } = captureLogger();
    const response = await run(
      {
        logger,
        onPartition: (records) => {
          if (records[0]!.partition === 1) return undefined;
          // A record of partition 1 and an offset partition 0 does not hold, beside a real failure.
          const stranger = { ...records[2]!, offset: 99 } as KafkaRecord<unknown>;
          return [records[2]!, stranger, { ...records[0]!, partition: 1 } as KafkaRecord<unknown>];
        },
      },
      event,
    );
    expect(failedOffsets(response, event)).toEqual({ 'order-events-0': [0, 1, 2] });
    expect(lines.find((l) => l.message.includes('not in its run'))).toMatchObject({
      level: 'error',
      partition: 'order-events-0',
      foreignRecords: 2,
    });
  });

  it('leaves poison records out of the run: skipped ones vanish, reported ones end it', async () => {
    const { logger } = captureLogger();
    const Order = v.object({ id: v.string() });
    const event = kafkaEvent({
      topic: 't',
      records: [{ value: { id: 'a' } }, { value: 'poison' }, { value: { id: 'c' } }],
    });
    const runs: number[][] = [];
    const onPartition = (records: readonly KafkaRecord<{ id: string }>[]) =>
      void runs.push(records.map((r) => r.offset));
    expect(await run({ logger, value: Order, onPoison: 'skip', onPartition }, event)).toEqual({
      batchItemFailures: [],
    });
    const reported = await run({ logger, value: Order, onPartition }, event);
    expect(failedOffsets(reported, event)).toEqual({ 't-0': [1, 2] });
    expect(runs).toEqual([[0, 2], [0]]);
  });
});

describe('kafkaBatch: sample events Lambda would never send', () => {
  // The shape of Powertools' public kafkaEventMsk.json: three records of mytopic-0, all at offset 15.
  const repeated = (): KafkaEvent => ({
    eventSource: 'aws:kafka',
    eventSourceArn: 'arn:aws:kafka:us-east-1:111122223333:cluster/demo/uuid-1',
    bootstrapServers: 'b-1.demo:9092',
    records: {
      'mytopic-0': ['first', 'second', 'third'].map((value) => ({
        topic: 'mytopic',
        partition: 0,
        offset: 15,
        timestamp: 1_545_084_650_987,
        timestampType: 'CREATE_TIME',
        value: Buffer.from(value).toString('base64'),
        headers: [],
      })),
    },
  });

  it.each([['first'], ['second'], ['third']])(
    'runs repeated offsets in event order and reports the offset once when the %s record fails',
    async (failing) => {
      const { logger, lines } = captureLogger();
      const seen: string[] = [];
      const event = repeated();
      const response = await run(
        {
          logger,
          onRecord: (record) => {
            seen.push(record.text()!);
            if (record.text() === failing) throw new Error('downstream said no');
          },
        },
        event,
      );
      expect(response).toEqual({
        batchItemFailures: [{ itemIdentifier: { partition: 'mytopic-0', offset: 15 } }],
      });
      expect(seen).toEqual(
        ['first', 'second', 'third'].slice(0, ['first', 'second', 'third'].indexOf(failing) + 1),
      );
      expect(lines.filter((l) => l.level === 'warn')).toEqual([
        {
          level: 'warn',
          message: 'Kafka event not as Lambda sends it',
          partition: 'mytopic-0',
          field: 'records["mytopic-0"][1].offset',
          problem: expect.stringMatching(/^repeats offset 15 of mytopic-0/),
        },
      ]);
    },
  );

  it('reports a repeated offset once in every ordering, also from onPartition', async () => {
    for (const ordering of ['key', 'none'] as const) {
      const response = await run(
        { logger: captureLogger().logger, ordering, onRecord: () => Promise.reject(new Error('no')) },
        repeated(),
      );
      expect(response).toEqual({
        batchItemFailures: [{ itemIdentifier: { partition: 'mytopic-0', offset: 15 } }],
      });
    }
    const response = await run(
      { logger: captureLogger().logger, onPartition: (records) => records.slice(1) },
      repeated(),
    );
    expect(response).toEqual({
      batchItemFailures: [{ itemIdentifier: { partition: 'mytopic-0', offset: 15 } }],
    });
  });
});

describe('kafkaBatch: monitoring', () => {
  it('writes one summary line without payloads, and adds metrics', async () => {
    const { logger, lines } = captureLogger();
    const metrics = { addMetric: vi.fn() };
    const event = kafkaEvent({
      topic: 'order-events',
      timestamp: Date.now() - 60_000,
      records: [
        { partition: 0, key: 'SECRET-KEY', value: 'SECRET-VALUE-1', headers: { h: 'SECRET-HEADER' } },
        { partition: 1, value: 'SECRET-VALUE-2' },
      ],
    });
    await run(
      {
        logger,
        metrics,
        onRecord: (record) => {
          if (record.partition === 1) throw new Error('downstream said no');
        },
      },
      event,
    );
    const summaries = lines.filter((l) => l.message === 'Kafka batch processed');
    expect(summaries).toHaveLength(1);
    expect(summaries[0]).toMatchObject({
      records: 2,
      processed: 1,
      failed: 1,
      skipped: 0,
      reported: 1,
      partitions: 2,
      timedOut: false,
    });
    expect(summaries[0]!.oldestRecordAgeMs).toBeGreaterThanOrEqual(60_000);
    expect(lines.find((l) => l.level === 'error')).toEqual({
      level: 'error',
      message: 'Kafka record failed',
      topic: 'order-events',
      partition: 1,
      offset: 0,
      errorName: 'Error',
      errorMessage: 'downstream said no',
    });
    expect(JSON.stringify(lines)).not.toContain('SECRET');
    expect(metrics.addMetric).toHaveBeenCalledWith('KafkaRecordsFailed', 'Count', 1);
    expect(metrics.addMetric).toHaveBeenCalledWith('KafkaRecordsProcessed', 'Count', 1);
    expect(metrics.addMetric).toHaveBeenCalledWith(
      'KafkaOldestRecordAge',
      'Milliseconds',
      expect.any(Number),
    );
  });

  it('writes JSON lines to the console by default', async () => {
    const info = vi.spyOn(console, 'info').mockImplementation(() => {});
    try {
      await run({ onRecord: () => {} }, numbered(1, 1));
      expect(info).toHaveBeenCalledTimes(1);
      expect(JSON.parse(info.mock.calls[0]![0] as string)).toMatchObject({
        level: 'INFO',
        message: 'Kafka batch processed',
        records: 1,
      });
    } finally {
      info.mockRestore();
    }
  });
});

describe('kafkaBatch: Middy composition and options', () => {
  it('lets outer middlewares see and change the response, and respects early returns', async () => {
    const { logger } = captureLogger();
    const calls: string[] = [];
    const event = numbered(1, 2);
    const handler = middy()
      .use({
        before: () => void calls.push('outer before'),
        after: (request) => {
          calls.push(`outer after ${JSON.stringify(request.response)}`);
        },
      })
      .use(kafkaBatch({ logger, onRecord: () => void calls.push('record') }));
    await handler(event, createLambdaContext());
    expect(calls).toEqual(['outer before', 'record', 'record', 'outer after {"batchItemFailures":[]}']);

    const warm = middy()
      .use({ before: () => ({ warmed: true }) })
      .use(kafkaBatch({ logger, onRecord: () => void calls.push('never') }));
    expect(await warm(event, createLambdaContext())).toEqual({ warmed: true });
    expect(calls).not.toContain('never');
  });

  it('refuses a Middy handler that returns a value', async () => {
    const handler = middy(() => ({ ok: true })).use(kafkaBatch({ onRecord: () => {} }));
    await expect(handler(numbered(1, 1) as never, createLambdaContext())).rejects.toBeInstanceOf(
      KafkaBatchOptionsError,
    );
  });

  it('refuses to be used twice in one chain before any record runs, in any chain and invocation', async () => {
    const ran: string[] = [];
    const event = numbered(2, 2);
    // A shared base chain, extended by a function with a kafkaBatch of its own.
    const base = () => middy().use(kafkaBatch({ onRecord: () => void ran.push('base') }));
    const extended = base().use(kafkaBatch({ onRecord: () => void ran.push('function') }));
    const once = kafkaBatch({ onRecord: () => void ran.push('same') });
    const sameTwice = middy().use(once).use(once);
    const outerCalls: string[] = [];
    const apart = middy()
      .use(kafkaBatch({ onRecord: () => void ran.push('outer') }))
      .use({ before: () => void outerCalls.push('between') })
      .use(kafkaBatch({ onRecord: () => void ran.push('inner') }));
    for (const handler of [extended, sameTwice, apart]) {
      for (let invocation = 0; invocation < 2; invocation++) {
        await expect(handler(event, createLambdaContext())).rejects.toThrow(
          new KafkaBatchOptionsError(
            'kafkaBatch is used twice in one Middy chain (a shared chain extended with another .use(kafkaBatch(…))?): each would run every record, so give the chain one kafkaBatch',
          ),
        );
      }
    }
    expect(ran).toEqual([]);
    // One kafkaBatch per chain: its invocations go on as before.
    const single = base();
    expect(await single(event, createLambdaContext())).toEqual({ batchItemFailures: [] });
    expect(await single(event, createLambdaContext())).toEqual({ batchItemFailures: [] });
    expect(ran).toEqual(Array(8).fill('base'));
  });

  it('marks each invocation, not what Middy may share between them (older versions share middy({ internal }))', async () => {
    const middleware = kafkaBatch({ onRecord: () => {} });
    const internal = {};
    const request = () => ({
      event: numbered(1, 1),
      context: createLambdaContext(),
      response: undefined,
      error: undefined,
      internal,
    });
    for (let invocation = 0; invocation < 2; invocation++) {
      const sameInternal = request();
      await middleware.before!(sameInternal);
      await middleware.after!(sameInternal);
      expect(sameInternal.response).toEqual({ batchItemFailures: [] });
    }
  });

  it("names its after hook, which Middy's plugin hooks report middlewares by", async () => {
    const seen: string[] = [];
    const handler = middy({
      beforeMiddleware: (name: string) => void seen.push(name),
    }).use(kafkaBatch({ onRecord: () => {} }));
    await handler(numbered(1, 1) as never, createLambdaContext());
    expect(seen).toContain('kafkaBatchAfter');
  });

  const invalidOptions: unknown[][] = [
    [{}],
    [{ onRecord: () => {}, onPartition: () => undefined }],
    [{ onRecord: () => {}, concurrency: 0 }],
    [{ onRecord: () => {}, concurrency: 1.5 }],
    [{ onRecord: () => {}, ordering: 'random' }],
    [{ onPartition: () => undefined, ordering: 'key' }],
    [{ onRecord: () => {}, timeoutReserveMs: -1 }],
    [{ onRecord: () => {}, onPoison: 'ignore' }],
    [{ onRecord: () => {}, value: { parse: () => 1 } }],
    [{ onRecord: () => {}, logger: { info: () => {} } }],
    [{ onRecord: () => {}, metrics: {} }],
    [{ onRecord: () => {}, logger: null }],
    [{ onRecord: () => {}, value: null }],
    [{ onRecord: () => {}, throwOnBatchFailure: 'yes' }],
    [{ onRecord: () => {}, concurency: 4 }],
    [null],
  ];
  it.each(invalidOptions)('rejects invalid options %j', (options) => {
    expect(() => kafkaBatch(options as never)).toThrow(KafkaBatchOptionsError);
  });

  it('refuses an unknown option, naming it and the option it misspells', () => {
    const onRecord = (): void => {};
    expect(() => kafkaBatch({ onRecord, concurency: 4 } as never)).toThrow(
      new KafkaBatchOptionsError('unknown option "concurency" — did you mean "concurrency"?'),
    );
    expect(() => kafkaBatch({ onRecord, timeoutReserve: 500 } as never)).toThrow(
      'unknown option "timeoutReserve" — did you mean "timeoutReserveMs"?',
    );
    expect(() => kafkaBatch({ onRecrod: onRecord } as never)).toThrow(
      'unknown option "onRecrod" — did you mean "onRecord"?',
    );
    expect(() => kafkaBatch({ onRecord, concurrency: 0 })).toThrow(
      'concurrency must be a positive integer, not 0',
    );
  });

  it('accepts every option it documents, null meaning the default where one applies', () => {
    const { logger } = captureLogger();
    expect(
      kafkaBatch({
        onRecord: () => {},
        ordering: 'key',
        concurrency: 4,
        timeoutReserveMs: 0,
        throwOnBatchFailure: true,
        onPoison: 'skip',
        key: v.string(),
        value: v.unknown(),
        logger,
        metrics: { addMetric: () => {} },
      }).name,
    ).toBe('kafkaBatch');
    expect(
      kafkaBatch({ onRecord: () => {}, concurrency: null, ordering: null, onPoison: null } as never).name,
    ).toBe('kafkaBatch');
  });

  it('exports a KafkaSchemaError with the rejected paths', async () => {
    const { logger } = captureLogger();
    const errors: unknown[] = [];
    const event = kafkaEvent({ topic: 't', records: [{ value: { items: [{ sku: 1 }] } }] });
    await run(
      {
        logger,
        value: v.object({ items: v.array(v.object({ sku: v.string() })) }),
        onPoison: (_record, error) => void errors.push(error),
        onRecord: () => {},
      },
      event,
    );
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(KafkaSchemaError);
    expect((errors[0] as KafkaSchemaError).paths).toEqual(['items.0.sku']);
  });
});

describe('kafkaBatch: hostile schemas, decoders, metrics and options', () => {
  const event = () =>
    kafkaEvent({
      topic: 'orders',
      records: [{ value: { card: 'PAN=4111111111111111' } }, { value: { card: 'ok' } }],
    });

  it('a schema that throws fails its record for retry, even with onPoison skip, and never quotes the value', async () => {
    const { lines, logger } = captureLogger();
    const value = v.object({
      card: v.pipe(
        v.string(),
        v.transform((text) => JSON.parse(text) as unknown),
      ),
    });
    const response = await run({ value, onPoison: 'skip', logger, onRecord: () => {} }, event());
    // The throw may be transient (an async refinement's lookup): retried, never skipped as poison.
    expect(failedOffsets(response, event())).toEqual({ 'orders-0': [0, 1] });
    const failure = lines.find((line) => line.message === 'Kafka record failed')!;
    expect(failure).toMatchObject({
      errorName: 'KafkaSchemaThrewError',
      errorMessage:
        "orders-0@0: value's schema threw a SyntaxError (its message is withheld: it may quote the value)",
    });
    expect(JSON.stringify(lines)).not.toContain('4111');
  });

  it('an async schema that rejects is the same: reported, its message withheld', async () => {
    const { lines, logger } = captureLogger();
    const value: StandardSchemaV1<unknown, unknown> = {
      '~standard': {
        version: 1,
        vendor: 'test',
        validate: async () => {
          throw new TypeError('lookup failed for PAN=4111111111111111');
        },
      },
    };
    const response = await run({ value, onPoison: 'skip', logger, onRecord: () => {} }, event());
    expect(failedOffsets(response, event())).toEqual({ 'orders-0': [0, 1] });
    expect(JSON.stringify(lines)).not.toContain('4111');
    expect(lines.find((line) => line.message === 'Kafka record failed')).toMatchObject({
      errorName: 'KafkaSchemaThrewError',
    });
  });

  it('a schema answering with a promise of another kind (a thenable) is awaited: its issues still fail the record', async () => {
    const value: StandardSchemaV1<unknown, unknown> = {
      '~standard': {
        version: 1,
        vendor: 'test',
        // Not a native Promise: another realm's, or a promise library's.
        validate: (data) =>
          ({
            // biome-ignore lint/suspicious/noThenProperty: a thenable on purpose, not a native Promise
            then: (resolve: (result: StandardSchemaV1.Result<unknown>) => void) =>
              resolve(
                (data as { card: string }).card === 'ok'
                  ? { value: data }
                  : { issues: [{ message: 'bad card' }] },
              ),
          }) as unknown as Promise<StandardSchemaV1.Result<unknown>>,
      },
    };
    const seen: unknown[] = [];
    const response = await run({ value, onRecord: (record) => void seen.push(record.data) }, event());
    expect(failedOffsets(response, event())).toEqual({ 'orders-0': [0, 1] });
    expect(seen).toEqual([]);
  });

  it('a decoder answering with a thenable is awaited: its rejection fails the record instead of going unheard', async () => {
    const seen: unknown[] = [];
    const response = await run(
      {
        value: {
          kind: 'kafka-decoder',
          decode: (bytes) => ({
            // biome-ignore lint/suspicious/noThenProperty: a thenable on purpose, not a native Promise
            then: (resolve: (data: unknown) => void, reject: (error: unknown) => void) =>
              bytes?.toString().includes('PAN') ? reject(new Error('undecodable')) : resolve('decoded'),
          }),
        },
        onRecord: (record) => void seen.push(record.data),
      },
      event(),
    );
    expect(failedOffsets(response, event())).toEqual({ 'orders-0': [0, 1] });
    expect(seen).toEqual([]);
  });

  it('console.log(record) shows its position, not the decoded key and value the middleware keeps on it', async () => {
    const shown: string[] = [];
    await run(
      {
        value: v.object({ card: v.string() }),
        key: v.string(),
        onRecord: (record) => void shown.push(inspect(record)),
      },
      kafkaEvent({ topic: 'orders', records: [{ key: 'customer-secret-42', value: { card: 'ok' } }] }),
    );
    expect(shown).toEqual(["{ topic: 'orders', partition: 0, offset: 0 }"]);
  });

  it('a spread copy or Object.assign of a record carries its position, not the decoded key and value', async () => {
    const copies: unknown[] = [];
    await run(
      {
        value: v.object({ card: v.string() }),
        key: v.string(),
        onRecord: (record) => {
          copies.push({ ...record }, Object.assign({}, record));
          // The handler still reads what the schemas made.
          expect([record.keyData, record.data]).toEqual(['customer-secret-42', { card: 'card-secret-4111' }]);
        },
      },
      kafkaEvent({
        topic: 'orders',
        records: [{ key: 'customer-secret-42', value: { card: 'card-secret-4111' } }],
      }),
    );
    expect(copies).toHaveLength(2);
    for (const copy of copies) {
      expect(Reflect.ownKeys(copy as object)).toEqual(['topic', 'partition', 'offset', 'timestampType']);
      expect(inspect(copy, { showHidden: true, depth: null })).not.toMatch(/secret/);
    }
  });

  it('a metrics adapter whose addMetric rejects is a warning, not an unhandled rejection that ends the process', async () => {
    const { lines, logger } = captureLogger();
    const metrics = { addMetric: () => Promise.reject(new Error('metrics backend down')) };
    const response = await run({ metrics, logger, onRecord: () => {} }, event());
    expect(response).toEqual({ batchItemFailures: [] });
    await sleep(10);
    expect(lines.filter((line) => line.message === 'Kafka batch metrics not added')).toHaveLength(7);
  });

  it('an option value that cannot be turned into text is still refused with KafkaBatchOptionsError', () => {
    for (const option of ['ordering', 'concurrency', 'timeoutReserveMs', 'throwOnBatchFailure'])
      expect(() =>
        kafkaBatch({ onRecord: () => {}, [option]: Object.create(null) } as KafkaBatchOptions<
          unknown,
          unknown
        >),
      ).toThrow(
        expect.objectContaining({
          name: 'KafkaBatchOptionsError',
          message: expect.stringContaining('not an object'),
        }),
      );
  });
});
