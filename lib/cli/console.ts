/** The console methods a function's logs go through. */
const CONSOLE_METHODS = ['log', 'info', 'warn', 'error', 'debug'] as const;

type ConsoleWrite = (...args: unknown[]) => void;

/**
 * Replaces `console.log`, `info`, `warn`, `error` and `debug` with what `wrap` makes of each original,
 * until the returned function puts the originals back.
 *
 * @example
 * ```ts
 * const restore = redirectConsole((original) => (...args) => original('[fn]', ...args));
 * try { await handler(event); } finally { restore(); }
 * ```
 */
export function redirectConsole(wrap: (original: ConsoleWrite) => ConsoleWrite): () => void {
  const saved = Object.fromEntries(CONSOLE_METHODS.map((name) => [name, console[name]])) as Record<
    (typeof CONSOLE_METHODS)[number],
    ConsoleWrite
  >;
  for (const name of CONSOLE_METHODS) console[name] = wrap(saved[name]);
  return () => {
    Object.assign(console, saved);
  };
}
