import { custom, type GenericSchema, safeParse } from 'valibot';

/**
 * Every key of `TOptions`, of every member when `TOptions` is a union (`keyof` of a union keeps only the
 * keys all members share, and an option of one handler shape is still an option).
 *
 * @example
 * ```ts
 * type Keys = OptionKey<{ onRecord: () => void } | { onPartition: () => void }>; // 'onRecord' | 'onPartition'
 * ```
 */
export type OptionKey<TOptions> = TOptions extends unknown ? Extract<keyof TOptions, string> : never;

/**
 * One valibot schema per option of `TOptions`, no more and no fewer: a key added to an options type
 * without a schema (which would then be refused as unknown), or a schema for a key the type does not
 * have, fails to compile. Each schema checks the value as given (optional ones accept `undefined`).
 *
 * @example
 * ```ts
 * const entries: OptionSchemas<{ size?: number }> = { size: v.optional(v.number()) };
 * ```
 */
export type OptionSchemas<TOptions> = { readonly [Key in OptionKey<TOptions>]-?: GenericSchema };

/**
 * What is wrong with a set of options: the first unknown key, else the first invalid value (in the
 * order the schemas are declared), else that the options are not an object at all.
 *
 * @example
 * ```ts
 * const problem: OptionProblem = {
 *   key: 'concurency',
 *   suggestion: 'concurrency',
 *   message: 'unknown option "concurency" — did you mean "concurrency"?',
 * };
 * ```
 */
export interface OptionProblem {
  /** The offending key; `undefined` when the options are not an object. */
  readonly key: string | undefined;
  /** For an unknown key, the valid key closest to it, if one is close enough to be a likely misspelling. */
  readonly suggestion?: string;
  /**
   * For an unknown key: `unknown option "KEY" — did you mean "VALID"?` (or the list of valid options when
   * none is close). For an invalid value: the message its schema gives. Never quotes a value that the
   * schema's own message does not.
   */
  readonly message: string;
}

/**
 * A declared set of options: their schemas, and {@link OptionsSpec.check} that refuses unknown keys (naming
 * the closest valid one) and invalid values. Declare it once at module level with {@link defineOptions};
 * check each options object once, when it is given (a constructor, a factory), never per event.
 *
 * @example
 * ```ts
 * const spec = defineOptions<{ size?: number }>({ size: v.optional(v.number(), 'size must be a number') });
 * spec.check({ sise: 2 }, (problem) => new RangeError(problem.message));
 * // RangeError: unknown option "sise" — did you mean "size"?
 * ```
 */
export interface OptionsSpec<TOptions> {
  /** The valid keys, in declaration order. */
  readonly keys: readonly OptionKey<TOptions>[];
  /** Throws `toError(problem)` for the first problem of `options`; returns them, typed, when there is none. */
  check(options: unknown, toError: (problem: OptionProblem) => Error): TOptions;
}

/**
 * Declares a set of options by one valibot schema per key (Middy's `validateOptions` model): the only way
 * the middleware, the trigger emulator and the CDK constructs check what they are given. Import only the
 * valibot functions you use: the middleware's consumers bundle them.
 *
 * @example
 * ```ts
 * import { custom, optional } from 'valibot';
 *
 * const BATCH = defineOptions<{ concurrency?: number }>({
 *   concurrency: optional(
 *     custom<number>(
 *       (value) => Number.isSafeInteger(value) && (value as number) >= 1,
 *       (issue) => `concurrency must be a positive integer, not ${String(issue.input)}`,
 *     ),
 *   ),
 * });
 * BATCH.check({ concurency: 4 }, (problem) => new TypeError(problem.message));
 * // TypeError: unknown option "concurency" — did you mean "concurrency"?
 * ```
 */
export function defineOptions<TOptions>(
  schemas: OptionSchemas<TOptions>,
  /** For options nested in another option (`source`): its name, put before the keys messages name. */
  within?: string,
): OptionsSpec<TOptions> {
  const entries = Object.entries(schemas as Record<string, GenericSchema>);
  const keys = entries.map(([key]) => key) as OptionKey<TOptions>[];
  const known = new Set<string>(keys);
  return {
    keys,
    check(options, toError) {
      if (typeof options !== 'object' || options === null || Array.isArray(options))
        throw toError({ key: undefined, message: `${within ?? 'options'} must be an object` });
      for (const key of Object.keys(options)) {
        if (!known.has(key)) throw toError(unknownOption(key, keys, within));
      }
      // Each value against its own schema (an absent key is `undefined`), rather than valibot's `object`:
      // a missing required option then gets its schema's message, and the bundle one schema less.
      for (const [key, schema] of entries) {
        const result = safeParse(schema, (options as Record<string, unknown>)[key], { abortEarly: true });
        if (!result.success) throw toError({ key, message: result.issues[0].message });
      }
      return options as TOptions;
    },
  };
}

