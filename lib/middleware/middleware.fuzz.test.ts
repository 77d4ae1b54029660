import middy from '@middy/core';
import type { StandardSchemaV1 } from '@standard-schema/spec';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { encodeEventRecord } from '../kafka-event/encode.ts';
import type { KafkaEvent, KafkaEventRecord } from '../kafka-event/types.ts';
import {
  createLambdaContext,
  failedOffsets,
  InvalidKafkaEventError,
  validateKafkaEvent,
} from '../testing/index.ts';
import {
  type KafkaBatchLogger,
  type KafkaBatchOptions,
  KafkaEventError,
  type KafkaOrdering,
  kafkaBatch,
} from './index.ts';

const quiet: KafkaBatchLogger = { info() {}, warn() {}, error() {} };
const TOPIC = 'fuzz-topic.v1';
const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

type Outcome = 'ok' | 'okAsync' | 'throw' | 'reject' | 'poison';
interface FuzzRecord {
  partition: number;
  offset: number;
  key: string | null | undefined;
  outcome: Outcome;
}

const partitionArb = (partition: number) =>
  fc
    .record({
      start: fc.integer({ min: 0, max: 2 ** 40 }),
      records: fc.array(
        fc.record({
          gap: fc.integer({ min: 1, max: 3 }),
          key: fc.constantFrom('a', 'b', 'c', null, undefined),
          outcome: fc.constantFrom<Outcome>('ok', 'ok', 'okAsync', 'okAsync', 'throw', 'reject', 'poison'),
        }),
        { maxLength: 8 },
      ),
    })
    .map(({ start, records }) => {
      let offset = start;
      return records.map(({ gap, key, outcome }): FuzzRecord => {
        offset += gap;
        return { partition, offset, key, outcome };
      });
    });

const batchArb = fc
  .integer({ min: 1, max: 4 })
  .chain((partitions) => fc.tuple(...Array.from({ length: partitions }, (_, p) => partitionArb(p * 3))))
  .map((partitions) => partitions.flat());

type PoisonChoice = 'report' | 'skip' | 'deadLetter' | 'deadLetterFails';
const optionsArb = fc.record({
  ordering: fc.constantFrom<KafkaOrdering>('partition', 'key', 'none'),
  concurrency: fc.integer({ min: 1, max: 5 }),
  poison: fc.constantFrom<PoisonChoice>('report', 'skip', 'deadLetter', 'deadLetterFails'),
});

function toEvent(records: FuzzRecord[], eventSource: KafkaEvent['eventSource']): KafkaEvent {
  const grouped: Record<string, KafkaEventRecord[]> = {};
  for (const r of records) {
    const encoded = encodeEventRecord({
      topic: TOPIC,
      partition: r.partition,
      offset: r.offset,
      timestamp: 1_764_400_000_000 + r.offset,
      ...(r.key === undefined ? {} : { key: r.key }),
      value: r.outcome === 'poison' ? '{"not json' : JSON.stringify({ offset: r.offset }),
    });
    const id = `${TOPIC}-${r.partition}`;
    grouped[id] = [...(grouped[id] ?? []), encoded];
  }
  return { eventSource, bootstrapServers: 'k:9092', records: grouped } as KafkaEvent;
}

