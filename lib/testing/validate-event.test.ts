import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseKafkaEvent } from '../kafka-event/parse.ts';
import type { KafkaEvent } from '../kafka-event/types.ts';
import { kafkaEvent } from './event-builder.ts';
import { type EventIssue, InvalidKafkaEventError, validateKafkaEvent } from './validate-event.ts';

const valid = () =>
  structuredClone(
    kafkaEvent({
      topic: 'order-events',
      partitions: 2,
      timestamp: 1_764_400_000_000,
      records: [
        { value: 'a', key: 'k', headers: [['h', Uint8Array.of(0xff)]] },
        { value: 'b', partition: 1 },
        { value: 'c', partition: 1 },
      ],
    }),
  ) as unknown as Record<string, unknown> & { records: Record<string, Array<Record<string, unknown>>> };

function issuesOf(event: unknown, options?: { allowKeyMismatch?: boolean }) {
  try {
    validateKafkaEvent(event, options);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidKafkaEventError);
    return (error as InvalidKafkaEventError).issues;
  }
  throw new Error('expected the event to be rejected');
}

describe('validateKafkaEvent', () => {
  it('returns a valid event unchanged', () => {
    const event = valid();
    expect(validateKafkaEvent(event)).toEqual(event);
  });

  it.each([
    ['a non-object', 'nope', '', 'is not an object'],
    [
      'an unknown eventSource',
      { ...valid(), eventSource: 'aws:kinesis' },
      'eventSource',
      'is "aws:kinesis", expected "aws:kafka", "SelfManagedKafka" or "aws:SelfManagedKafka"',
    ],
  ])('rejects %s', (_, event, path, message) => {
    expect(issuesOf(event)).toEqual([{ path, message }]);
  });

  it('requires the eventSourceArn of an MSK event and refuses it on a self-managed one', () => {
    const { eventSourceArn: _, ...withoutArn } = valid();
    expect(issuesOf(withoutArn)).toEqual([
      { path: 'eventSourceArn', message: 'is missing: Lambda always sends it' },
    ]);
    expect(issuesOf({ ...valid(), eventSource: 'SelfManagedKafka' })).toEqual([
      { path: 'eventSourceArn', message: 'is not a field Lambda sends' },
    ]);
  });

  it('says a field is missing, not that it has the wrong type', () => {
    const event = valid();
    const { bootstrapServers: _, ...withoutServers } = event;
    const record = Object.values(event.records)[0]![0]!;
    const { timestamp: _t, timestampType: _tt, ...recordWithoutTime } = record;
    const key = Object.keys(event.records)[0]!;
    expect(issuesOf({ ...withoutServers, records: { [key]: [recordWithoutTime] } })).toEqual([
      { path: 'bootstrapServers', message: 'is missing: Lambda always sends it' },
      { path: `records["${key}"][0].timestamp`, message: 'is missing: Lambda always sends it' },
      { path: `records["${key}"][0].timestampType`, message: 'is missing: Lambda always sends it' },
    ]);
  });

  it('names the path of each wrong field, all at once', () => {
    const event = valid();
    const [first] = event.records['order-events-0']!;
    Object.assign(first!, {
      partition: '0',
      value: 'not base64!',
      headers: [{ h: [200] }, { a: [1], b: [2] }],
      timestmap: 1,
    });
    expect(issuesOf(event)).toEqual(
      expect.arrayContaining([
        { path: 'records["order-events-0"][0].partition', message: expect.stringMatching(/number/) },
        { path: 'records["order-events-0"][0].value', message: 'must be base64 (with padding)' },
        {
          path: 'records["order-events-0"][0].headers[0].h[0]',
          message: 'must be a signed byte (−128..127)',
        },
        {
          path: 'records["order-events-0"][0].headers[1]',
          message: 'a header must be an object with exactly one key',
        },
        { path: 'records["order-events-0"][0].timestmap', message: expect.any(String) },
      ]),
    );
  });

  it('rejects a key that differs from its records, unless told to accept it', () => {
    const event = valid();
    event.records['order-events-01'] = event.records['order-events-1']!;
    delete event.records['order-events-1'];
    expect(issuesOf(event)).toEqual([
      {
        path: 'records["order-events-01"]',
        message: `key does not match its records' topic and partition ("order-events-1")`,
      },
    ]);
    expect(validateKafkaEvent(event, { allowKeyMismatch: true })).toBe(event);
  });

  it('quotes a records key in every path, even one that reads as a name', () => {
    const event = valid();
    event.records.mytopic0 = event.records['order-events-1']!;
    delete event.records['order-events-1'];
    (event.records.mytopic0[0] as { partition: unknown }).partition = '1';
    expect(issuesOf(event).map((issue) => issue.path)).toEqual([
      'records["mytopic0"][0].partition',
      'records["mytopic0"]',
    ]);
  });

  it('rejects offsets that go down and records of another partition in an entry', () => {
    const event = valid();
    const run = event.records['order-events-1']!;
    run[1]!.offset = 0;
    event.records['order-events-0']!.push({ ...run[0]!, offset: 9 });
    expect(issuesOf(event)).toEqual([
      {
        path: 'records["order-events-0"][1]',
        message: 'is order-events-1, but the first record of this entry is order-events-0',
      },
      {
        path: 'records["order-events-1"][0].offset',
        message: '0 is below the previous offset of order-events-1 (9)',
      },
      {
        path: 'records["order-events-1"][1].offset',
        message: '0 is below the previous offset of order-events-1 (9)',
      },
    ]);
  });

  it('rejects an empty partition entry and a malformed bootstrapServers', () => {
    const event = { ...valid(), bootstrapServers: 'b-1 b-2' };
    event.records['order-events-0'] = [];
    expect(issuesOf(event)).toEqual([
      { path: 'bootstrapServers', message: 'must be a comma-separated host:port list' },
      { path: 'records["order-events-0"]', message: 'a partition entry must hold at least one record' },
    ]);
  });

  it('summarises the issues in the error message', () => {
    const event = valid();
    for (const record of event.records['order-events-1']!) record.offset = -1;
    expect(() => validateKafkaEvent(event)).toThrow(
      /^not a valid Kafka event: records\["order-events-1"\]\[0\]\.offset: is -1, expected a non-negative integer; records\["order-events-1"\]\[1\]\.offset: is -1, expected a non-negative integer$/,
    );
  });
});

