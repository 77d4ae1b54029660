import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import middy from '@middy/core';
import { describe, expect, it } from 'vitest';
import type { KafkaEvent } from '../kafka-event/types.ts';
import { failedOffsets, invokeHandler } from '../testing/index.ts';
import { type KafkaBatchLogger, kafkaBatch } from './index.ts';

const dir = join(import.meta.dirname, '../../test/events');
const files = readdirSync(dir).filter((file) => file.endsWith('.json'));
const quiet: KafkaBatchLogger = { info() {}, warn() {}, error() {} };
const load = (file: string) => JSON.parse(readFileSync(join(dir, file), 'utf8')) as KafkaEvent;

describe('kafkaBatch over the sample events in test/events', () => {
  it('has sample events to run', () => {
    expect(files.length).toBeGreaterThanOrEqual(5);
  });

  it.each(files)('%s: decodes every record and reports nothing when all succeed', async (file) => {
    const event = load(file);
    const expected = Object.values(event.records).flat().length;
    let seen = 0;
    const handler = middy().use(
      kafkaBatch({
        logger: quiet,
        onRecord: (record) => {
          // Touch every decoded part: a decoding bug would throw here and show as a failure.
          void [record.key, record.keyData, record.value, record.text(), record.headers, record.timestamp];
          expect(record.timestamp.getTime()).not.toBeNaN();
          seen++;
        },
      }),
    );
    expect(await invokeHandler(handler, event)).toEqual({ batchItemFailures: [] });
    expect(seen).toBe(expected);
  });

  it.each(files)('%s: a failing record reports itself and the rest of its partition only', async (file) => {
    const event = load(file);
    const [first] = Object.values(event.records).flat();
    const target = `${first!.topic}-${first!.partition}`;
    const handler = middy().use(
      kafkaBatch({
        logger: quiet,
        onRecord: (record) => {
          if (`${record.topic}-${record.partition}` === target && record.offset === Number(first!.offset))
            throw new Error('fail the first record');
        },
      }),
    );
    // Each identifier once, also where a sample repeats an offset (msk-repeated-offsets.json).
    const partitionOffsets = [
      ...new Set(
        Object.values(event.records)
          .flat()
          .filter((r) => `${r.topic}-${r.partition}` === target)
          .map((r) => Number(r.offset)),
      ),
    ].sort((a, b) => a - b);
    const reported = failedOffsets(await invokeHandler(handler, event), event);
    expect(reported).toEqual({ [target]: partitionOffsets.filter((o) => o >= Number(first!.offset)) });
  });
});
