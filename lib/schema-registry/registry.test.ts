import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { SchemaRegistryRequestError } from './errors.ts';
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
