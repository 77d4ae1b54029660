import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { SchemaNotFoundError, SchemaRegistryRequestError } from './errors.ts';
import { type ConfluentRegistryAuth, confluentSchemaRegistry } from './registry.ts';

const servers: Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
});

/** A registry that has schema 7 and records the Authorization header of each request. */
async function registry() {
  const authorizations: (string | undefined)[] = [];
  const server = createServer((request, response) => {
    authorizations.push(request.headers.authorization);
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ schema: '"string"' }));
  });
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, authorizations };
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
    const { url } = await registry();
    for (const server of servers.splice(0)) server.close();
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
async function answering(status: number, body: string, contentType = 'application/json') {
  const server = createServer((_request, response) => {
    response.writeHead(status, { 'content-type': contentType });
    response.end(body);
  });
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
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
