// The mapping orchestration against a model of the Lambda API (aws-sdk-client-mock: real states, conflicts,
// throttling) and the real broker: whatever fails, the mapping ends in its original state, and the offsets
// are either all set or untouched.
import { LambdaClient } from '@aws-sdk/client-lambda';
import type { Consumer } from 'kafkajs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { lambdaApiEndpoint, type MappingRequest } from '../../test/support/aws-endpoints.ts';
import { type EsmModelOptions, modelEventSourceMapping } from '../../test/support/esm-model.ts';
import { committedOffsetsByKafkaTool, testBrokers, testKafka, uniqueName } from '../../test/support/kafka.ts';
import { racedAtHold } from '../../test/support/replay-race.ts';
import { seedTopic } from '../../test/support/seed-topic.ts';
import { awsApiClientConfig } from './aws-api.ts';
import { connectReplayKafka, type ReplayKafka } from './connection.ts';
import {
  MappingRefusedError,
  NotEnoughTimeError,
  ReplayAbortedError,
  ReplayExecutionError,
} from './errors.ts';
import { type ExecuteRequest, executeReplay } from './execute.ts';
import { describeGroup } from './group.ts';
import { describeReplayError } from './outcome.ts';
import type { ReplayStep } from './types.ts';
import { pollUntil } from './wait.ts';

const fast = { mappingMs: 1_500, groupMs: 20_000, restoreMs: 3_000, pollIntervalMs: 10 };
let kafka: ReplayKafka;
let topic: string;
beforeAll(async () => {
  kafka = await connectReplayKafka({ brokers: testBrokers() });
  topic = uniqueName('replay-esm');
  await seedTopic(testKafka(), { topic, partitions: 3, records: 10 });
});
afterAll(async () => {
  await kafka?.disconnect();
});

/** A group with committed offsets 7, 8, 9 (set without joining it). */
async function group(): Promise<string> {
  const groupId = uniqueName('replay-esm-group');
  await kafka.commitOffsets({
    groupId,
    topic,
    offsets: [7, 8, 9].map((offset, partition) => ({ partition, offset, metadata: '' })),
  });
  return groupId;
}

async function committed(groupId: string): Promise<(number | null)[]> {
  const [fetched] = await kafka.admin.fetchOffsets({ groupId, topics: [topic] });
  return fetched!.partitions
    .sort((a, b) => a.partition - b.partition)
    .map((p) => (Number(p.offset) >= 0 ? Number(p.offset) : null));
}

function setup(groupId: string, options: Partial<EsmModelOptions> = {}) {
  const model = modelEventSourceMapping({ uuid: 'esm-1', topic, groupId, ...options });
  const request: ExecuteRequest = {
    kafka,
    mapping: { lambda: model.lambda, uuid: 'esm-1' },
    target: { kind: 'offset', offset: 2 },
    reason: 'test',
    timeouts: fast,
  };
  return { model, request };
}

const allSteps: ReplayStep[] = [
  'read-mapping',
  'plan',
  'disable-mapping',
  'wait-mapping-disabled',
  'wait-group-empty',
  'hold-group',
  'plan',
  'commit-offsets',
  'verify-offsets',
  'verify-offsets',
  'enable-mapping',
  'wait-mapping-enabled',
];

