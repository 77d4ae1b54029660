import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { waitUntilServing } from './broker.ts';

/** Accepts connections and never answers: what a broker JVM stopped with kill -STOP looks like. */
async function silentServer(): Promise<{ server: Server; address: string; sockets: Socket[] }> {
  const sockets: Socket[] = [];
  const server = createServer((socket) => sockets.push(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { server, address: `127.0.0.1:${port}`, sockets };
}

describe('waitUntilServing', () => {
  let silent: Awaited<ReturnType<typeof silentServer>> | undefined;
  afterEach(async () => {
    for (const socket of silent?.sockets ?? []) socket.destroy();
    await new Promise((resolve) => silent?.server.close(resolve) ?? resolve(undefined));
  });

  it('gives up within its timeout on a broker that accepts and never answers (one request waited 30 s)', async () => {
    silent = await silentServer();
    const started = performance.now();
    await expect(waitUntilServing(silent.address, 1_500)).rejects.toThrow(
      `${silent.address} did not answer within 1500 ms`,
    );
    // The timeout, plus at most the second given to closing the client.
    expect(performance.now() - started).toBeLessThan(3_000);
  });
});
