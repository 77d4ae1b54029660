import { type Admin, type Cluster, Kafka } from 'kafkajs';
import { GroupNotEmptyError } from './errors.ts';
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
 * The replay core's handle on a cluster: a kafkajs admin for reading, plus a commit that sets every
 * partition's offset and metadata in ONE OffsetCommit request without joining the group.
 *
 * @example
 * ```ts
 * await using kafka = await connectReplayKafka({ brokers: ['127.0.0.1:9092'] });
 * const plan = await planReplay({ admin: kafka.admin, groupId: 'g', topic: 'orders', target: { kind: 'earliest' } });
 * ```
 */
export interface ReplayKafka extends AsyncDisposable {
  readonly admin: Admin;
  /**
   * Commits all offsets at once as a "simple" (non-member) commit: generation -1, empty member id. Kafka
   * accepts that only while the group has no members and checks it under the group's lock, so a Lambda
   * poller re-joining between our check and the commit makes the broker refuse it
   * ({@link GroupNotEmptyError}) instead of racing it — unlike kafkajs `admin.setOffsets`, which joins the
   * group itself and cannot carry metadata.
   */
  commitOffsets(input: { groupId: string; topic: string; offsets: OffsetToCommit[] }): Promise<void>;
  /** Broker requests sent so far (every Kafka protocol request, both connections). */
  requestCount(): number;
  disconnect(): Promise<void>;
}

// Broker errors that mean "the group has (or is getting) members", for a commit without a member id.
const GROUP_ACTIVE = new Set(['UNKNOWN_MEMBER_ID', 'ILLEGAL_GENERATION', 'REBALANCE_IN_PROGRESS']);
// Coordinator moved or is loading: find it again and resend (the commit is idempotent).
const COORDINATOR_MOVED = new Set([
  'NOT_COORDINATOR_FOR_GROUP',
  'GROUP_COORDINATOR_NOT_AVAILABLE',
  'GROUP_LOAD_IN_PROGRESS',
]);

/**
 * Connects the admin client (the commit connection opens on first use).
 *
 * @example
 * ```ts
 * const kafka = await connectReplayKafka({ brokers: ['b-1:9098'], auth: { mechanism: 'msk-iam', region: 'eu-west-1' } });
 * try { … } finally { await kafka.disconnect(); }
 * ```
 */
export async function connectReplayKafka(connection: KafkaConnection): Promise<ReplayKafka> {
  const kafka = new Kafka(kafkaClientConfig(connection));
  let requests = 0;
  const admin = kafka.admin();
  admin.on(admin.events.REQUEST, () => {
    requests++;
  });
  await admin.connect();

  let cluster: Cluster | undefined;
  const commitCluster = async (): Promise<Cluster> => {
    if (!cluster) {
      cluster = createCluster(kafka, () => {
        requests++;
      });
      await cluster.connect();
    }
    return cluster;
  };

  const commitOffsets: ReplayKafka['commitOffsets'] = async ({ groupId, topic, offsets }) => {
    const target = await commitCluster();
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
    for (let attempt = 1; ; attempt++) {
      try {
        const coordinator = await target.findGroupCoordinator({ groupId });
        await coordinator.offsetCommit({ groupId, groupGenerationId: -1, memberId: '', topics });
        return;
      } catch (error) {
        const type = (error as { type?: string }).type ?? '';
        if (GROUP_ACTIVE.has(type))
          throw new GroupNotEmptyError(groupId, `active (the broker refused the commit: ${type})`, null);
        if (!COORDINATOR_MOVED.has(type) || attempt === 5) throw error;
        await target.refreshMetadata();
        await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
      }
    }
  };

  // Closing is best effort: a failed disconnect must not replace the outcome of the replay it ends.
  const disconnect = async () => {
    await Promise.allSettled([admin.disconnect(), cluster?.disconnect()]);
  };
  return {
    admin,
    commitOffsets,
    requestCount: () => requests,
    disconnect,
    [Symbol.asyncDispose]: disconnect,
  };
}

/**
 * kafkajs has no public API for an OffsetCommit outside a group membership, but its (frozen: 2.2.4 is the
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
  return create({ instrumentationEmitter, allowAutoTopicCreation: false }) as Cluster;
}
