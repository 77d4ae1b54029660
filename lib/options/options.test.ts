import fc from 'fast-check';
import { custom, number, optional, string } from 'valibot';
import { describe, expect, it } from 'vitest';
import {
  closestKey,
  defineOptions,
  editDistance,
  nestedOptions,
  type OptionProblem,
  unchecked,
} from './options.ts';

class ProblemError extends Error {
  readonly problem: OptionProblem;
  constructor(problem: OptionProblem) {
    super(problem.message);
    this.problem = problem;
  }
}

/** The problem `check` reports, or undefined when it accepts the options. */
function problemOf(check: () => unknown): OptionProblem | undefined {
  try {
    check();
  } catch (error) {
    if (error instanceof ProblemError) return error.problem;
    throw error;
  }
  return undefined;
}

interface BatchOptions {
  concurrency?: number;
  ordering?: string;
  onRecord: () => void;
}

const BATCH = defineOptions<BatchOptions>({
  concurrency: optional(
    custom<number>(
      (value) => Number.isSafeInteger(value) && (value as number) >= 1,
      (issue) => `concurrency must be a positive integer, not ${String(issue.input)}`,
    ),
  ),
  ordering: optional(string('ordering must be a string')),
  onRecord: custom<() => void>((value) => typeof value === 'function', 'onRecord must be a function'),
});
const onRecord = (): void => {};

describe('defineOptions', () => {
  it('names an unknown key and the valid key it misspells', () => {
    const problem = problemOf(() =>
      BATCH.check({ onRecord, concurency: 4 }, (found) => new ProblemError(found)),
    );
    expect(problem).toEqual({
      key: 'concurency',
      suggestion: 'concurrency',
      message: 'unknown option "concurency" — did you mean "concurrency"?',
    });
  });

  it('lists the valid keys when no key is close to an unknown one', () => {
    expect(
      problemOf(() => BATCH.check({ onRecord, parallelism: 4 }, (found) => new ProblemError(found))),
    ).toEqual({
      key: 'parallelism',
      message: 'unknown option "parallelism" (valid options: concurrency, ordering, onRecord)',
    });
  });

  it("reports an invalid value with its schema's message, after unknown keys", () => {
    const toError = (found: OptionProblem): Error => new ProblemError(found);
    expect(problemOf(() => BATCH.check({ onRecord, concurrency: 0 }, toError))).toEqual({
      key: 'concurrency',
      message: 'concurrency must be a positive integer, not 0',
    });
    expect(problemOf(() => BATCH.check({ concurrency: 0 }, toError))?.key).toBe('concurrency');
    expect(problemOf(() => BATCH.check({ concurrency: 2 }, toError))).toEqual({
      key: 'onRecord',
      message: 'onRecord must be a function',
    });
    expect(problemOf(() => BATCH.check({ concurrency: 0, colour: 1 }, toError))?.key).toBe('colour');
  });

  it('refuses options that are not an object', () => {
    for (const options of [undefined, null, 3, 'x', [onRecord]]) {
      expect(problemOf(() => BATCH.check(options, (found) => new ProblemError(found)))).toEqual({
        key: undefined,
        message: 'options must be an object',
      });
    }
  });

  it('returns the options it accepts, unchanged', () => {
    const options = { onRecord, concurrency: 3, ordering: 'key' };
    expect(BATCH.check(options, (found) => new ProblemError(found))).toBe(options);
    expect(BATCH.keys).toEqual(['concurrency', 'ordering', 'onRecord']);
  });
});

describe('nestedOptions', () => {
  type Destination = { type: 'sqs'; queueUrl?: string } | { type: 'kafka'; topic: string };
  const QUEUE = defineOptions<Extract<Destination, { type: 'sqs' }>>(
    { type: unchecked, queueUrl: unchecked },
    'onFailure',
  );
  const TOPIC = defineOptions<Extract<Destination, { type: 'kafka' }>>(
    { type: unchecked, topic: string('onFailure.topic must be a string') },
    'onFailure',
  );
  const PROPS = defineOptions<{ onFailure?: Destination }>({
    onFailure: nestedOptions((value) =>
      value.type === 'sqs' ? QUEUE : value.type === 'kafka' ? TOPIC : undefined,
    ),
  });
  const check = (options: unknown): OptionProblem | undefined =>
    problemOf(() => PROPS.check(options, (found) => new ProblemError(found)));

  it("names an unknown nested key by its option's name", () => {
    expect(check({ onFailure: { type: 'sqs', queueURL: 'q' } })).toEqual({
      key: 'onFailure',
      message: 'unknown option "onFailure.queueURL" — did you mean "onFailure.queueUrl"?',
    });
    expect(check({ onFailure: { type: 'kafka', topik: 'dlq' } })?.message).toBe(
      'unknown option "onFailure.topik" — did you mean "onFailure.topic"?',
    );
    expect(check({ onFailure: { type: 'kafka', topic: 1 } })?.message).toBe(
      'onFailure.topic must be a string',
    );
  });

  it('accepts valid nested options and leaves what it has no spec for to the code that uses it', () => {
    expect(check({ onFailure: { type: 'sqs', queueUrl: 'q' } })).toBeUndefined();
    expect(check({ onFailure: { type: 'kafka', topic: 'dlq' } })).toBeUndefined();
    expect(check({ onFailure: { type: 'sns', anything: 1 } })).toBeUndefined();
    expect(check({ onFailure: 'kafka://dlq' })).toBeUndefined();
    expect(check({})).toBeUndefined();
  });
});

