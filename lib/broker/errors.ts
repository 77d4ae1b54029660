/**
 * Base of every error of the embedded broker.
 *
 * @example
 * ```ts
 * try { await startBroker(); } catch (e) { if (e instanceof BrokerError) console.error(e.message); }
 * ```
 */
export class BrokerError extends Error {
  /**
   * `name` becomes the constructed class's name (`new.target.name`).
   *
   * @param message - What went wrong.
   * @param options - `cause`: the error that led to this one, if any.
   */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/**
 * Java, Maven or the broker's jars are missing, so the embedded broker cannot run.
 *
 * @example
 * ```ts
 * try { await startBroker(); } catch (e) { if (e instanceof BrokerPrerequisiteError) console.error(e.message); }
 * ```
 */
export class BrokerPrerequisiteError extends BrokerError {}

/**
 * The embedded broker did not come up, or died. `logTail` holds the end of its server log, which is
 * where Kafka says why (bad config, port in use, storage not formatted…).
 *
 * @example
 * ```ts
 * try { await startBroker(); } catch (e) { if (e instanceof BrokerStartError) console.error(e.logTail); }
 * ```
 */
export class BrokerStartError extends BrokerError {
  /**
   * The last lines of the broker's logs (its server log and stdout; the storage tool's output when
   * formatting the storage failed), or `''` when there were none. The message ends with them too.
   */
  readonly logTail: string;
  /**
   * @param message - What failed, e.g. `'The broker process died during start-up'`.
   * @param logTail - The end of the broker's logs; appended to the message unless empty.
   * @param options - `cause`: the error that led to this one, if any.
   */
  constructor(message: string, logTail: string, options?: ErrorOptions) {
    super(logTail ? `${message}\n--- broker log (tail) ---\n${logTail}` : message, options);
    this.logTail = logTail;
  }
}

/**
 * Topics that must exist do not, and were not to be created (`ensureTopics` with `createMissing: false`).
 * `topics` names them.
 *
 * @example
 * ```ts
 * catch (e) { if (e instanceof TopicMissingError) console.error(`create ${e.topics.join(', ')} first`); }
 * ```
 */
export class TopicMissingError extends BrokerError {
  /** The topics that do not exist. */
  readonly topics: readonly string[];
  /**
   * @param message - Which topics are missing, and on which brokers.
   * @param topics - The topics that do not exist.
   * @param options - `cause`: the error that led to this one, if any.
   */
  constructor(message: string, topics: readonly string[], options?: ErrorOptions) {
    super(message, options);
    this.topics = topics;
  }
}
