/**
 * Where each record of an invocation stands, one byte per record (a `Uint8Array` per partition): the
 * scheduler writes these states and the partial batch response is read from them.
 */

/** Not started (or given back, so that Lambda sends it again): reported unless the invocation passes it. */
export const NOT_STARTED = 0;
/** Started, not settled: reported (the deadline came first, or the invocation stopped). */
export const RUNNING = 1;
/** Processed: not reported. */
export const PROCESSED = 2;
/** Failed (a handler error, or a poison record under `onPoison: 'report'`): reported. */
export const FAILED = 3;
/** A poison record skipped or handed to `onPoison`: not reported. */
export const SKIPPED = 4;

/** How a started record ended. */
export type RecordOutcome = typeof PROCESSED | typeof FAILED | typeof SKIPPED;