// Keys shaped like option names (camelCase identifiers), several per set.
const keySet = fc.uniqueArray(fc.stringMatching(/^[a-z][a-zA-Z]{2,14}$/), { minLength: 1, maxLength: 12 });
const letter = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ');

/** `key` with exactly one edit: a character inserted, deleted, replaced, or two adjacent ones swapped. */
const misspelling = (key: string): fc.Arbitrary<string> =>
  fc
    .tuple(fc.constantFrom('insert', 'delete', 'replace', 'swap'), fc.nat(key.length), letter)
    .map(([edit, at, character]) => {
      const i = at % key.length;
      if (edit === 'insert') return key.slice(0, at) + character + key.slice(at);
      if (edit === 'delete') return key.slice(0, i) + key.slice(i + 1);
      if (edit === 'replace') return key.slice(0, i) + character + key.slice(i + 1);
      const j = Math.min(i, key.length - 2);
      return key.slice(0, j) + key[j + 1] + key[j] + key.slice(j + 2);
    });

describe('defineOptions (properties)', () => {
  it('names the valid key any one-edit misspelling of it comes from', () => {
    fc.assert(
      fc.property(
        keySet.chain((keys) =>
          fc
            .nat(keys.length - 1)
            .chain((index) => misspelling(keys[index]!).map((typo) => ({ keys, key: keys[index]!, typo }))),
        ),
        ({ keys, key, typo }) => {
          // A typo that is a valid key, or as near to another valid key, is not a misspelling of this one.
          fc.pre(typo !== key && keys.every((other) => other === key || editDistance(typo, other) > 1));
          const spec = defineOptions<Record<string, unknown>>(
            Object.fromEntries(keys.map((valid) => [valid, optional(number())])),
          );
          const problem = problemOf(() => spec.check({ [typo]: 1 }, (found) => new ProblemError(found)));
          expect(problem).toEqual({
            key: typo,
            suggestion: key,
            message: `unknown option "${typo}" — did you mean "${key}"?`,
          });
        },
      ),
    );
  });

  it('never refuses valid options', () => {
    fc.assert(
      fc.property(
        keySet.chain((keys) =>
          fc.subarray(keys).chain((given) =>
            fc
              .array(fc.oneof(fc.integer(), fc.constant(undefined)), {
                minLength: given.length,
                maxLength: given.length,
              })
              .map((values) => ({
                keys,
                options: Object.fromEntries(given.map((key, i) => [key, values[i]])),
              })),
          ),
        ),
        ({ keys, options }) => {
          const spec = defineOptions<Record<string, unknown>>(
            Object.fromEntries(keys.map((valid) => [valid, optional(number())])),
          );
          expect(problemOf(() => spec.check(options, (found) => new ProblemError(found)))).toBeUndefined();
        },
      ),
    );
  });

  it('measures edit distance as a metric that counts an adjacent swap as one edit', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 }), (a, b) => {
        expect(editDistance(a, b)).toBe(editDistance(b, a));
        expect(editDistance(a, b) === 0).toBe(a === b);
        expect(editDistance(a, b)).toBeLessThanOrEqual(Math.max(a.length, b.length));
        expect(editDistance(a, b)).toBeGreaterThanOrEqual(Math.abs(a.length - b.length));
      }),
    );
    expect(editDistance('batchSzie', 'batchSize')).toBe(1);
    expect(editDistance('concurency', 'concurrency')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });

  it('suggests nothing for a key far from every valid one', () => {
    expect(closestKey('colour', ['ordering', 'concurrency'])).toBeUndefined();
    expect(closestKey('timeoutReserve', ['timeoutReserveMs', 'logger'])).toBe('timeoutReserveMs');
    expect(closestKey('validation', ['kind', 'validate'])).toBe('validate');
    expect(closestKey('parallelism', ['ordering', 'concurrency', 'onRecord'])).toBeUndefined();
  });
});
