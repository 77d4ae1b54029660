import { EmulatorError, InvalidMappingSettingError } from './errors.ts';

/**
 * Lambda's `FilterCriteria` (the `CreateEventSourceMapping` shape): up to 10 filters, ORed. Each
 * `Pattern` is a JSON string in Lambda's (EventBridge's) filter-rule syntax. Kafka mappings filter only
 * on the record's `value` key (https://docs.aws.amazon.com/lambda/latest/dg/kafka-filtering.html).
 *
 * @example
 * ```ts
 * const criteria: FilterCriteria = {
 *   Filters: [{ Pattern: JSON.stringify({ value: { device_ID: [{ prefix: 'AB' }] } }) }],
 * };
 * ```
 */
export interface FilterCriteria {
  Filters: ReadonlyArray<{ Pattern: string }>;
}

/**
 * Decides whether a Kafka record's value (raw bytes, `null` for a tombstone) matches the criteria.
 *
 * @example
 * ```ts
 * const matches = compileFilterCriteria(criteria);
 * matches(Buffer.from('{"device_ID":"AB1234"}')); // true
 * ```
 */
export type RecordFilter = (value: Buffer | null) => boolean;

/** Lambda's quota is 5 filters per mapping, raised on request up to 10. */
const MAX_FILTERS = 10;
/** `Filter.Pattern` length limit of the Lambda API. */
const MAX_PATTERN_LENGTH = 4096;

/**
 * A number as the record's JSON wrote it: equality compares the text (Lambda: "300, 300.0 and 3.0e2 are
 * not equal", https://docs.aws.amazon.com/lambda/latest/dg/invocation-eventfiltering.html), `numeric`
 * compares the value.
 */
class JsonNumber {
  readonly value: number;
  readonly source: string;
  constructor(value: number, source: string) {
    this.value = value;
    this.source = source;
  }
}

type Leaf = string | JsonNumber | boolean | null;
type Json = Leaf | Json[] | { [key: string]: Json };

type Rule =
  | { kind: 'equals'; literal: Leaf }
  | { kind: 'equals-ignore-case'; text: string }
  | { kind: 'prefix' | 'suffix'; text: string; ignoreCase: boolean }
  | { kind: 'anything-but'; excluded: Rule[] }
  | { kind: 'numeric'; bounds: Array<{ op: NumericOperator; limit: number }> }
  | { kind: 'exists'; exists: boolean };

type NumericOperator = '=' | '<' | '<=' | '>' | '>=';

/** A compiled pattern object: every field must match (AND), and every `$or` group must have a match. */
interface PatternNode {
  fields: Array<{ key: string; match: Rule[] | PatternNode }>;
  or: PatternNode[][];
}

/** A rule of a filter pattern is malformed; re-thrown as an {@link InvalidMappingSettingError} naming the filter. */
class PatternError extends EmulatorError {
  override readonly name: string = 'PatternError';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof JsonNumber)
  );
}

/** Parses JSON keeping each number's source text (the reviver's `context.source`, Node ≥ 21). */
function parseJson(text: string): Json {
  return JSON.parse(text, (_key, value: unknown, context?: { source?: string }) =>
    typeof value === 'number' ? new JsonNumber(value, context?.source ?? String(value)) : value,
  ) as Json;
}

function describe(path: string): string {
  return path === '' ? 'the pattern' : `"${path}"`;
}

function compileLiteral(rule: unknown, path: string): Leaf {
  if (rule instanceof JsonNumber || typeof rule === 'string' || typeof rule === 'boolean' || rule === null) {
    return rule;
  }
  throw new PatternError(
    `${describe(path)}: expected a string, number, boolean or null, got ${JSON.stringify(rule)}`,
  );
}

function compileText(value: unknown, path: string, operator: string): { text: string; ignoreCase: boolean } {
  if (typeof value === 'string') return { text: value, ignoreCase: false };
  if (isObject(value)) {
    const keys = Object.keys(value);
    if (keys.length === 1 && keys[0] === 'equals-ignore-case' && typeof value[keys[0]] === 'string') {
      return { text: value['equals-ignore-case'] as string, ignoreCase: true };
    }
  }
  throw new PatternError(
    `${describe(path)}: "${operator}" takes a string or { "equals-ignore-case": string }`,
  );
}

