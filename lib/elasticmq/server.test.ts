import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { waitUntilAnswering } from './server.ts';

describe('waitUntilAnswering', () => {
  let server: Server | undefined;
  const sockets: Socket[] = [];
  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.destroy();
    await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  });

  it('gives up within its timeout on a server that accepts and never answers (a JVM stopped with kill -STOP)', async () => {
    server = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const endpoint = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const started = performance.now();
    await expect(waitUntilAnswering(endpoint, 2_500)).rejects.toThrow(`did not answer within 2500 ms`);
    // Each attempt waited 2 s whatever was left: a 2.5 s wait took two of them, over 4 s.
    expect(performance.now() - started).toBeLessThan(3_200);
  });
});
