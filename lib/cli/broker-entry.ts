// One bootstrap server entry as the CLI takes it (--brokers, KAFKA_BROKERS, event --bootstrap-servers),
// checked without quoting it. A module of its own: `event` uses it without loading the cluster code
// (kafkajs, the broker).

/** A bootstrap server: a host name or IPv4 address, or an IPv6 address in brackets; then the port. */
const BROKER_ENTRY = /^(?:[A-Za-z0-9._-]+|\[[0-9A-Fa-f:.]+\]):(\d{1,5})$/;

/**
 * What is wrong with one entry of `--brokers` or `KAFKA_BROKERS` (`undefined`: nothing), saying nothing
 * of the entry but its port: a URL-like entry (`user:password@host:port`) holds a secret.
 *
 * @example
 * ```ts
 * brokerEntryProblem('localhost', '--brokers'); // 'has no port: give host:port, e.g. localhost:9092'
 * ```
 */
export function brokerEntryProblem(entry: string, origin: string): string | undefined {
  if (entry.includes('@'))
    return `has a user part (…@host:port): credentials never go in ${origin}; give --auth sasl-scram-512, sasl-scram-256 or basic with --sasl-username, and the password in KAFKA_SASL_PASSWORD`;
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(entry)?.[1];
  if (scheme !== undefined)
    return `starts with ${scheme}://: give host:port alone (TLS and authentication: --auth)`;
  if (/\s/.test(entry)) return 'has a space in it: entries are host:port, separated by commas';
  const port = BROKER_ENTRY.exec(entry)?.[1];
  if (port === undefined)
    return entry.includes(':')
      ? 'is not host:port (a host name or IP address, an IPv6 address in brackets, then a port from 1 to 65535)'
      : 'has no port: give host:port, e.g. localhost:9092';
  if (Number(port) < 1 || Number(port) > 65_535) return `has port ${port}, not from 1 to 65535`;
  return undefined;
}
