import type { Admin } from 'kafkajs';
import { GroupNotEmptyError, ReplayTimeoutError } from './errors.ts';
import { pollUntil, type WaitOptions } from './wait.ts';

/**
 * A consumer group's state as the coordinator reports it.
 *
 * @example
 * ```ts
 * const { state, members } = await describeGroup(admin, 'orders-fn'); // { state: 'Empty', members: 0 }
 * ```
 */
export async function describeGroup(
  admin: Admin,
  groupId: string,
): Promise<{ state: string; members: number }> {
  const { groups } = await admin.describeGroups([groupId]);
  const group = groups[0];
  return { state: group?.state ?? 'Unknown', members: group?.members.length ?? 0 };
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
 * the group, at the latest when their session times out.
 *
 * @throws {GroupNotEmptyError} when the group still has members at the deadline
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
  let last = { state: 'Unknown', members: 0 };
  try {
    await pollUntil(
      `group ${groupId} to have no members`,
      options,
      async () => {
        last = await describeGroup(admin, groupId);
        return { done: isGroupInactive(last), seen: `${last.state}, ${last.members} member(s)` };
      },
      (seen, ms) => onProgress?.(`group ${groupId}: ${seen} (${Math.round(ms / 1000)} s)`),
    );
  } catch (error) {
    if (error instanceof ReplayTimeoutError) {
      throw new GroupNotEmptyError(groupId, last.state, last.members, options.timeoutMs);
    }
    throw error;
  }
}
