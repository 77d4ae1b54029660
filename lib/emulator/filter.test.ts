import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidMappingSettingError } from './errors.ts';
import { compileFilterCriteria } from './filter.ts';

/** A compiled single-filter matcher for a pattern on the record's `value`. */
function onValue(pattern: unknown) {
  return compileFilterCriteria({ Filters: [{ Pattern: JSON.stringify({ value: pattern }) }] });
}

function bytes(value: unknown): Buffer {
  return Buffer.from(typeof value === 'string' ? value : JSON.stringify(value));
}

// Every row of the comparison-operator table in
// https://docs.aws.amazon.com/lambda/latest/dg/invocation-eventfiltering.html (applied to a Kafka
// record's JSON value, the only key Kafka mappings filter on), each with records that match and not.
const documented: Array<{ name: string; pattern: unknown; matches: unknown[]; rejects: unknown[] }> = [
  {
    name: 'Null: UserID is null',
    pattern: { UserID: [null] },
    matches: [{ UserID: null }],
    rejects: [{ UserID: 'u-1' }, { UserID: '' }, {}],
  },
  {
    name: 'Empty: LastName is empty',
    pattern: { LastName: [''] },
    matches: [{ LastName: '' }],
    rejects: [{ LastName: 'Doe' }, { LastName: null }, {}],
  },
  {
    name: 'Equals: Name is "Alice"',
    pattern: { Name: ['Alice'] },
    matches: [{ Name: 'Alice' }, { Name: ['Bob', 'Alice'] }],
    rejects: [{ Name: 'alice' }, { Name: 'Alice ' }, { name: 'Alice' }],
  },
  {
    name: 'Equals (ignore case): Name is "Alice"',
    pattern: { Name: [{ 'equals-ignore-case': 'alice' }] },
    matches: [{ Name: 'Alice' }, { Name: 'ALICE' }, { Name: 'alice' }],
    rejects: [{ Name: 'Alicia' }, {}],
  },
  {
    name: 'And: Location is "New York" and Day is "Monday"',
    pattern: { Location: ['New York'], Day: ['Monday'] },
    matches: [{ Location: 'New York', Day: 'Monday', extra: 1 }],
    rejects: [{ Location: 'New York', Day: 'Tuesday' }, { Location: 'New York' }],
  },
  {
    name: 'Or: PaymentType is "Credit" or "Debit"',
    pattern: { PaymentType: ['Credit', 'Debit'] },
    matches: [{ PaymentType: 'Credit' }, { PaymentType: 'Debit' }],
    rejects: [{ PaymentType: 'Cash' }, {}],
  },
  {
    name: 'Or (multiple fields): Location is "New York", or Day is "Monday"',
    pattern: { $or: [{ Location: ['New York'] }, { Day: ['Monday'] }] },
    matches: [{ Location: 'New York' }, { Day: 'Monday' }, { Location: 'New York', Day: 'Monday' }],
    rejects: [{ Location: 'Boston', Day: 'Sunday' }, {}],
  },
  {
    name: 'Not: Weather is anything but "Raining"',
    pattern: { Weather: [{ 'anything-but': ['Raining'] }] },
    matches: [{ Weather: 'Sunny' }, { Weather: 'raining' }],
    rejects: [{ Weather: 'Raining' }, {}],
  },
  {
    name: 'Numeric (equals): Price is 100',
    pattern: { Price: [{ numeric: ['=', 100] }] },
    matches: [{ Price: 100 }, '{"Price":100.0}'],
    rejects: [{ Price: 101 }, { Price: '100' }, {}],
  },
  {
    name: 'Numeric (range): Price is more than 10, and less than or equal to 20',
    pattern: { Price: [{ numeric: ['>', 10, '<=', 20] }] },
    matches: [{ Price: 11 }, { Price: 20 }, { Price: 10.5 }],
    rejects: [{ Price: 10 }, { Price: 21 }, { Price: '15' }],
  },
  {
    name: 'Exists: ProductName exists',
    pattern: { ProductName: [{ exists: true }] },
    matches: [{ ProductName: 'Widget' }, { ProductName: '' }],
    rejects: [{ Product: 'Widget' }, { ProductName: { nested: 'object' } }],
  },
  {
    name: 'Does not exist: ProductName does not exist',
    pattern: { ProductName: [{ exists: false }] },
    matches: [{ Product: 'Widget' }, {}],
    rejects: [{ ProductName: 'Widget' }],
  },
  {
    name: 'Begins with: Region is in the US',
    pattern: { Region: [{ prefix: 'us-' }] },
    matches: [{ Region: 'us-east-1' }],
    rejects: [{ Region: 'eu-west-1' }, { Region: 'US-east-1' }],
  },
  {
    name: 'Ends with: FileName ends with a .png extension',
    pattern: { FileName: [{ suffix: '.png' }] },
    matches: [{ FileName: 'image.png' }],
    rejects: [{ FileName: 'image.jpg' }, { FileName: 'image.PNG' }],
  },
  // Examples of the same page and of the Kafka filtering page.
  {
    name: 'Kafka page: device_ID begins with "AB"',
    pattern: { device_ID: [{ prefix: 'AB' }] },
    matches: [{ device_ID: 'AB1234', session: { start_time: 'yyyy-mm-ddThh:mm:ss', duration: 162 } }],
    rejects: [{ device_ID: 'CD1234' }],
  },
  {
    name: 'Temperature greater than 50 and at most 60',
    pattern: { Temperature: [{ numeric: ['>', 50, '<=', 60] }] },
    matches: [{ Temperature: 60 }],
    rejects: [{ Temperature: 50 }],
  },
  {
    name: 'Multi-level: Keys.Id.N is "101"',
    pattern: { Keys: { Id: { N: ['101'] } } },
    matches: [{ Keys: { Id: { N: '101' } } }],
    rejects: [{ Keys: { Id: { N: '102' } } }, { Keys: { Id: '101' } }],
  },
  {
    name: 'Numbers compare by their text: 300, 300.0 and 3.0e2 are not equal',
    pattern: { n: [300] },
    matches: ['{"n":300}'],
    rejects: ['{"n":300.0}', '{"n":3.0e2}', { n: '300' }],
  },
  // EventBridge operators Lambda accepts with the same syntax.
  {
    name: 'Begins with, ignoring case',
    pattern: { service: [{ prefix: { 'equals-ignore-case': 'eventb' } }] },
    matches: [{ service: 'EventBridge' }],
    rejects: [{ service: 'Lambda' }],
  },
  {
    name: 'Anything but a prefix',
    pattern: { Region: [{ 'anything-but': { prefix: 'us-' } }] },
    // A number or null has no prefix to exclude: EventBridge's TestEventPattern matches them.
    matches: [{ Region: 'eu-west-1' }, { Region: 7 }, { Region: null }],
    rejects: [{ Region: 'us-east-1' }, {}],
  },
  {
    name: 'Anything but one of several prefixes',
    pattern: { state: [{ 'anything-but': { prefix: ['init', 'test'] } }] },
    matches: [{ state: 'post-init' }, { state: 12 }],
    rejects: [{ state: 'initializing' }, { state: 'testing' }],
  },
  {
    name: 'Anything but a suffix, ignoring case',
    pattern: { FileName: [{ 'anything-but': { suffix: { 'equals-ignore-case': '.TXT' } } }] },
    matches: [{ FileName: 'a.png' }, { FileName: null }, { FileName: false }],
    rejects: [{ FileName: 'a.txt' }, { FileName: 'B.Txt' }],
  },
  {
    name: 'Anything but, ignoring case',
    pattern: { state: [{ 'anything-but': { 'equals-ignore-case': ['initializing', 'stopped'] } }] },
    matches: [{ state: 'running' }, { state: null }, { state: 3 }],
    rejects: [{ state: 'INITIALIZING' }, { state: 'Stopped' }],
  },
  // `exists` looks for a leaf (Lambda: "exists works only on leaf nodes"); EventBridge's
  // content-filtering guide: `"c-count": [{ "exists": false }]` matches `"c-count": { "c1": 100 }`.
  {
    name: 'Does not exist: an object is not a leaf',
    pattern: { detail: { 'c-count': [{ exists: false }] } },
    matches: [
      { detail: { state: ['pending'], 'c-count': { c1: 100 } } },
      { detail: { state: ['pending'] } },
      { other: 1 },
      { detail: 'text' },
    ],
    rejects: [{ detail: { 'c-count': 5 } }, { detail: { 'c-count': null } }, { detail: { 'c-count': [7] } }],
  },
  {
    name: 'Exists in lists: a list holds leaves only through its elements',
    pattern: { tags: [{ exists: true }] },
    matches: [{ tags: ['a'] }, { tags: [['a']] }, { tags: null }],
    rejects: [{ tags: [] }, { tags: [{ name: 'a' }] }, { tags: [[]] }],
  },
  {
    name: 'Does not exist in lists: an empty list or a list of objects has no leaf',
    pattern: { tags: [{ exists: false }] },
    matches: [{ tags: [] }, { tags: [{ name: 'a' }] }],
    rejects: [{ tags: ['a'] }, { tags: [null] }],
  },
  {
    name: 'Lists inside lists are flattened',
    pattern: { a: ['x'], items: { sku: ['X9'] } },
    matches: [{ a: [['y'], ['x']], items: [[{ sku: 'A1' }], [{ sku: 'X9' }]] }],
    rejects: [{ a: [['y']], items: [[{ sku: 'X9' }]] }],
  },
];

