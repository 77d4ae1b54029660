// runReplay's checks before it connects to the cluster (the runs themselves, on the test broker, are in
// the integration tests of the replay function, the CLI and the concurrency test).
import { describe, expect, it, vi } from 'vitest';
import { modelEventSourceMapping } from '../../test/support/esm-model.ts';
import { MappingRefusedError, ReplayInputError, ReplayRefusedError } from './errors.ts';
import { runReplay } from './pipeline.ts';
import { parseReplayRequest } from './request.ts';

const neverConnect = () => Promise.reject(new Error('must not connect'));

describe('runReplay', () => {
  it('refuses a request without a mapping that lacks a group or a topic, naming what it lacks, before connecting', async () => {
    const connection = vi.fn(neverConnect);
    for (const [request, missing] of [
      [{ group: 'g' }, '"topic"'],
      [{ topic: 't' }, '"group"'],
      [{}, '"group" and "topic"'],
    ] as const) {
      const error = await runReplay(parseReplayRequest({ ...request, toEarliest: true }), {
        connection,
      }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ReplayInputError);
      expect((error as Error).message).toBe(
        `a request without "mapping" needs ${missing} (or "mapping", to replay the group of an event source mapping)`,
      );
    }
    expect(connection).not.toHaveBeenCalled();
  });

  it('refuses a request naming a mapping without a Lambda client', async () => {
    const request = parseReplayRequest({ mapping: 'esm-1', toEarliest: true });
    await expect(runReplay(request, { connection: neverConnect })).rejects.toThrow(
      'mapping esm-1: a Lambda API client is needed to control it',
    );
  });

  it('resolves group and topic from the mapping and lets authorize refuse them, before connecting', async () => {
    const model = modelEventSourceMapping({ uuid: 'esm-1', topic: 'orders', groupId: 'orders-fn' });
    const connection = vi.fn(neverConnect);
    const authorize = vi.fn(() => {
      throw new ReplayRefusedError('not here');
    });
    const request = parseReplayRequest({ mapping: 'esm-1', toEarliest: true, execute: true });
    await expect(runReplay(request, { connection, lambda: model.lambda, authorize })).rejects.toThrow(
      'not here',
    );
    expect(authorize).toHaveBeenCalledWith({
      groupId: 'orders-fn',
      topic: 'orders',
      mapping: 'esm-1',
      groupFromMapping: true,
    });
    expect(connection).not.toHaveBeenCalled();
    expect(model.history).toEqual(['Enabled']);
  });

  it('refuses a mapping on another topic than the request names', async () => {
    const model = modelEventSourceMapping({ uuid: 'esm-1', topic: 'orders', groupId: 'orders-fn' });
    const request = parseReplayRequest({ mapping: 'esm-1', topic: 'payments', toEarliest: true });
    const error = await runReplay(request, { connection: neverConnect, lambda: model.lambda }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(MappingRefusedError);
    expect((error as Error).message).toContain('reads topic "orders", not "payments"');
  });
});
