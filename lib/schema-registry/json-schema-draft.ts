/**
 * Which JSON Schema dialect a schema is written in, by its `$schema`: 2020-12 and 2019-09 each need an
 * Ajv class of their own (`ajv/dist/2020`, `ajv/dist/2019`); anything else (draft-07, draft-06, none) is
 * read as draft-07, Ajv's default. Confluent's registry takes all of them.
 *
 * @example
 * ```ts
 * jsonSchemaDraft({ $schema: 'https://json-schema.org/draft/2020-12/schema' }); // '2020-12'
 * ```
 */
export function jsonSchemaDraft(schema: unknown): '2020-12' | '2019-09' | '07' {
  const dialect =
    typeof schema === 'object' && schema !== null ? (schema as { $schema?: unknown }).$schema : undefined;
  if (typeof dialect !== 'string') return '07';
  if (dialect.includes('/draft/2020-12/')) return '2020-12';
  if (dialect.includes('/draft/2019-09/')) return '2019-09';
  return '07';
}
