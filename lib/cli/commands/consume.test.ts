import type { KafkaMessage } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { consumedRecord, formatRecord } from './consume.ts';

const message = (value: Buffer | null, key: Buffer | null = null, headers = {}): KafkaMessage => ({
  key,
  value,
  headers,
  offset: '3',
  timestamp: '1764410399900',
  attributes: 0,
});
const show = (m: KafkaMessage) => formatRecord(consumedRecord('t', 0, m), m.value, false);

describe("consume's text form", () => {
  it('tells a tombstone, an empty value and the text null apart', () => {
    const k = Buffer.from('k1');
    expect(show(message(null, k))).toEqual(['t-0@3 key=k1 (tombstone)']);
    expect(show(message(Buffer.from('null'), k))).toEqual(['t-0@3 key=k1 null']);
    expect(show(message(Buffer.alloc(0), k))).toEqual(['t-0@3 key=k1 (empty)']);
    expect(show(message(Buffer.from('""'), k))).toEqual(['t-0@3 key=k1 ""']);
  });

  it('quotes a value, key or header whose text reads as a marker', () => {
    for (const marker of ['(tombstone)', '(empty)', '(null)']) {
      expect(show(message(Buffer.from(marker), Buffer.from(marker)))).toEqual([
        `t-0@3 key="${marker}" "${marker}"`,
      ]);
    }
  });

  it('tells a null header value from the text null', () => {
    const headers = {
      a: null,
      b: Buffer.from('null'),
      c: Buffer.alloc(0),
    } as unknown as KafkaMessage['headers'];
    expect(show(message(Buffer.from('v'), null, headers))).toEqual(['t-0@3 [a=(null) b=null c=""] v']);
  });

  it('keeps the --json form: a tombstone is null, an empty value the empty text', () => {
    expect(consumedRecord('t', 0, message(null))).toMatchObject({ value: null, valueFormat: 'null' });
    expect(consumedRecord('t', 0, message(Buffer.alloc(0)))).toMatchObject({
      value: '',
      valueFormat: 'text',
    });
    expect(consumedRecord('t', 0, message(Buffer.from('null')))).toMatchObject({
      value: null,
      valueFormat: 'json',
    });
  });
});
