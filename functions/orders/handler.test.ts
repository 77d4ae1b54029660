import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { failedOffsets, invokeHandler, kafkaEvent } from 'kafka-lambda/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { KafkaEvent } from '../../lib/kafka-event/types.ts';
import { createHandler, handler } from './handler.ts';
import type { Order } from './order.ts';
import {
  httpReservations,
  OrdersConfigError,
  type Reservations,
  ReservationUnavailableError,
  reservationsFromEnv,
  simulatedReservations,
} from './reservations.ts';

const sample = JSON.parse(
  readFileSync(join(import.meta.dirname, '../../test/events/msk-order-events.json'), 'utf8'),
) as KafkaEvent;
const order = (orderId: string): Order => ({
  orderId,
  customerId: 'c-1',
  items: [{ sku: 'TEA-5', quantity: 2 }],
});

// The function logs its summary through the console; keep test output readable.
beforeAll(() => {
  for (const level of ['info', 'warn', 'error'] as const)
    vi.spyOn(console, level).mockImplementation(() => {});
});
afterAll(() => vi.restoreAllMocks());

describe('orders function', () => {
  it('reserves every valid order of the sample event and reports the invalid one with the rest of its partition', async () => {
    const reserved: string[] = [];
    const reservations: Reservations = { reserve: async (o) => void reserved.push(o.orderId) };
    const response = await invokeHandler(createHandler(reservations), sample);
    // o-1005 (order-events-1@1042) has `items: "two mugs"`: a poison record, reported by default.
    expect(failedOffsets(response, sample)).toEqual({ 'order-events-1': [1042, 1043, 1044] });
    expect(reserved.sort()).toEqual(['o-1001', 'o-1002', 'o-1003', 'o-1004', 'o-1006', 'o-1007']);
  });

  it('runs as deployed (`handler`, downstream from the environment)', async () => {
    expect(failedOffsets(await invokeHandler(handler, sample), sample)).toEqual({
      'order-events-1': [1042, 1043, 1044],
    });
  });

  it('reports a record whose reservation fails, with the later records of its partition only', async () => {
    const event = kafkaEvent({
      topic: 'orders',
      partitions: 2,
      records: ['a', 'b', 'c', 'd'].flatMap((id, i) => [
        { partition: 0, key: `c-${i}`, value: order(`p0-${id}`) },
        { partition: 1, key: `c-${i}`, value: order(`p1-${id}`) },
      ]),
    });
    const reservations: Reservations = {
      reserve: async (o) => {
        if (o.orderId === 'p1-b') throw new ReservationUnavailableError(503);
      },
    };
    expect(failedOffsets(await invokeHandler(createHandler(reservations), event), event)).toEqual({
      'orders-1': [1, 2, 3],
    });
  });
});

describe('httpReservations against a real HTTP server', () => {
  const requests: { key: string | undefined; body: unknown }[] = [];
  let statusFor: (orderId: string) => number = () => 201;
  const server = createServer(async (request: IncomingMessage, response) => {
    let body = '';
    for await (const chunk of request) body += chunk;
    const parsed = JSON.parse(body) as { orderId: string };
    requests.push({ key: request.headers['idempotency-key'] as string | undefined, body: parsed });
    response.writeHead(request.url === '/api/reservations' ? statusFor(parsed.orderId) : 404).end('{}');
  });
  let baseUrl = '';
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('posts the order with an idempotency key; 2xx and 409 succeed, other statuses throw', async () => {
    const reservations = httpReservations(baseUrl);
    const signal = new AbortController().signal;
    statusFor = (id) => ({ dup: 409, busy: 503, slow: 429 })[id] ?? 201;
    await reservations.reserve(order('o-1'), { signal });
    await reservations.reserve(order('dup'), { signal });
    await expect(reservations.reserve(order('busy'), { signal })).rejects.toMatchObject({
      name: 'ReservationUnavailableError',
      status: 503,
    });
    await expect(reservations.reserve(order('slow'), { signal })).rejects.toBeInstanceOf(
      ReservationUnavailableError,
    );
    expect(requests[0]).toEqual({
      key: 'o-1',
      body: { orderId: 'o-1', items: [{ sku: 'TEA-5', quantity: 2 }] },
    });
    expect(requests).toHaveLength(4);
  });

  it('drives the function through RESERVATIONS_URL', async () => {
    statusFor = (id) => (id === 'o-1003' ? 500 : 201);
    const fromEnv = createHandler(reservationsFromEnv({ RESERVATIONS_URL: baseUrl }));
    const reported = failedOffsets(await invokeHandler(fromEnv, sample), sample);
    expect(reported).toEqual({ 'order-events-1': [1042, 1043, 1044], 'order-events-2': [998, 999] });
  });
});

describe('simulated reservations and configuration', () => {
  const signal = new AbortController().signal;

  it('fails transiently at the configured rate', async () => {
    await expect(
      simulatedReservations({ failureRate: 1 }).reserve(order('x'), { signal }),
    ).rejects.toBeInstanceOf(ReservationUnavailableError);
    await expect(
      simulatedReservations({ failureRate: 0 }).reserve(order('x'), { signal }),
    ).resolves.toBeUndefined();
  });

  it('honours the abort signal while waiting', async () => {
    const controller = new AbortController();
    const pending = simulatedReservations({ latencyMs: 10_000 }).reserve(order('x'), {
      signal: controller.signal,
    });
    controller.abort(new Error('deadline'));
    await expect(pending).rejects.toThrow('deadline');
  });

  it('rejects invalid settings, naming the variable', () => {
    expect(() => reservationsFromEnv({ RESERVATIONS_FAILURE_RATE: '2' })).toThrow(OrdersConfigError);
    expect(() => reservationsFromEnv({ RESERVATIONS_LATENCY_MS: 'soon' })).toThrow(/RESERVATIONS_LATENCY_MS/);
  });
});
