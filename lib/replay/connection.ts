import { type Admin, AssignerProtocol, type Broker, type Cluster, Kafka, type KafkaConfig } from 'kafkajs';
import { GroupNotEmptyError, ReplayConflictError, ReplayConnectionError } from './errors.ts';
import { type KafkaConnection, kafkaClientConfig } from './kafka-config.ts';

/**
 * One offset to commit, with the metadata string Kafka stores beside it.
 *
 * @example
 * ```ts
 * const entry: OffsetToCommit = { partition: 0, offset: 1041, metadata: '{"replay":…}' };
 * ```
 */
export interface OffsetToCommit {
  partition: number;
  offset: number;
  metadata: string;
}

/**
 * The protocol (assignor) name a replay joins a consumer group with while it holds it. A group's members
 * must share a protocol, so while a replay holds the group, consumers (Lambda's pollers, whose assignors
 * are `range`, `cooperative-sticky`, …) cannot join it. `describeGroups` names the holder: by this
 * protocol once the group is stable, by its members' client id (also this name) while it is rebalancing.
 * The protocol type stays `consumer` with an empty subscription, so Kafka's own tools still describe the
 * group.
 *
 * @example
 * ```ts
 * const held = (await admin.describeGroups([groupId])).groups[0]?.protocol === REPLAY_PROTOCOL;
 * ```
 */
export const REPLAY_PROTOCOL = 'kafka-lambda-replay';

/**
 * Membership of a consumer group held by one replay (see {@link ReplayKafka.holdGroup}): the broker refuses
 * the commits of anybody else (another replay's member-less commit gets UNKNOWN_MEMBER_ID) until it is
 * released or its session expires.
 *
 * @example
 * ```ts
 * await using hold = await kafka.holdGroup({ groupId: 'orders-fn' });
 * await kafka.commitOffsets({ groupId: 'orders-fn', topic: 'orders', offsets, hold });
 * ```
 */
export interface GroupHold extends AsyncDisposable {
  readonly groupId: string;
  readonly memberId: string;
  readonly generationId: number;
  /** Leaves the group (best effort: an expired session has left it already). */
  release(): Promise<void>;
}

/**
 * The replay core's handle on a cluster: a kafkajs admin for reading, offsets listed as Kafka's own tools
 * list them, a group hold, and a commit that sets every partition's offset and metadata in ONE
 * OffsetCommit request.
 *
 * @example
 * ```ts
 * await using kafka = await connectReplayKafka({ brokers: ['127.0.0.1:9092'] });
 * const plan = await planReplay({ kafka, groupId: 'g', topic: 'orders', target: { kind: 'earliest' } });
 * ```
 */
export interface ReplayKafka extends AsyncDisposable {
  readonly admin: Admin;
  /**
   * Every partition's offset at the log start, the log end, or the first record at or after a time, read
   * uncommitted as `kafka-consumer-groups --reset-offsets` reads them (the log end is the high watermark,
   * past any open transaction, not the last stable offset). A time after the last record gives null.
   */
  listOffsets(input: {
    topic: string;
    at: 'earliest' | 'latest' | number;
  }): Promise<Map<number, number | null>>;
  /**
   * Joins the (empty) group as its only member with the {@link REPLAY_PROTOCOL}, and heartbeats until
   * released. Refused with {@link ReplayConflictError} when another replay joined at the same time (the
   * coordinator's leader wins; the others leave), with {@link GroupNotEmptyError} when consumers hold it.
   */
  holdGroup(input: { groupId: string }): Promise<GroupHold>;
  /**
   * Commits all offsets at once. With `hold`, as the holding member: a hold lost meanwhile (a rebalance
   * the replay did not win, an expired session) is refused by the broker ({@link ReplayConflictError}).
   * Without, as a "simple" (non-member) commit: generation -1, empty member id, which Kafka accepts only
   * while the group has no members and checks under the group's lock, so a poller re-joining between our
   * check and the commit makes the broker refuse it ({@link GroupNotEmptyError}) instead of racing it.
   */
  commitOffsets(input: {
    groupId: string;
    topic: string;
    offsets: OffsetToCommit[];
    hold?: GroupHold;
  }): Promise<void>;
  /** Broker requests sent so far (every Kafka protocol request, both connections). */
  requestCount(): number;
  disconnect(): Promise<void>;
}

