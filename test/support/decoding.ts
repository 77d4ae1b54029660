// What the decoder and registry client tests share: Confluent's framing, a record to decode, and loopback
// HTTP servers playing a schema registry.
import { once } from 'node:events';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';
import type { KafkaDecoder } from '../../lib/middleware/options.ts';
import { KafkaRecord } from '../../lib/middleware/record.ts';

/** `body` after Confluent's framing: the magic byte 0 and the schema id `id` in 4 bytes. */
export function confluentFrame(id: number, body: Uint8Array): Buffer {
  const header = Buffer.alloc(5);
  header.writeInt32BE(id, 1);
  return Buffer.concat([header, body]);
}

/** A value's schema metadata, as Lambda's JSON and SOURCE record formats give it. */
export interface ValueSchemaMetadata {
  readonly dataFormat: string;
  readonly schemaId?: string;
}

/** The record `orders-0@7` holding `value`, with `metadata` when given. */
export function valueRecord(value: Buffer, metadata?: ValueSchemaMetadata): KafkaRecord<unknown, unknown> {
  return new KafkaRecord(
    {
      topic: 'orders',
      partition: 0,
      offset: 7,
      timestamp: 0,
      timestampType: 'CREATE_TIME',
      value: value.toString('base64'),
      ...(metadata ? { valueSchemaMetadata: metadata } : {}),
    },
    'orders',
    0,
    7,
  ) as KafkaRecord<unknown, unknown>;
}

/** What `decoder` makes of the value of {@link valueRecord}, called as the middleware calls it. */
export function decodeValue<T>(
  decoder: KafkaDecoder<T>,
  value: Buffer,
  metadata?: ValueSchemaMetadata,
): T | Promise<T> {
  const record = valueRecord(value, metadata);
  return decoder.decode(record.value ?? null, record, 'value', new AbortController().signal);
}

/**
 * Loopback HTTP servers for a test file's tests: `serve(handler)` starts one and resolves with its base
 * URL; each is closed once the test that started it has finished. Call it at the file's top level.
 *
 * @example
 * ```ts
 * const serve = useLoopbackServers();
 * it('asks the registry', async () => {
 *   const url = await serve(confluentRoutes({ '/schemas/ids/1': { schema: '"string"' } }));
 * });
 * ```
 */
export function useLoopbackServers(): (handler: RequestListener) => Promise<string> {
  const servers: Server[] = [];
  afterEach(() => {
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      server.close();
    }
  });
  return async (handler) => {
    const server = createServer(handler);
    servers.push(server);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
}

/**
 * A Confluent-compatible registry's answers from `routes` (request path → JSON body), and 404 with
 * Confluent's error code (40401 under /subjects/, 40403 elsewhere) for any other path. Each request's
 * path and Authorization header are added to `requests`.
 */
export function confluentRoutes(
  routes: Record<string, object>,
  requests: { path: string; authorization: string | undefined }[] = [],
): RequestListener {
  return (request, response) => {
    const path = request.url ?? '';
    requests.push({ path, authorization: request.headers.authorization });
    const body = routes[path];
    const code = path.startsWith('/subjects/') ? 40401 : 40403;
    response.writeHead(body ? 200 : 404, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body ?? { error_code: code, message: 'not found' }));
  };
}
