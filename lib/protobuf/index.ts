// Its types name Node's (Buffer…): declared here, so that a project without @types/node is told so.
/// <reference types="node" preserve="true" />
/**
 * Protobuf decoder for `kafkaBatch` (`kafka-lambda/protobuf`). It decodes with the message type you
 * already have, and imports no Protobuf library itself: protobufjs types and static classes (`pbjs
 * -t static-module`) carry their own `decode` (and a reflected type its fields, for JSON); for
 * `@bufbuild/protobuf` descriptors (`protoc-gen-es`) pass its `fromBinary` (and `fromJson`). Protobuf needs no writer schema (unknown fields are skipped, missing ones
 * default), so no registry is asked; Confluent's message-index array and Glue's message index are
 * read exactly and skipped.
 */
import type { DescMessage, JsonReadOptions, JsonValue, MessageShape } from '@bufbuild/protobuf';
import type { KafkaDecoder } from '../middleware/options.ts';
import {
  createSchemaRegistryDecoder,
  type FormatCodec,
  type GuessedStart,
  type PayloadReader,
  type PayloadStart,
  type SchemaRegistryDecoderOptions,
} from '../schema-registry/decoder.ts';
import {
  type ConfluentMessageIndexEncoding,
  readConfluentMessageIndexes,
  readGlueMessageIndex,
} from '../schema-registry/wire.ts';
import { isReflectedType, ProtoJsonMismatch, protoJsonReader } from './json.ts';

// Types named by this entry's signatures, so that a user can name them too.
export type * from '../schema-registry/entry-types.ts';
export type { ConfluentMessageIndexEncoding } from '../schema-registry/wire.ts';

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
 * A protobufjs reflected `Type` (`protobuf.loadSync('orders.proto').lookupType('shop.Order')`): its
 * field list lets the decoder read `EventRecordFormat` `JSON` records into messages.
 *
 * @example
 * ```ts
 * const type: ProtobufjsReflectedType<protobuf.Message> = root.lookupType('shop.Order');
 * ```
 */
export interface ProtobufjsReflectedType<TMessage> extends ProtobufjsMessageType<TMessage> {
  /** Builds a message from a plain object, as the decoder maps the record's JSON to one. */
  fromObject(object: { [key: string]: unknown }): TMessage;
  /** The type's fields, read for their names (proto and JSON), types and nesting. */
  readonly fieldsArray: readonly object[];
}

/**
 * Common options of {@link protobufDecoder} (no registry: Protobuf decodes with the type in code).
 *
 * @example
 * ```ts
 * const options: ProtobufCommonOptions<Order> = { eventRecordFormat: 'SOURCE' };
 * ```
 */
export interface ProtobufCommonOptions<TOutput>
  extends Omit<SchemaRegistryDecoderOptions<TOutput>, 'registry' | 'cacheSize'> {
  /**
   * How Confluent-framed records write their message indexes: `'zigzag'` (default), as every current
   * Confluent serializer does, or `'unsigned'` for producers on Confluent's .NET serializer up to 1.5
   * or set to its deprecated format (its deserializer's `UseDeprecatedFormat`). Read as told, never
   * guessed: a record that does not fit is poison, and its error names this option.
   */
  confluentMessageIndexes?: ConfluentMessageIndexEncoding | undefined;
  /**
   * What an `EventRecordFormat` `SOURCE` record holds before the message: AWS documents that Lambda
   * removes the registry framing (the magic byte and schema id), not whether it also removes
   * Protobuf's message index
   * (https://docs.aws.amazon.com/lambda/latest/dg/services-consume-kafka-events.html). Events captured
   * from Lambda keep it. See {@link ProtobufSourceMessageIndex}; default `'detect'`.
   */
  sourceMessageIndex?: ProtobufSourceMessageIndex | undefined;
}

