import { describe, expect, it } from 'vitest';
import { encodeEventRecord } from './encode.ts';
import { KafkaEventError } from './errors.ts';
import { type EventIssue, parseKafkaEvent } from './parse.ts';

const record = (topic: string, partition: number, offset: number, timestamp = 1_764_400_000_000) =>
  encodeEventRecord({ topic, partition, offset, timestamp, value: 'v' });

function expectEventError(event: unknown, field: string): void {
  let thrown: unknown;
  try {
    parseKafkaEvent(event);
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(KafkaEventError);
  expect((thrown as KafkaEventError).name).toBe('KafkaEventError');
  expect((thrown as KafkaEventError).field).toBe(field);
}

describe('parseKafkaEvent', () => {
  it.each(['aws:kafka', 'SelfManagedKafka', 'aws:SelfManagedKafka'])(
    'accepts eventSource %s',
    (eventSource) => {
      const parsed = parseKafkaEvent({ eventSource, records: { 'orders-0': [record('orders', 0, 7)] } });
      expect(parsed.recordCount).toBe(1);
      expect(parsed.partitions.map((p) => p.id)).toEqual(['orders-0']);
    },
  );

  it('rejects what is not a Kafka event, naming the field', () => {
    expectEventError(null, 'event');
    expectEventError([], 'event');
    expectEventError('{"records":{}}', 'event');
    expectEventError({ Records: [] }, 'eventSource');
    expectEventError({ eventSource: 'aws:sqs', Records: [] }, 'eventSource');
    expectEventError({ eventSource: 'aws:kafka' }, 'records');
    expectEventError({ eventSource: 'aws:kafka', records: [] }, 'records');
    expectEventError({ eventSource: 'aws:kafka', records: { 'orders-0': {} } }, 'records["orders-0"]');
    expectEventError({ eventSource: 'aws:kafka', records: { 'orders-0': [null] } }, 'records["orders-0"][0]');
  });

  it('rejects a record without topic, partition or offset, naming the field', () => {
    const valid = record('orders', 0, 7);
    const { offset: _o, ...noOffset } = valid;
    const { partition: _p, ...noPartition } = valid;
    const { topic: _t, ...noTopic } = valid;
    const at = (r: unknown) => ({ eventSource: 'aws:kafka', records: { 'orders-0': [valid, r] } });
    expectEventError(at(noOffset), 'records["orders-0"][1].offset');
    expectEventError(at(noPartition), 'records["orders-0"][1].partition');
    expectEventError(at(noTopic), 'records["orders-0"][1].topic');
    expectEventError(at({ ...valid, topic: '' }), 'records["orders-0"][1].topic');
    expectEventError(at({ ...valid, offset: -1 }), 'records["orders-0"][1].offset');
    expectEventError(at({ ...valid, offset: 1.5 }), 'records["orders-0"][1].offset');
    expectEventError(at({ ...valid, offset: 2 ** 53 }), 'records["orders-0"][1].offset');
    expectEventError(at({ ...valid, offset: '9007199254740993' }), 'records["orders-0"][1].offset');
    expectEventError(at({ ...valid, offset: '1e3' }), 'records["orders-0"][1].offset');
    expectEventError(at({ ...valid, partition: 'zero' }), 'records["orders-0"][1].partition');
  });

  it('does not quote long values in its messages', () => {
    const secret = 'x'.repeat(100);
    expect(() => parseKafkaEvent({ eventSource: secret, records: {} })).toThrow(/a long string/);
    expect(() => parseKafkaEvent({ eventSource: secret, records: {} })).not.toThrow(secret);
  });

  it('normalises partition and offset sent as digit strings', () => {
    const raw = { ...record('orders', 0, 0), partition: '3', offset: '1042' };
    const [batch] = parseKafkaEvent({ eventSource: 'aws:kafka', records: { 'orders-3': [raw] } }).partitions;
    expect(batch!.id).toBe('orders-3');
    expect(batch!.partition).toBe(3);
    expect(batch!.offsets).toEqual([1042]);
  });

  it('identifies partitions by the records’ own topic and partition, not the map key', () => {
    const parsed = parseKafkaEvent({
      eventSource: 'aws:kafka',
      records: {
        'my-topic-01': [record('my-topic', 0, 15), record('my-topic', 0, 16)],
        'my-topic-0': [record('my-topic', 12, 3)],
      },
    });
    expect(parsed.partitions.map((p) => [p.id, p.offsets])).toEqual([
      ['my-topic-0', [15, 16]],
      ['my-topic-12', [3]],
    ]);
  });

  it('merges and sorts a partition split over several map keys', () => {
    const parsed = parseKafkaEvent({
      eventSource: 'aws:kafka',
      records: { a: [record('t', 1, 9), record('t', 1, 4)], b: [record('t', 1, 6)] },
    });
    expect(parsed.partitions).toHaveLength(1);
    expect(parsed.partitions[0]!.offsets).toEqual([4, 6, 9]);
    expect(parsed.partitions[0]!.records.map((r) => r.offset)).toEqual([4, 6, 9]);
  });

  it('accepts a partition that repeats an offset, keeping event order, with one warning', () => {
    // The shape of a public sample event (Powertools' kafkaEventMsk.json): one offset three times.
    const [a, b, c] = ['a', 'b', 'c'].map((value) => ({ ...record('mytopic', 0, 15), value }));
    const parsed = parseKafkaEvent({ eventSource: 'aws:kafka', records: { 'mytopic-0': [a, b, c] } });
    expect(parsed.partitions[0]!.records).toEqual([a, b, c]);
    expect(parsed.partitions[0]!.offsets).toEqual([15, 15, 15]);
    expect(parsed.warnings).toEqual([
      {
        kind: 'repeatedOffset',
        partition: 'mytopic-0',
        path: 'records["mytopic-0"][1].offset',
        message: expect.stringMatching(/^repeats offset 15 of mytopic-0: Lambda never sends this/),
      },
    ]);
  });

  it('warns once per partition when offsets go down, and runs them in offset order', () => {
    const parsed = parseKafkaEvent({
      eventSource: 'aws:kafka',
      records: {
        't-0': [record('t', 0, 9), record('t', 0, 4), record('t', 0, 2)],
        't-1': [record('t', 1, 1)],
      },
    });
    expect(parsed.partitions[0]!.offsets).toEqual([2, 4, 9]);
    expect(parsed.warnings).toEqual([
      {
        kind: 'offsetOrder',
        partition: 't-0',
        path: 'records["t-0"][1].offset',
        message:
          '4 is below the previous offset of t-0 (9): Lambda sends each partition in offset order; its records run in offset order',
      },
    ]);
    expect(
      parseKafkaEvent({ eventSource: 'aws:kafka', records: { 't-0': [record('t', 0, 1)] } }).warnings,
    ).toEqual([]);
  });

  it('says why an offset above 2^53 − 1 is refused, given as a number or as digits', () => {
    for (const offset of [2 ** 53, '9007199254740993', 1e21]) {
      let thrown: unknown;
      try {
        parseKafkaEvent({ eventSource: 'aws:kafka', records: { 't-0': [{ ...record('t', 0, 0), offset }] } });
      } catch (error) {
        thrown = error;
      }
      expect((thrown as KafkaEventError).field).toBe('records["t-0"][0].offset');
      expect((thrown as KafkaEventError).message).toMatch(
        /above 2\^53 − 1: a JavaScript number cannot hold it exactly, so the record could not be reported by its offset$/,
      );
    }
  });

  it('hands every problem to onError and goes on with the records that are fine', () => {
    const issues: EventIssue[] = [];
    const parsed = parseKafkaEvent(
      {
        eventSource: 'aws:sqs',
        records: {
          't-0': [record('t', 0, 1), { ...record('t', 0, 2), offset: -1, topic: '' }, null],
          't-1': 'nope',
        },
      },
      (issue) => issues.push(issue),
    );
    expect(issues.map((issue) => issue.path)).toEqual([
      'eventSource',
      'records["t-0"][1].topic',
      'records["t-0"][1].offset',
      'records["t-0"][2]',
      'records["t-1"]',
    ]);
    expect(parsed.recordCount).toBe(1);
    expect(parsed.partitions.map((p) => p.offsets)).toEqual([[1]]);
  });

  it('finds the oldest timestamp and ignores records without one', () => {
    const noTimestamp = { ...record('t', 0, 2), timestamp: undefined };
    const parsed = parseKafkaEvent({
      eventSource: 'aws:kafka',
      records: { 't-0': [noTimestamp, record('t', 0, 3, 2000), record('t', 0, 4, 1000)] },
    });
    expect(parsed.oldestTimestamp).toBe(1000);
    // Number() would throw on a null-prototype object: such a timestamp is simply not one.
    const odd = { ...record('t', 0, 5), timestamp: Object.create(null) };
    expect(
      parseKafkaEvent({ eventSource: 'aws:kafka', records: { 't-0': [odd] } }).oldestTimestamp,
    ).toBeNaN();
    expect(parseKafkaEvent({ eventSource: 'aws:kafka', records: {} }).oldestTimestamp).toBeNaN();
  });
});

describe('parseKafkaEvent: an event something transformed before it', () => {
  // What a parser middleware with Powertools' KafkaMskEventSchema leaves in place of the event: the
  // brokers split into an array, keys and values decoded to text, header values to strings.
  const lambdaEvent = {
    eventSource: 'aws:kafka',
    eventSourceArn: 'arn:aws:kafka:eu-west-1:111122223333:cluster/orders/uuid',
    bootstrapServers: 'b-1.orders:9098,b-2.orders:9098',
    records: {
      'orders-0': [
        {
          ...record('orders', 0, 7),
          value: Buffer.from('{"card":"SECRET-PAN"}').toString('base64'),
          headers: [{ trace: [97, 98] }],
        },
      ],
    },
  };
  const parsedByPowertools = {
    ...lambdaEvent,
    bootstrapServers: lambdaEvent.bootstrapServers.split(','),
    records: {
      'orders-0': lambdaEvent.records['orders-0'].map((r) => ({
        ...r,
        value: Buffer.from(r.value, 'base64').toString(),
        headers: [{ trace: 'ab' }],
      })),
    },
  };

  it('refuses it as a whole, naming a parser middleware before kafkaBatch and never the payload', () => {
    expect(parseKafkaEvent(lambdaEvent).recordCount).toBe(1);
    let thrown: unknown;
    try {
      parseKafkaEvent(parsedByPowertools);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(KafkaEventError);
    expect((thrown as KafkaEventError).field).toBe('bootstrapServers');
    expect((thrown as KafkaEventError).message).toMatch(
      /^Invalid Kafka event: bootstrapServers is an array, but Lambda sends one comma-separated string: .*a parser middleware placed before kafkaBatch.*`value` option/,
    );
    expect((thrown as KafkaEventError).message).not.toMatch(/SECRET|b-1\.orders/);
  });

  it('hands it to onError once, as any problem of the event', () => {
    const issues: EventIssue[] = [];
    const parsed = parseKafkaEvent(parsedByPowertools, (issue) => issues.push(issue));
    expect(issues.map((issue) => issue.path)).toEqual(['bootstrapServers']);
    expect(parsed.recordCount).toBe(1);
  });

  it("names a parser's other outputs: the records' values alone (an envelope), a safeParse result", () => {
    expect(() => parseKafkaEvent([{ card: 'SECRET-PAN' }])).toThrow(
      /^Invalid Kafka event: event is an array, not a Kafka event: if a parser middleware with an envelope .* runs before kafkaBatch.*`value` option/,
    );
    for (const result of [
      { success: true, data: parsedByPowertools },
      { success: false, error: new Error('Failed to parse'), originalEvent: lambdaEvent },
    ]) {
      let thrown: unknown;
      try {
        parseKafkaEvent(result);
      } catch (error) {
        thrown = error;
      }
      expect((thrown as KafkaEventError).field).toBe('event');
      expect((thrown as KafkaEventError).message).toMatch(
        /^Invalid Kafka event: event is a parse result .*safeParse runs before kafkaBatch.*`value` option/,
      );
      expect((thrown as KafkaEventError).message).not.toMatch(/SECRET/);
    }
  });

  it('still accepts an event without bootstrapServers, or with it as a string', () => {
    const { bootstrapServers: _b, ...without } = lambdaEvent;
    expect(parseKafkaEvent(without).recordCount).toBe(1);
    expect(parseKafkaEvent({ ...lambdaEvent, bootstrapServers: '' }).recordCount).toBe(1);
  });
});