// Broker errors that mean "the group has (or is getting) members", for a commit without a member id.
const GROUP_ACTIVE = new Set(['UNKNOWN_MEMBER_ID', 'ILLEGAL_GENERATION', 'REBALANCE_IN_PROGRESS']);
// Coordinator moved or is loading: find it again and resend (joins and commits are idempotent).
const COORDINATOR_MOVED = new Set([
  'NOT_COORDINATOR_FOR_GROUP',
  'GROUP_COORDINATOR_NOT_AVAILABLE',
  'GROUP_LOAD_IN_PROGRESS',
]);
/**
 * A hold's session: the broker drops a holder that stopped heartbeating (a killed process) after this
 * long, and a replay joining meanwhile waits at most this long (the rebalance timeout) for the holder.
 * Below kafkajs' 30 s request timeout, so that a blocked JoinGroup answers before it times out.
 */
const HOLD_SESSION_MS = 20_000;
const HOLD_HEARTBEAT_MS = 2_000;
/** Rebalances a hold sits through (another replay joining and leaving) before giving up. */
const HOLD_ATTEMPTS = 5;
// A consumer's subscription and assignment, empty: what a holder that reads nothing says in Kafka's terms.
const NO_SUBSCRIPTION = AssignerProtocol.MemberMetadata.encode({
  version: 0,
  topics: [],
  userData: Buffer.alloc(0),
});
const NO_ASSIGNMENT = AssignerProtocol.MemberAssignment.encode({
  version: 0,
  assignment: {},
  userData: Buffer.alloc(0),
});
// kafkajs' isolation levels (Kafka's ListOffsets isolation_level): 0 = READ_UNCOMMITTED.
const READ_UNCOMMITTED = 0;

/** The group coordinator calls kafkajs' Broker implements but does not declare. */
interface GroupCoordinator {
  joinGroup(request: {
    groupId: string;
    sessionTimeout: number;
    rebalanceTimeout: number;
    memberId: string;
    protocolType: string;
    groupProtocols: { name: string; metadata: Buffer }[];
  }): Promise<{ generationId: number; leaderId: string; memberId: string; members: { memberId: string }[] }>;
  syncGroup(request: {
    groupId: string;
    generationId: number;
    memberId: string;
    groupAssignment: { memberId: string; memberAssignment: Buffer }[];
  }): Promise<unknown>;
  heartbeat(request: { groupId: string; groupGenerationId: number; memberId: string }): Promise<unknown>;
  leaveGroup(request: { groupId: string; memberId: string }): Promise<unknown>;
}

const errorType = (error: unknown) => (error as { type?: string }).type ?? '';

/**
 * Connects the admin client (the second connection, for listing offsets, holds and commits, opens on first
 * use).
 *
 * @example
 * ```ts
 * const kafka = await connectReplayKafka({ brokers: ['b-1:9098'], auth: { type: 'iam', region: 'eu-west-1' } });
 * try { … } finally { await kafka.disconnect(); }
 * ```
 */
