/**
 * Protobuf decoder for `kafkaBatch` (`kafka-lambda/protobuf`). It decodes with the message type you
 * already have, and imports no Protobuf library itself: protobufjs static classes (`pbjs -t
 * static-module`) carry their own `decode`; for `@bufbuild/protobuf` descriptors (`protoc-gen-es`)
 * pass its `fromBinary`. Protobuf needs no writer schema (unknown fields are skipped, missing ones
 * default), so no registry is asked; Confluent's message-index array and Glue's message index are
 * read exactly and skipped.
 */
import type { DescMessage, MessageShape } from '@bufbuild/protobuf';
import type { KafkaDecoder } from '../middleware/options.ts';
import {
  createSchemaRegistryDecoder,
  type PayloadReader,
  type SchemaRegistryDecoderOptions,
} from '../schema-registry/decoder.ts';
import { readConfluentMessageIndexes, readGlueMessageIndex } from '../schema-registry/wire.ts';

// Types named by this entry's signatures, so that a user can name them too.
export type * from '../schema-registry/entry-types.ts';

/**
 * A protobufjs message class (static code) or reflected `Type`: anything with `decode(bytes)`.
 *
 * @example
 * ```ts
 * import { orders } from './generated/orders.js'; // pbjs -t static-module
 * const type: ProtobufjsMessageType<orders.Order> = orders.Order;
 * ```
 */
export interface ProtobufjsMessageType<TMessage> {
  decode(bytes: Uint8Array): TMessage;
}

/**
 * Common options of {@link protobufDecoder} (no registry: Protobuf decodes with the type in code).
 *
 * @example
 * ```ts
 * const options: ProtobufCommonOptions<Order> = { eventRecordFormat: 'SOURCE' };
 * ```
 */
export type ProtobufCommonOptions<TOutput> = Omit<
  SchemaRegistryDecoderOptions<TOutput>,
  'registry' | 'cacheSize'
>;

/**
 * A decoder for Protobuf keys or values, for the `key` or `value` option of `kafkaBatch`: with a
 * protobufjs class (`{ type }`) or a `@bufbuild/protobuf` descriptor (`{ type, fromBinary }`). Every
 * wire situation: Confluent- or Glue-framed bytes, `EventRecordFormat` `SOURCE` or `JSON`. With
 * `SOURCE`, whether Lambda leaves the message index in place is not documented: a first byte below 8
 * cannot start a Protobuf message (field number 0), so such a prefix is read as the index, and
 * anything else as the message itself. Undecodable records are poison, never quoted.
 *
 * @example
 * ```ts
 * import { fromBinary } from '@bufbuild/protobuf';
 * import { protobufDecoder } from 'kafka-lambda/protobuf';
 * import { OrderSchema } from './gen/orders_pb.js';
 *
 * kafkaBatch({ value: protobufDecoder({ type: OrderSchema, fromBinary }), onRecord: (r) => r.data?.id });
 * kafkaBatch({ value: protobufDecoder({ type: orders.Order }), onRecord: (r) => r.data?.id }); // protobufjs
 * ```
 */
export function protobufDecoder<TMessage, TOutput = TMessage>(
  options: ProtobufCommonOptions<TOutput> & { type: ProtobufjsMessageType<TMessage> },
): KafkaDecoder<TOutput | null>;
export function protobufDecoder<Desc extends DescMessage, TOutput = MessageShape<Desc>>(
  options: ProtobufCommonOptions<TOutput> & {
    type: Desc;
    fromBinary: (schema: Desc, bytes: Uint8Array) => MessageShape<Desc>;
  },
): KafkaDecoder<TOutput | null>;
export function protobufDecoder(
  options: ProtobufCommonOptions<unknown> & {
    type: ProtobufjsMessageType<unknown> | DescMessage;
    fromBinary?: (schema: DescMessage, bytes: Uint8Array) => unknown;
  },
): KafkaDecoder<unknown> {
  const { type, fromBinary } = options;
  let local: PayloadReader;
  if (typeof fromBinary === 'function') {
    const descriptor = type as DescMessage;
    if (descriptor?.kind !== 'message')
      throw new TypeError(
        'protobufDecoder with fromBinary needs a @bufbuild/protobuf message descriptor as type',
      );
    local = (payload) => fromBinary(descriptor, payload);
  } else {
    if (typeof (type as ProtobufjsMessageType<unknown>)?.decode !== 'function')
      throw new TypeError(
        'protobufDecoder needs a protobufjs message class as type, or a @bufbuild/protobuf descriptor with fromBinary',
      );
    const messageType = type as ProtobufjsMessageType<unknown>;
    local = (payload) => messageType.decode(payload);
  }
  return createSchemaRegistryDecoder(
    { format: 'PROTOBUF', label: 'Protobuf', local, compile: undefined, start: messageStart },
    { ...options, registry: undefined },
  );
}

/** The smallest first byte of a Protobuf message: a tag with field number 1. */
const FIRST_TAG_BYTE = 8;

function messageStart(
  payload: Buffer,
  registry: 'confluent' | 'glue',
  framingRemoved: boolean,
): number | string {
  const first = payload[0];
  if (framingRemoved && !(first !== undefined && first < FIRST_TAG_BYTE)) return 0;
  // Index [0] (the file's first message), by far the most common: one 0 byte in both framings.
  if (first === 0) return 1;
  const read =
    registry === 'confluent' ? readConfluentMessageIndexes(payload) : readGlueMessageIndex(payload);
  return typeof read === 'string' ? read : read.offset;
}