describe('validateKafkaEvent never quotes what it was given', () => {
  const secret = 'SECRET-PAYLOAD-123';
  const number = 987_654_321;
  const inRecord = (fields: Record<string, unknown>) => () => {
    const event = valid();
    Object.assign(event.records['order-events-0']![0]!, fields);
    return event;
  };
  it.each([
    ['a header value as a string', inRecord({ headers: [{ auth: secret }] })],
    ['a header value of strings', inRecord({ headers: [{ auth: [secret] }] })],
    ['a header value mixing bytes and a string', inRecord({ headers: [{ auth: [1, 2, secret] }] })],
    ['a header value with a number beyond a byte', inRecord({ headers: [{ auth: [number] }] })],
    ['a header as a string', inRecord({ headers: [secret] })],
    ['headers as a string', inRecord({ headers: secret })],
    ['a numeric key', inRecord({ key: number })],
    ['a numeric value', inRecord({ value: number })],
    ['a value as an object', inRecord({ value: { secret } })],
    ['a value as an array', inRecord({ value: [secret] })],
    ['a value that is not base64', inRecord({ value: `${secret}!` })],
    ['a timestamp as a string', inRecord({ timestamp: secret })],
    ['a timestamp as a fraction', inRecord({ timestamp: number + 0.5 })],
    ['an unknown timestampType', inRecord({ timestampType: secret })],
    ['schema metadata as a string', inRecord({ valueSchemaMetadata: secret })],
    ['schema metadata of numbers', inRecord({ keySchemaMetadata: { dataFormat: number, schemaId: number } })],
    [
      'schema metadata with a field of its own',
      inRecord({ valueSchemaMetadata: { dataFormat: 'AVRO', x: secret } }),
    ],
    ['a field of its own in a record', inRecord({ note: secret })],
    ['an eventSourceArn of another service', () => ({ ...valid(), eventSourceArn: secret })],
    ['a numeric eventSourceArn', () => ({ ...valid(), eventSourceArn: number })],
    ['numeric bootstrapServers', () => ({ ...valid(), bootstrapServers: number })],
    ['a field of its own in the event', () => ({ ...valid(), note: secret })],
  ])('(%s) in either mode', (_, malformed) => {
    for (const accept of ['lambda', 'middleware'] as const) {
      const printed: string[] = [];
      try {
        validateKafkaEvent(malformed(), {
          accept,
          onWarning: (warning) => printed.push(JSON.stringify(warning)),
        });
      } catch (error) {
        expect(error).toBeInstanceOf(InvalidKafkaEventError);
        printed.push((error as Error).message, JSON.stringify((error as InvalidKafkaEventError).issues));
      }
      expect(printed.length, accept).toBeGreaterThan(0);
      for (const text of printed) {
        expect(text).not.toContain('SECRET');
        expect(text).not.toContain('987654321');
      }
    }
  });
});

