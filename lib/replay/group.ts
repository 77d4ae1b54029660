import type { Admin, GroupDescription } from 'kafkajs';
import { REPLAY_PROTOCOL } from './connection.ts';
import { GroupNotEmptyError, ReplayConflictError, ReplayTimeoutError } from './errors.ts';
import { pollUntil, type WaitOptions } from './wait.ts';

/**
 * A consumer group's state as the coordinator reports it; `heldByReplay` when its members are a replay
 * holding it (see `ReplayKafka.holdGroup`).
 *
 * @example
 * ```ts
 * const { state, members } = await describeGroup(admin, 'orders-fn'); // { state: 'Empty', members: 0, heldByReplay: false }
 * ```
 */
export async function describeGroup(
  admin: Admin,
  groupId: string,
): Promise<{ state: string; members: number; heldByReplay: boolean }> {
  const { groups } = await admin.describeGroups([groupId]);
  const group = groups[0];
  return {
    state: group?.state ?? 'Unknown',
    members: group?.members.length ?? 0,
    heldByReplay: isHeldByReplay(group),
  };
}

/**
 * True when the group's members are a replay holding it (or joining to): the replay's protocol once
 * stable, its client id while rebalancing (Kafka describes no protocol then).
 *
 * @example
 * ```ts
 * const held = isHeldByReplay((await admin.describeGroups([groupId])).groups[0]);
 * ```
 */
export function isHeldByReplay(group: GroupDescription | undefined): boolean {
  if (!group || group.members.length === 0) return false;
  return group.protocol === REPLAY_PROTOCOL || group.members.every((m) => m.clientId === REPLAY_PROTOCOL);
}

/**
 * Refuses to touch a group that has members: {@link ReplayConflictError} when they are another replay
 * holding it, {@link GroupNotEmptyError} otherwise.
 *
 * @example
 * ```ts
 * refuseUnlessInactive('orders-fn', await describeGroup(admin, 'orders-fn'));
 * ```
 */
export function refuseUnlessInactive(
  groupId: string,
  group: { state: string; members: number; heldByReplay?: boolean },
): void {
  if (group.heldByReplay) {
    throw new ReplayConflictError(
      groupId,
      'another replay holds the group right now; nothing was changed by this one',
    );
  }
  if (!isGroupInactive(group)) throw new GroupNotEmptyError(groupId, group.state, group.members);
}

/**
 * True when nobody consumes in the group, so its offsets may be moved (Kafka's own rule for
 * `--reset-offsets` and for commits without a member id).
 *
 * @example
 * ```ts
 * if (!isGroupInactive(await describeGroup(admin, 'g'))) throw new Error('stop the consumers first');
 * ```
 */
export function isGroupInactive(group: { state: string; members: number }): boolean {
  return (group.state === 'Empty' || group.state === 'Dead') && group.members === 0;
}

/**
 * Waits (bounded) until the group has no members: after a mapping is disabled, Lambda's pollers leave
 * the group, at the latest when their session times out. Another replay holding the group is not waited
 * for: it is a conflict.
 *
 * @throws {GroupNotEmptyError} when the group still has members at the deadline
 * @throws {ReplayConflictError} when another replay holds the group
 * @example
 * ```ts
 * await waitForEmptyGroup({ admin, groupId: 'g', timeoutMs: 120_000, intervalMs: 1_000 });
 * ```
 */
export async function waitForEmptyGroup({
  admin,
  groupId,
  onProgress,
  ...options
}: WaitOptions & { admin: Admin; groupId: string; onProgress?: (message: string) => void }): Promise<void> {
  let last = { state: 'Unknown', members: 0, heldByReplay: false };
  try {
    await pollUntil(
      `group ${groupId} to have no members`,
      options,
      async () => {
        last = await describeGroup(admin, groupId);
        if (last.heldByReplay) refuseUnlessInactive(groupId, last);
        return { done: isGroupInactive(last), seen: `${last.state}, ${last.members} member(s)` };
      },
      (seen, ms) => onProgress?.(`group ${groupId}: ${seen} (${Math.round(ms / 1000)} s)`),
    );
  } catch (error) {
    if (error instanceof ReplayTimeoutError) {
      throw new GroupNotEmptyError(groupId, last.state, last.members, options.timeoutMs, { cause: error });
    }
    throw error;
  }
}