/**
 * Whether `SOURCE` records keep the serializer's message index before the message:
 * - `'kept'`: they do (as in events captured from Lambda, and in the emulator's): the index is read
 *   exactly as the record's framing writes it, Confluent's index array or Glue's one varint;
 * - `'removed'`: the bytes are the message alone;
 * - `'detect'` (default): a first byte below 8 cannot start a Protobuf message (it would be field
 *   number 0), so such a prefix is read as the index, and anything else as the message. This reads
 *   the common indexes ([0], a top-level message among the file's first few) under both readings,
 *   but not a kept index whose first byte is 8 or more: Glue numbers every message type of the file,
 *   nested ones too, in the order of their full names, so the ninth is the byte `0x08`; Confluent's
 *   array for a message nested 4 deep starts with its count, zigzag 4 = `0x08`. Such a record fails
 *   with an error naming this option (or, rarely, decodes as another message): set `'kept'`.
 *
 * @example
 * ```ts
 * protobufDecoder({ type: orders.Order, eventRecordFormat: 'SOURCE', sourceMessageIndex: 'kept' });
 * ```
 */
export type ProtobufSourceMessageIndex = 'detect' | 'kept' | 'removed';

/**
 * A decoder for Protobuf keys or values, for the `key` or `value` option of `kafkaBatch`, with a
 * protobufjs reflected `Type` (`root.lookupType('shop.Order')`), which reads every wire situation:
 * Confluent- or Glue-framed bytes, `EventRecordFormat` `SOURCE` or `JSON`. With `SOURCE`, whether
 * Lambda leaves the message index in place is not documented: option `sourceMessageIndex` (by default
 * a first byte below 8 is read as the index, anything else as the message). With `JSON`, the record's
 * JSON becomes a message of the type by proto3's JSON mapping
 * (https://protobuf.dev/programming-guides/json/): a field by its proto name or its lowerCamelCase
 * JSON name, enums by name or number, 64-bit integers as strings or numbers, bytes as base64; fields
 * the type lacks are skipped, as binary decoding skips them; a value that does not fit is poison.
 * Undecodable records are poison, never quoted.
 *
 * @example
 * ```ts
 * import protobuf from 'protobufjs';
 * import { protobufDecoder } from 'kafka-lambda/protobuf';
 *
 * const Order = protobuf.loadSync('orders.proto').lookupType('shop.Order');
 * kafkaBatch({ value: protobufDecoder({ type: Order, eventRecordFormat: 'JSON' }), onRecord: (r) => r.data });
 * ```
 */
export function protobufDecoder<TMessage, TOutput = TMessage>(
  options: ProtobufCommonOptions<TOutput> & { type: ProtobufjsReflectedType<TMessage> },
): KafkaDecoder<TOutput | null>;
/**
 * A decoder for Protobuf keys or values with a protobufjs static class (`pbjs -t static-module`):
 * Confluent- or Glue-framed bytes and `EventRecordFormat` `SOURCE` (a message index read as with a
 * reflected type, option `sourceMessageIndex`). Not `JSON`: a static class has no field list to read
 * JSON field names with; give the reflected `Type` (first signature) for that.
 *
 * @example
 * ```ts
 * import { protobufDecoder } from 'kafka-lambda/protobuf';
 * import { orders } from './generated/orders.js'; // pbjs -t static-module
 *
 * kafkaBatch({ value: protobufDecoder({ type: orders.Order }), onRecord: (r) => r.data?.id });
 * ```
 */
export function protobufDecoder<TMessage, TOutput = TMessage>(
  options: ProtobufCommonOptions<TOutput> & {
    type: ProtobufjsMessageType<TMessage>;
    eventRecordFormat?: 'SOURCE' | undefined;
  },
): KafkaDecoder<TOutput | null>;
/**
 * A decoder for Protobuf keys or values with a `@bufbuild/protobuf` message descriptor
 * (`protoc-gen-es`), that package's `fromBinary` and, for `EventRecordFormat` `JSON`, its `fromJson`
 * (which reads proto3's JSON mapping, both field names; fields the type lacks are skipped). The same
 * wire situations as with a protobufjs type, a `SOURCE` message index read as told by
 * `sourceMessageIndex`. Undecodable records are poison, never quoted.
 *
 * @example
 * ```ts
 * import { fromBinary, fromJson } from '@bufbuild/protobuf';
 * import { protobufDecoder } from 'kafka-lambda/protobuf';
 * import { OrderSchema } from './gen/orders_pb.js'; // protoc-gen-es
 *
 * const decoder = protobufDecoder({ type: OrderSchema, fromBinary, fromJson, eventRecordFormat: 'JSON' });
 * kafkaBatch({ value: decoder, onRecord: (r) => r.data?.id });
 * ```
 */
