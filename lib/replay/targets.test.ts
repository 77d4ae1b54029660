import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ReplayInputError } from './errors.ts';
import { parseDuration, parsePlanFile, parseTimestamp, parseTopicPartitions } from './targets.ts';

describe('parseDuration', () => {
  it('reads ISO 8601 durations as Kafka’s --by-duration does', () => {
    expect(parseDuration('PT1H30M')).toBe(5_400_000);
    expect(parseDuration('P1DT2H')).toBe(93_600_000);
    expect(parseDuration('PT0.5S')).toBe(500);
    expect(parseDuration('p2d')).toBe(172_800_000);
    expect(parseDuration(250)).toBe(250);
    // java.time's Duration.parse, which Kafka's tool calls, also takes a leading + and a decimal comma.
    expect(parseDuration('+PT1H')).toBe(3_600_000);
    expect(parseDuration('PT0,5S')).toBe(500);
    expect(parseDuration('PT1.S')).toBe(1000);
  });
  it('reads a sign on each part, as Duration.parse does: only the total must not be negative', () => {
    expect(parseDuration('P1DT-1H')).toBe(23 * 3_600_000);
    expect(parseDuration('-P-1D')).toBe(86_400_000);
    expect(parseDuration('P-1DT25H')).toBe(3_600_000);
    expect(parseDuration('PT1H-0.5S')).toBe(3_600_000 - 500);
    expect(parseDuration('PT-0M')).toBe(0);
  });
  it('refuses a negative duration (a time in the future), naming --to-latest', () => {
    for (const negative of ['-PT1H', 'PT-1H', '-P1D', 'PT-0.5S', 'P1DT-25H'])
      expect(() => parseDuration(negative), negative).toThrow(/is negative: .*use --to-latest/);
  });
  it('refuses anything else', () => {
    for (const bad of [
      '',
      'P',
      'PT',
      '1h',
      'PT1X',
      'P1W',
      '-PT1H',
      'PT1H30',
      'P1DT',
      'PT.5S',
      'P--1D',
      'PT1.1234567890S',
    ]) {
      expect(() => parseDuration(bad), bad).toThrow(ReplayInputError);
    }
    expect(() => parseDuration(-1)).toThrow(ReplayInputError);
    expect(() => parseDuration(`P${'9'.repeat(400)}D`)).toThrow(/too long to compute/);
  });
  it('takes a duration reaching before the epoch (the plan clamps it to the earliest offset)', () => {
    expect(parseDuration('P99999999999D')).toBe(99_999_999_999 * 86_400_000);
  });
  it('round-trips any hours/minutes/seconds', () => {
    fc.assert(
      fc.property(fc.nat(1000), fc.nat(59), fc.nat(59), (h, m, s) => {
        expect(parseDuration(`PT${h}H${m}M${s}S`)).toBe(((h * 60 + m) * 60 + s) * 1000);
      }),
    );
  });
});