const NUMERIC_OPERATORS: ReadonlySet<string> = new Set(['=', '<', '<=', '>', '>=']);

/**
 * `[op, n]`, or a range `[">" | ">=", low, "<" | "<=", high]`: lower bound first, `=` alone, as
 * EventBridge's rule compiler (aws/event-ruler, `JsonRuleCompiler`), whose syntax Lambda filters use,
 * accepts them.
 */
function compileNumeric(value: unknown, path: string): Rule {
  const items = Array.isArray(value) ? value : [];
  const bounds: Array<{ op: NumericOperator; limit: number }> = [];
  for (let i = 0; i + 1 < items.length; i += 2) {
    const op = items[i];
    const limit = items[i + 1];
    if (typeof op !== 'string' || !NUMERIC_OPERATORS.has(op) || !(limit instanceof JsonNumber)) break;
    bounds.push({ op: op as NumericOperator, limit: limit.value });
  }
  const [first, second] = bounds;
  const isRange =
    bounds.length === 2 &&
    (first!.op === '>' || first!.op === '>=') &&
    (second!.op === '<' || second!.op === '<=');
  if (first === undefined || bounds.length * 2 !== items.length || (bounds.length > 1 && !isRange)) {
    throw new PatternError(
      `${describe(path)}: "numeric" takes [operator, number] (operators =, <, <=, >, >=) or a range [">" or ">=", low, "<" or "<=", high]`,
    );
  }
  // event-ruler's compiler refuses a range whose low bound is not below its high one ("Bottom must be
  // less than top"), a point range [">=", 5, "<=", 5] included: `["=", 5]` says that.
  if (isRange && first.limit >= second!.limit) {
    throw new PatternError(
      `${describe(path)}: "numeric" range's low bound ${first.limit} must be below its high bound ${second!.limit}`,
    );
  }
  return { kind: 'numeric', bounds };
}

function compileAnythingBut(value: unknown, path: string): Rule {
  if (isObject(value)) {
    const keys = Object.keys(value);
    const operator = keys[0];
    if (keys.length === 1 && (operator === 'prefix' || operator === 'suffix')) {
      // One text (or `{ "equals-ignore-case": text }`), or a list of texts: EventBridge's
      // "anything-but prefix" takes both.
      const operand = value[operator];
      const excluded = Array.isArray(operand)
        ? operand.map((text) => compileText(typeof text === 'string' ? text : undefined, path, operator))
        : [compileText(operand, path, operator)];
      if (excluded.length === 0 || excluded.some(({ text }) => text === ''))
        throw new PatternError(`${describe(path)}: "anything-but" ${operator} must not be empty`);
      return { kind: 'anything-but', excluded: excluded.map((text) => ({ kind: operator, ...text })) };
    }
    if (keys.length === 1 && operator === 'equals-ignore-case') {
      const texts = Array.isArray(value[operator]) ? (value[operator] as unknown[]) : [value[operator]];
      if (texts.length > 0 && texts.every((text) => typeof text === 'string')) {
        return {
          kind: 'anything-but',
          excluded: (texts as string[]).map((text) => ({ kind: 'equals-ignore-case', text })),
        };
      }
    }
    throw new PatternError(
      `${describe(path)}: "anything-but" takes a value, a list of values, or { "prefix" | "suffix" | "equals-ignore-case": … }`,
    );
  }
  // Strings or numbers, not both, never null or a boolean (EventBridge's content-filtering guide;
  // event-ruler refuses the rest).
  const literals = Array.isArray(value) ? value : [value];
  if (literals.length === 0)
    throw new PatternError(`${describe(path)}: "anything-but" needs at least one value`);
  const allStrings = literals.every((literal) => typeof literal === 'string');
  if (!allStrings && !literals.every((literal) => literal instanceof JsonNumber)) {
    throw new PatternError(
      `${describe(path)}: "anything-but" takes strings or numbers (not both, never null or a boolean), got ${JSON.stringify(value)}`,
    );
  }
  return {
    kind: 'anything-but',
    excluded: literals.map((literal) => ({ kind: 'equals', literal: compileLiteral(literal, path) })),
  };
}

