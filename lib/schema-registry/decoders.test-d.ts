import { fromBinary, fromJson } from '@bufbuild/protobuf';
import type { GenMessage } from '@bufbuild/protobuf/codegenv2';
import protobuf from 'protobufjs';
import * as v from 'valibot';
import { describe, expectTypeOf, it } from 'vitest';
import { avroDecoder } from '../avro/index.ts';
import { jsonSchemaDecoder } from '../json-schema/index.ts';
import { kafkaBatch } from '../middleware/middleware.ts';
import { protobufDecoder } from '../protobuf/index.ts';

describe('decoder types', () => {
  it('infers record.data from the decoder and its Standard Schema, null for a tombstone', () => {
    kafkaBatch({
      value: avroDecoder({ schema: 'string', validate: v.object({ id: v.string() }) }),
      onRecord: (record) => {
        expectTypeOf(record.data).toEqualTypeOf<{ id: string } | null>();
      },
    });
    kafkaBatch({
      key: jsonSchemaDecoder<{ customer: string }>({ schema: { type: 'object' } }),
      onRecord: (record) => {
        expectTypeOf(record.keyData).toEqualTypeOf<{ customer: string } | null>();
      },
    });
  });

  it('infers a protobufjs class message type', () => {
    class Ping {
      id = '';
      static decode(_bytes: Uint8Array): Ping {
        return new Ping();
      }
    }
    kafkaBatch({
      value: protobufDecoder({ type: Ping }),
      onRecord: (record) => {
        expectTypeOf(record.data).toEqualTypeOf<Ping | null>();
      },
    });
    expectTypeOf(protobufDecoder({ type: Ping, confluentMessageIndexes: 'unsigned' })).toEqualTypeOf(
      protobufDecoder({ type: Ping }),
    );
    // @ts-expect-error: the message indexes are zigzag or unsigned varints, nothing else
    protobufDecoder({ type: Ping, confluentMessageIndexes: 'varint' });
    expectTypeOf(protobufDecoder({ type: Ping, sourceMessageIndex: 'kept' })).toEqualTypeOf(
      protobufDecoder({ type: Ping }),
    );
    // @ts-expect-error: a SOURCE record's index is detected, kept or removed, nothing else
    protobufDecoder({ type: Ping, sourceMessageIndex: 'guess' });
  });

  it('types record.data in EventRecordFormat JSON as the message type, for types that can read JSON', () => {
    const Order = protobuf
      .parse('syntax = "proto3"; message Order { string order_id = 1; }')
      .root.lookupType('Order');
    kafkaBatch({
      value: protobufDecoder({ type: Order, eventRecordFormat: 'JSON' }),
      onRecord: (record) => {
        expectTypeOf(record.data).toEqualTypeOf<ReturnType<typeof Order.decode> | null>();
      },
    });
    // What pbjs -t static-module generates: decode and fromObject, no fields.
    const StaticOrder = {
      decode: (_bytes: Uint8Array) => ({ id: '' }),
      fromObject: (_object: object) => ({ id: '' }),
    };
    protobufDecoder({ type: StaticOrder, eventRecordFormat: 'SOURCE' });
    // @ts-expect-error: a static class has no field list to read JSON with
    protobufDecoder({ type: StaticOrder, eventRecordFormat: 'JSON' });

    const OrderSchema = {} as GenMessage<{ $typeName: 'shop.Order'; orderId: string }>;
    kafkaBatch({
      value: protobufDecoder({ type: OrderSchema, fromBinary, fromJson, eventRecordFormat: 'JSON' }),
      onRecord: (record) => {
        expectTypeOf(record.data).toEqualTypeOf<{ $typeName: 'shop.Order'; orderId: string } | null>();
      },
    });
    protobufDecoder({ type: OrderSchema, fromBinary, eventRecordFormat: 'SOURCE' });
    // @ts-expect-error: JSON with a descriptor needs @bufbuild/protobuf's fromJson
    protobufDecoder({ type: OrderSchema, fromBinary, eventRecordFormat: 'JSON' });
  });
});