describe('parseTimestamp', () => {
  it('reads ISO 8601 with a zone, or epoch ms', () => {
    expect(parseTimestamp('2026-11-29T10:00:00Z')).toBe(Date.UTC(2026, 10, 29, 10));
    expect(parseTimestamp('2026-11-29T11:00:00.000+01:00')).toBe(Date.UTC(2026, 10, 29, 10));
    // Every zone form kafka-consumer-groups accepts (Kafka's own Utils test: .SSSZ, .SSSX, .SSSXX, .SSSXXX).
    for (const zoned of [
      '2026-11-29T18:00:00.000+0800',
      '2026-11-29T18:00:00.000+08',
      '2026-11-29T05:00:00.000-05:00',
    ])
      expect(parseTimestamp(zoned), zoned).toBe(Date.UTC(2026, 10, 29, 10));
    expect(parseTimestamp('1795946400000')).toBe(1_795_946_400_000);
    expect(parseTimestamp(0)).toBe(0);
  });
  it('reads a ±HHMM zone with its minutes, as ISO 8601 says (Kafka 3.9 reads +0530 as +05:00)', () => {
    expect(parseTimestamp('2026-11-29T10:00:00.000+0530')).toBe(Date.UTC(2026, 10, 29, 4, 30));
    expect(parseTimestamp('2026-11-29T10:00:00.000+05:30')).toBe(Date.UTC(2026, 10, 29, 4, 30));
  });
  it('reads a time without a zone as UTC, as kafka-consumer-groups does', () => {
    expect(parseTimestamp('2020-11-10T16:51:38.198')).toBe(Date.UTC(2020, 10, 10, 16, 51, 38, 198));
    expect(parseTimestamp('2026-11-29T10:00')).toBe(Date.UTC(2026, 10, 29, 10));
  });
  it('reads a fraction as ISO 8601 does, to the millisecond', () => {
    expect(parseTimestamp('2026-11-29T10:00:00.1Z')).toBe(Date.UTC(2026, 10, 29, 10, 0, 0, 100));
    expect(parseTimestamp('2026-11-29T10:00:00.123456789Z')).toBe(Date.UTC(2026, 10, 29, 10, 0, 0, 123));
  });
  it('refuses garbage', () => {
    expect(() => parseTimestamp('2026-11-29 10:00:00')).toThrow(/is not ISO 8601/);
    expect(() => parseTimestamp('2026-11-29T10:00:00+8')).toThrow(ReplayInputError);
    expect(() => parseTimestamp('yesterday')).toThrow(ReplayInputError);
    expect(() => parseTimestamp('2026-13-45T10:00:00Z')).toThrow(ReplayInputError);
    expect(() => parseTimestamp(-5)).toThrow(ReplayInputError);
  });
  it('refuses epoch milliseconds past the last time a Date holds (the plan could not name it)', () => {
    expect(parseTimestamp(8.64e15)).toBe(8.64e15);
    expect(() => parseTimestamp(8.64e15 + 1)).toThrow(/later than any time a date can hold/);
    expect(() => parseTimestamp('9000000000000000')).toThrow(ReplayInputError);
  });
  it('refuses days, hours, minutes, seconds and zones that do not exist instead of rolling them over', () => {
    expect(() => parseTimestamp('2026-02-30T00:00:00Z')).toThrow(/2026-02 has no day 30/);
    expect(() => parseTimestamp('2026-04-31T00:00:00Z')).toThrow(/2026-04 has no day 31/);
    expect(() => parseTimestamp('2026-02-29T00:00:00Z')).toThrow(/2026-02 has no day 29/);
    expect(() => parseTimestamp('2026-11-29T24:00Z')).toThrow(/hour 24 is not 00..23/);
    expect(() => parseTimestamp('2026-11-29T10:60:00Z')).toThrow(/minute 60/);
    expect(() => parseTimestamp('2026-11-29T10:00:60Z')).toThrow(/second 60/);
    expect(() => parseTimestamp('2026-11-29T10:00:00+19:00')).toThrow(/±18:00/);
    expect(() => parseTimestamp('2026-00-10T10:00:00Z')).toThrow(/no month 00/);
    expect(parseTimestamp('2028-02-29T00:00:00Z')).toBe(Date.UTC(2028, 1, 29));
    expect(parseTimestamp('2000-02-29T23:59:59.999-05:30')).toBe(Date.UTC(2000, 2, 1, 5, 29, 59, 999));
  });
  it('returns instants before the epoch as they are (negative), years 0..99 included', () => {
    expect(parseTimestamp('0000-01-01T00:00:00Z')).toBe(-62_167_219_200_000);
    expect(parseTimestamp('0099-12-31T23:59:59Z')).toBeLessThan(
      Date.UTC(100, 0, 1) - Date.UTC(1900, 0, 1) - 1,
    );
  });
  it('agrees with Date.parse on every valid instant', () => {
    fc.assert(
      fc.property(
        fc.date({
          min: new Date('1970-01-01T00:00:00Z'),
          max: new Date('9999-12-31T23:59:59Z'),
          noInvalidDate: true,
        }),
        (date) => {
          expect(parseTimestamp(date.toISOString())).toBe(date.getTime());
        },
      ),
    );
  });
});

