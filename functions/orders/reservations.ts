import type { Order } from './order.ts';

/**
 * The downstream the orders function calls: reserves an order's items in the warehouse. Calls are
 * idempotent by order id, so a redelivered record (at-least-once delivery) does no harm.
 *
 * @example
 * ```ts
 * await reservations.reserve(order, { signal });
 * ```
 */
export interface Reservations {
  reserve(order: Order, options: { signal: AbortSignal }): Promise<void>;
}

/**
 * The warehouse could not take the reservation right now (5xx, 429, unexpected status): the record
 * fails and Lambda retries it.
 *
 * @example
 * ```ts
 * if (error instanceof ReservationUnavailableError && error.status === 503) …
 * ```
 */
export class ReservationUnavailableError extends Error {
  override readonly name = 'ReservationUnavailableError';
  /** HTTP status, or 0 for a simulated outage. */
  readonly status: number;

  constructor(status: number) {
    super(`Reservation service unavailable (status ${status})`);
    this.status = status;
  }
}

/**
 * The function's environment is misconfigured (thrown at cold start, naming the variable).
 *
 * @example
 * ```ts
 * reservationsFromEnv({ RESERVATIONS_FAILURE_RATE: '2' }); // throws OrdersConfigError
 * ```
 */
export class OrdersConfigError extends Error {
  override readonly name = 'OrdersConfigError';
}

/**
 * The warehouse's HTTP API: `POST <baseUrl>/reservations` with an `Idempotency-Key`. 2xx means
 * reserved, 409 means this order was reserved before (a redelivery); anything else throws.
 *
 * @example
 * ```ts
 * const reservations = httpReservations('https://warehouse.internal');
 * ```
 */
export function httpReservations(baseUrl: string): Reservations {
  const url = new URL('reservations', baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
  return {
    async reserve(order, { signal }) {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': order.orderId },
        body: JSON.stringify({ orderId: order.orderId, items: order.items }),
        signal,
      });
      await response.body?.cancel();
      if (!response.ok && response.status !== 409) throw new ReservationUnavailableError(response.status);
    },
  };
}

/**
 * An in-process stand-in for the warehouse, for local runs and demos: each call takes `latencyMs`
 * and fails with probability `failureRate` (a transient outage: the retry may succeed).
 *
 * @example
 * ```ts
 * const flaky = simulatedReservations({ failureRate: 0.2, latencyMs: 5 });
 * ```
 */
export function simulatedReservations(
  options: { failureRate?: number; latencyMs?: number } = {},
): Reservations {
  const { failureRate = 0, latencyMs = 0 } = options;
  return {
    async reserve(_order, { signal }) {
      if (latencyMs > 0) await sleep(latencyMs, signal);
      if (Math.random() < failureRate) throw new ReservationUnavailableError(0);
    },
  };
}

/**
 * Picks the downstream from the environment: `RESERVATIONS_URL` for the real HTTP API, otherwise the
 * simulation, tuned by `RESERVATIONS_FAILURE_RATE` (0..1) and `RESERVATIONS_LATENCY_MS`.
 *
 * @example
 * ```ts
 * const reservations = reservationsFromEnv(process.env);
 * ```
 */
export function reservationsFromEnv(env: Record<string, string | undefined>): Reservations {
  if (env.RESERVATIONS_URL) return httpReservations(env.RESERVATIONS_URL);
  return simulatedReservations({
    failureRate: number(env, 'RESERVATIONS_FAILURE_RATE', 0, 1),
    latencyMs: number(env, 'RESERVATIONS_LATENCY_MS', 0, 60_000),
  });
}

function number(env: Record<string, string | undefined>, name: string, min: number, max: number): number {
  const text = env[name];
  if (text === undefined || text === '') return 0;
  const value = Number(text);
  if (!(value >= min && value <= max))
    throw new OrdersConfigError(`${name} must be a number in ${min}..${max}`);
  return value;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