function compileRule(rule: unknown, path: string): Rule {
  if (!isObject(rule)) return { kind: 'equals', literal: compileLiteral(rule, path) };
  const keys = Object.keys(rule);
  const operator = keys[0];
  if (keys.length !== 1 || operator === undefined) {
    throw new PatternError(
      `${describe(path)}: a rule object holds exactly one operator, got ${JSON.stringify(keys)}`,
    );
  }
  const operand = rule[operator];
  switch (operator) {
    case 'prefix':
    case 'suffix':
      return { kind: operator, ...compileText(operand, path, operator) };
    case 'equals-ignore-case':
      if (typeof operand !== 'string')
        throw new PatternError(`${describe(path)}: "equals-ignore-case" takes a string`);
      return { kind: 'equals-ignore-case', text: operand };
    case 'anything-but':
      return compileAnythingBut(operand, path);
    case 'numeric':
      return compileNumeric(operand, path);
    case 'exists':
      if (typeof operand !== 'boolean')
        throw new PatternError(`${describe(path)}: "exists" takes true or false`);
      return { kind: 'exists', exists: operand };
    default:
      throw new PatternError(
        `${describe(path)}: "${operator}" is not a Lambda filter operator (supported: prefix, suffix, equals-ignore-case, anything-but, numeric, exists)`,
      );
  }
}

function compileNode(pattern: Record<string, unknown>, path: string): PatternNode {
  const node: PatternNode = { fields: [], or: [] };
  for (const [key, value] of Object.entries(pattern)) {
    const at = path === '' ? key : `${path}.${key}`;
    if (key === '$or') {
      if (!Array.isArray(value) || value.length < 2 || !value.every(isObject)) {
        throw new PatternError(`${describe(at)}: "$or" takes a list of at least two pattern objects`);
      }
      node.or.push(value.map((alternative) => compileNode(alternative, path)));
    } else if (Array.isArray(value)) {
      if (value.length === 0) throw new PatternError(`${describe(at)}: an empty rule list matches nothing`);
      node.fields.push({ key, match: value.map((rule) => compileRule(rule, at)) });
    } else if (isObject(value)) {
      node.fields.push({ key, match: compileNode(value, at) });
    } else {
      throw new PatternError(`${describe(at)}: expected a list of rules or a nested pattern object`);
    }
  }
  if (node.fields.length === 0 && node.or.length === 0) throw new PatternError(`${describe(path)}: is empty`);
  return node;
}

function lower(text: string): string {
  return text.toLowerCase();
}

function matchesText(value: string, text: string, ignoreCase: boolean, at: 'prefix' | 'suffix'): boolean {
  const [subject, needle] = ignoreCase ? [lower(value), lower(text)] : [value, text];
  return at === 'prefix' ? subject.startsWith(needle) : subject.endsWith(needle);
}

function literalEquals(value: Leaf, literal: Leaf): boolean {
  if (value instanceof JsonNumber) return literal instanceof JsonNumber && value.source === literal.source;
  return value === literal;
}

function satisfies(bound: { op: NumericOperator; limit: number }, value: number): boolean {
  switch (bound.op) {
    case '=':
      return value === bound.limit;
    case '<':
      return value < bound.limit;
    case '<=':
      return value <= bound.limit;
    case '>':
      return value > bound.limit;
    case '>=':
      return value >= bound.limit;
  }
}

/** One leaf value against one (non-`exists`) rule. */
function leafMatches(rule: Rule, value: Leaf): boolean {
  switch (rule.kind) {
    case 'equals':
      return literalEquals(value, rule.literal);
    case 'equals-ignore-case':
      return typeof value === 'string' && lower(value) === lower(rule.text);
    case 'prefix':
    case 'suffix':
      return typeof value === 'string' && matchesText(value, rule.text, rule.ignoreCase, rule.kind);
    case 'anything-but':
      // A number, a boolean or null has no prefix, suffix or case to exclude, so it passes (EventBridge's
      // TestEventPattern and aws/event-ruler match `{"anything-but": {"prefix": "init"}}` against `null`).
      return !rule.excluded.some((excluded) => leafMatches(excluded, value));
    case 'numeric':
      return value instanceof JsonNumber && rule.bounds.every((bound) => satisfies(bound, value.value));
    case 'exists':
      return rule.exists;
  }
}