describe('executeReplay with an event source mapping', () => {
  it('disables, waits, commits, verifies and re-enables; Lambda’s pollers (a real consumer) leave in between', async () => {
    const groupId = await group();
    let poller: Consumer | undefined = testKafka().consumer({
      groupId,
      sessionTimeout: 6_000,
      heartbeatInterval: 500,
    });
    await poller.connect();
    await poller.subscribe({ topic });
    await poller.run({ autoCommit: false, eachMessage: async () => {} });
    await pollUntil('group Stable', { timeoutMs: 30_000, intervalMs: 200 }, async () => {
      const seen = (await describeGroup(kafka.admin, groupId)).state;
      return { done: seen === 'Stable', seen };
    });
    const { model, request } = setup(groupId, {
      onSettled: async (state) => {
        if (state === 'Disabled') {
          await poller?.disconnect();
          poller = undefined;
        }
      },
    });
    const progress: string[] = [];
    const result = await executeReplay({ ...request, onProgress: (p) => progress.push(p.step) });

    expect(result.steps.map((s) => s.step)).toEqual(allSteps);
    expect(new Set(progress)).toEqual(new Set(allSteps));
    expect(result.mapping).toEqual({ uuid: 'esm-1', stateBefore: 'Enabled', stateAfter: 'Enabled' });
    expect(model.history).toEqual(['Enabled', 'Disabling', 'Disabled', 'Enabling', 'Enabled']);
    expect(result.plan.groupId).toBe(groupId);
    expect((await committedOffsetsByKafkaTool(groupId)).map((r) => r.currentOffset)).toEqual([2, 2, 2]);
  });

  it('a Disabled mapping stays Disabled and is never updated', async () => {
    const groupId = await group();
    const { model, request } = setup(groupId, { state: 'Disabled' });
    const result = await executeReplay(request);
    expect(model.updates).toEqual([]);
    expect(result.steps.map((s) => s.step)).toEqual([
      'read-mapping',
      'plan',
      'wait-group-empty',
      'hold-group',
      'plan',
      'commit-offsets',
      'verify-offsets',
    ]);
    expect(await committed(groupId)).toEqual([2, 2, 2]);
  });

  it('self-managed mappings give their group id the same way', async () => {
    const groupId = await group();
    const { request } = setup(groupId, { kind: 'self-managed' });
    await executeReplay(request);
    expect(await committed(groupId)).toEqual([2, 2, 2]);
  });

  for (const state of ['Enabling', 'Disabling', 'Updating', 'Creating', 'Deleting']) {
    it(`refuses a mapping that is ${state}, touching nothing`, async () => {
      const groupId = await group();
      const { model, request } = setup(groupId, { state, transitionPolls: Number.POSITIVE_INFINITY });
      const error = await executeReplay(request).catch((e) => e);
      expect(error).toBeInstanceOf(MappingRefusedError);
      expect(error.message).toContain('in transition');
      expect(model.updates).toEqual([]);
      expect(await committed(groupId)).toEqual([7, 8, 9]);
    });
  }

  it('refuses a mapping on another topic or group, and one without a group id', async () => {
    const groupId = await group();
    const other = setup(groupId, { topic: 'payments' });
    await expect(executeReplay({ ...other.request, topic })).rejects.toThrow(/reads topic "payments"/);
    const wrongGroup = setup(groupId);
    await expect(executeReplay({ ...wrongGroup.request, groupId: 'someone-else' })).rejects.toThrow(
      /uses consumer group/,
    );
    const noGroup = setup(groupId, { groupId: undefined });
    await expect(executeReplay(noGroup.request)).rejects.toBeInstanceOf(MappingRefusedError);
    // With the group given explicitly, a mapping that does not echo one can still be replayed.
    await executeReplay({ ...noGroup.request, groupId });
    expect(await committed(groupId)).toEqual([2, 2, 2]);
    expect([other.model, wrongGroup.model].map((m) => m.updates)).toEqual([[], []]);
  });

  it('retries throttling and conflicts of the Lambda API with back-off', async () => {
    const groupId = await group();
    const { model, request } = setup(groupId);
    model.failNext('get', 'throttle', 'throttle');
    model.failNext('update', 'conflict', 'throttle', 'in-use');
    await executeReplay(request);
    expect(model.state()).toBe('Enabled');
    expect(model.updates).toEqual([false, true]);
    expect(await committed(groupId)).toEqual([2, 2, 2]);
  });

  it('a mapping slow to reach Disabled: times out, is re-enabled once it settles, offsets untouched', async () => {
    const groupId = await group();
    const { model, request } = setup(groupId, { disablePolls: 250 });
    const error = await executeReplay({ ...request, timeouts: { ...fast, mappingMs: 500 } }).catch((e) => e);
    expect(error).toBeInstanceOf(ReplayExecutionError);
    expect(error.report).toMatchObject({
      failedStep: 'wait-mapping-disabled',
      error: { name: 'ReplayTimeoutError' },
      offsets: 'untouched',
      mappingStateBefore: 'Enabled',
      mappingStateNow: 'Enabled',
      mappingRestored: true,
      restore: { timeoutMs: 3_000 },
    });
    expect(error.message).not.toContain('resume it');
    expect(model.history.at(-1)).toBe('Enabled');
    expect(await committed(groupId)).toEqual([7, 8, 9]);
  });

  it('a mapping that never reaches Disabled: the report says it could not be restored, offsets untouched', async () => {
    const groupId = await group();
    const { request } = setup(groupId, { disablePolls: Number.POSITIVE_INFINITY });
    const error = await executeReplay({
      ...request,
      timeouts: { ...fast, mappingMs: 300, restoreMs: 1_200 },
    }).catch((e) => e);
    expect(error).toBeInstanceOf(ReplayExecutionError);
    expect(error.report).toMatchObject({
      failedStep: 'wait-mapping-disabled',
      offsets: 'untouched',
      mappingStateNow: 'Disabling',
      mappingRestored: false,
      restoreError: { name: 'ReplayTimeoutError' },
      mappingUuid: 'esm-1',
      restore: { timeoutMs: 1_200 },
    });
    // The restore has its own bound, not the mapping waits' (300 ms), and the report says how long it tried.
    expect(error.report.restore.ms).toBeGreaterThanOrEqual(1_000);
    expect(error.report.restore.ms).toBeLessThan(2_500);
    expect(error.message).toContain(
      'mapping NOT restored (was Enabled, now Disabling): once it has left Disabling, if it is Disabled, resume it: aws lambda update-event-source-mapping --uuid esm-1 --enabled',
    );
    expect(await committed(groupId)).toEqual([7, 8, 9]);
  });

  it('a group that keeps its members after the mapping is disabled: restored, offsets untouched', async () => {
    const groupId = await group();
    const stranger = testKafka().consumer({ groupId, sessionTimeout: 6_000, heartbeatInterval: 500 });
    await stranger.connect();
    await stranger.subscribe({ topic });
    await stranger.run({ autoCommit: false, eachMessage: async () => {} });
    try {
      const { model, request } = setup(groupId);
      const error = await executeReplay({ ...request, timeouts: { ...fast, groupMs: 1_000 } }).catch(
        (e) => e,
      );
      expect(error).toBeInstanceOf(ReplayExecutionError);
      expect(error.report).toMatchObject({
        failedStep: 'wait-group-empty',
        error: { name: 'GroupNotEmptyError' },
        offsets: 'untouched',
        mappingRestored: true,
      });
      expect(model.state()).toBe('Enabled');
    } finally {
      await stranger.disconnect();
    }
    expect((await committedOffsetsByKafkaTool(groupId)).map((r) => r.currentOffset)).toEqual([7, 8, 9]);
  });

  it('a commit made after the replay left the group, before the trigger resumes, is caught, not resumed from silently', async () => {
    const groupId = await group();
    const { model, request } = setup(groupId);
    // A stray member-less commit lands in the gap between the release of the hold and the re-enable.
    const strayCommit: ReplayKafka = {
      ...kafka,
      holdGroup: async (input) => {
        const hold = await kafka.holdGroup(input);
        return {
          ...hold,
          groupId: hold.groupId,
          memberId: hold.memberId,
          generationId: hold.generationId,
          release: async () => {
            await hold.release();
            await kafka.commitOffsets({
              groupId,
              topic,
              offsets: [0, 1, 2].map((partition) => ({ partition, offset: 5, metadata: '' })),
            });
          },
        };
      },
    };
    const error = await executeReplay({ ...request, kafka: strayCommit }).catch((e) => e);
    expect(error).toBeInstanceOf(ReplayExecutionError);
    expect(error.report).toMatchObject({
      failedStep: 'verify-offsets',
      error: { name: 'OffsetVerificationError' },
      offsetsNow: [0, 1, 2].map((partition) => ({ partition, offset: 5 })),
      mappingRestored: true,
    });
    expect(model.state()).toBe('Enabled');
  });

  it('another replay that commits while the mapping is disabled wins; this one restores the mapping, changing nothing', async () => {
    const groupId = await group();
    const { model, request } = setup(groupId);
    const racing = racedAtHold(kafka, { groupId, topic, by: -3 });
    const error = await executeReplay({
      ...request,
      kafka: racing.kafka,
      target: { kind: 'shift', by: -3 },
      onProgress: racing.onProgress,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ReplayExecutionError);
    expect(describeReplayError(error).kind).toBe('conflict');
    expect((error as ReplayExecutionError).report).toMatchObject({
      failedStep: 'hold-group',
      mappingRestored: true,
    });
    expect(model.state()).toBe('Enabled');
    // Shifted once (7, 8, 9 less 3), not twice.
    expect((await committedOffsetsByKafkaTool(groupId)).map((r) => r.currentOffset)).toEqual([4, 5, 6]);
  });

  it('a commit Kafka stores for some partitions only is reported as partial, with the offsets now', async () => {
    const groupId = await group();
    const { model, request } = setup(groupId);
    // Kafka answers an OffsetCommit partition by partition: it can refuse one (here: as if its
    // metadata were too large) and store the others.
    const partlyStored: ReplayKafka = {
      ...kafka,
      commitOffsets: async (input) => {
        await kafka.commitOffsets({ ...input, offsets: input.offsets.filter((o) => o.partition !== 2) });
        throw Object.assign(new Error('The metadata field of the offset request was too large'), {
          type: 'OFFSET_METADATA_TOO_LARGE',
        });
      },
    };
    const error = await executeReplay({ ...request, kafka: partlyStored }).catch((e) => e);
    expect(error).toBeInstanceOf(ReplayExecutionError);
    expect(error.report).toMatchObject({
      failedStep: 'commit-offsets',
      offsets: 'partial',
      offsetsNow: [2, 2, 9].map((offset, partition) => ({ partition, offset })),
      mappingRestored: true,
    });
    expect(describeReplayError(error).kind).toBe('failed');
    expect(model.state()).toBe('Enabled');
  });

  it('re-enabling fails once (a non-retryable error): the restore enables it, offsets are set', async () => {
    const groupId = await group();
    const { model, request } = setup(groupId);
    let updates = 0;
    const error = await executeReplay({
      ...request,
      onProgress: (p) => {
        if (p.step === 'enable-mapping' && updates++ === 0) model.failNext('update', 'invalid');
      },
    }).catch((e) => e);
    expect(error).toBeInstanceOf(ReplayExecutionError);
    expect(error.report).toMatchObject({
      failedStep: 'enable-mapping',
      error: { name: 'InvalidParameterValueException' },
      offsets: 'set',
      offsetsNow: [
        { partition: 0, offset: 2 },
        { partition: 1, offset: 2 },
        { partition: 2, offset: 2 },
      ],
      mappingRestored: true,
    });
    expect(model.state()).toBe('Enabled');
  });

  // Fault injection between every pair of steps: abort when a step starts.
  for (const [index, step] of allSteps.entries()) {
    it(`aborted as step ${index + 1} (${step}) starts: mapping ends Enabled, offsets all set or untouched`, async () => {
      const groupId = await group();
      const { model, request } = setup(groupId);
      const controller = new AbortController();
      const seen: ReplayStep[] = [];
      const error = await executeReplay({
        ...request,
        signal: controller.signal,
        onProgress: (p) => {
          // A step that runs twice in a row (plan, verify-offsets) starts anew with its first message.
          if (seen.at(-1) !== p.step || /^(planning|reading the committed offsets again)/.test(p.message))
            seen.push(p.step);
          if (seen.length === index + 1) controller.abort();
        },
      }).catch((e) => e);

      expect(model.state()).toBe('Enabled');
      const offsets = await committed(groupId);
      const committedAlready = index > allSteps.indexOf('commit-offsets');
      expect(offsets).toEqual(committedAlready ? [2, 2, 2] : [7, 8, 9]);
      if (index <= allSteps.indexOf('disable-mapping')) {
        expect(error).toBeInstanceOf(ReplayAbortedError); // nothing changed yet
        expect(model.updates).toEqual([]);
      } else {
        expect(error).toBeInstanceOf(ReplayExecutionError);
        expect(error.report).toMatchObject({
          failedStep: step,
          offsets: committedAlready ? 'set' : 'untouched',
          mappingStateBefore: 'Enabled',
          mappingStateNow: 'Enabled',
          mappingRestored: true,
        });
      }
    });
  }
});

// A Lambda's remaining time: what cannot fit is refused before the mapping is touched, and a broker that
// stops answering cannot keep the mapping Disabled past the deadline.
describe('executeReplay against a deadline', () => {
  it('refuses, touching nothing, when the waits would get less than their minimum after the restore’s share', async () => {
    const groupId = await group();
    const { model, request } = setup(groupId);
    const restoreMs = 60_000;
    const error = await executeReplay({
      ...request,
      timeouts: { ...fast, restoreMs },
      deadline: Date.now() + restoreMs + 2_000,
    }).catch((e) => e);
    expect(error).toBeInstanceOf(NotEnoughTimeError);
    expect(error.message).toMatch(/keeping 60000 ms to restore/);
    expect(model.updates).toEqual([]);
    expect(await committed(groupId)).toEqual([7, 8, 9]);
  });

  it('a Disabled mapping needs no restore: the same deadline is enough', async () => {
    const groupId = await group();
    const { model, request } = setup(groupId, { state: 'Disabled' });
    await executeReplay({
      ...request,
      timeouts: { ...fast, restoreMs: 60_000 },
      deadline: Date.now() + 62_000,
    });
    expect(model.updates).toEqual([]);
    expect(await committed(groupId)).toEqual([2, 2, 2]);
  });

  /** The real connection, except that the broker stops answering from the given moment on. */
  function hangingKafka(from: 'commit' | 'after-commit'): ReplayKafka {
    let hung = false;
    const never = new Promise<never>(() => {});
    const admin = new Proxy(kafka.admin, {
      get: (target, key, receiver) =>
        key === 'fetchOffsets' && hung ? () => never : Reflect.get(target, key, receiver),
    });
    return {
      ...kafka,
      admin,
      commitOffsets: async (input) => {
        if (from === 'commit') return never;
        await kafka.commitOffsets(input);
        hung = true;
      },
    };
  }

  for (const [from, failedStep, offsets] of [
    ['commit', 'commit-offsets', 'unknown'],
    ['after-commit', 'verify-offsets', 'unknown'],
  ] as const) {
    it(`a broker that stops answering (${from}): the step times out before the deadline and the mapping is restored`, async () => {
      const groupId = await group();
      const { model, request } = setup(groupId);
      const started = Date.now();
      const deadline = started + 12_000;
      const error = await executeReplay({ ...request, kafka: hangingKafka(from), deadline }).catch((e) => e);
      expect(error).toBeInstanceOf(ReplayExecutionError);
      expect(error.report).toMatchObject({
        failedStep,
        error: { name: 'ReplayTimeoutError' },
        offsets,
        // An unanswered commit's report shows what was read; a broker that stopped answering gives nothing.
        offsetsNow: from === 'commit' ? [7, 8, 9].map((offset, partition) => ({ partition, offset })) : null,
        mappingStateBefore: 'Enabled',
        mappingStateNow: 'Enabled',
        mappingRestored: true,
      });
      expect(model.state()).toBe('Enabled');
      expect(Date.now()).toBeLessThan(deadline);
      expect(await committed(groupId)).toEqual(from === 'commit' ? [7, 8, 9] : [2, 2, 2]);
    }, 30_000);
  }
});

// The Lambda API over HTTP (a local endpoint answered by the model) with chosen requests left unanswered:
// a hung UpdateEventSourceMapping is abandoned and sent again, so the trigger is not left Disabled.
describe('executeReplay and a Lambda API that leaves a request unanswered', () => {
  let endpoint: Awaited<ReturnType<typeof lambdaApiEndpoint>> | undefined;
  afterEach(async () => {
    await endpoint?.close();
    endpoint = undefined;
  });

  /** The replay's Lambda client configuration, with a 300 ms request timeout, against the endpoint. */
  async function overHttp(groupId: string, hang: (request: MappingRequest) => boolean) {
    const model = modelEventSourceMapping({ uuid: 'esm-1', topic, groupId, transitionPolls: 1 });
    endpoint = await lambdaApiEndpoint(model, hang);
    const lambda = new LambdaClient({
      region: 'eu-west-1',
      endpoint: endpoint.url,
      credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
      maxAttempts: 1,
      ...awsApiClientConfig({ requestTimeoutMs: 300 }),
    });
    const request: ExecuteRequest = {
      kafka,
      mapping: { lambda, uuid: 'esm-1' },
      target: { kind: 'offset', offset: 2 },
      reason: 'test',
      timeouts: fast,
    };
    return { model, request, requests: endpoint.requests };
  }

  it('a hung UpdateEventSourceMapping while restoring is sent again within the restore window: the mapping ends Enabled', async () => {
    const groupId = await group();
    let restoring = false;
    const { model, request, requests } = await overHttp(
      groupId,
      // The restore's first enable never gets an answer (nor reaches the mapping).
      (r) => {
        if (!restoring || r.method !== 'PUT' || r.enabled !== true) return false;
        restoring = false;
        return true;
      },
    );
    const controller = new AbortController();
    const error = await executeReplay({
      ...request,
      signal: controller.signal,
      onProgress: (p) => {
        if (p.step === 'wait-group-empty' && !controller.signal.aborted) {
          restoring = true;
          controller.abort();
        }
      },
    }).catch((e) => e);
    expect(error).toBeInstanceOf(ReplayExecutionError);
    expect(error.report).toMatchObject({
      failedStep: 'wait-group-empty',
      offsets: 'untouched',
      mappingStateBefore: 'Enabled',
      mappingStateNow: 'Enabled',
      mappingRestored: true,
    });
    expect(error.report.restore.ms).toBeLessThan(fast.restoreMs);
    expect(model.state()).toBe('Enabled');
    expect(requests.filter((r) => r.method === 'PUT').map((r) => r.enabled)).toEqual([false, true, true]);
    expect(await committed(groupId)).toEqual([7, 8, 9]);
  }, 30_000);

  it('a hung UpdateEventSourceMapping while disabling fails the step within the mapping bound, naming the call; the mapping stays Enabled', async () => {
    const groupId = await group();
    const { model, request } = await overHttp(groupId, (r) => r.method === 'PUT' && r.enabled === false);
    const started = Date.now();
    const error = await executeReplay(request).catch((e) => e);
    expect(Date.now() - started).toBeLessThan(fast.mappingMs + fast.restoreMs);
    expect(error).toBeInstanceOf(ReplayExecutionError);
    expect(error.report).toMatchObject({
      failedStep: 'disable-mapping',
      error: { name: 'AwsApiTimeoutError' },
      offsets: 'untouched',
      mappingStateNow: 'Enabled',
      mappingRestored: true,
    });
    expect(error.report.error.message).toMatch(/^Lambda API call UpdateEventSourceMapping got no answer/);
    expect(model.updates).toEqual([]);
  }, 30_000);
});
