/**
 * The replay function: moves the consumer group of a Kafka trigger (event source mapping) to an offset, a
 * time or a plan file, as `kafka-lambda replay --function <name>` asks. Dry run unless `execute: true`.
 *
 * Input: a replay request (lib/replay/request.ts), e.g.
 *   { "toDatetime": "2026-11-29T10:00:00Z", "execute": true, "reason": "INC-42" }
 *   { "mapping": "<uuid>", "topic": "orders", "partitions": [0, 3], "shiftBy": -100 }
 *   { "group": "reports", "topic": "orders", "fromFile": "orders,0,1041\norders,1,977" }
 * Output: { ok: true, executed, groupId, topic, mapping, plan, steps? } or { ok: false, error: { name, kind,
 * message, issues?, report? } } — `kind` is invalid | refused | failed | failed-unrestored | conflict | error. Messages
 * of the replay's own errors and of AWS service errors are passed on; any other error is answered (and
 * logged) by its name and error code only, as its message may quote a secret. In the plan, a partition
 * where the group has no committed offset is counted from the mapping's StartingPosition; without a
 * mapping its `redeliver` and `skip` are null and `plan.totals.unknown` counts it.
 *
 * Environment variables:
 * - REPLAY_MAPPING_UUID       allowed event source mapping UUIDs (comma-separated); the first is the default
 *                             when a request names neither mapping nor group.
 * - REPLAY_CONSUMER_GROUP_ID  allowed consumer group ids (comma-separated). Optional with a mapping (if set,
 *                             it must contain the mapping's group); required for requests without a mapping,
 *                             and for a mapping whose GetEventSourceMapping reports no ConsumerGroupId (the
 *                             request's "group" must then be on it). A request's "group" must equal the
 *                             group its mapping reports.
 * - REPLAY_ALLOWED_TOPICS     allowed topics (comma-separated); same rule as the groups.
 * - KAFKA_BOOTSTRAP_SERVERS   brokers (comma-separated), or
 * - KAFKA_CLUSTER_ARN         an MSK cluster whose brokers are looked up (kafka:GetBootstrapBrokers).
 * - KAFKA_AUTH                iam | sasl-scram-512 | sasl-scram-256 | basic | mtls | tls | none (default none).
 * - KAFKA_SECRET_ARN          Secrets Manager secret (JSON text) for sasl-* / basic ({username, password})
 *                             and mtls ({certificate, privateKey, privateKeyPassword?}), the formats Lambda's
 *                             Kafka triggers use.
 * - KAFKA_ROOT_CA_SECRET_ARN  optional Secrets Manager secret {certificate} with the root CA of a
 *                             self-managed cluster's TLS certificates (as the trigger's SERVER_ROOT_CA_CERTIFICATE;
 *                             also with mtls).
 * - REPLAY_MAPPING_TIMEOUT_MS, REPLAY_GROUP_TIMEOUT_MS, REPLAY_RESTORE_TIMEOUT_MS, REPLAY_POLL_INTERVAL_MS
 *                             optional bounds (defaults 300000, 300000, 300000, 2000). The function's remaining
 *                             time (less 15 s to answer) caps every step, Kafka requests included, keeping
 *                             REPLAY_RESTORE_TIMEOUT_MS (and 5 s for the failure report) to restore the mapping;
 *                             the restore itself ends by then too (REPLAY_MAPPING_TIMEOUT_MS does not shorten it:
 *                             it is the safety net). A failure report says how long the restore tried. An execution whose waits would get less than
 *                             min(60 s, REPLAY_MAPPING_TIMEOUT_MS) is refused (NotEnoughTimeError) before the
 *                             mapping is touched: e.g. a 5-minute timeout with the default bounds.
 * - AWS_REGION                set by Lambda.
 *
 * AWS API calls: each is bounded (an answer within 15 s per attempt; GetEventSourceMapping before the plan
 * within 30 s or REPLAY_MAPPING_TIMEOUT_MS, the mapping's updates within their step's bound, Secrets
 * Manager and MSK within 30 s): an endpoint that never answers ends in an AwsApiTimeoutError naming the
 * call and what to check, not in the function's timeout. In a VPC, the function reaches these APIs through
 * a NAT gateway or interface VPC endpoints: lambda, and secretsmanager (KAFKA_SECRET_ARN,
 * KAFKA_ROOT_CA_SECRET_ARN) or kafka (KAFKA_CLUSTER_ARN) when used.
 *
 * Role: lambda:GetEventSourceMapping + lambda:UpdateEventSourceMapping on the mapping; with MSK IAM
 * kafka-cluster:Connect (cluster), DescribeTopic + ReadData (topics), DescribeGroup + AlterGroup (group);
 * kafka:GetBootstrapBrokers with KAFKA_CLUSTER_ARN; secretsmanager:GetSecretValue (+ kms:Decrypt for a
 * customer key) on KAFKA_SECRET_ARN and KAFKA_ROOT_CA_SECRET_ARN.
 * Timeout: long enough for a mapping to disable and re-enable plus REPLAY_RESTORE_TIMEOUT_MS (15 minutes with
 * the default bounds).
 */
