/**
 * Errors of the shared Maven-resolved server unit. The servers' own modules (broker, ElasticMQ, the
 * schema registry) catch these and throw their own errors, with this one as the `cause`.
 */

/**
 * Base of every error of this unit.
 *
 * @example
 * ```ts
 * catch (error) { if (error instanceof MavenServerError) throw new BrokerStartError(error.message, '', { cause: error }); }
 * ```
 */
export class MavenServerError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/**
 * Java 17+ or Maven is missing: no server can be installed or run.
 *
 * @example
 * ```ts
 * catch (error) { if (error instanceof JavaOrMavenMissingError) console.error(error.foundJava); }
 * ```
 */
export class JavaOrMavenMissingError extends MavenServerError {
  /** The Java major version found when it is too old; undefined when there is no Java, or Maven is what is missing. */
  readonly foundJava: number | undefined;
  constructor(message: string, foundJava?: number, options?: ErrorOptions) {
    super(message, options);
    this.foundJava = foundJava;
  }
}

/**
 * Maven ran but could not resolve (or build) the server's artifacts; the message ends with the tail of
 * Maven's output.
 *
 * @example
 * ```ts
 * catch (error) { if (error instanceof MavenResolveError) console.error(error.message); }
 * ```
 */
export class MavenResolveError extends MavenServerError {}
