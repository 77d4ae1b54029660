import {
  ReplayConflictError,
  ReplayError,
  ReplayExecutionError,
  ReplayInputError,
  ReplayRefusedError,
} from './errors.ts';
import type { ReplayResult } from './execute.ts';
import type { FailureReport, ReplayPlan } from './types.ts';

/**
 * How a replay ended, for scripts: `invalid` (bad request, nothing changed), `refused` (safety check,
 * nothing changed), `failed` (failed mid-way, mapping restored; the report says whether the offsets
 * are set, untouched, partly set or unknown), `failed-unrestored` (failed and the mapping is NOT in its
 * original state, or the replay function ended without an answer: act), `conflict`
 * (another replay of the group ran at the same time: this one changed nothing — or, found after its
 * commit, the other's offsets won; the mapping is in its original state), `error` (anything else, e.g.
 * the cluster or the Lambda API could not be reached).
 *
 * @example
 * ```ts
 * const kind: ReplayErrorKind = describeReplayError(error).kind;
 * ```
 */
export type ReplayErrorKind = 'invalid' | 'refused' | 'failed' | 'failed-unrestored' | 'conflict' | 'error';

/**
 * A replay error as JSON: what the replay function returns and the CLI prints with `--json`.
 *
 * @example
 * ```ts
 * const body: SerializedReplayError = { name: 'GroupNotEmptyError', kind: 'refused', message: '…' };
 * ```
 */
export interface SerializedReplayError {
  name: string;
  kind: ReplayErrorKind;
  message: string;
  /** Validation problems, one line each (invalid requests). */
  issues?: string[];
  /** What state a failed execution left behind. */
  report?: FailureReport;
}

/**
 * Exit codes of `kafka-lambda replay`, by how the replay ended (0 = done, or dry run printed).
 *
 * @example
 * ```ts
 * process.exitCode = REPLAY_EXIT_CODES[describeReplayError(error).kind];
 * ```
 */
export const REPLAY_EXIT_CODES: Record<ReplayErrorKind, number> = {
  error: 1,
  invalid: 2,
  refused: 3,
  failed: 4,
  'failed-unrestored': 5,
  conflict: 6,
};

/**
 * Classifies and serialises any error a replay can throw. Never includes stack traces or secrets: the
 * messages of the replay's typed errors ({@link ReplayError}) and of AWS service errors are passed on,
 * any other error is summarised by its name and error code ({@link summarizeError}).
 *
 * @example
 * ```ts
 * try { await executeReplay(request); } catch (e) { console.log(JSON.stringify(describeReplayError(e))); }
 * ```
 */
export function describeReplayError(error: unknown): SerializedReplayError {
  const { name, message } = summarizeError(error);
  if (error instanceof ReplayExecutionError) {
    const kind = !error.report.mappingRestored
      ? 'failed-unrestored'
      : error.cause instanceof ReplayConflictError
        ? 'conflict'
        : 'failed';
    return { name, kind, message, report: error.report };
  }
  const kind: ReplayErrorKind =
    error instanceof ReplayInputError
      ? 'invalid'
      : error instanceof ReplayConflictError
        ? 'conflict'
        : error instanceof ReplayRefusedError
          ? 'refused'
          : 'error';
  const issues = error instanceof ReplayError ? (error as { issues?: unknown }).issues : undefined;
  return Array.isArray(issues)
    ? { name, kind, message, issues: issues.map(String) }
    : { name, kind, message };
}

/**
 * An error's name and a message safe to show and log. Messages of unknown errors are withheld: they can
 * quote their input verbatim (Node's `JSON.parse` quotes a secret that is not JSON; kafkajs and Node wrap
 * such messages in theirs), so only their name and error codes (`ECONNREFUSED`, Kafka's
 * `TOPIC_AUTHORIZATION_FAILED`, …) are kept. The replay's typed errors and AWS service errors (written by
 * the service, e.g. "not authorized to perform …") keep their messages.
 *
 * @example
 * ```ts
 * summarizeError(new SyntaxError('Unexpected token …')); // { name: 'SyntaxError', message: 'unexpected SyntaxError (…withheld…)' }
 * ```
 */
export function summarizeError(error: unknown): { name: string; message: string } {
  const name = error instanceof Error ? error.name : 'Error';
  if (error instanceof ReplayError || isAwsServiceError(error)) return { name, message: error.message };
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : undefined;
  const clues = [
    errorCode(error),
    cause && `caused by ${cause.name}${errorCode(cause) ? ` ${errorCode(cause)}` : ''}`,
  ].filter(Boolean);
  return {
    name,
    message: `unexpected ${name}${clues.length > 0 ? ` (${clues.join(', ')})` : ''}; its message is withheld as it may quote a secret`,
  };
}

function isAwsServiceError(error: unknown): error is Error {
  if (!(error instanceof Error)) return false;
  const { $fault, $metadata } = error as { $fault?: unknown; $metadata?: unknown };
  return ($fault === 'client' || $fault === 'server') && typeof $metadata === 'object';
}

// kafkajs protocol errors carry Kafka's error name in `type`; Node and kafkajs connection errors a `code`.
function errorCode(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const { type, code } = error as { type?: unknown; code?: unknown };
  return [type, code].find(
    (value): value is string => typeof value === 'string' && /^[A-Z][A-Z0-9_]{1,63}$/.test(value),
  );
}

/**
 * The outcome of a replay request as JSON: what the replay function returns and `kafka-lambda replay
 * --json` prints.
 *
 * @example
 * ```ts
 * const outcome: ReplayOutcome = JSON.parse(payload);
 * if (!outcome.ok) process.exitCode = REPLAY_EXIT_CODES[outcome.error.kind];
 * ```
 */
export type ReplayOutcome =
  | {
      ok: true;
      /** False for a dry run (the plan only). */
      executed: boolean;
      groupId: string;
      topic: string;
      mapping: { uuid: string; stateBefore: string; stateAfter: string } | null;
      plan: ReplayPlan;
      steps?: ReplayResult['steps'];
    }
  | { ok: false; error: SerializedReplayError };