export function protobufDecoder<Desc extends DescMessage, TOutput = MessageShape<Desc>>(
  options: ProtobufCommonOptions<TOutput> & {
    type: Desc;
    fromBinary: (schema: Desc, bytes: Uint8Array) => MessageShape<Desc>;
    fromJson: (schema: Desc, json: JsonValue, options?: Partial<JsonReadOptions>) => MessageShape<Desc>;
  },
): KafkaDecoder<TOutput | null>;
/**
 * A decoder for Protobuf keys or values with a `@bufbuild/protobuf` message descriptor
 * (`protoc-gen-es`) and that package's `fromBinary`: framed bytes and `EventRecordFormat` `SOURCE`.
 * For `JSON`, pass `fromJson` too (the previous signature).
 *
 * @example
 * ```ts
 * import { fromBinary } from '@bufbuild/protobuf';
 * import { protobufDecoder } from 'kafka-lambda/protobuf';
 * import { OrderSchema } from './gen/orders_pb.js'; // protoc-gen-es
 *
 * kafkaBatch({ value: protobufDecoder({ type: OrderSchema, fromBinary }), onRecord: (r) => r.data?.id });
 * ```
 */
export function protobufDecoder<Desc extends DescMessage, TOutput = MessageShape<Desc>>(
  options: ProtobufCommonOptions<TOutput> & {
    type: Desc;
    fromBinary: (schema: Desc, bytes: Uint8Array) => MessageShape<Desc>;
    eventRecordFormat?: 'SOURCE' | undefined;
  },
): KafkaDecoder<TOutput | null>;
export function protobufDecoder(
  options: ProtobufCommonOptions<unknown> & {
    type: ProtobufjsMessageType<unknown> | DescMessage;
    fromBinary?: ((schema: DescMessage, bytes: Uint8Array) => unknown) | undefined;
    fromJson?:
      | ((schema: DescMessage, json: JsonValue, options?: Partial<JsonReadOptions>) => unknown)
      | undefined;
  },
): KafkaDecoder<unknown> {
  const { type, fromBinary } = options;
  const indexEncoding = options.confluentMessageIndexes ?? 'zigzag';
  if (indexEncoding !== 'zigzag' && indexEncoding !== 'unsigned')
    throw new TypeError(
      `confluentMessageIndexes must be 'zigzag' or 'unsigned', not ${String(options.confluentMessageIndexes)}`,
    );
  const sourceIndex = options.sourceMessageIndex ?? 'detect';
  if (sourceIndex !== 'detect' && sourceIndex !== 'kept' && sourceIndex !== 'removed')
    throw new TypeError(
      `sourceMessageIndex must be 'detect', 'kept' or 'removed', not ${String(options.sourceMessageIndex)}`,
    );
  const readers =
    typeof fromBinary === 'function'
      ? bufbuildReaders(type as DescMessage, fromBinary, options.fromJson, options.eventRecordFormat)
      : protobufjsReaders(type, options.eventRecordFormat);
  const start: PayloadStart = (payload, registry, framingRemoved) =>
    framingRemoved
      ? sourceMessageStart(payload, registry, sourceIndex, indexEncoding)
      : messageStart(payload, registry, indexEncoding);
  return createSchemaRegistryDecoder(
    { format: 'PROTOBUF', label: 'Protobuf', ...readers, compile: undefined, start },
    { ...options, registry: undefined },
  );
}

type Readers = Pick<FormatCodec, 'local' | 'fromJson'>;