describe('kafkaBatch fuzz: well-formed events', () => {
  it('processes or reports every record, reports only event records, and keeps order per partition/key', async () => {
    await fc.assert(
      fc.asyncProperty(
        batchArb,
        optionsArb,
        fc.constantFrom<KafkaEvent['eventSource']>('aws:kafka', 'SelfManagedKafka', 'aws:SelfManagedKafka'),
        async (records, { ordering, concurrency, poison }, eventSource) => {
          const byId = new Map(records.map((r) => [`${r.partition}@${r.offset}`, r]));
          const done = new Set<string>();
          const startedPoison = new Set<string>();
          let inFlight = 0;
          let maxInFlight = 0;
          const common = { logger: quiet, concurrency } as const;
          const onPoison =
            poison === 'deadLetter'
              ? async () => tick()
              : poison === 'deadLetterFails'
                ? async () => {
                    throw new Error('dead letter store down');
                  }
                : poison;
          const options: KafkaBatchOptions = {
            ...common,
            ordering,
            onPoison,
            onRecord: async (record) => {
              const id = `${record.partition}@${record.offset}`;
              const { outcome } = byId.get(id)!;
              if (outcome === 'poison') startedPoison.add(id);
              inFlight++;
              maxInFlight = Math.max(maxInFlight, inFlight);
              try {
                record.json();
                if (outcome === 'okAsync' || outcome === 'reject') await tick();
                if (outcome === 'throw' || outcome === 'reject') throw new Error(outcome);
              } finally {
                inFlight--;
              }
              done.add(id);
            },
          };
          const event = toEvent(records, eventSource);
          const handler = middy().use(kafkaBatch(options));
          const response = await handler(event, createLambdaContext());

          // Never more records in flight than the concurrency bound.
          expect(maxInFlight).toBeLessThanOrEqual(concurrency);
          // Reported identifiers are records of the event (failedOffsets throws otherwise), once each.
          const reported = failedOffsets(response, event);
          const reportedIds = new Set<string>();
          for (const [partition, offsets] of Object.entries(reported)) {
            expect(new Set(offsets).size).toBe(offsets.length);
            for (const offset of offsets)
              reportedIds.add(`${Number(partition.slice(TOPIC.length + 1))}@${offset}`);
          }
          const poisonDone = poison === 'skip' || poison === 'deadLetter';
          for (const [id, record] of byId) {
            const succeeded =
              done.has(id) || (record.outcome === 'poison' && poisonDone && startedPoison.has(id));
            // Every record is either processed successfully or reported, never both.
            expect(succeeded !== reportedIds.has(id), `${id} (${record.outcome})`).toBe(true);
          }
          // In partition (key) ordering, what succeeded is a prefix of each partition (key) in offset order.
          if (ordering !== 'none') {
            const lanes = new Map<string, FuzzRecord[]>();
            for (const r of records) {
              const lane =
                ordering === 'partition'
                  ? `${r.partition}`
                  : typeof r.key === 'string'
                    ? `${r.partition}/${r.key}`
                    : `${r.partition}@${r.offset}`;
              lanes.set(lane, [...(lanes.get(lane) ?? []), r]);
            }
            for (const lane of lanes.values()) {
              const flags = lane.map((r) => !reportedIds.has(`${r.partition}@${r.offset}`));
              const firstReported = flags.indexOf(false);
              if (firstReported >= 0) expect(flags.slice(firstReported)).not.toContain(true);
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("kafkaBatch fuzz: 'key' ordering after a failure", () => {
  it('starts no record of a partition above an offset already known to have failed', async () => {
    // Handlers here are plain functions, so the middleware learns of each failure at once: a
    // synchronous throw, or a rejection reported in the same microtask drain as it happens.
    let exercised = 0;
    await fc.assert(
      fc.asyncProperty(
        batchArb,
        fc.integer({ min: 1, max: 5 }),
        fc.constantFrom<'report' | 'skip'>('report', 'skip'),
        async (records, concurrency, onPoison) => {
          const byId = new Map(records.map((r) => [`${r.partition}@${r.offset}`, r]));
          const lowestFailed = new Map<number, number>();
          const started = new Set<string>();
          const violations: string[] = [];
          const fail = (partition: number, offset: number) =>
            lowestFailed.set(partition, Math.min(lowestFailed.get(partition) ?? offset, offset));
          const handler = middy().use(
            kafkaBatch({
              logger: quiet,
              ordering: 'key',
              concurrency,
              onPoison,
              onRecord: (record) => {
                const { partition, offset } = record;
                const id = `${partition}@${offset}`;
                started.add(id);
                if (offset > (lowestFailed.get(partition) ?? Number.POSITIVE_INFINITY)) violations.push(id);
                const { outcome } = byId.get(id)!;
                if (outcome === 'poison') {
                  if (onPoison === 'report') fail(partition, offset);
                  return record.json();
                }
                if (outcome === 'throw') {
                  fail(partition, offset);
                  throw new Error('throw');
                }
                if (outcome === 'reject')
                  return tick().then(() => {
                    fail(partition, offset);
                    throw new Error('reject');
                  });
                return outcome === 'okAsync' ? tick() : undefined;
              },
            }),
          );
          const event = toEvent(records, 'aws:kafka');
          const reported = failedOffsets(await handler(event, createLambdaContext()), event);
          expect(violations).toEqual([]);
          for (const [partition, failedAt] of lowestFailed) {
            const later = records.filter((r) => r.partition === partition && r.offset > failedAt);
            const offsets = reported[`${TOPIC}-${partition}`] ?? [];
            // Every later record that did not start is reported.
            for (const r of later)
              if (!started.has(`${partition}@${r.offset}`)) expect(offsets).toContain(r.offset);
            if (later.some((r) => !started.has(`${partition}@${r.offset}`))) exercised++;
          }
        },
      ),
      { numRuns: 300 },
    );
    expect(exercised).toBeGreaterThan(20);
  });
});

describe('kafkaBatch fuzz: anything thrown', () => {
  const revokedProxy = () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    return proxy;
  };
  const REVOKED = Symbol('a revoked proxy');
  const thrownArb = fc.oneof(
    fc.anything({
      withNullPrototype: true,
      withBigInt: true,
      withMap: true,
      withSet: true,
      withBoxedValues: true,
    }),
    fc.constantFrom<unknown>(undefined, null, Symbol('boom'), Object.create(null), 10n),
    fc.string().map((description) => Symbol(description)),
    // fast-check cannot hold a revoked proxy: the handler builds one when it draws this.
    fc.constant(REVOKED),
  );

  it('is a failure of its record, in any ordering, logger or not: the batch returns, nothing runs after', async () => {
    await fc.assert(
      fc.asyncProperty(
        batchArb,
        optionsArb,
        fc.array(fc.tuple(thrownArb, fc.boolean()), { minLength: 1, maxLength: 8 }),
        fc.boolean(),
        async (records, { ordering, concurrency, poison }, throws, loggerThrows) => {
          const thrownBy = new Map<string, [unknown, boolean]>();
          records.forEach((r, i) => {
            const spec = throws[i % throws.length]!;
            if (r.outcome === 'throw' || r.outcome === 'reject')
              thrownBy.set(`${r.partition}@${r.offset}`, spec);
          });
          const done = new Set<string>();
          let startedAfterReturn = 0;
          let returned = false;
          const raise = (value: unknown) => {
            throw value;
          };
          const logger: KafkaBatchLogger = loggerThrows
            ? {
                info: () => raise(Object.create(null)),
                warn: () => raise(undefined),
                error: () => raise(revokedProxy()),
              }
            : quiet;
          const event = toEvent(records, 'aws:kafka');
          const handler = middy().use(
            kafkaBatch({
              logger,
              ordering,
              concurrency,
              onPoison: poison === 'deadLetterFails' ? () => raise(Symbol('dlq down')) : 'report',
              onRecord: async (record) => {
                if (returned) startedAfterReturn++;
                const id = `${record.partition}@${record.offset}`;
                record.json();
                const spec = thrownBy.get(id);
                if (spec !== undefined) {
                  if (spec[1]) await tick();
                  throw spec[0] === REVOKED ? revokedProxy() : spec[0];
                }
                done.add(id);
              },
            }),
          );
          const consoleError = vi.spyOn(console, 'error').mockImplementation(() => {});
          let response: unknown;
          try {
            response = await handler(event, createLambdaContext());
            returned = true;
            await tick();
          } finally {
            consoleError.mockRestore();
          }
          expect(startedAfterReturn).toBe(0);
          const reported = failedOffsets(response, event);
          for (const r of records) {
            const id = `${r.partition}@${r.offset}`;
            const isReported = (reported[`${TOPIC}-${r.partition}`] ?? []).includes(r.offset);
            expect(done.has(id) !== isReported, id).toBe(true);
            if (thrownBy.has(id)) expect(isReported, id).toBe(true);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('kafkaBatch fuzz: malformed events', () => {
  const validEvent = batchArb.map((records) => toEvent(records, 'aws:kafka'));
  const anyValue = fc.oneof(
    fc.anything({ withNullPrototype: true }),
    fc.constantFrom(
      undefined,
      null,
      '',
      '3',
      -1,
      1.5,
      2 ** 53,
      2 ** 60,
      '9007199254740993',
      'aGk=',
      '!!!',
      [],
      {},
    ),
  );

  /** Replaces (or deletes) one field somewhere in the event. */
  const mutated = fc
    .tuple(
      validEvent,
      fc.nat(),
      fc.constantFrom(
        'eventSource',
        'records',
        'topic',
        'partition',
        'offset',
        'timestamp',
        'key',
        'value',
        'headers',
        'entry',
      ),
      anyValue,
      fc.boolean(),
    )
    .map(([event, pick, field, value, remove]) => {
      const copy = structuredClone(event) as unknown as Record<string, unknown>;
      const lists = Object.values(copy.records as Record<string, Record<string, unknown>[]>);
      const all = lists.flat();
      const target: Record<string, unknown> | undefined =
        field === 'eventSource' || field === 'records' ? copy : all[pick % Math.max(all.length, 1)];
      if (target === undefined) return copy;
      const name = field === 'entry' ? 'headers' : field;
      if (field === 'entry') target.headers = [{ h: value }];
      else if (remove) delete target[name];
      else target[name] = value;
      return copy;
    });

  it("is refused by validateKafkaEvent (accept: 'middleware', as kafka-lambda invoke checks) exactly when kafkaBatch throws KafkaEventError", async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(mutated, fc.anything({ withNullPrototype: true })), async (event) => {
        const handler = middy().use(kafkaBatch({ logger: quiet, onRecord: () => {} }));
        let middlewareRefused = false;
        try {
          await handler(event as never, createLambdaContext());
        } catch (error) {
          expect(error).toBeInstanceOf(KafkaEventError);
          middlewareRefused = true;
        }
        let validatorRefused = false;
        try {
          validateKafkaEvent(event, { accept: 'middleware', onWarning: () => {} });
        } catch (error) {
          expect(error).toBeInstanceOf(InvalidKafkaEventError);
          validatorRefused = true;
        }
        expect(validatorRefused).toBe(middlewareRefused);
      }),
      { numRuns: 500 },
    );
  });

  it('either returns a response naming only event records, or throws KafkaEventError', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(mutated, fc.anything()),
        fc.constantFrom<KafkaOrdering>('partition', 'key', 'none'),
        async (event, ordering) => {
          const handler = middy().use(
            kafkaBatch({
              logger: quiet,
              ordering,
              onRecord: (record) =>
                void [record.key, record.keyData, record.json(), record.headers, record.timestamp],
            }),
          );
          let response: unknown;
          try {
            response = await handler(event as never, createLambdaContext());
          } catch (error) {
            expect(error).toBeInstanceOf(KafkaEventError);
            return;
          }
          const known = new Set<string>();
          for (const list of Object.values((event as KafkaEvent).records))
            for (const r of list) known.add(`${r.topic}-${Number(r.partition)}@${Number(r.offset)}`);
          const { batchItemFailures } = response as {
            batchItemFailures: { itemIdentifier: { partition: string; offset: number } }[];
          };
          expect(Array.isArray(batchItemFailures)).toBe(true);
          for (const { itemIdentifier } of batchItemFailures) {
            expect(typeof itemIdentifier.offset).toBe('number');
            expect(known.has(`${itemIdentifier.partition}@${itemIdentifier.offset}`)).toBe(true);
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('kafkaBatch fuzz: hanging handlers', () => {
  it('returns before the timeout, reporting every record that did not complete', async () => {
    const hangArb = fc.array(fc.record({ partition: fc.integer({ min: 0, max: 3 }), hang: fc.boolean() }), {
      minLength: 1,
      maxLength: 12,
    });
    await fc.assert(
      fc.asyncProperty(
        hangArb,
        fc.constantFrom<KafkaOrdering>('partition', 'key', 'none'),
        async (specs, ordering) => {
          const next = new Map<number, number>();
          const records = specs.map(({ partition, hang }) => {
            const offset = (next.get(partition) ?? 0) + 1;
            next.set(partition, offset);
            return { partition, offset, key: 'k', outcome: hang ? ('hang' as const) : ('ok' as const) };
          });
          const hanging = new Set(
            records.filter((r) => r.outcome === 'hang').map((r) => `${r.partition}@${r.offset}`),
          );
          const done = new Set<string>();
          const handler = middy().use(
            kafkaBatch({
              logger: quiet,
              ordering,
              timeoutReserveMs: 250,
              onRecord: async (record) => {
                const id = `${record.partition}@${record.offset}`;
                if (hanging.has(id)) await new Promise(() => {});
                await tick();
                done.add(id);
              },
            }),
          );
          const event = toEvent(
            records.map((r) => ({ ...r, outcome: 'ok' })),
            'aws:kafka',
          );
          const context = createLambdaContext({ timeoutMs: 400 });
          const response = await handler(event, context);
          expect(context.getRemainingTimeInMillis()).toBeGreaterThan(0);
          const reported = failedOffsets(response, event);
          for (const r of records) {
            const id = `${r.partition}@${r.offset}`;
            const isReported = (reported[`${TOPIC}-${r.partition}`] ?? []).includes(r.offset);
            // Nothing is lost: a record not reported completed. (One that completes just after the
            // deadline may be reported too: it is redelivered, as at-least-once delivery allows.)
            if (!isReported) expect(done.has(id), id).toBe(true);
            if (hanging.has(id)) expect(isReported).toBe(true);
          }
        },
      ),
      { numRuns: 20 },
    );
  });
});

describe('kafkaBatch fuzz: onPartition handlers that reorder, mutate and return anything', () => {
  type Mutation = 'none' | 'sort' | 'reverse' | 'shuffle' | 'empty' | 'splice' | 'refill' | 'fields';
  type Foreign = 'otherPartition' | 'unknownOffset' | 'otherTopic' | 'index' | 'null' | 'text';
  const actionArb = fc.record({
    throws: fc.constantFrom(false, false, true),
    returned: fc.option(
      fc.record({
        picks: fc.array(fc.nat(), { maxLength: 4 }),
        standIns: fc.array(fc.nat(), { maxLength: 2 }),
        foreign: fc.array(
          fc.constantFrom<Foreign>('otherPartition', 'unknownOffset', 'otherTopic', 'index', 'null', 'text'),
          { maxLength: 2 },
        ),
        as: fc.constantFrom<'array' | 'set' | 'generator'>('array', 'set', 'generator'),
      }),
      { nil: undefined },
    ),
    mutation: fc.constantFrom<Mutation>(
      'none',
      'sort',
      'reverse',
      'shuffle',
      'empty',
      'splice',
      'refill',
      'fields',
    ),
    shuffle: fc.array(fc.double({ noNaN: true }), { minLength: 8, maxLength: 8 }),
  });

  /** Accepts any JSON value: what makes a record that is not JSON a poison record before the run. */
  const anyJson: StandardSchemaV1<unknown, unknown> = {
    '~standard': { version: 1, vendor: 'fuzz', validate: (value) => ({ value }) },
  };

  it('reports exactly the returned records’ lowest offset onward (the whole run for a stranger or a throw), per partition', async () => {
    let exercised = 0;
    await fc.assert(
      fc.asyncProperty(
        batchArb,
        fc.array(actionArb, { minLength: 4, maxLength: 4 }),
        fc.constantFrom<'report' | 'skip'>('report', 'skip'),
        fc.integer({ min: 1, max: 4 }),
        async (records, actions, onPoison, concurrency) => {
          const event = toEvent(records, 'aws:kafka');
          const partitions = [...new Set(records.map((r) => r.partition))];
          const expected = new Map<number, Set<number>>();
          const handedOver = new Map<number, number[]>();
          const handler = middy().use(
            kafkaBatch({
              logger: quiet,
              concurrency,
              onPoison,
              value: anyJson,
              onPartition: async (run) => {
                const p = run[0]!.partition;
                const action = actions[partitions.indexOf(p) % actions.length]!;
                const original = [...run];
                handedOver.set(
                  p,
                  original.map((r) => r.offset),
                );
                await tick();
                // The handler's own business with its array (and its records' fields).
                switch (action.mutation) {
                  case 'sort':
                    run.sort((a, b) => String(a.keyData).localeCompare(String(b.keyData)));
                    break;
                  case 'reverse':
                    run.reverse();
                    break;
                  case 'shuffle':
                    run.sort((a, b) => action.shuffle[a.offset % 8]! - action.shuffle[b.offset % 8]!);
                    break;
                  case 'empty':
                    run.length = 0;
                    break;
                  case 'splice':
                    run.splice(0, 1);
                    break;
                  case 'refill':
                    run.fill(run[run.length - 1]!);
                    break;
                  case 'fields':
                    for (const r of run) (r as { offset: number }).offset = r.offset + 1_000_000;
                    break;
                }
                // The model: which run positions the middleware must take as failed.
                const failedAt = new Set<number>();
                let stranger = false;
                const returned: unknown[] = [];
                if (action.returned !== undefined) {
                  for (const pick of action.returned.picks) {
                    returned.push(original[pick % original.length]);
                    failedAt.add(pick % original.length);
                  }
                  for (const pick of action.returned.standIns) {
                    const i = pick % original.length;
                    returned.push({ topic: TOPIC, partition: p, offset: handedOver.get(p)![i] });
                    failedAt.add(i);
                  }
                  for (const kind of action.returned.foreign) {
                    stranger = true;
                    const offset = handedOver.get(p)![0]!;
                    returned.push(
                      kind === 'otherPartition'
                        ? { topic: TOPIC, partition: p + 1, offset }
                        : kind === 'unknownOffset'
                          ? { topic: TOPIC, partition: p, offset: offset + 0.5 }
                          : kind === 'otherTopic'
                            ? { topic: `${TOPIC}x`, partition: p, offset }
                            : kind === 'index'
                              ? offset
                              : kind === 'null'
                                ? null
                                : String(offset),
                    );
                  }
                }
                const offsets = handedOver.get(p)!;
                const first = action.throws || stranger ? 0 : Math.min(offsets.length, ...failedAt);
                expected.set(p, new Set(offsets.slice(first)));
                if (action.throws) throw new Error('bulk write failed');
                if (action.returned === undefined) return undefined;
                if (action.returned.as === 'set') return new Set(returned) as Set<never>;
                if (action.returned.as === 'generator')
                  return (function* () {
                    yield* returned;
                  })() as Iterable<never>;
                return returned as never[];
              },
            }),
          );
          const reported = failedOffsets(await handler(event, createLambdaContext()), event);
          for (const p of partitions) {
            const inOrder = records.filter((r) => r.partition === p);
            const firstPoison = inOrder.findIndex((r) => r.outcome === 'poison');
            const run = inOrder.filter(
              (r, i) => r.outcome !== 'poison' && (onPoison === 'skip' || firstPoison < 0 || i < firstPoison),
            );
            // The handler got the run in offset order (or was not called for an empty run).
            expect(handedOver.get(p) ?? [], `run of ${p}`).toEqual(run.map((r) => r.offset));
            const want = new Set(expected.get(p) ?? []);
            if (onPoison === 'report' && firstPoison >= 0)
              for (const r of inOrder.slice(firstPoison)) want.add(r.offset);
            const got = reported[`${TOPIC}-${p}`] ?? [];
            // Nothing lost (every expected offset reported), nothing wrongly reported, each once.
            expect(got, `partition ${p}`).toEqual([...want].sort((a, b) => a - b));
            if (want.size > 0 && want.size < inOrder.length) exercised++;
          }
        },
      ),
      { numRuns: 300 },
    );
    expect(exercised).toBeGreaterThan(50);
  });
});
