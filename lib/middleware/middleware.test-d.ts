import type { MSKEvent as PowertoolsMSKEvent } from '@aws-lambda-powertools/kafka/types';
import { Metrics } from '@aws-lambda-powertools/metrics';
import middy from '@middy/core';
import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { Context } from 'aws-lambda';
import * as v from 'valibot';
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import {
  type KafkaBatchMetrics,
  type KafkaBatchResponse,
  type KafkaEvent,
  type KafkaHeader,
  type KafkaPoisonRecordError,
  type KafkaRecord,
  kafkaBatch,
  type LambdaContext,
} from './index.ts';

describe('kafkaBatch types', () => {
  it('infers record.data from a valibot value schema', () => {
    kafkaBatch({
      value: v.object({ id: v.string(), total: v.number() }),
      onRecord: (record) => {
        expectTypeOf(record.data).toEqualTypeOf<{ id: string; total: number }>();
        expectTypeOf(record.keyData).toEqualTypeOf<string | null>();
      },
    });
  });

  it("types the batch context's source: the trigger kind narrowed, the ARN optional, the brokers a list", () => {
    kafkaBatch({
      onRecord: (_record, { source }) => {
        expectTypeOf(source.eventSource).toEqualTypeOf<
          'aws:kafka' | 'SelfManagedKafka' | 'aws:SelfManagedKafka'
        >();
        expectTypeOf(source.eventSourceArn).toEqualTypeOf<string | undefined>();
        expectTypeOf(source.bootstrapServers).toEqualTypeOf<readonly string[]>();
      },
    });
  });

  it('infers schema outputs, not inputs, from zod (value and key)', () => {
    kafkaBatch({
      key: z.string().transform(Number),
      value: z.object({ at: z.string().transform((s) => new Date(s)) }),
      onRecord: (record) => {
        expectTypeOf(record.keyData).toEqualTypeOf<number>();
        expectTypeOf(record.data).toEqualTypeOf<{ at: Date }>();
      },
    });
  });

  it('accepts any Standard Schema', () => {
    const custom = {} as StandardSchemaV1<unknown, bigint>;
    kafkaBatch({ value: custom, onRecord: (record) => expectTypeOf(record.data).toEqualTypeOf<bigint>() });
  });

  it('leaves record.data unknown without a schema and types the raw parts', () => {
    kafkaBatch({
      onRecord: (record, batch) => {
        expectTypeOf(record).toEqualTypeOf<KafkaRecord<unknown, string | null>>();
        expectTypeOf(record.data).toEqualTypeOf<unknown>();
        // ArrayBuffer-backed, as Buffer.from gives them: fetch, Blob and Web streams take them as they are.
        expectTypeOf(record.key).toEqualTypeOf<Buffer<ArrayBuffer> | null | undefined>();
        expectTypeOf(record.value).toEqualTypeOf<Buffer<ArrayBuffer> | null | undefined>();
        expectTypeOf(record.value!).toExtend<NonNullable<RequestInit['body']>>();
        expectTypeOf(record.headers).toEqualTypeOf<readonly KafkaHeader[]>();
        expectTypeOf(record.header('h')).toEqualTypeOf<Buffer<ArrayBuffer> | undefined>();
        expectTypeOf(record.timestamp).toEqualTypeOf<Date>();
        expectTypeOf(record.offset).toEqualTypeOf<number>();
        expectTypeOf(batch.signal).toEqualTypeOf<AbortSignal>();
        expectTypeOf(batch.context).toEqualTypeOf<LambdaContext>();
        // The package's own context type, so that its public types resolve without @types/aws-lambda,
        // is interchangeable with the one Middy users already have.
        expectTypeOf<LambdaContext>().toExtend<Context>();
        expectTypeOf<Context>().toExtend<LambdaContext>();
      },
    });
  });

  it('types partition runs and their failure result', () => {
    kafkaBatch({
      value: v.object({ sku: v.string() }),
      onPartition: async (records) => {
        expectTypeOf(records).toEqualTypeOf<KafkaRecord<{ sku: string }, string | null>[]>();
        return records.filter((r) => r.data.sku === '');
      },
    });
    kafkaBatch({ onPartition: () => undefined });
    // @ts-expect-error a partition run can only report records, not offsets
    kafkaBatch({ onPartition: () => [1, 2] });
    // @ts-expect-error nor a promise of offsets
    kafkaBatch({ onPartition: async () => [1, 2] });
  });

  it('takes a partition handler that returns nothing, as a bulk write does', () => {
    const bulkPut = async (_items: unknown[]): Promise<void> => {};
    async function write(records: KafkaRecord[]): Promise<void> {
      await bulkPut(records);
    }
    kafkaBatch({
      onPartition: async (records) => {
        await bulkPut(records.map((r) => r.data));
      },
    });
    kafkaBatch({ onPartition: (records) => bulkPut(records) });
    kafkaBatch({ onPartition: write });
    kafkaBatch({
      onPartition: (records) => {
        records.sort();
      },
    });
  });

  it("takes events typed with Powertools' MSKEvent (headers may be null)", () => {
    const handler = middy().use(kafkaBatch({ onRecord: () => {} }));
    const event = {} as PowertoolsMSKEvent;
    expectTypeOf(handler).toBeCallableWith(event, {} as Context);
  });

  it('types the poison callback', () => {
    kafkaBatch({
      onRecord: () => {},
      onPoison: (record, error) => {
        expectTypeOf(record.raw.value).toEqualTypeOf<string | null | undefined>();
        expectTypeOf(error).toEqualTypeOf<KafkaPoisonRecordError>();
      },
    });
  });

  it('rejects option combinations that make no sense', () => {
    // @ts-expect-error exactly one of onRecord and onPartition
    kafkaBatch({ onRecord: () => {}, onPartition: () => undefined });
    // @ts-expect-error one handler is required
    kafkaBatch({ ordering: 'key' });
    // @ts-expect-error partition runs are always per partition
    kafkaBatch({ ordering: 'key', onPartition: () => undefined });
    // @ts-expect-error not an ordering
    kafkaBatch({ ordering: 'random', onRecord: () => {} });
    // @ts-expect-error not a poison policy
    kafkaBatch({ onPoison: 'ignore', onRecord: () => {} });
  });

  it('accepts a Powertools Metrics instance', () => {
    expectTypeOf<Metrics>().toExtend<KafkaBatchMetrics>();
    kafkaBatch({ metrics: new Metrics({ namespace: 'orders' }), onRecord: () => {} });
  });

  it('makes a Middy handler from Kafka events to batch responses', () => {
    const handler = middy().use(kafkaBatch({ onRecord: () => {} }));
    expectTypeOf(handler).parameter(0).toExtend<KafkaEvent>();
    expectTypeOf<KafkaBatchResponse>().toEqualTypeOf<{
      batchItemFailures: { itemIdentifier: { partition: string; offset: number } }[];
    }>();
  });
});
