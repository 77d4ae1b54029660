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
  });
  it('refuses anything else', () => {
    for (const bad of ['', 'P', 'PT', '1h', 'PT1X', 'P1W', '-PT1H', 'PT1H30']) {
      expect(() => parseDuration(bad), bad).toThrow(ReplayInputError);
    }
    expect(() => parseDuration(-1)).toThrow(ReplayInputError);
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
    expect(parseTimestamp('1795946400000')).toBe(1_795_946_400_000);
    expect(parseTimestamp(0)).toBe(0);
  });
  it('refuses a time without a zone, and garbage', () => {
    expect(() => parseTimestamp('2026-11-29T10:00:00')).toThrow(/with a zone/);
    expect(() => parseTimestamp('yesterday')).toThrow(ReplayInputError);
    expect(() => parseTimestamp('2026-13-45T10:00:00Z')).toThrow(ReplayInputError);
    expect(() => parseTimestamp(-5)).toThrow(ReplayInputError);
  });
});

describe('parsePlanFile', () => {
  it('reads kafka-consumer-groups CSV, skipping blanks and comments', () => {
    expect(parsePlanFile('# exported\norders,0,1041\r\n\norders,1,977\n')).toEqual([
      { topic: 'orders', partition: 0, offset: 1041 },
      { topic: 'orders', partition: 1, offset: 977 },
    ]);
  });
  it('names the bad line', () => {
    expect(() => parsePlanFile('orders,0,1\norders,x,2')).toThrow(/line 2/);
    expect(() => parsePlanFile('orders,0,1\norders,0,2')).toThrow(/line 2 repeats orders partition 0/);
    expect(() => parsePlanFile('orders,0,-1')).toThrow(ReplayInputError);
    expect(() => parsePlanFile('\n# nothing\n')).toThrow(/no entries/);
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
  });
});