export async function connectReplayKafka(connection: KafkaConnection): Promise<ReplayKafka> {
  const config = kafkaClientConfig(connection);
  const kafka = new Kafka(config);
  // The hold, commit and offset requests go out under the replay's own client id, which is how a
  // rebalancing group's members are recognised as a replay.
  const own = new Kafka({ ...config, clientId: REPLAY_PROTOCOL });
  await probe(config);
  let requests = 0;
  const admin = kafka.admin();
  admin.on(admin.events.REQUEST, () => {
    requests++;
  });
  await admin.connect();

  let cluster: Cluster | undefined;
  const ownCluster = async (): Promise<Cluster> => {
    if (!cluster) {
      cluster = createCluster(own, () => {
        requests++;
      });
      await cluster.connect();
    }
    return cluster;
  };

  /** Runs `action` against the group's coordinator, finding it again when it moved. */
  const withCoordinator = async <T>(groupId: string, action: (coordinator: Broker) => Promise<T>) => {
    const target = await ownCluster();
    for (let attempt = 1; ; attempt++) {
      try {
        return await action(await target.findGroupCoordinator({ groupId }));
      } catch (error) {
        if (!COORDINATOR_MOVED.has(errorType(error)) || attempt === 5) throw error;
        await target.refreshMetadata();
        await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
      }
    }
  };

  const listOffsets: ReplayKafka['listOffsets'] = async ({ topic, at }) => {
    const target = await ownCluster();
    await target.addTargetTopic(topic);
    await target.refreshMetadataIfNecessary();
    const partitions = target.findTopicPartitionMetadata(topic).map((p) => ({ partition: p.partitionId }));
    const spec =
      at === 'earliest'
        ? { fromBeginning: true }
        : at === 'latest'
          ? { fromBeginning: false }
          : { fromTimestamp: at };
    const [listed] = await target.fetchTopicsOffset([{ topic, partitions, ...spec } as never]);
    return new Map(
      (listed?.partitions ?? []).map((p) => [p.partition, Number(p.offset) >= 0 ? Number(p.offset) : null]),
    );
  };

  const holdGroup: ReplayKafka['holdGroup'] = ({ groupId }) =>
    withCoordinator(groupId, async (broker) => {
      const coordinator = broker as unknown as GroupCoordinator;
      let memberId = '';
      const leave = () =>
        memberId === '' ? Promise.resolve() : coordinator.leaveGroup({ groupId, memberId }).catch(() => {});
      for (let attempt = 1; ; attempt++) {
        let joined: Awaited<ReturnType<GroupCoordinator['joinGroup']>>;
        try {
          joined = await coordinator.joinGroup({
            groupId,
            sessionTimeout: HOLD_SESSION_MS,
            rebalanceTimeout: HOLD_SESSION_MS,
            memberId,
            protocolType: 'consumer',
            groupProtocols: [{ name: REPLAY_PROTOCOL, metadata: NO_SUBSCRIPTION }],
          });
        } catch (error) {
          await leave();
          if (errorType(error) === 'INCONSISTENT_GROUP_PROTOCOL') {
            throw new GroupNotEmptyError(
              groupId,
              'in use by consumers (the broker refused to let the replay join)',
              null,
              undefined,
              { cause: error },
            );
          }
          throw error;
        }
        memberId = joined.memberId;
        if (joined.leaderId !== joined.memberId) {
          await leave();
          throw new ReplayConflictError(
            groupId,
            'another replay joined the group at the same time and holds it; nothing was changed by this one',
          );
        }
        try {
          await coordinator.syncGroup({
            groupId,
            generationId: joined.generationId,
            memberId,
            groupAssignment: joined.members.map((m) => ({
              memberId: m.memberId,
              memberAssignment: NO_ASSIGNMENT,
            })),
          });
        } catch (error) {
          // Somebody joined (or left) between our join and sync: join the next generation.
          if (errorType(error) === 'REBALANCE_IN_PROGRESS' && attempt < HOLD_ATTEMPTS) continue;
          await leave();
          throw error;
        }
        const { generationId } = joined;
        const heartbeat = setInterval(() => {
          coordinator.heartbeat({ groupId, groupGenerationId: generationId, memberId }).catch(() => {});
        }, HOLD_HEARTBEAT_MS);
        heartbeat.unref();
        let released: Promise<void> | undefined;
        const release = () => {
          released ??= (async () => {
            clearInterval(heartbeat);
            await leave();
          })();
          return released;
        };
        return { groupId, memberId, generationId, release, [Symbol.asyncDispose]: release };
      }
    });

  const commitOffsets: ReplayKafka['commitOffsets'] = async ({ groupId, topic, offsets, hold }) => {
    const topics = [
      {
        topic,
        partitions: offsets.map((o) => ({
          partition: o.partition,
          offset: String(o.offset),
          metadata: o.metadata,
        })),
      },
    ];
    try {
      await withCoordinator(groupId, (coordinator) =>
        coordinator.offsetCommit({
          groupId,
          groupGenerationId: hold?.generationId ?? -1,
          memberId: hold?.memberId ?? '',
          topics,
        }),
      );
    } catch (error) {
      const type = errorType(error);
      if (!GROUP_ACTIVE.has(type)) throw error;
      if (hold) {
        throw new ReplayConflictError(
          groupId,
          `the replay lost its hold on the group before committing (the broker refused the commit: ${type}); nothing was changed by this one`,
          { cause: error },
        );
      }
      throw new GroupNotEmptyError(
        groupId,
        `active (the broker refused the commit: ${type})`,
        null,
        undefined,
        {
          cause: error,
        },
      );
    }
  };

  // Closing is best effort: a failed disconnect must not replace the outcome of the replay it ends.
  const disconnect = async () => {
    await Promise.allSettled([admin.disconnect(), cluster?.disconnect()]);
  };
  return {
    admin,
    listOffsets,
    holdGroup,
    commitOffsets,
    requestCount: () => requests,
    disconnect,
    [Symbol.asyncDispose]: disconnect,
  };
}

