// What the replay function and `kafka-lambda replay --brokers` both do with a parsed request: read the
// mapping it names, then plan it (dry run) or execute it, answering with the outcome.
import type { LambdaClient } from '@aws-sdk/client-lambda';
import type { ReplayKafka } from './connection.ts';
import { type ExecuteRequest, executeReplay } from './execute.ts';
import { checkMapping, readMapping } from './mapping.ts';
import type { ReplayOutcome } from './outcome.ts';
import { planReplay } from './plan.ts';
import type { ReplayRequest } from './request.ts';
import type { ReplayTarget } from './types.ts';

/** How long reading the mapping before anything else may take, throttling retries included. */
const READ_MAPPING_MS = 30_000;

/**
 * An event source mapping as read for a request: the client to control it with and its state then.
 *
 * @example
 * ```ts
 * const mapping: RequestMapping = { lambda, uuid: '14e0db71-…', state: 'Enabled' };
 * ```
 */
export interface RequestMapping {
  lambda: LambdaClient;
  uuid: string;
  state: string;
}

/**
 * Reads the mapping a request names and checks it ({@link checkMapping}; at rest unless a dry run):
 * the group and topic to replay, the mapping's (any the request gives must match them). When the mapping
 * reports no group id the request's is used and `groupFromMapping` is false: check it against an
 * allow-list before using it.
 *
 * @throws {MappingRefusedError}
 * @example
 * ```ts
 * const { groupId, topic, mapping } = await readRequestMapping({ lambda, uuid, request, topic: requestTopic(request) });
 * ```
 */
export async function readRequestMapping({
  lambda,
  uuid,
  request,
  topic,
}: {
  lambda: LambdaClient;
  uuid: string;
  request: ReplayRequest;
  /** The topic the request names, if any (see requestTopic). */
  topic: string | undefined;
}): Promise<{ groupId: string; topic: string; groupFromMapping: boolean; mapping: RequestMapping }> {
  const info = await readMapping({ lambda, uuid, deadline: Date.now() + READ_MAPPING_MS });
  const checked = checkMapping(info, { groupId: request.group, topic, atRest: request.execute });
  return { ...checked, mapping: { lambda, uuid: info.uuid, state: info.state } };
}

/**
 * Plans the request (dry run) or, with `execute: true`, executes it — through the mapping when there is
 * one — and answers with the successful {@link ReplayOutcome}; errors are thrown for the caller to
 * describe.
 *
 * @example
 * ```ts
 * const { target, partitions } = requestTarget(request, topic);
 * const outcome = await runReplayRequest({ kafka, request, groupId, topic, target, partitions });
 * ```
 */
export async function runReplayRequest({
  kafka,
  request,
  groupId,
  topic,
  target,
  partitions,
  mapping,
  execution,
}: {
  kafka: ReplayKafka;
  request: ReplayRequest;
  groupId: string;
  topic: string;
  target: ReplayTarget;
  partitions?: number[];
  mapping?: RequestMapping;
  /** Bounds and progress of an execution (unused by a dry run). */
  execution?: Pick<ExecuteRequest, 'timeouts' | 'deadline' | 'signal' | 'onProgress'>;
}): Promise<Extract<ReplayOutcome, { ok: true }>> {
  if (!request.execute) {
    const plan = await planReplay({
      kafka,
      groupId,
      topic,
      target,
      partitions,
      strict: request.strict,
    });
    const state = mapping && { uuid: mapping.uuid, stateBefore: mapping.state, stateAfter: mapping.state };
    return { ok: true, executed: false, groupId, topic, mapping: state ?? null, plan };
  }
  const result = await executeReplay({
    kafka,
    groupId,
    topic,
    target,
    partitions,
    strict: request.strict,
    reason: request.reason,
    ...(mapping && { mapping: { lambda: mapping.lambda, uuid: mapping.uuid } }),
    ...execution,
  });
  return {
    ok: true,
    executed: true,
    groupId,
    topic,
    mapping: result.mapping,
    plan: result.plan,
    steps: result.steps,
  };
}