function bufbuildReaders(
  descriptor: DescMessage,
  fromBinary: (schema: DescMessage, bytes: Uint8Array) => unknown,
  fromJson:
    | ((schema: DescMessage, json: JsonValue, options?: Partial<JsonReadOptions>) => unknown)
    | undefined,
  eventRecordFormat: 'JSON' | 'SOURCE' | undefined,
): Readers {
  if (descriptor?.kind !== 'message')
    throw new TypeError(
      'protobufDecoder with fromBinary needs a @bufbuild/protobuf message descriptor as type',
    );
  if (fromJson !== undefined && typeof fromJson !== 'function')
    throw new TypeError("protobufDecoder's fromJson must be @bufbuild/protobuf's fromJson");
  if (eventRecordFormat === 'JSON' && fromJson === undefined)
    throw new TypeError(
      "protobufDecoder with eventRecordFormat 'JSON' and a @bufbuild/protobuf descriptor needs fromJson too: import { fromBinary, fromJson } from '@bufbuild/protobuf'",
    );
  return {
    local: (payload) => fromBinary(descriptor, payload),
    // Fields the descriptor lacks are a newer writer schema's: skipped, as fromBinary skips them.
    ...(fromJson && {
      fromJson: (json) => ({ data: fromJson(descriptor, json as JsonValue, { ignoreUnknownFields: true }) }),
    }),
  };
}

function protobufjsReaders(type: unknown, eventRecordFormat: 'JSON' | 'SOURCE' | undefined): Readers {
  if (typeof (type as ProtobufjsMessageType<unknown>)?.decode !== 'function')
    throw new TypeError(
      'protobufDecoder needs a protobufjs message class as type, or a @bufbuild/protobuf descriptor with fromBinary',
    );
  const messageType = type as ProtobufjsMessageType<unknown>;
  const local: PayloadReader = (payload) => messageType.decode(payload);
  if (!isReflectedType(type)) {
    if (eventRecordFormat === 'JSON')
      throw new TypeError(
        "protobufDecoder with eventRecordFormat 'JSON' needs a protobufjs reflected Type (root.lookupType('shop.Order')): a static class has no field list to read the JSON's field names with",
      );
    return { local };
  }
  const read = protoJsonReader(type, 'lenient');
  return {
    local,
    fromJson: (json) => {
      let object: { [key: string]: unknown };
      try {
        object = read(json);
      } catch (error) {
        if (error instanceof ProtoJsonMismatch) return error.message;
        throw error;
      }
      return { data: type.fromObject(object) };
    },
  };
}

/** The smallest first byte of a Protobuf message: a tag with field number 1. */
const FIRST_TAG_BYTE = 8;

const DETECTED_NO_INDEX = {
  offset: 0,
  hint: "(read without a message index, as sourceMessageIndex 'detect' reads a first byte of 8 or more; if the trigger's SOURCE records keep the index, set the decoder option sourceMessageIndex: 'kept')",
} as const;

/** Where the message starts in a `SOURCE` record: see {@link ProtobufSourceMessageIndex}. */
function sourceMessageStart(
  payload: Buffer,
  registry: 'confluent' | 'glue',
  sourceIndex: ProtobufSourceMessageIndex,
  indexEncoding: ConfluentMessageIndexEncoding,
): number | string | GuessedStart {
  if (sourceIndex === 'removed') return 0;
  if (sourceIndex === 'kept') return messageStart(payload, registry, indexEncoding);
  const first = payload[0];
  // An empty payload is the empty message (every field default).
  if (first === undefined) return 0;
  if (first >= FIRST_TAG_BYTE) return DETECTED_NO_INDEX;
  return messageStart(payload, registry, indexEncoding);
}

/** Where the message starts after the serializer's message index (Confluent's array, Glue's varint). */
function messageStart(
  payload: Buffer,
  registry: 'confluent' | 'glue',
  indexEncoding: ConfluentMessageIndexEncoding,
): number | string {
  const first = payload[0];
  // Index [0] (the file's first message), by far the most common: one 0 byte in both framings.
  if (first === 0) return 1;
  if (registry === 'glue') {
    const read = readGlueMessageIndex(payload);
    return typeof read === 'string' ? read : read.offset;
  }
  const read = readConfluentMessageIndexes(payload, indexEncoding);
  if (typeof read !== 'string') return read.offset;
  return indexEncoding === 'zigzag'
    ? `${read} (a producer on Confluent's .NET serializer up to 1.5, or set to its deprecated format, writes them unsigned: set the decoder option confluentMessageIndexes: 'unsigned')`
    : read;
}