describe('validateKafkaEvent: the rules kafkaBatch applies', () => {
  const collect = () => {
    const warnings: EventIssue[] = [];
    return { warnings, onWarning: (warning: EventIssue) => void warnings.push(warning) };
  };

  it("accepts under accept: 'middleware' what kafkaBatch accepts, warning about what Lambda would not send", () => {
    const event = valid();
    const [first] = event.records['order-events-0']!;
    Object.assign(first!, {
      partition: '0',
      offset: '7',
      headers: [{ h: [200, 255, -1] }],
      value: '!!!not base64$$$',
    });
    event.records['order-events-01'] = event.records['order-events-1']!;
    delete event.records['order-events-1'];
    const { warnings, onWarning } = collect();
    expect(validateKafkaEvent(event, { accept: 'middleware', onWarning })).toBe(event);
    expect(warnings.map((w) => w.path)).toEqual([
      'records["order-events-0"][0].partition',
      'records["order-events-0"][0].offset',
      'records["order-events-0"][0].value',
      'records["order-events-0"][0].headers[0].h[0]',
      'records["order-events-0"][0].headers[0].h[1]',
      'records["order-events-01"]',
    ]);
    // Exactly as Lambda sends it (the default), the same event is refused, naming each field; as a warning
    // the same message also says the event was accepted (a bare "must be" would read as a refusal).
    const refused = issuesOf(event);
    expect(refused.map((issue) => issue.path)).toEqual(warnings.map((w) => w.path));
    expect(warnings.map((w) => w.message)).toEqual(
      refused.map((issue) => `${issue.message}, as Lambda sends it; kafkaBatch reads this one all the same`),
    );
    expect(warnings[3]!.message).toBe(
      'must be a signed byte (−128..127), as Lambda sends it; kafkaBatch reads this one all the same',
    );
  });

  it('refuses, in both modes, exactly what kafkaBatch refuses, with its message', () => {
    const event = valid();
    event.records['order-events-1']![1]!.offset = 2 ** 53;
    const message =
      'is 9007199254740992 as JavaScript reads it, above 2^53 − 1: a JavaScript number cannot hold it exactly, so the record could not be reported by its offset';
    for (const accept of ['lambda', 'middleware'] as const) {
      expect(() => validateKafkaEvent(event, { accept })).toThrow(InvalidKafkaEventError);
      try {
        validateKafkaEvent(event, { accept });
      } catch (error) {
        expect((error as InvalidKafkaEventError).issues).toEqual([
          { path: 'records["order-events-1"][1].offset', message },
        ]);
      }
    }
    expect(() => parseKafkaEvent(event)).toThrow(
      `Invalid Kafka event: records["order-events-1"][1].offset ${message}`,
    );
  });

  it('accepts a partition that repeats an offset (the Powertools sample shape) with a warning, in both modes', () => {
    const event = valid();
    const run = event.records['order-events-1']!;
    run.push({ ...run[1]!, value: 'ZA==' });
    for (const accept of ['lambda', 'middleware'] as const) {
      const { warnings, onWarning } = collect();
      expect(validateKafkaEvent(event, { accept, onWarning })).toBe(event);
      expect(warnings).toEqual([
        {
          path: 'records["order-events-1"][2].offset',
          message: expect.stringMatching(/^repeats offset 1 of order-events-1: Lambda never sends this/),
        },
      ]);
    }
  });

  it('accepts a key or value in the URL-safe base64 alphabet with a warning, in both modes', () => {
    const event = valid();
    const [first] = event.records['order-events-0']!;
    Object.assign(first!, { key: '-_-_', value: '+/+/' });
    for (const accept of ['lambda', 'middleware'] as const) {
      const { warnings, onWarning } = collect();
      expect(validateKafkaEvent(event, { accept, onWarning })).toBe(event);
      expect(warnings).toEqual([
        {
          path: 'records["order-events-0"][0].key',
          message: expect.stringMatching(/^is base64 in the URL-safe alphabet \(- and _\): Lambda writes/),
        },
      ]);
    }
  });

  it('accepts the "aws:SelfManagedKafka" spelling of community samples with a warning, in both modes', () => {
    const { eventSourceArn: _arn, ...rest } = valid();
    const event = { ...rest, eventSource: 'aws:SelfManagedKafka' } as unknown as KafkaEvent;
    for (const accept of ['lambda', 'middleware'] as const) {
      const { warnings, onWarning } = collect();
      expect(validateKafkaEvent(event, { accept, onWarning })).toBe(event);
      expect(warnings).toEqual([
        { path: 'eventSource', message: expect.stringContaining('Lambda sends "SelfManagedKafka"') },
      ]);
    }
    const lambdaSpelling = collect();
    validateKafkaEvent(
      { ...event, eventSource: 'SelfManagedKafka' },
      { onWarning: lambdaSpelling.onWarning },
    );
    expect(lambdaSpelling.warnings).toEqual([]);
  });

  it("warns when an event exceeds Lambda's 6 MB payload limit", () => {
    const event = valid();
    event.records['order-events-0']![0]!.value = Buffer.alloc(5 * 2 ** 20).toString('base64');
    const { warnings, onWarning } = collect();
    expect(validateKafkaEvent(event, { onWarning })).toBe(event);
    expect(warnings).toEqual([
      {
        path: '',
        message: expect.stringMatching(/^the event is 6\.7 MB of JSON, above Lambda's 6 MB payload limit/),
      },
    ]);
    event.records['order-events-0']![0]!.value = Buffer.alloc(4 * 2 ** 20).toString('base64');
    const below = collect();
    validateKafkaEvent(event, { onWarning: below.onWarning });
    expect(below.warnings).toEqual([]);
  });
});

describe('validateKafkaEvent (property)', () => {
  it('either accepts a value or throws InvalidKafkaEventError with at least one issue, for any JSON', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        try {
          validateKafkaEvent(value);
        } catch (error) {
          expect(error).toBeInstanceOf(InvalidKafkaEventError);
          expect((error as InvalidKafkaEventError).issues.length).toBeGreaterThan(0);
        }
      }),
    );
  });

  it('rejects a valid event with any record field replaced by a value of another type', () => {
    const fields = [
      'topic',
      'partition',
      'offset',
      'timestamp',
      'timestampType',
      'key',
      'value',
      'headers',
    ] as const;
    fc.assert(
      fc.property(
        fc.constantFrom(...fields),
        fc.oneof(
          fc.boolean(),
          fc.dictionary(fc.string(), fc.integer()),
          fc.constant([{ h: [999] }]),
          fc.double({ noInteger: true }),
        ),
        (field, replacement) => {
          const event = valid();
          event.records['order-events-1']![1]![field] = replacement;
          const issues = issuesOf(event);
          expect(issues.some((issue) => issue.path.startsWith('records["order-events-1"][1]'))).toBe(true);
        },
      ),
    );
  });
});