/**
 * The problem of an unknown key: its closest valid key when that is a likely misspelling (see
 * {@link closestKey}), otherwise the list of valid keys.
 *
 * @example
 * ```ts
 * unknownOption('batchSzie', ['topic', 'batchSize']).message; // 'unknown option "batchSzie" — did you mean "batchSize"?'
 * ```
 */
export function unknownOption(key: string, validKeys: readonly string[], within?: string): OptionProblem {
  const suggestion = closestKey(key, validKeys);
  const named = (name: string): string => (within === undefined ? name : `${within}.${name}`);
  return suggestion === undefined
    ? { key, message: `unknown option "${named(key)}" (valid options: ${validKeys.map(named).join(', ')})` }
    : { key, suggestion, message: `unknown option "${named(key)}" — did you mean "${named(suggestion)}"?` };
}

/**
 * The schema of an option whose value the code that uses it checks (or that has no rule of its own):
 * declared, so that its key is known, but never refused here.
 *
 * @example
 * ```ts
 * defineOptions<{ logger?: Console }>({ logger: unchecked });
 * ```
 */
export const unchecked: GenericSchema = /* @__PURE__ */ custom<unknown>(() => true);

/**
 * The first problem `spec` finds in `value`, or `undefined` when it has none (for a spec nested in
 * another option's schema, whose message is then the outer option's).
 *
 * @example
 * ```ts
 * firstProblem(QUEUE, { type: 'sqs', queueURL: 'q' })?.message; // 'unknown option "onFailure.queueURL" — did you mean…'
 * ```
 */
export function firstProblem(
  spec: Pick<OptionsSpec<unknown>, 'check'>,
  value: unknown,
): OptionProblem | undefined {
  let found: OptionProblem | undefined;
  try {
    spec.check(value, (problem) => {
      found = problem;
      return new Error(problem.message);
    });
  } catch (error) {
    if (found === undefined) throw error;
  }
  return found;
}

/**
 * The schema of an option whose value is itself a set of options (`source`, `onFailure`): `specFor` picks
 * their spec from the value (by its `kind` or `type`; declared with `within` set to the option's name), or
 * returns `undefined` to leave the value to the code that uses it, as it does for a value that is not an
 * object. The nested spec's first problem is the option's problem, its keys named `option.key`.
 *
 * @example
 * ```ts
 * const QUEUE = defineOptions<{ type: 'sqs'; queueUrl?: string }>({ type: unchecked, queueUrl: unchecked }, 'onFailure');
 * const PROPS = defineOptions<{ onFailure?: { type: 'sqs'; queueUrl?: string } }>({
 *   onFailure: nestedOptions((value) => (value.type === 'sqs' ? QUEUE : undefined)),
 * });
 * PROPS.check({ onFailure: { type: 'sqs', queueURL: 'q' } }, (problem) => new TypeError(problem.message));
 * // TypeError: unknown option "onFailure.queueURL" — did you mean "onFailure.queueUrl"?
 * ```
 */
export function nestedOptions(
  specFor: (value: Readonly<Record<string, unknown>>) => Pick<OptionsSpec<unknown>, 'check'> | undefined,
): GenericSchema {
  const problemOf = (value: unknown): OptionProblem | undefined => {
    if (typeof value !== 'object' || value === null) return undefined;
    const spec = specFor(value as Record<string, unknown>);
    return spec === undefined ? undefined : firstProblem(spec, value);
  };
  return custom(
    (value) => problemOf(value) === undefined,
    (issue) => problemOf(issue.input)?.message ?? 'invalid options',
  );
}

/**
 * The valid key nearest to `key` by edit distance (insertions, deletions, substitutions and swaps of two
 * adjacent characters, case included), if it is near enough to be a misspelling: at most 2 edits, or a
 * third of the longer key's length for long keys (`validation` for `validate`). Ties go to the key declared first.
 *
 * @example
 * ```ts
 * closestKey('concurency', ['ordering', 'concurrency']); // 'concurrency'
 * closestKey('colour', ['ordering', 'concurrency']); // undefined
 * ```
 */
export function closestKey(key: string, validKeys: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of validKeys) {
    const distance = editDistance(key, candidate);
    const nearEnough = Math.max(2, Math.floor(Math.max(key.length, candidate.length) / 3));
    if (distance < bestDistance && distance <= nearEnough) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/**
 * Optimal string alignment distance: Levenshtein's edits plus the swap of two adjacent characters, the
 * commonest typo (`batchSzie`), counted as one edit.
 *
 * @example
 * ```ts
 * editDistance('batchSzie', 'batchSize'); // 1
 * ```
 */
export function editDistance(a: string, b: string): number {
  // Three rolling rows: the row before the previous one is what a swap looks back to.
  let beforePrevious: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = a[i - 1] === b[j - 1] ? 0 : 1;
      let distance = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + substitution);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        distance = Math.min(distance, beforePrevious[j - 2]! + 1);
      current.push(distance);
    }
    beforePrevious = previous;
    previous = current;
  }
  return previous[b.length]!;
}
