/**
 * Which JSON Schema dialect a schema is written in, by its `$schema`: 2020-12 and 2019-09 each need an
 * Ajv class of their own (`ajv/dist/2020`, `ajv/dist/2019`); anything else goes to Ajv's default class,
 * draft-07 (also with no `$schema`). Draft-04 and -06, which Confluent's registry also takes, do not
 * compile there.
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
