import { describe, expectTypeOf, it } from 'vitest';
import type {
  PartitionPlan,
  ReplayOutcome,
  ReplayRequest,
  ReplayTarget,
  SerializedReplayError,
} from './index.ts';
import { planReplay } from './index.ts';

describe('replay public types', () => {
  it('targets are a discriminated union', () => {
    expectTypeOf<Extract<ReplayTarget, { kind: 'shift' }>>().toEqualTypeOf<{ kind: 'shift'; by: number }>();
    // @ts-expect-error an offset target needs its offset
    const missing: ReplayTarget = { kind: 'offset' };
    void missing;
  });

  it('outcomes narrow on ok', () => {
    const outcome = {} as ReplayOutcome;
    if (outcome.ok) expectTypeOf(outcome.plan.partitions).toEqualTypeOf<PartitionPlan[]>();
    else expectTypeOf(outcome.error).toEqualTypeOf<SerializedReplayError>();
  });

  it('a validated request has its defaults applied', () => {
    expectTypeOf<ReplayRequest['execute']>().toEqualTypeOf<boolean>();
    expectTypeOf<ReplayRequest['toOffset']>().toEqualTypeOf<number | undefined>();
  });

  it('planReplay takes a replay connection and a plan request', () => {
    expectTypeOf(planReplay).parameter(0).toHaveProperty('kafka');
    expectTypeOf(planReplay).returns.resolves.toHaveProperty('totals');
  });
});
