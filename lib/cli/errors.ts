/**
 * Base of the `kafka-lambda` command's own errors (a folder `init` will not write to, an event file
 * `invoke` cannot use, cluster options it cannot resolve…): `error instanceof CliError` tells a refusal of
 * the command from a failure of the library or the handler it runs. `cause` (from `options`) keeps what led
 * to it. Each subclass gets its own class name as `name`.
 *
 * @example
 * ```ts
 * try { scaffoldProject('my-consumer'); } catch (e) { if (e instanceof CliError) console.error(`${e.name}: ${e.message}`); }
 * ```
 */
export class CliError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}
