import { afterAll, beforeAll } from 'vitest';
import { type LocalSchemaRegistry, startRegistry } from '../../lib/schema-registry/server.ts';

/**
 * The schema registry of an integration test file: the user's own (`SCHEMA_REGISTRY_URL`) or a local
 * Apicurio Registry started before the file's tests and stopped after them. Call it at the file's top
 * level, before the file's own `beforeAll` hooks (they run after this one and may read `url`).
 *
 * @example
 * ```ts
 * const registry = useSchemaRegistry();
 * it('registers', async () => {
 *   await new SchemaRegistry({ host: registry.url }).register(schema);
 * });
 * ```
 */
export function useSchemaRegistry(startTimeoutMs = 600_000): { readonly url: string } {
  let local: LocalSchemaRegistry | undefined;
  let url: string | undefined;
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
  return {
    get url() {
      if (url === undefined) throw new Error('the schema registry is read before its beforeAll hook ran');
      return url;
    },
  };
}
