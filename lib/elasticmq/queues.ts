import { ElasticMqError } from './errors.ts';

/** SQS's rule for a standard queue's name: 1–80 of `a-z A-Z 0-9 - _`. */
const STANDARD_QUEUE_NAME = /^[A-Za-z0-9_-]{1,80}$/;

/**
 * A queue name SQS (and ElasticMQ) would refuse, or a FIFO queue's: caught before any JVM is started,
 * since ElasticMQ only reports it in its log, after start-up, and the start then timed out.
 *
 * @example
 * ```ts
 * catch (e) { if (e instanceof InvalidQueueNameError) console.error(`${e.queue}: ${e.message}`); }
 * ```
 */
export class InvalidQueueNameError extends ElasticMqError {
  /** The name refused. */
  readonly queue: string;
  constructor(message: string, queue: string, options?: ErrorOptions) {
    super(message, options);
    this.queue = queue;
  }
}

/**
 * Why `name` cannot be a queue of the local SQS server, or undefined when it can. Only standard queues
 * are created (a `.fifo` name needs the FifoQueue attribute, which neither the server's configuration nor
 * `dev` sets: ElasticMQ then refuses the name).
 *
 * @example
 * ```ts
 * queueNameProblem('orders.fifo'); // 'FIFO queues are not supported by the local SQS server'
 * ```
 */
export function queueNameProblem(name: string): string | undefined {
  if (STANDARD_QUEUE_NAME.test(name)) return undefined;
  if (name.endsWith('.fifo') && STANDARD_QUEUE_NAME.test(name.slice(0, -'.fifo'.length)))
    return 'FIFO queues are not supported by the local SQS server (standard queues only)';
  return 'not an SQS queue name (1–80 of a-z A-Z 0-9 - _)';
}

/**
 * Throws for the first name the local SQS server cannot create.
 *
 * @example
 * ```ts
 * assertQueueNames(['orders-dlq']);
 * ```
 * @throws InvalidQueueNameError naming the queue.
 */
export function assertQueueNames(names: readonly string[]): void {
  for (const name of names) {
    const problem = queueNameProblem(name);
    if (problem) throw new InvalidQueueNameError(`queue ${JSON.stringify(name)}: ${problem}`, name);
  }
}

/**
 * Creates standard queues on the SQS server at `endpoint` (ElasticMQ checks no signature, so the JSON
 * protocol is spoken directly). CreateQueue is idempotent: an existing queue with default attributes is
 * kept as it is.
 *
 * @example
 * ```ts
 * await createQueues('http://127.0.0.1:9324', ['orders-dlq']);
 * ```
 * @throws InvalidQueueNameError for a name the server cannot create (before any is created).
 * @throws ElasticMqError when the server refuses or does not answer.
 */
export async function createQueues(endpoint: string, names: readonly string[]): Promise<void> {
  assertQueueNames(names);
  for (const name of names) {
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'AmazonSQS.CreateQueue' },
      body: JSON.stringify({ QueueName: name }),
      signal: AbortSignal.timeout(10_000),
    }).catch((error: unknown) => {
      throw new ElasticMqError(`the SQS server at ${endpoint} did not answer CreateQueue`, { cause: error });
    });
    const text = await response.text();
    if (!response.ok)
      throw new ElasticMqError(
        `the SQS server at ${endpoint} refused to create queue ${JSON.stringify(name)} (HTTP ${response.status}): ${text.slice(0, 500)}`,
      );
  }
}
