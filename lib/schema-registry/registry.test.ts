import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { confluentRoutes, useLoopbackServers } from '../../test/support/decoding.ts';
import { freePort } from '../maven-server/index.ts';
import { SchemaNotFoundError, SchemaRegistryRequestError } from './errors.ts';
import { type ConfluentRegistryAuth, confluentSchemaRegistry } from './registry.ts';

const serve = useLoopbackServers();

/** A registry that has schema 7 and records the Authorization header of each request. */
async function registry() {
  const authorizations: (string | undefined)[] = [];
  const url = await serve((request, response) => {
    authorizations.push(request.headers.authorization);
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ schema: '"string"' }));
  });
  return { url, authorizations };
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('the request succeeded');
}

describe('confluentSchemaRegistry credentials', () => {
  const secret = 'TOKEN-XYZ';

  for (const [label, auth] of [
    ['a newline inside', { bearerToken: `${secret}\nB` }],
    ['a NUL', { bearerToken: `${secret}\u0000` }],
    ['a space inside', { bearerToken: `${secret} B` }],
    ['a character beyond Latin-1', { bearerToken: `${secret}€` }],
    ['nothing', { bearerToken: '' }],
    ['a function answering a newline inside', { bearerToken: async () => `${secret}\nB` }],
  ] as [string, ConfluentRegistryAuth][]) {
    it(`refuses a bearer token with ${label} before the request, naming the option, never the token`, async () => {
      const { url, authorizations } = await registry();
      const error = await rejection(confluentSchemaRegistry({ url, auth }).getSchema('7'));
      expect(error).toBeInstanceOf(SchemaRegistryRequestError);
      expect(error.message).toContain('auth.bearerToken is not a token');
      expect(inspect(error, { depth: 10 })).not.toContain(secret);
      expect(authorizations).toEqual([]);
    });
  }

  it('sends a token without the whitespace around it, as fetch would', async () => {
    const { url, authorizations } = await registry();
    await confluentSchemaRegistry({ url, auth: { bearerToken: ` ${secret}\n` } }).getSchema('7');
    await confluentSchemaRegistry({ url, auth: { username: 'u\n', password: 'p:\u0000' } }).getSchema('7');
    expect(authorizations).toEqual([
      `Bearer ${secret}`,
      `Basic ${Buffer.from('u\n:p:\u0000').toString('base64')}`,
    ]);
  });

  it("wraps a token function's failure without its message", async () => {
    const { url } = await registry();
    const auth = {
      bearerToken: async () => {
        throw new Error(`token endpoint answered 500 for ${secret}`);
      },
    };
    const error = await rejection(confluentSchemaRegistry({ url, auth }).getSchema('7'));
    expect(error).toBeInstanceOf(SchemaRegistryRequestError);
    expect(error.message).toBe('The schema registry auth.bearerToken function failed');
    expect((error.cause as Error).message).toMatch(
      /^auth\.bearerToken\(\) failed \(Error; messages withheld/,
    );
    expect(inspect(error, { depth: 10 })).not.toContain(secret);
  });

  it("keeps a failed request's error classes and codes as the cause, not fetch's errors", async () => {
    // Where nothing listens.
    const url = `http://127.0.0.1:${await freePort()}`;
    const error = await rejection(
      confluentSchemaRegistry({ url: `${url}/?api_key=KEY-XYZ`, auth: { bearerToken: secret } }).getSchema(
        '7',
      ),
    );
    expect(error).toBeInstanceOf(SchemaRegistryRequestError);
    expect((error.cause as Error).message).toMatch(
      /^fetch failed \(TypeError, caused by Error ECONNREFUSED; messages withheld/,
    );
    expect((error.cause as Error).cause).toBeUndefined();
    expect(inspect(error, { depth: 10 })).not.toMatch(/TOKEN-XYZ|KEY-XYZ/);
  });
});

/** A server answering every request with `status` and `body` (text, as given). */
function answering(status: number, body: string, contentType = 'application/json') {
  return serve((_request, response) => {
    response.writeHead(status, { 'content-type': contentType });
    response.end(body);
  });
}

describe('confluentSchemaRegistry 404s', () => {
  it("takes only Confluent's error code 40403 as an unknown schema", async () => {
    const url = await answering(404, JSON.stringify({ error_code: 40403, message: 'Schema 7 not found' }));
    const error = await rejection(confluentSchemaRegistry({ url }).getSchema('7'));
    expect(error).toBeInstanceOf(SchemaNotFoundError);
  });

  for (const [label, body, contentType] of [
    [
      "Apicurio's answer for an unknown path",
      '{"message":"Could not find resource","error_code":404}',
      undefined,
    ],
    ['an error code of 0', '{"message":"Could not find resource","error_code":0}', undefined],
    ['an HTML page', '<html><body>Not Found</body></html>', 'text/html'],
    ['no body', '', 'text/plain'],
  ] as [string, string, string | undefined][]) {
    it(`takes a 404 with ${label} as a request error that suggests checking the URL, never quoting it`, async () => {
      const url = await answering(404, body, contentType);
      const error = await rejection(
        confluentSchemaRegistry({ url: `${url}/wrong/?key=KEY-XYZ` }).getSchema('7'),
      );
      expect(error).toBeInstanceOf(SchemaRegistryRequestError);
      expect((error as SchemaRegistryRequestError).status).toBe(404);
      expect(error.message).toContain('check the registry URL');
      expect(error.message).toContain('/apis/ccompat/v7');
      expect(inspect(error, { depth: 10 })).not.toContain('KEY-XYZ');
    });
  }
});

/**
 * A Confluent-compatible registry on loopback answering from `routes` (path → body), 404 with
 * Confluent's code for anything else; records each request's path and Authorization header.
 */
async function routed(routes: Record<string, object>) {
  const requests: { path: string; authorization: string | undefined }[] = [];
  return { url: await serve(confluentRoutes(routes, requests)), requests };
}

const record = (name: string, fields: object[] = []) =>
  JSON.stringify({ type: 'record', name, namespace: 'shop', fields });
const ref = (name: string, subject: string, version = 1) => ({ name, subject, version });

describe('confluentSchemaRegistry schema references', () => {
  it('resolves references recursively, each version once, in dependency order, with auth on every request', async () => {
    const { url, requests } = await routed({
      '/schemas/ids/1': {
        schema: record('Customer'),
        references: [ref('shop.Address', 'addr'), ref('shop.Phone', 'phone', 2)],
      },
      '/schemas/ids/2': { schema: record('Invoice'), references: [ref('shop.Address', 'addr')] },
      '/subjects/addr/versions/1': {
        schema: record('Address'),
        references: [ref('shop.Country', 'country')],
      },
      '/subjects/phone/versions/2': { schema: record('Phone'), references: [ref('shop.Country', 'country')] },
      '/subjects/country/versions/1': { schema: record('Country'), references: [] },
    });
    const client = confluentSchemaRegistry({ url, auth: { bearerToken: 'T' } });
    const schema = await client.getSchema('1');
    expect(schema.definition).toBe(record('Customer'));
    expect(schema.references).toEqual([
      { name: 'shop.Country', type: 'AVRO', definition: record('Country') },
      { name: 'shop.Address', type: 'AVRO', definition: record('Address') },
      { name: 'shop.Phone', type: 'AVRO', definition: record('Phone') },
    ]);
    expect((await client.getSchema('2')).references?.map((r) => r.name)).toEqual([
      'shop.Country',
      'shop.Address',
    ]);
    await client.getSchema('1');
    expect(requests.map((r) => r.path).sort()).toEqual([
      '/schemas/ids/1',
      '/schemas/ids/2',
      '/subjects/addr/versions/1',
      '/subjects/country/versions/1',
      '/subjects/phone/versions/2',
    ]);
    expect(requests.every((r) => r.authorization === 'Bearer T')).toBe(true);
    expect(client.stats.requests).toBe(5);
  });

  it('escapes the subject in the path and keeps the type of each reference', async () => {
    const { url } = await routed({
      '/schemas/ids/3': {
        schema: '{"$ref":"https://example.com/a b.json"}',
        schemaType: 'JSON',
        references: [ref('https://example.com/a b.json', 'a/b c', 4)],
      },
      '/subjects/a%2Fb%20c/versions/4': { schema: '{"type":"string"}', schemaType: 'JSON' },
    });
    expect((await confluentSchemaRegistry({ url }).getSchema('3')).references).toEqual([
      { name: 'https://example.com/a b.json', type: 'JSON', definition: '{"type":"string"}' },
    ]);
  });

  it('fails with a request error, to be retried, when a reference is missing, malformed or a cycle', async () => {
    const { url } = await routed({
      '/schemas/ids/4': { schema: record('A'), references: [ref('shop.Gone', 'gone')] },
      '/schemas/ids/5': { schema: record('A'), references: [ref('shop.B', 'b')] },
      '/subjects/b/versions/1': { schema: record('B'), references: [ref('shop.C', 'c')] },
      '/subjects/c/versions/1': { schema: record('C'), references: [ref('shop.B', 'b')] },
      '/schemas/ids/6': { schema: record('A'), references: [{ name: 'shop.B', subject: 'b' }] },
    });
    const client = confluentSchemaRegistry({ url });
    for (const [id, message] of [
      ['4', 'Schema registry has no subject gone version 1 (referenced by schema 4)'],
      ['5', "Schema 5's references form a cycle at subject b version 1"],
      ['6', 'Schema registry answer for schema 6 has references that are not { name, subject, version }'],
    ]) {
      const error = await rejection(client.getSchema(id!));
      expect(error).toBeInstanceOf(SchemaRegistryRequestError);
      expect(error.message).toBe(message);
    }
  });
});
