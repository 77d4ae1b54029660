// The replay pipeline: what the replay function and `kafka-lambda replay --brokers` both do with a parsed
// request — read the event source mapping it names, resolve the group, topic and target, connect to the
// cluster, then plan it (dry run) or execute it, answering with the outcome.
import type { LambdaClient } from '@aws-sdk/client-lambda';
import { connectReplayKafka } from './connection.ts';
import { ReplayInputError } from './errors.ts';
import { type ExecuteRequest, executeReplay } from './execute.ts';
import type { KafkaConnection } from './kafka-config.ts';
import { checkMapping, readMapping } from './mapping.ts';
import type { ReplayOutcome } from './outcome.ts';
import { planReplay } from './plan.ts';
import { type ReplayRequest, requestTarget, requestTopic } from './request.ts';
import type { StartingPosition } from './types.ts';

/**
 * How long reading the mapping before anything else may take, throttling retries included (a shorter
 * `timeouts.mappingMs` shortens it).
 */
const READ_MAPPING_MS = 30_000;

/**
 * What a request resolved to, before anything connects to the cluster: the group and topic to replay,
 * and the event source mapping they come from (if any).
 *
 * @example
 * ```ts
 * const scope: ReplayScope = { groupId: 'orders-fn', topic: 'orders', mapping: '14e0db71-…', groupFromMapping: true };
 * ```
 */
export interface ReplayScope {
  groupId: string;
  topic: string;
  /** The UUID of the event source mapping the request names. */
  mapping?: string;
  /**
   * False when the group is only the request's word: without a mapping, or for a mapping that reports no
   * `ConsumerGroupId`. An allow-list must then contain it.
   */
  groupFromMapping: boolean;
}

/**
 * How {@link runReplay} reaches the cluster and the Lambda API, and the bounds of an execution.
 *
 * @example
 * ```ts
 * const options: RunReplayOptions = { connection: { brokers: ['b-1:9096'] }, lambda: new LambdaClient({}) };
 * ```
 */
export interface RunReplayOptions
  extends Pick<ExecuteRequest, 'timeouts' | 'deadline' | 'signal' | 'onProgress'> {
  /**
   * Where and how to connect; a function is called only once the request has been checked (so that, e.g.,
   * secrets are read only for a request that is allowed).
   */
  connection: KafkaConnection | (() => Promise<KafkaConnection>);
  /** The Lambda API client, for a request that names an event source mapping. */
  lambda?: LambdaClient;
  /**
   * Called with what the request resolved to before the cluster is connected: throw (e.g. a
   * {@link ReplayRefusedError}) to refuse it.
   */
  authorize?: (scope: ReplayScope) => void;
}

/**
 * Runs one replay request, end to end: reads the event source mapping it names (checked: a Kafka mapping,
 * at rest unless a dry run, on the group and topic the request gives, if any), resolves the target,
 * connects to the cluster, then plans it (dry run) or, with `execute: true`, executes it — disabling and
 * re-enabling the mapping around the change. Answers with the successful {@link ReplayOutcome}; errors
 * are thrown, for {@link describeReplayError} to turn into the failed one. `timeouts`, `deadline`,
 * `signal` and `onProgress` bound and report an execution (a dry run only reads).
 *
 * @throws {ReplayInputError} no mapping and no group or topic, or a mapping without a Lambda client
 * @throws {ReplayError} or one of its subclasses, as {@link planReplay} and {@link executeReplay}
 * @example
 * ```ts
 * const outcome = await runReplay(parseReplayRequest({ mapping: '14e0db71-…', byDuration: 'PT1H', execute: true }), {
 *   connection: { brokers: ['b-1:9098'], auth: { type: 'iam', region: 'eu-west-1' } },
 *   lambda: new LambdaClient({}),
 *   onProgress: (p) => console.error(`${p.step}: ${p.message}`),
 * });
 * console.log(`${outcome.plan.totals.redeliver} record(s) will be delivered again`);
 * ```
 */
export async function runReplay(
  request: ReplayRequest,
  { connection, lambda, authorize, ...execution }: RunReplayOptions,
): Promise<Extract<ReplayOutcome, { ok: true }>> {
  let groupId = request.group;
  let topic = requestTopic(request);
  let groupFromMapping = false;
  let mapping:
    | { lambda: LambdaClient; uuid: string; state: string; startingPosition: StartingPosition | undefined }
    | undefined;
  if (request.mapping !== undefined) {
    if (!lambda) {
      throw new ReplayInputError(`mapping ${request.mapping}: a Lambda API client is needed to control it`);
    }
    // Bounded by the shortest of its own bound, the mapping waits' and the caller's deadline: an API
    // endpoint that never answers ends here, naming the call.
    const info = await readMapping({
      lambda,
      uuid: request.mapping,
      deadline: Math.min(
        Date.now() + Math.min(READ_MAPPING_MS, execution.timeouts?.mappingMs ?? READ_MAPPING_MS),
        execution.deadline ?? Number.POSITIVE_INFINITY,
      ),
      signal: execution.signal,
    });
    ({ groupId, topic, groupFromMapping } = checkMapping(info, {
      groupId: request.group,
      topic,
      atRest: request.execute,
    }));
    mapping = { lambda, uuid: info.uuid, state: info.state, startingPosition: info.startingPosition };
  }
  if (groupId === undefined || topic === undefined) {
    const missing = [groupId === undefined && '"group"', topic === undefined && '"topic"'].filter(Boolean);
    throw new ReplayInputError(
      `a request without "mapping" needs ${missing.join(' and ')} (or "mapping", to replay the group of an event source mapping)`,
    );
  }
  authorize?.({ groupId, topic, mapping: request.mapping, groupFromMapping });
  const { target, partitions } = requestTarget(request, topic);

  const kafka = await connectReplayKafka(typeof connection === 'function' ? await connection() : connection);
  try {
    if (!request.execute) {
      const plan = await planReplay({
        kafka,
        groupId,
        topic,
        target,
        partitions,
        strict: request.strict,
        startingPosition: mapping?.startingPosition,
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
  } finally {
    await kafka.disconnect();
  }
}