/** The first connection's bound on a server that accepts but never answers the Kafka handshake. */
const PROBE_REQUEST_MS = 10_000;
// Node's codes for "nothing to connect to there", as kafkajs passes them on.
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/**
 * One connection attempt without kafkajs' retries (which take 10 s and more to give up): a cluster that
 * cannot be reached, or a server that does not speak Kafka (or not the configured TLS/SASL), is reported
 * at once as a {@link ReplayConnectionError}. Errors of other kinds are passed on.
 */
async function probe(config: KafkaConfig): Promise<void> {
  const admin = new Kafka({ ...config, requestTimeout: PROBE_REQUEST_MS, retry: { retries: 0 } }).admin();
  const where = config.brokers as string[];
  try {
    await admin.connect();
  } catch (error) {
    const cause = (error as { cause?: unknown }).cause ?? error;
    const name = (cause as Error).name ?? '';
    const code = (cause as { code?: string }).code ?? '';
    const at = `Kafka at ${where.join(',')}`;
    if (UNREACHABLE.has(code))
      throw new ReplayConnectionError(`cannot reach ${at} (${code})`, { cause: error });
    if (name === 'KafkaJSSASLAuthenticationError') {
      throw new ReplayConnectionError(`${at} refused the SASL credentials (authentication failed)`, {
        cause: error,
      });
    }
    if (name.startsWith('KafkaJS') || code === 'ECONNRESET' || code === 'EPROTO') {
      throw new ReplayConnectionError(
        `${at} did not answer as a Kafka broker (${code || name}): check the address and port, and that the authentication (plaintext, TLS, SASL) matches the listener`,
        { cause: error },
      );
    }
    throw error;
  } finally {
    await admin.disconnect().catch(() => {});
  }
}

/**
 * kafkajs has no public API for an OffsetCommit outside a group membership, nor for a group membership
 * that is not a consumer, nor for read-uncommitted offsets from an admin, but its (frozen: 2.2.4 is the
 * last release) client builds clusters through one private factory; using it keeps every connection
 * setting (TLS, SASL incl. OAUTHBEARER, timeouts) identical to the admin's.
 */
function createCluster(kafka: Kafka, onRequest: () => void): Cluster {
  const factory = Object.getOwnPropertySymbols(kafka).find(
    (s) => s.description === 'private:Kafka:createCluster',
  );
  const create = factory && (kafka as unknown as Record<symbol, unknown>)[factory];
  if (typeof create !== 'function') {
    throw new Error('this kafkajs version has no cluster factory; the replay core needs kafkajs 2.2.x');
  }
  const instrumentationEmitter = {
    emit: (eventName: string) => {
      if (eventName === 'network.request') onRequest();
    },
  };
  return create({
    instrumentationEmitter,
    allowAutoTopicCreation: false,
    isolationLevel: READ_UNCOMMITTED,
  }) as Cluster;
}
