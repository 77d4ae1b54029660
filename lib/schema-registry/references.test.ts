import avsc from 'avsc';
import { describe, expect, it } from 'vitest';
import {
  confluentFrame as confluent,
  confluentRoutes,
  decodeValue,
  useLoopbackServers,
} from '../../test/support/decoding.ts';
import { avroDecoder } from '../avro/index.ts';
import { jsonSchemaDecoder } from '../json-schema/index.ts';
import type { KafkaDecoder } from '../middleware/options.ts';
import { KafkaSchemaRegistryDecodeError, SchemaRegistryRequestError } from './errors.ts';
import { confluentSchemaRegistry } from './registry.ts';

const serve = useLoopbackServers();

/** A Confluent-compatible registry on loopback answering from `routes`, 404 with Confluent's codes otherwise. */
async function registryAt(routes: Record<string, object>) {
  return confluentSchemaRegistry({ url: await serve(confluentRoutes(routes)) });
}

/** The decoded value, a throw as a rejection. */
function decode(decoder: KafkaDecoder<unknown>, value: Buffer): Promise<unknown> {
  return Promise.resolve().then(() => decodeValue(decoder, value));
}

const country = {
  type: 'record',
  name: 'Country',
  namespace: 'shop',
  fields: [{ name: 'code', type: 'string' }],
};
const address = {
  type: 'record',
  name: 'Address',
  namespace: 'shop',
  fields: [
    { name: 'city', type: 'string' },
    { name: 'country', type: 'shop.Country' },
  ],
};
const customer = {
  type: 'record',
  name: 'Customer',
  namespace: 'shop',
  fields: [
    { name: 'id', type: 'string' },
    { name: 'address', type: 'shop.Address' },
  ],
};
const avroRoutes = {
  '/schemas/ids/1': {
    schema: JSON.stringify(customer),
    references: [{ name: 'shop.Address', subject: 'shop.Address', version: 1 }],
  },
  '/subjects/shop.Address/versions/1': {
    schema: JSON.stringify(address),
    references: [{ name: 'shop.Country', subject: 'shop.Country', version: 3 }],
  },
  '/subjects/shop.Country/versions/3': { schema: JSON.stringify(country) },
  // A reference the registry does not have.
  '/schemas/ids/2': {
    schema: JSON.stringify(customer),
    references: [{ name: 'shop.Address', subject: 'shop.Address', version: 9 }],
  },
};
const value = { id: 'c-1', address: { city: 'Delft', country: { code: 'NL' } } };
// Written with the whole schema inline: the bytes do not depend on where the named types live.
const inline = {
  ...customer,
  fields: [
    customer.fields[0],
    {
      name: 'address',
      type: { ...address, fields: [address.fields[0], { name: 'country', type: country }] },
    },
  ],
};
const bytes = avsc.Type.forSchema(inline as avsc.Schema).toBuffer(value);

describe('Avro writer schemas with references', () => {
  it('compiles the referenced named types first, with and without a reader schema', async () => {
    const registry = await registryAt(avroRoutes);
    const asWritten = await decode(avroDecoder({ registry }), confluent(1, bytes));
    expect(JSON.parse(JSON.stringify(asWritten))).toEqual(value);
    const read = await decode(avroDecoder({ registry, schema: inline }), confluent(1, bytes));
    expect(JSON.parse(JSON.stringify(read))).toEqual(value);
  });

  it('fails the record as retryable, not poison, when the registry has no referenced version', async () => {
    const registry = await registryAt(avroRoutes);
    const error = await decode(avroDecoder({ registry }), confluent(2, bytes)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SchemaRegistryRequestError);
    expect(error).not.toBeInstanceOf(KafkaSchemaRegistryDecodeError);
  });
});

describe('JSON Schema writer schemas with references', () => {
  const addressSchema = {
    $id: 'https://example.com/address.json',
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
  };
  const registryRoutes = {
    '/schemas/ids/5': {
      schemaType: 'JSON',
      schema: JSON.stringify({
        type: 'object',
        properties: { id: { type: 'string' }, address: { $ref: 'https://example.com/address.json' } },
        required: ['id', 'address'],
      }),
      references: [{ name: 'https://example.com/address.json', subject: 'address', version: 1 }],
    },
    // A relative name, without an $id in the referenced schema.
    '/schemas/ids/6': {
      schemaType: 'JSON',
      schema: JSON.stringify({ type: 'object', properties: { address: { $ref: 'address.json' } } }),
      references: [{ name: 'address.json', subject: 'address-plain', version: 1 }],
    },
    '/subjects/address/versions/1': { schemaType: 'JSON', schema: JSON.stringify(addressSchema) },
    '/subjects/address-plain/versions/1': {
      schemaType: 'JSON',
      schema: JSON.stringify({ ...addressSchema, $id: undefined }),
    },
  };

  it('adds each referenced schema under its reference name before compiling, and checks records against it', async () => {
    const decoder = jsonSchemaDecoder({ registry: await registryAt(registryRoutes) });
    const good = { id: 'c-1', address: { city: 'Delft' } };
    expect(await decode(decoder, confluent(5, Buffer.from(JSON.stringify(good))))).toEqual(good);
    const bad = Buffer.from(JSON.stringify({ id: 'c-1', address: { city: 7 } }));
    const error = await decode(decoder, confluent(5, bad)).catch((e: unknown) => e);
    expect((error as KafkaSchemaRegistryDecodeError).reason).toBe('DESERIALIZATION_ERROR');
    expect((error as Error).message).toContain('is not valid JSON Schema for its writer schema');
    // A second schema referencing its own version under another name, in the same decoder.
    const plain = { address: { city: 'Leiden' } };
    expect(await decode(decoder, confluent(6, Buffer.from(JSON.stringify(plain))))).toEqual(plain);
    const badPlain = Buffer.from(JSON.stringify({ address: {} }));
    expect(await decode(decoder, confluent(6, badPlain)).catch((e: unknown) => e)).toBeInstanceOf(
      KafkaSchemaRegistryDecodeError,
    );
  });
});
