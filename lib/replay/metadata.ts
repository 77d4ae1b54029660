/**
 * The audit record a replay stores in the metadata string of every offset it commits.
 *
 * @example
 * ```ts
 * const audit: ReplayAudit = { at: '2026-11-29T10:00:00.000Z', previous: 1041, reason: 'INC-42: bad deploy' };
 * ```
 */
export interface ReplayAudit {
  /** When the replay committed the offset (ISO 8601). */
  at: string;
  /** The committed offset it replaced (null when the group had none). */
  previous: number | null;
  reason: string;
  /** Which execution wrote it: unique per execution, so that a run can tell its commit from another's. */
  run?: string;
}

// Kafka refuses metadata over offset.metadata.max.bytes (default 4096) per partition, which would split
// an otherwise all-or-nothing commit; the reason is cut well below that.
const MAX_REASON = 500;

/**
 * Serialises an audit record as compact JSON under a `kafka-lambda-replay` key.
 *
 * @example
 * ```ts
 * formatReplayMetadata({ at: new Date().toISOString(), previous: 1041, reason: 'INC-42' });
 * // '{"kafka-lambda-replay":{"at":"…","previous":1041,"reason":"INC-42"}}'
 * ```
 */
export function formatReplayMetadata(audit: ReplayAudit): string {
  const reason =
    audit.reason.length > MAX_REASON ? `${audit.reason.slice(0, MAX_REASON - 1)}…` : audit.reason;
  return JSON.stringify({
    'kafka-lambda-replay': {
      at: audit.at,
      previous: audit.previous,
      reason,
      ...(audit.run === undefined ? {} : { run: audit.run }),
    },
  });
}

/**
 * Reads an audit record back from a committed offset's metadata; null for anything a replay did not write.
 *
 * @example
 * ```ts
 * const audit = parseReplayMetadata(plan.partitions[0].committedMetadata);
 * if (audit) console.log(`replayed at ${audit.at} from ${audit.previous}: ${audit.reason}`);
 * ```
 */
export function parseReplayMetadata(metadata: string | null | undefined): ReplayAudit | null {
  if (!metadata?.startsWith('{"kafka-lambda-replay"')) return null;
  try {
    const audit = (JSON.parse(metadata) as { 'kafka-lambda-replay'?: Partial<ReplayAudit> })[
      'kafka-lambda-replay'
    ];
    if (typeof audit?.at !== 'string' || typeof audit.reason !== 'string') return null;
    return {
      at: audit.at,
      previous: typeof audit.previous === 'number' ? audit.previous : null,
      reason: audit.reason,
      ...(typeof audit.run === 'string' ? { run: audit.run } : {}),
    };
  } catch {
    return null;
  }
}