describe('compileFilterCriteria: the documented comparison operators', () => {
  for (const row of documented) {
    it(row.name, () => {
      const matches = onValue(row.pattern);
      for (const value of row.matches) expect(matches(bytes(value)), JSON.stringify(value)).toBe(true);
      for (const value of row.rejects) expect(matches(bytes(value)), JSON.stringify(value)).toBe(false);
    });
  }
});

describe("compileFilterCriteria: Kafka's value rules", () => {
  it('a plain-string value matches rules on value itself, never a JSON pattern', () => {
    const plain = Buffer.from('Hello, this is a test.');
    expect(onValue([{ prefix: 'Hello' }])(plain)).toBe(true);
    expect(onValue(['Hello, this is a test.'])(plain)).toBe(true);
    expect(onValue({ greeting: [{ exists: false }] })(plain)).toBe(false);
  });

  it('a JSON object value matches JSON patterns, never rules on value itself', () => {
    const json = bytes({ greeting: 'Hello' });
    expect(onValue({ greeting: ['Hello'] })(json)).toBe(true);
    expect(onValue([{ prefix: '{' }])(json)).toBe(false);
    expect(onValue([{ exists: true }])(json)).toBe(false);
  });

  it('a value that is not UTF-8 matches no pattern', () => {
    const binary = Buffer.from([0xff, 0xfe, 0x00, 0x41]);
    expect(onValue([{ exists: true }])(binary)).toBe(false);
    expect(onValue([{ 'anything-but': ['x'] }])(binary)).toBe(false);
  });

  it('JSON nested past 1,000 levels is a plain string, on every run alike', () => {
    const nested = (depth: number) => `{"a":${'['.repeat(depth - 1)}1${']'.repeat(depth - 1)}}`;
    const asJson = onValue({ a: [1] });
    const asText = onValue([{ prefix: '{"a":[[' }]);
    expect(asJson(Buffer.from(nested(1000)))).toBe(true);
    expect(asText(Buffer.from(nested(1000)))).toBe(false);
    // Deep enough to overflow a reviver's recursion: the depth check decides first.
    for (const depth of [1001, 5000, 50_000]) {
      expect(asJson(Buffer.from(nested(depth)))).toBe(false);
      expect(asText(Buffer.from(nested(depth)))).toBe(true);
    }
    // Brackets inside strings are not nesting.
    const bracketsInText = JSON.stringify({ a: 1, text: '['.repeat(3000) });
    expect(asJson(Buffer.from(bracketsInText))).toBe(true);
  });

  it('a tombstone (null value) has no value field', () => {
    expect(onValue([{ exists: false }])(null)).toBe(true);
    expect(onValue([{ exists: true }])(null)).toBe(false);
    expect(onValue({ a: [{ exists: false }] })(null)).toBe(false);
  });

  it('filters are ORed, and no filter at all lets every record through', () => {
    const matches = compileFilterCriteria({
      Filters: [
        { Pattern: JSON.stringify({ value: { kind: ['a'] } }) },
        { Pattern: JSON.stringify({ value: { kind: ['b'] } }) },
      ],
    });
    expect(matches(bytes({ kind: 'a' }))).toBe(true);
    expect(matches(bytes({ kind: 'b' }))).toBe(true);
    expect(matches(bytes({ kind: 'c' }))).toBe(false);
    expect(compileFilterCriteria({ Filters: [] })(Buffer.from([0xff]))).toBe(true);
  });

  it('a top-level $or of value patterns', () => {
    const matches = compileFilterCriteria({
      Filters: [{ Pattern: JSON.stringify({ $or: [{ value: { a: ['1'] } }, { value: { b: ['2'] } }] }) }],
    });
    expect(matches(bytes({ b: '2' }))).toBe(true);
    expect(matches(bytes({ a: '2' }))).toBe(false);
  });

  it('an object inside a list matches when one element does', () => {
    const matches = onValue({ items: { sku: [{ prefix: 'X' }] } });
    expect(matches(bytes({ items: [{ sku: 'A1' }, { sku: 'X9' }] }))).toBe(true);
    expect(matches(bytes({ items: [{ sku: 'A1' }] }))).toBe(false);
  });

  it('an anything-but list never matches a value it lists, and always another string (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.string(), { minLength: 1, maxLength: 5 }), fc.string(), (listed, other) => {
        const matches = onValue({ f: [{ 'anything-but': listed }] });
        for (const value of listed) expect(matches(bytes({ f: value }))).toBe(false);
        expect(matches(bytes({ f: other }))).toBe(!listed.includes(other));
      }),
    );
  });
});

