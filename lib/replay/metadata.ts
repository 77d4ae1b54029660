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

/**
 * Whether a character is one a terminal acts on rather than shows: C0 controls (escape, carriage return,
 * newline, …), DEL and C1 controls, the Unicode line and paragraph separators, and the bidirectional
 * overrides and isolates (they reorder how the text around them is shown). Everything else — accents,
 * other scripts, emoji and their joiners — is text.
 */
function isControlCharacter(code: number): boolean {
  return (
    code < 0x20 ||
    (code >= 0x7f && code <= 0x9f) ||
    code === 0x2028 ||
    code === 0x2029 ||
    (code >= 0x202a && code <= 0x202e) ||
    (code >= 0x2066 && code <= 0x2069)
  );
}

const codePoint = (code: number) => `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * The first control character of `text` (see {@link escapeControlCharacters}), as `U+001B`, and where it
 * is; undefined when there is none. An audit reason with one is refused: it is shown in operators'
 * terminals.
 *
 * @example
 * ```ts
 * findControlCharacter('INC-42\x1b[31m'); // { index: 6, codePoint: 'U+001B' }
 * ```
 */
export function findControlCharacter(text: string): { index: number; codePoint: string } | undefined {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (isControlCharacter(code)) return { index, codePoint: codePoint(code) };
  }
  return undefined;
}

/**
 * Text read from the broker (an audit record anyone who may commit to the group can write) made harmless
 * to print: each control character becomes its JSON escape (`\u001b`), so that it is seen, not obeyed.
 * Newlines are kept with `keepNewlines` (for messages of several lines this package writes itself).
 *
 * @example
 * ```ts
 * escapeControlCharacters('a\x1b[31mRED\r\n'); // 'a\\u001b[31mRED\\u000d\\u000a'
 * ```
 */
export function escapeControlCharacters(text: string, { keepNewlines = false } = {}): string {
  let out = '';
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    out +=
      isControlCharacter(code) && !(keepNewlines && code === 0x0a)
        ? `\\u${code.toString(16).padStart(4, '0')}`
        : text[index];
  }
  return out;
}
