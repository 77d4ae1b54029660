import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// The middleware ships inside every Kafka-triggered function: it must stay free of Kafka clients and
// AWS SDKs (cold start, bundle size), and of the project's functions/ and infra/. Its one runtime
// dependency is valibot, through lib/options (the project's one way to check options), tree-shaken
// to the few functions it uses.
const modules = readdirSync(import.meta.dirname).filter(
  (file) => file.endsWith('.ts') && !/\.(test|test-d|bench)\.ts$/.test(file),
);
const RUNTIME_ALLOWED = [
  /^\.\/[\w-]+\.ts$/,
  /^\.\.\/kafka-event\/[\w-]+\.ts$/,
  /^\.\.\/options\/options\.ts$/,
  /^valibot$/,
  /^node:/,
];
const TYPE_ONLY_ALLOWED = ['@middy/core', '@standard-schema/spec', 'aws-lambda'];

function imports(source: string): { specifier: string; typeOnly: boolean }[] {
  return [...source.matchAll(/^(import|export)\s+(type\s+)?[^;]*?from\s+'([^']+)';/gms)].map((m) => ({
    specifier: m[3]!,
    typeOnly: m[2] !== undefined,
  }));
}

describe('lib/middleware module boundaries', () => {
  it('has modules to check', () => {
    expect(modules).toContain('middleware.ts');
    expect(modules).toContain('index.ts');
  });

  it.each(modules)('%s imports only its siblings, the event model, node: built-ins and types', (file) => {
    const found = imports(readFileSync(join(import.meta.dirname, file), 'utf8'));
    for (const { specifier, typeOnly } of found) {
      const allowed =
        RUNTIME_ALLOWED.some((pattern) => pattern.test(specifier)) ||
        (typeOnly && TYPE_ONLY_ALLOWED.includes(specifier));
      expect(allowed, `${file} imports ${typeOnly ? 'type ' : ''}${specifier}`).toBe(true);
    }
  });

  it('reaches lib/options, which imports nothing but valibot', () => {
    const found = imports(readFileSync(join(import.meta.dirname, '../options/options.ts'), 'utf8'));
    expect(found.map(({ specifier }) => specifier)).toEqual(['valibot']);
  });
});
