import { SchemaRegistry, type SchemaType } from '@kafkajs/confluent-schema-registry';
import { afterAll, beforeAll } from 'vitest';
import { type LocalSchemaRegistry, startRegistry } from '../../lib/schema-registry/server.ts';

/** The Avro writer schema the registry tests register: `test.kafkalambda.Order`, an id and a total. */
export const ORDER_AVRO = {
  type: 'record',
  name: 'Order',
  namespace: 'test.kafkalambda',
  fields: [
    { name: 'id', type: 'string' },
    { name: 'total', type: 'double' },
  ],
};

/** A reference of a registered schema to another subject's version, as Confluent's API takes it. */
export interface SchemaReference {
  readonly name: string;
  readonly subject: string;
  readonly version: number;
}

/** The schema registry of an integration test file: see {@link useSchemaRegistry}. */
export interface TestSchemaRegistry {
  /** Its Confluent-compatible API's URL. */
  readonly url: string;
  /**
   * A client of it independent of this package (@kafkajs/confluent-schema-registry): it registers schemas
   * and frames records as Confluent's serializers do.
   */
  readonly producer: SchemaRegistry;
  /**
   * Registers `schema` (an object is written as JSON) of `type` as `subject`, with `references`; its id.
   * Subjects should be unique to the run: a user's own registry may already hold the test's.
   */
  register(
    type: SchemaType.AVRO | SchemaType.JSON | SchemaType.PROTOBUF,
    schema: object | string,
    subject: string,
    references?: SchemaReference[],
  ): Promise<number>;
}

/**
 * The schema registry of an integration test file: the user's own (`SCHEMA_REGISTRY_URL`) or a local
 * Apicurio Registry started before the file's tests and stopped after them. Call it at the file's top
 * level, before the file's own `beforeAll` hooks (they run after this one and may read `url`).
 *
 * @example
 * ```ts
 * const registry = useSchemaRegistry();
 * it('registers', async () => {
 *   const id = await registry.register(SchemaType.AVRO, ORDER_AVRO, `${run}-orders-value`);
 *   const framed = await registry.producer.encode(id, { id: 'o-1', total: 1 });
 * });
 * ```
 */
export function useSchemaRegistry(startTimeoutMs = 600_000): TestSchemaRegistry {
  let local: LocalSchemaRegistry | undefined;
  let url: string | undefined;
  let producer: SchemaRegistry | undefined;
  beforeAll(async () => {
    if (process.env.SCHEMA_REGISTRY_URL) url = process.env.SCHEMA_REGISTRY_URL;
    else {
      local = await startRegistry();
      url = local.url;
    }
  }, startTimeoutMs);
  afterAll(async () => {
    await local?.stop();
  });
  const registry: TestSchemaRegistry = {
    get url() {
      if (url === undefined) throw new Error('the schema registry is read before its beforeAll hook ran');
      return url;
    },
    get producer() {
      producer ??= new SchemaRegistry({ host: registry.url });
      return producer;
    },
    async register(type, schema, subject, references) {
      const text = typeof schema === 'string' ? schema : JSON.stringify(schema);
      const { id } = await registry.producer.register(
        { type, schema: text, ...(references && { references }) } as Parameters<
          SchemaRegistry['register']
        >[0],
        { subject },
      );
      return id;
    },
  };
  return registry;
}