/**
 * The leaf values a field holds: itself when it is a leaf, the leaves of a list (lists inside lists
 * flattened, as EventBridge flattens them), none for an object or an absent field.
 */
function leavesOf(value: Json | undefined): Leaf[] {
  if (value === undefined || isObject(value)) return [];
  if (!Array.isArray(value)) return [value];
  return flatten(value).filter((leaf): leaf is Leaf => !isObject(leaf));
}

/** A list's elements, lists inside it flattened. */
function flatten(list: Json[]): Json[] {
  return list.some(Array.isArray)
    ? list.flatMap((element) => (Array.isArray(element) ? flatten(element) : [element]))
    : list;
}

/**
 * A field's rules (ORed) against its leaves: a list matches when any of its elements does. `exists`
 * looks for a leaf, not a key: "exists works only on leaf nodes" (Lambda's event-filtering guide), so
 * `exists: false` also matches an object, an empty list or a list of objects (EventBridge's
 * content-filtering guide: `"c-count": [{ "exists": false }]` matches `"c-count": { "c1": 100 }`).
 */
function rulesMatch(rules: Rule[], value: Json | undefined): boolean {
  const leaves = leavesOf(value);
  return rules.some((rule) =>
    rule.kind === 'exists'
      ? rule.exists === leaves.length > 0
      : leaves.some((leaf) => leafMatches(rule, leaf)),
  );
}

/**
 * A nested pattern against a field. Objects in a list are tried one by one (fields of different
 * elements never combine). A field without an object (absent, a leaf, an empty list or a list of
 * leaves) has none of the nested fields, so only rules that ask for absence (`exists: false`) can match.
 */
function nodeMatches(node: PatternNode, value: Json | undefined): boolean {
  if (Array.isArray(value)) {
    const objects = flatten(value).filter(isObject);
    if (objects.length > 0) return objects.some((element) => nodeMatches(node, element));
  }
  const record = isObject(value) ? (value as Record<string, Json>) : undefined;
  for (const { key, match } of node.fields) {
    const field = record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
    const ok = Array.isArray(match) ? rulesMatch(match, field) : nodeMatches(match, field);
    if (!ok) return false;
  }
  return node.or.every((alternatives) => alternatives.some((alternative) => nodeMatches(alternative, value)));
}

/**
 * A whole filter against the record's view. Kafka's guide: a value whose format does not match the
 * pattern's (a nested pattern on a plain-string value, a tombstone or a value that is not UTF-8) does
 * not match, so a nested pattern on `value` needs a JSON object or list there.
 */
function recordMatches(node: PatternNode, view: { value?: Json }): boolean {
  const value = view.value;
  const isJson = value !== undefined && (isObject(value) || Array.isArray(value));
  for (const { match } of node.fields) {
    const ok = Array.isArray(match) ? rulesMatch(match, value) : isJson && nodeMatches(match, value);
    if (!ok) return false;
  }
  return node.or.every((alternatives) =>
    alternatives.some((alternative) => recordMatches(alternative, view)),
  );
}

