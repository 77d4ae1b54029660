// Compiled twice: with the project's settings by vitest's typecheck, and with
// `exactOptionalPropertyTypes: true` by tsconfig.exact-optional.json (exact-optional.test.ts runs it).
// A project with that setting passes explicit `undefined` for an option it may not have: every
// option the code takes `undefined` for as absent must say `| undefined`, or such a call fails to
// compile (TS2379, TS2769) though it would run.
import * as v from 'valibot';
import { describe, expectTypeOf, it } from 'vitest';
import { avroDecoder } from '../avro/index.ts';
import { jsonSchemaDecoder } from '../json-schema/index.ts';
import { protobufDecoder } from '../protobuf/index.ts';
import { glueSchemaRegistry } from '../schema-registry/glue.ts';
import { confluentSchemaRegistry, type SchemaRegistryClient } from '../schema-registry/registry.ts';
import { createLambdaContext, invokeHandler, kafkaEvent, validateKafkaEvent } from '../testing/index.ts';
import {
  type KafkaBatchLogger,
  type KafkaBatchMetrics,
  type KafkaPoisonPolicy,
  kafkaBatch,
} from './index.ts';

declare const maybeNumber: number | undefined;
declare const maybeString: string | undefined;
declare const maybeBoolean: boolean | undefined;
declare const maybeLogger: KafkaBatchLogger | undefined;
declare const maybeMetrics: KafkaBatchMetrics | undefined;
declare const maybePoison: KafkaPoisonPolicy | undefined;
declare const maybeOrdering: 'partition' | 'key' | 'none' | undefined;
declare const maybeRegistry: SchemaRegistryClient | undefined;
declare const maybeFormat: 'JSON' | 'SOURCE' | undefined;
declare const env: string | undefined;

describe('options given as undefined (exactOptionalPropertyTypes)', () => {
  it('kafkaBatch takes undefined for every optional option', () => {
    const schema = v.object({ id: v.string() });
    const onRecord = (): void => {};
    kafkaBatch({
      onRecord,
      onPartition: undefined,
      ordering: maybeOrdering,
      value: Math.random() > 0.5 ? schema : undefined,
      key: undefined,
      concurrency: maybeNumber,
      onPoison: maybePoison,
      timeoutReserveMs: env ? Number(env) : undefined,
      throwOnBatchFailure: maybeBoolean,
      logger: maybeLogger,
      metrics: maybeMetrics,
    });
    kafkaBatch({
      onPartition: () => undefined,
      onRecord: undefined,
      ordering: Math.random() > 0.5 ? 'partition' : undefined,
    });
  });

  it('kafkaEvent takes undefined for every optional field of the event and of a record', () => {
    expectTypeOf(
      kafkaEvent({
        topic: 'orders',
        records: [
          {
            value: 'a',
            key: maybeString,
            headers: undefined,
            partition: maybeNumber,
            offset: maybeNumber,
            timestamp: maybeNumber,
            timestampType: undefined,
            keySchemaMetadata: undefined,
            valueSchemaMetadata: undefined,
          },
        ],
        partitions: maybeNumber,
        startOffset: maybeNumber,
        timestamp: maybeNumber,
        eventSourceArn: maybeString,
        bootstrapServers: maybeString,
      }).eventSource,
    ).toEqualTypeOf<'aws:kafka'>();
    kafkaEvent({ topic: 'orders', eventSource: undefined, records: [] });
  });

  it('invokeHandler and validateKafkaEvent take undefined for their options', async () => {
    const handler = async () => ({ batchItemFailures: [] });
    const event = kafkaEvent({ topic: 'orders', records: [{ value: 'a' }] });
    await invokeHandler(handler, event, {
      timeoutMs: maybeNumber,
      functionName: maybeString,
      memoryLimitInMB: maybeNumber,
      awsRequestId: maybeString,
      region: maybeString,
      logStreamName: maybeString,
    });
    validateKafkaEvent(event, { allowKeyMismatch: maybeBoolean, accept: undefined, onWarning: undefined });
  });

  it('the decoders take undefined for their optional options', () => {
    const common = {
      framing: undefined,
      eventRecordFormat: maybeFormat,
      validate: undefined,
    } as const;
    avroDecoder({ schema: undefined, registry: maybeRegistry, cacheSize: maybeNumber, ...common });
    jsonSchemaDecoder({ schema: undefined, registry: maybeRegistry, cacheSize: maybeNumber, ...common });
    const Ping = { decode: (_bytes: Uint8Array) => ({ id: '' }) };
    protobufDecoder({
      type: Ping,
      eventRecordFormat: Math.random() > 0.5 ? 'SOURCE' : undefined,
      framing: undefined,
      validate: undefined,
      confluentMessageIndexes: undefined,
      sourceMessageIndex: undefined,
    });
  });

  it('the registry clients and the Lambda context take undefined for their optional options', () => {
    confluentSchemaRegistry({
      url: 'http://127.0.0.1:8080',
      auth: undefined,
      cacheSize: maybeNumber,
      timeoutMs: undefined,
    });
    glueSchemaRegistry({ client: undefined, cacheSize: undefined, timeoutMs: maybeNumber });
    createLambdaContext({
      functionName: maybeString,
      timeoutMs: maybeNumber,
      memoryLimitInMB: undefined,
      awsRequestId: undefined,
      region: maybeString,
      logStreamName: undefined,
    });
  });
});
