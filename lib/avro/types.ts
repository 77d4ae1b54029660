/**
 * avsc types for the Avro decoder and the emulator's registry: each schema compiled twice, with avsc's
 * fast `long` and with an exact one (lib/avro/long.ts), read fast first and again exactly only when avsc
 * refuses a long beyond 2^53 − 1. Not an entry point.
 */
import avsc from 'avsc';
import type { PayloadReader } from '../schema-registry/decoder.ts';
import type { RegisteredSchema } from '../schema-registry/registry.ts';
import { exactLongOptions, fastLongOptions, PRECISION_LOSS } from './long.ts';

/**
 * A schema compiled twice: with avsc's own `long` (`fast`), and with {@link exactLongOptions}
 * (`exact`), which reads a `long` through a `bigint` and costs a record of three longs 2.5 times as
 * much. Records are read `fast`; only a record that avsc refuses for a long beyond 2^53 − 1 is read
 * again `exact` (see {@link exactOnOverflow}). A user's avsc `Type` is both.
 */
export interface AvroTypes {
  readonly fast: avsc.Type;
  readonly exact: avsc.Type;
}

/** Reads with `fast`, and with `exact` only when `fast` refused a long beyond 2^53 − 1. */
export function exactOnOverflow(fast: PayloadReader, exact: PayloadReader): PayloadReader {
  return (payload) => {
    try {
      return fast(payload);
    } catch (error) {
      if (error instanceof Error && error.message === PRECISION_LOSS) return exact(payload);
      throw error;
    }
  };
}

/** A reader schema given in code, compiled both ways (an avsc `Type` is used as it is). */
export function toTypes(schema: avsc.Schema | avsc.Type | string | object): AvroTypes {
  if (schema instanceof avsc.Type) return { fast: schema, exact: schema };
  // A string is JSON text, or the name of a primitive type (`'string'`, `'long'`…).
  const parsed = (
    typeof schema === 'string' && /^\s*[[{"]/.test(schema) ? JSON.parse(schema) : schema
  ) as avsc.Schema;
  return {
    fast: avsc.Type.forSchema(parsed, fastLongOptions(avsc)),
    exact: avsc.Type.forSchema(parsed, exactLongOptions(avsc)),
  };
}

/**
 * A reader for one writer schema: resolved into the reader schema when there is one (schema evolution),
 * or the reason it cannot be compiled.
 */
export function compileWriter(
  registered: RegisteredSchema,
  reader: AvroTypes | undefined,
): PayloadReader | string {
  const writer = writerTypes(registered);
  if (typeof writer === 'string') return writer;
  if (reader === undefined)
    return exactOnOverflow(
      (payload) => writer.fast.fromBuffer(payload),
      (payload) => writer.exact.fromBuffer(payload),
    );
  let fastResolver: avsc.Resolver;
  let exactResolver: avsc.Resolver;
  try {
    fastResolver = reader.fast.createResolver(writer.fast);
    exactResolver = reader.exact.createResolver(writer.exact);
  } catch {
    return 'has a writer schema the reader schema cannot read (incompatible evolution)';
  }
  return exactOnOverflow(
    (payload) => reader.fast.fromBuffer(payload, fastResolver),
    (payload) => reader.exact.fromBuffer(payload, exactResolver),
  );
}

/**
 * The writer schema as avsc types, or why it cannot be one. The named types of the schemas it
 * references (Confluent's schema references: a field whose type is a record of another subject)
 * are compiled first, in dependency order, into the registry of names the schema is then compiled
 * with, as Confluent's deserializer does (Confluent's "Schema references":
 * https://docs.confluent.io/platform/current/schema-registry/fundamentals/serdes-develop/index.html).
 */
function writerTypes(registered: RegisteredSchema): AvroTypes | string {
  const compiled: avsc.Type[] = [];
  for (const options of [fastLongOptions(avsc), exactLongOptions(avsc)]) {
    for (const reference of registered.references ?? []) {
      if (reference.type !== 'AVRO')
        return `has a writer schema that references a ${reference.type} schema (${reference.name}), not Avro`;
      try {
        avsc.Type.forSchema(JSON.parse(reference.definition) as avsc.Schema, options);
      } catch {
        return `has a writer schema whose reference ${reference.name} is not a valid Avro schema`;
      }
    }
    try {
      compiled.push(avsc.Type.forSchema(JSON.parse(registered.definition) as avsc.Schema, options));
    } catch {
      return 'has a writer schema that is not a valid Avro schema';
    }
  }
  return { fast: compiled[0]!, exact: compiled[1]! };
}
