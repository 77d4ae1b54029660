// The warehouse the orders function calls, as a local HTTP stand-in (127.0.0.1 only).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A running warehouse stand-in and what it saw.
 *
 * @example
 * ```ts
 * const warehouse = await startWarehouse(new Set(['o-1004']));
 * process.env.RESERVATIONS_URL = warehouse.url;
 * ```
 */
export interface Warehouse {
  url: string;
  /** Order ids reserved (each once, whatever the redeliveries). */
  readonly reserved: ReadonlySet<string>;
  /** 503 answers given. */
  readonly refusals: number;
  /** Reservations asked again for an order already reserved (answered 409). */
  readonly duplicates: number;
  close(): Promise<void>;
}

/**
 * Serves the warehouse the orders function calls: idempotent by order id (the `Idempotency-Key` header),
 * and answering 503 once for each order of `refuseOnce`.
 *
 * @example
 * ```ts
 * const warehouse = await startWarehouse(new Set(['o-1004']));
 * try { … } finally { await warehouse.close(); }
 * ```
 */
export async function startWarehouse(refuseOnce: ReadonlySet<string>): Promise<Warehouse> {
  const reserved = new Set<string>();
  const refused = new Set<string>();
  let refusals = 0;
  let duplicates = 0;
  const server = createServer((request, response) => {
    const id = request.headers['idempotency-key'];
    request.resume();
    request.on('end', () => {
      const orderId = typeof id === 'string' ? id : '';
      if (refuseOnce.has(orderId) && !refused.has(orderId)) {
        refused.add(orderId);
        refusals++;
        response.writeHead(503).end();
      } else if (reserved.has(orderId)) {
        duplicates++;
        response.writeHead(409).end();
      } else {
        reserved.add(orderId);
        response.writeHead(201).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    reserved,
    get refusals() {
      return refusals;
    },
    get duplicates() {
      return duplicates;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