import { LambdaClient } from '@aws-sdk/client-lambda';
import { awsApiClientConfig } from '../../lib/replay/aws-api.ts';
import {
  describeReplayError,
  parseReplayRequest,
  ReplayInputError,
  type ReplayOutcome,
  requestTopic,
  runReplay,
} from '../../lib/replay/index.ts';
import { type ReplayFunctionConfig, ReplayNotAllowedError, replayConfigFromEnv } from './config.ts';

/**
 * The replay function's answer (the same JSON `kafka-lambda replay --json` prints).
 *
 * @example
 * ```ts
 * const result: ReplayFunctionResult = await handler({ toEarliest: true });
 * if (result.ok) console.table(result.plan.partitions);
 * ```
 */
export type ReplayFunctionResult = ReplayOutcome;

/** Time kept back from the Lambda timeout to answer (and log) after a bounded wait gave up. */
const ANSWER_MARGIN_MS = 15_000;

/**
 * Builds the handler from its configuration and Lambda API client (tests pass their own).
 *
 * @example
 * ```ts
 * const handle = createReplayHandler({ config: replayConfigFromEnv(process.env), lambda: new LambdaClient({}) });
 * ```
 */
export function createReplayHandler({
  config,
  lambda,
  log = (line) => console.log(JSON.stringify(line)),
}: {
  config: ReplayFunctionConfig;
  lambda: LambdaClient;
  /** Receives one structured log line per step and per outcome (never record payloads or secrets). */
  log?: (line: Record<string, unknown>) => void;
}) {
  return async (
    event: unknown,
    context?: { getRemainingTimeInMillis(): number },
  ): Promise<ReplayFunctionResult> => {
    try {
      const parsed = parseReplayRequest(event);
      if (
        parsed.group !== undefined &&
        parsed.mapping === undefined &&
        requestTopic(parsed) === undefined &&
        config.mappings.length > 0
      ) {
        throw new ReplayInputError(
          'a request with "group" and no "mapping" does not use the default mapping (REPLAY_MAPPING_UUID): give "topic" to replay that group on its own, or "mapping" to replay the group of an event source mapping',
        );
      }
      const uuid = parsed.mapping ?? (parsed.group === undefined ? config.mappings[0] : undefined);
      if (uuid !== undefined && !config.mappings.includes(uuid)) {
        throw new ReplayNotAllowedError(`mapping ${uuid} is not allowed here`);
      }
      const request = uuid === undefined ? parsed : { ...parsed, mapping: uuid };
      const remaining = request.execute ? context?.getRemainingTimeInMillis() : undefined;
      const outcome = await runReplay(request, {
        connection: config.connection,
        lambda,
        // A group the mapping does not report is only the request's word: it must be on the allow-list.
        authorize: ({ groupId, topic, groupFromMapping }) => {
          allow(
            config.groups,
            groupId,
            'consumer group',
            !groupFromMapping,
            uuid === undefined
              ? undefined
              : `mapping ${uuid} reports no ConsumerGroupId, so the group must be on REPLAY_CONSUMER_GROUP_ID`,
          );
          allow(config.topics, topic, 'topic', uuid === undefined);
        },
        timeouts: config.timeouts,
        ...(remaining !== undefined && { deadline: Date.now() + remaining - ANSWER_MARGIN_MS }),
        onProgress: (p) => log({ replay: p.step, message: p.message }),
      });
      if (outcome.executed) {
        log({ replay: 'done', groupId: outcome.groupId, topic: outcome.topic, totals: outcome.plan.totals });
      }
      return outcome;
    } catch (error) {
      const described = describeReplayError(error);
      log({ replay: 'failed', error: described });
      return { ok: false, error: described };
    }
  };
}

function allow(allowed: string[], value: string, what: string, required: boolean, why?: string): void {
  if ((required || allowed.length > 0) && !allowed.includes(value)) {
    throw new ReplayNotAllowedError(`${what} "${value}" is not allowed here${why ? ` (${why})` : ''}`);
  }
}

let configured: ReturnType<typeof createReplayHandler> | undefined;

/**
 * The Lambda entry point (configuration read from the environment on first invocation).
 *
 * @example
 * ```ts
 * // aws lambda invoke --function-name replay --payload '{"toEarliest":true}' out.json
 * ```
 */
export async function handler(
  event: unknown,
  context?: { getRemainingTimeInMillis(): number },
): Promise<ReplayFunctionResult> {
  try {
    configured ??= createReplayHandler({
      config: replayConfigFromEnv(process.env),
      // A hung Lambda API call must not eat the replay's time budget: each attempt fails after its
      // request timeout and each call is abandoned at its step's bound, naming the call.
      lambda: new LambdaClient(awsApiClientConfig()),
    });
  } catch (error) {
    return { ok: false, error: describeReplayError(error) };
  }
  return configured(event, context);
}
