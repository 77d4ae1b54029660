/**
 * Base of every error of the local SQS server (ElasticMQ).
 *
 * @example
 * ```ts
 * try { await startElasticMq(); } catch (e) { if (e instanceof ElasticMqError) console.error(e.message); }
 * ```
 */
export class ElasticMqError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/**
 * Java or Maven is missing, or Maven cannot resolve ElasticMQ's jars, so the local SQS server cannot run.
 *
 * @example
 * ```ts
 * try { await startElasticMq(); } catch (e) { if (e instanceof ElasticMqPrerequisiteError) console.error(e.message); }
 * ```
 */
export class ElasticMqPrerequisiteError extends ElasticMqError {}

/**
 * The local SQS server did not come up, or died. `logTail` holds the end of its log, where ElasticMQ
 * says why (bad configuration, port in use…).
 *
 * @example
 * ```ts
 * try { await startElasticMq(); } catch (e) { if (e instanceof ElasticMqStartError) console.error(e.logTail); }
 * ```
 */
export class ElasticMqStartError extends ElasticMqError {
  readonly logTail: string;
  constructor(message: string, logTail: string, options?: ErrorOptions) {
    super(logTail ? `${message}\n--- ElasticMQ log (tail) ---\n${logTail}` : message, options);
    this.logTail = logTail;
  }
}
