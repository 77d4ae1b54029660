/**
 * The base of the demo's errors: `instanceof DemoError` tells the demo's own failures from a broker's or
 * the library's.
 *
 * @example
 * ```ts
 * await runDemo(brokers).catch((e) => { if (e instanceof DemoError) process.exitCode = 1; });
 * ```
 */
export class DemoError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/**
 * The demo's self-check found a difference between what happened and what Lambda guarantees.
 *
 * @example
 * ```ts
 * await runDemo(brokers).catch((e) => { if (e instanceof DemoCheckError) process.exitCode = 1; });
 * ```
 */
export class DemoCheckError extends DemoError {}