describe('parsePlanFile', () => {
  it('reads kafka-consumer-groups CSV, skipping blanks and comments', () => {
    expect(parsePlanFile('# exported\norders,0,1041\r\n\norders,1,977\n')).toEqual([
      { topic: 'orders', partition: 0, offset: 1041 },
      { topic: 'orders', partition: 1, offset: 977 },
    ]);
  });
  it('names the bad line and what is wrong with it, without quoting it', () => {
    expect(() => parsePlanFile('orders,0,1\norders,x,2')).toThrow(
      'plan file line 2: the partition is not a non-negative integer',
    );
    expect(() => parsePlanFile('orders,0,1\n\norders,0,2')).toThrow(
      'plan file line 3 repeats orders partition 0 (first given on line 1)',
    );
    expect(() => parsePlanFile('# c\norders,0,-1')).toThrow('plan file line 2: the offset is negative (-1)');
    expect(() => parsePlanFile('orders,-3,1')).toThrow('plan file line 1: the partition is negative (-3)');
    expect(() => parsePlanFile('orders-fn,orders,0,1')).toThrow(
      "plan file line 1 has 4 column(s) (an extra column); expected 3: topic,partition,offset (Kafka's tool writes group,topic,partition,offset when it exports several groups: export the one group)",
    );
    expect(() => parsePlanFile('orders,0')).toThrow('plan file line 1 has 2 column(s); expected 3');
    expect(() => parsePlanFile('orders,0,1\nord\u0000ers,1,2')).toThrow(
      'plan file line 2 has binary content',
    );
    expect(() => parsePlanFile('orders,0,\ufffd')).toThrow('plan file line 1 has binary content');
    expect(() => parsePlanFile(`${'t'.repeat(250)},0,1`)).toThrow(/longer than Kafka's 249 characters/);
    expect(() => parsePlanFile('orders,0,99999999999999999999')).toThrow('the offset is too large');
    expect(() => parsePlanFile('\n# nothing\n')).toThrow(/no entries/);
  });
  it('reads quoted cells as a CSV reader does', () => {
    expect(parsePlanFile('"orders","0","1041"\n')).toEqual([{ topic: 'orders', partition: 0, offset: 1041 }]);
  });
  it('bounds the entries', () => {
    const lines = (n: number) => Array.from({ length: n }, (_, i) => `orders,${i},1`).join('\n');
    expect(parsePlanFile(lines(10_000))).toHaveLength(10_000);
    expect(() => parsePlanFile(lines(10_001))).toThrow('plan file has more than 10000 entries (line 10001)');
  });
  it('never echoes a line, whatever it holds', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 20, maxLength: 200 }), (secret) => {
        try {
          parsePlanFile(`orders,0,1\n${secret},x,${secret}`);
        } catch (error) {
          expect((error as Error).message).not.toContain(secret);
        }
      }),
    );
  });
});

describe('parseTopicPartitions', () => {
  it('reads topic and topic:p,p', () => {
    expect(parseTopicPartitions('orders')).toEqual({ topic: 'orders' });
    expect(parseTopicPartitions('orders:2,0,2')).toEqual({ topic: 'orders', partitions: [0, 2] });
  });
  it('refuses malformed lists', () => {
    expect(() => parseTopicPartitions('orders:a')).toThrow(ReplayInputError);
    expect(() => parseTopicPartitions(':1')).toThrow(ReplayInputError);
    expect(() => parseTopicPartitions('orders:1:2')).toThrow(
      '"orders:1:2" is not "topic" or "topic:partition,partition,…"',
    );
  });
});