describe('compileFilterCriteria: invalid criteria are refused with the filter named', () => {
  const invalid: Array<{ name: string; pattern: string; message: RegExp }> = [
    { name: 'not JSON', pattern: '{ value: ', message: /Filters\[0\]\.Pattern: is not valid JSON/ },
    { name: 'not an object', pattern: '["value"]', message: /must be a JSON object/ },
    { name: 'metadata key', pattern: '{"partition":[0]}', message: /filter only on "value".*partition/ },
    {
      name: 'metadata key inside $or',
      pattern: '{"$or":[{"value":{"a":["1"]}},{"topic":["t"]}]}',
      message: /filter only on "value".*topic/,
    },
    { name: 'empty rule list', pattern: '{"value":{"a":[]}}', message: /"value\.a": an empty rule list/ },
    {
      name: 'unknown operator',
      pattern: '{"value":{"a":[{"wildcard":"x*"}]}}',
      message: /"wildcard" is not a Lambda/,
    },
    { name: 'bad numeric', pattern: '{"value":{"a":[{"numeric":[">","10"]}]}}', message: /"numeric" takes/ },
    {
      name: 'bad exists',
      pattern: '{"value":{"a":[{"exists":"yes"}]}}',
      message: /"exists" takes true or false/,
    },
    { name: 'empty pattern', pattern: '{"value":{}}', message: /"value": is empty/ },
    // What EventBridge's rule compiler (aws/event-ruler, JsonRuleCompiler) refuses, and its guide
    // leaves out: anything-but of mixed types, null or booleans; an empty anything-but prefix; a
    // numeric range not written lower bound first, or with "=".
    {
      name: 'anything-but of strings and numbers',
      pattern: '{"value":{"a":[{"anything-but":["a",1]}]}}',
      message: /"anything-but" takes strings or numbers \(not both/,
    },
    {
      name: 'anything-but null',
      pattern: '{"value":{"a":[{"anything-but":null}]}}',
      message: /"anything-but" takes strings or numbers/,
    },
    {
      name: 'anything-but a boolean in a list',
      pattern: '{"value":{"a":[{"anything-but":[true]}]}}',
      message: /"anything-but" takes strings or numbers/,
    },
    {
      name: 'anything-but an empty prefix',
      pattern: '{"value":{"a":[{"anything-but":{"prefix":""}}]}}',
      message: /"anything-but" prefix must not be empty/,
    },
    ...['["<=",20,">",10]', '[">",10,">",5]', '["=",5,"<",10]', '[">",1,"<",2,"<",3]'].map((range) => ({
      name: `numeric ${range}`,
      pattern: `{"value":{"a":[{"numeric":${range}}]}}`,
      message: /a range \[">" or ">=", low, "<" or "<=", high\]/,
    })),
    ...['[">",20,"<",10]', '[">",5,"<",5]', '[">=",5,"<=",5]'].map((range) => ({
      name: `numeric ${range}`,
      pattern: `{"value":{"a":[{"numeric":${range}}]}}`,
      message: /range's low bound 5|range's low bound 20/,
    })),
    {
      name: 'anything-but a list of prefixes with an empty one',
      pattern: '{"value":{"a":[{"anything-but":{"prefix":["x",""]}}]}}',
      message: /"anything-but" prefix must not be empty/,
    },
    {
      name: 'one-branch $or',
      pattern: '{"value":{"$or":[{"a":["1"]}]}}',
      message: /"\$or" takes a list of at least two/,
    },
  ];
  for (const row of invalid) {
    it(row.name, () => {
      const compile = () => compileFilterCriteria({ Filters: [{ Pattern: row.pattern }] });
      expect(compile).toThrow(InvalidMappingSettingError);
      expect(compile).toThrow(row.message);
    });
  }

  it('more than 10 filters', () => {
    const Filters = Array.from({ length: 11 }, () => ({ Pattern: '{"value":["x"]}' }));
    expect(() => compileFilterCriteria({ Filters })).toThrow(/at most 10 filters/);
  });
});
