/**
 * Java, Maven or the broker's jars are missing, so the embedded broker cannot run.
 *
 * @example
 * ```ts
 * try { await startBroker(); } catch (e) { if (e instanceof BrokerPrerequisiteError) console.error(e.message); }
 * ```
 */
export class BrokerPrerequisiteError extends Error {
  override readonly name = 'BrokerPrerequisiteError';
}

/**
 * The embedded broker did not come up, or died. `logTail` holds the end of its server log, which is
 * where Kafka says why (bad config, port in use, storage not formatted…).
 *
 * @example
 * ```ts
 * try { await startBroker(); } catch (e) { if (e instanceof BrokerStartError) console.error(e.logTail); }
 * ```
 */
export class BrokerStartError extends Error {
  override readonly name = 'BrokerStartError';
  readonly logTail: string;
  constructor(message: string, logTail: string) {
    super(logTail ? `${message}\n--- broker log (tail) ---\n${logTail}` : message);
    this.logTail = logTail;
  }
}
