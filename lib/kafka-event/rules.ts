/**
 * The rules a Kafka event's fields follow, in one place: `parseKafkaEvent` (what the middleware
 * accepts), `KafkaRecord` (how a record's bytes decode) and `validateKafkaEvent` (the test helper and
 * `kafka-lambda invoke`) all apply these, so that they never disagree about an event.
 */

/** Every `eventSource` a Kafka trigger's event carries. */
export const KAFKA_EVENT_SOURCES: ReadonlySet<string> = new Set([
  'aws:kafka',
  'SelfManagedKafka',
  'aws:SelfManagedKafka',
]);

const DIGITS = /^\d+$/;

/**
 * A record's `partition` or `offset` as a number: a non-negative integer, given as a number or as a
 * digit string (some old samples write `"0"`), up to 2^53 − 1. Returns `undefined` for anything else;
 * {@link positionProblem} says why.
 *
 * Kafka offsets are 64-bit, but a JSON number above 2^53 − 1 has already lost its exact value when
 * parsed in JavaScript: reporting it would name a neighbouring offset, so such an offset is refused
 * rather than rounded.
 *
 * @example
 * ```ts
 * readPosition(1042); // 1042
 * readPosition('3'); // 3
 * readPosition(2 ** 53); // undefined
 * ```
 */
export function readPosition(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
  if (typeof value === 'string' && DIGITS.test(value)) {
    const number = Number(value);
    if (Number.isSafeInteger(number)) return number;
  }
  return undefined;
}

/**
 * Why {@link readPosition} refused a value, for an error message (never quoting a long string).
 *
 * @example
 * ```ts
 * positionProblem(-1); // 'is -1, expected a non-negative integer'
 * ```
 */
export function positionProblem(value: unknown): string {
  const tooLarge =
    (typeof value === 'number' && Number.isInteger(value) && value > Number.MAX_SAFE_INTEGER) ||
    (typeof value === 'string' && DIGITS.test(value));
  if (tooLarge) {
    // A number has already been rounded by JSON.parse: say so, or the value shown looks like a typo.
    const shown = typeof value === 'number' ? `${value} as JavaScript reads it` : describeValue(value);
    return `is ${shown}, above 2^53 − 1: a JavaScript number cannot hold it exactly, so the record could not be reported by its offset`;
  }
  return `is ${describeValue(value)}, expected a non-negative integer`;
}

/**
 * A record's `timestamp` as epoch milliseconds: a number, or a numeric string; `NaN` for anything
 * else (never throws, whatever the event holds: `Number()` throws on a null-prototype object) and for
 * a negative time. Kafka writes `-1` (`RecordBatch.NO_TIMESTAMP`) for a record without a timestamp,
 * and its Java producer refuses any other negative one (`ProducerRecord`: "Timestamp should always be
 * non-negative or null"): read as a time, it would make the record 56 years old.
 *
 * @example
 * ```ts
 * readTimestamp(1764400000000); // 1764400000000
 * readTimestamp(-1); // NaN (Kafka's NO_TIMESTAMP)
 * readTimestamp(undefined); // NaN
 * ```
 */
export function readTimestamp(value: unknown): number {
  const time =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && value.trim() !== ''
        ? Number(value)
        : Number.NaN;
  return time >= 0 ? time : Number.NaN;
}

// Base64 with padding, as Lambda writes keys and values: the length is a multiple of 4 and `=` appears
// only at the end. The alphabet is the standard one (RFC 4648 §4) or the URL-safe one (§5: `-` and `_`
// for `+` and `/`), which Lambda never writes but Node decodes to the bytes its writer meant
// (https://nodejs.org/api/buffer.html#buffers-and-character-encodings): refusing it would cost a scan
// of every key and value for no byte decoded differently. validateKafkaEvent warns about it.
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;
const URL_SAFE_ALPHABET = /[-_]/;

/**
 * Whether `text` is base64 as keys and values are decoded: padded, in the standard alphabet as Lambda
 * writes it, or the URL-safe one (see {@link usesUrlSafeAlphabet}).
 *
 * @example
 * ```ts
 * isBase64('eyJpZCI6N30='); // true
 * isBase64('!!!not base64$$$'); // false
 * ```
 */
export function isBase64(text: string): boolean {
  return text.length % 4 === 0 && BASE64.test(text);
}

/**
 * Whether base64 `text` holds a character of the URL-safe alphabet (`-` or `_`): decoded all the
 * same, but never written by Lambda, so a sign of a hand-made event.
 *
 * @example
 * ```ts
 * usesUrlSafeAlphabet('_-8='); // true
 * usesUrlSafeAlphabet('/+8='); // false
 * ```
 */
export function usesUrlSafeAlphabet(text: string): boolean {
  return URL_SAFE_ALPHABET.test(text);
}

/**
 * The bytes of a base64 key or value, or `undefined` when `text` is not base64 by {@link isBase64}
 * (Node's own decoder would skip what it does not understand and return garbage bytes).
 *
 * @example
 * ```ts
 * decodeBase64('aGk=')?.toString(); // 'hi'
 * ```
 */
export function decodeBase64(text: string): Buffer<ArrayBuffer> | undefined {
  // The same rule as isBase64, checked after decoding, because a regular expression over every value
  // costs as much as the decoding itself. Node decodes both alphabets, skips any other character and
  // stops at an inner `=`, so every text isBase64 refuses yields fewer bytes than its length promises
  // (rules.test.ts checks the two agree).
  if (text.length % 4 !== 0) return undefined;
  const bytes = Buffer.from(text, 'base64');
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  return bytes.length === (text.length / 4) * 3 - padding ? bytes : undefined;
}

/**
 * The bytes of one header value, or `undefined` when it is not one. Lambda sends an array of signed
 * bytes (−128..127); unsigned bytes (128..255, from hand-written events) mean the same byte. A base64
 * string, as one AWS Java fixture shows, is accepted too.
 *
 * @example
 * ```ts
 * decodeHeaderValue([-34, -83])?.toString('hex'); // 'dead'
 * ```
 */
export function decodeHeaderValue(value: unknown): Buffer<ArrayBuffer> | undefined {
  if (Array.isArray(value)) {
    for (const byte of value) if (!Number.isInteger(byte) || byte < -128 || byte > 255) return undefined;
    return Buffer.from(value as number[]);
  }
  return typeof value === 'string' ? decodeBase64(value) : undefined;
}

/**
 * A short, payload-free description of a bad value for an error message.
 *
 * @example
 * ```ts
 * describeValue(undefined); // 'missing'
 * ```
 */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'missing';
  if (typeof value === 'string') return value.length > 40 ? 'a long string' : JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