/** The record fields a pattern filters on: its keys, and those of its top-level `$or` alternatives. */
function topLevelKeys(pattern: Record<string, unknown>): Set<string> {
  const keys = new Set<string>();
  for (const [key, value] of Object.entries(pattern)) {
    if (key === '$or' && Array.isArray(value)) {
      for (const alternative of value)
        if (isObject(alternative)) for (const k of topLevelKeys(alternative)) keys.add(k);
    } else {
      keys.add(key);
    }
  }
  return keys;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The record as filters see it: `{ value }` with the value decoded as Lambda's Kafka filtering reads it:
 * JSON when it parses as JSON, else the plain string. A tombstone has no `value`; a value that is not
 * UTF-8 cannot be content-filtered and matches no pattern (every Kafka pattern filters on `value`).
 */
function filterView(value: Buffer | null): { value?: Json } | undefined {
  if (value === null) return {};
  let text: string;
  try {
    text = UTF8.decode(value);
  } catch {
    return undefined;
  }
  if (text.length > 2 * MAX_JSON_DEPTH && exceedsJsonDepth(text)) return { value: text };
  try {
    return { value: parseJson(text) };
  } catch {
    return { value: text };
  }
}

/**
 * How deep a value may nest and still be read as JSON. Lambda does not document a limit; this is the
 * default of Jackson's `StreamReadConstraints` (a JVM parser refuses deeper text). Without a limit, how
 * deep a value could nest before parsing it overflowed the stack would depend on the caller's stack: the
 * same record would match or not from one run to the next. Deeper text is a plain string.
 */
const MAX_JSON_DEPTH = 1000;

/** Whether text nests deeper than {@link MAX_JSON_DEPTH} (brackets inside strings do not count). */
function exceedsJsonDepth(text: string): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      // A backslash escapes the next character.
      if (code === 0x5c) i++;
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) {
      inString = true;
    } else if (code === 0x5b || code === 0x7b) {
      if (++depth > MAX_JSON_DEPTH) return true;
    } else if (code === 0x5d || code === 0x7d) {
      depth--;
    }
  }
  return false;
}

/**
 * Validates Lambda filter criteria for a Kafka mapping and compiles them into a {@link RecordFilter}.
 * Supported, as documented for Lambda event filtering: equals (strings, numbers by their text, booleans,
 * `null`, `""`), `equals-ignore-case`, `prefix`/`suffix` (optionally ignoring case), `anything-but`
 * (values, or `prefix`/`suffix`/`equals-ignore-case`), `numeric` (one comparison or a range), `exists`,
 * nested fields, and `$or`. Only the `value` key may be filtered on (Kafka's rule).
 *
 * @example
 * ```ts
 * const matches = compileFilterCriteria({
 *   Filters: [{ Pattern: '{ "value": { "amount": [{ "numeric": [">", 100] }] } }' }],
 * });
 * matches(Buffer.from('{"amount":250}')); // true
 * ```
 * @throws InvalidMappingSettingError (setting `filterCriteria`) naming the filter and what is wrong.
 */
export function compileFilterCriteria(criteria: FilterCriteria): RecordFilter {
  const filters = criteria?.Filters;
  if (!Array.isArray(filters)) {
    throw new InvalidMappingSettingError('filterCriteria', 'expected { Filters: [{ Pattern: string }, …] }');
  }
  if (filters.length > MAX_FILTERS) {
    throw new InvalidMappingSettingError(
      'filterCriteria',
      `at most ${MAX_FILTERS} filters (Lambda's quota is 5 per mapping, raised on request to 10), got ${filters.length}`,
    );
  }
  const nodes = filters.map((filter, i) => {
    const setting = `filterCriteria.Filters[${i}].Pattern`;
    const text = filter?.Pattern;
    if (typeof text !== 'string' || text.length > MAX_PATTERN_LENGTH) {
      throw new InvalidMappingSettingError(
        setting,
        `expected a JSON string of at most ${MAX_PATTERN_LENGTH} characters`,
      );
    }
    let pattern: Json;
    try {
      pattern = parseJson(text);
    } catch (error) {
      throw new InvalidMappingSettingError(setting, 'is not valid JSON', { cause: error });
    }
    if (!isObject(pattern)) throw new InvalidMappingSettingError(setting, 'must be a JSON object');
    const other = [...topLevelKeys(pattern)].filter((key) => key !== 'value');
    if (other.length > 0) {
      throw new InvalidMappingSettingError(
        setting,
        `Kafka event source mappings filter only on "value" (https://docs.aws.amazon.com/lambda/latest/dg/kafka-filtering.html), got ${JSON.stringify(other)}`,
      );
    }
    try {
      return compileNode(pattern, '');
    } catch (error) {
      if (error instanceof PatternError) {
        throw new InvalidMappingSettingError(setting, error.message, { cause: error });
      }
      throw error;
    }
  });
  if (nodes.length === 0) return () => true;
  return (value) => {
    const view = filterView(value);
    return view !== undefined && nodes.some((node) => recordMatches(node, view));
  };
}
