import { ReplayExecutionError, ReplayInputError, ReplayRefusedError } from './errors.ts';
import type { ReplayResult } from './execute.ts';
import type { FailureReport, ReplayPlan } from './types.ts';

/**
 * How a replay ended, for scripts: `invalid` (bad request, nothing changed), `refused` (safety check,
 * nothing changed), `failed` (failed mid-way, mapping restored, offsets all set or untouched — see the
 * report), `failed-unrestored` (failed and the mapping is NOT in its original state: act), `error`
 * (anything else, e.g. the cluster or the Lambda API could not be reached).
 *
 * @example
 * ```ts
 * const kind: ReplayErrorKind = describeReplayError(error).kind;
 * ```
 */
export type ReplayErrorKind = 'invalid' | 'refused' | 'failed' | 'failed-unrestored' | 'error';

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
};

/**
 * Classifies and serialises any error a replay can throw (never includes stack traces or secrets).
 *
 * @example
 * ```ts
 * try { await executeReplay(request); } catch (e) { console.log(JSON.stringify(describeReplayError(e))); }
 * ```
 */
export function describeReplayError(error: unknown): SerializedReplayError {
  const name = error instanceof Error ? error.name : 'Error';
  const message = error instanceof Error ? error.message : String(error);
  const issues = (error as { issues?: unknown }).issues;
  if (error instanceof ReplayExecutionError) {
    const kind = error.report.mappingRestored ? 'failed' : 'failed-unrestored';
    return { name, kind, message, report: error.report };
  }
  const kind: ReplayErrorKind =
    error instanceof ReplayInputError ? 'invalid' : error instanceof ReplayRefusedError ? 'refused' : 'error';
  return Array.isArray(issues)
    ? { name, kind, message, issues: issues.map(String) }
    : { name, kind, message };
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
