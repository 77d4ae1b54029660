/**
 * Java or Maven is missing, or Maven cannot resolve ElasticMQ's jars, so the local SQS server cannot run.
 *
 * @example
 * ```ts
 * try { await startElasticMq(); } catch (e) { if (e instanceof ElasticMqPrerequisiteError) console.error(e.message); }
 * ```
 */
export class ElasticMqPrerequisiteError extends Error {
  override readonly name = 'ElasticMqPrerequisiteError';
}

/**
 * The local SQS server did not come up, or died. `logTail` holds the end of its log, where ElasticMQ
 * says why (bad configuration, port in use…).
 *
 * @example
 * ```ts
 * try { await startElasticMq(); } catch (e) { if (e instanceof ElasticMqStartError) console.error(e.logTail); }
 * ```
 */
export class ElasticMqStartError extends Error {
  override readonly name = 'ElasticMqStartError';
  readonly logTail: string;
  constructor(message: string, logTail: string) {
    super(logTail ? `${message}\n--- ElasticMQ log (tail) ---\n${logTail}` : message);
    this.logTail = logTail;
  }
}
