import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { isAlive, processIdentity } from './process.ts';

/**
 * A lock held while one process starts a background server, so that two `start` commands at the same time
 * (in two project folders, say) launch one JVM between them: the second waits, then finds the first's
 * server recorded. Without it both launched, the state file kept the last write, and the other JVM ran on
 * unrecorded, beyond `status` and `stop`.
 */

/** What a lock file holds: its holder, told from a later process with the same pid by its start time. */
interface LockContent {
  pid: number;
  startTime: string;
  /** Milliseconds since the epoch. */
  takenAt: number;
  /** Tells this taking of the lock from any other, so that release removes only its own. */
  token: string;
}

/**
 * Options of {@link acquireStartLock}.
 *
 * @example
 * ```ts
 * const options: StartLockOptions = { staleAfterMs: 600_000, onWaiting: (pid) => console.error(`waiting for ${pid}`) };
 * ```
 */
export interface StartLockOptions {
  /** A lock taken longer ago than this is a hung start's, and taken over (default 10 minutes). */
  staleAfterMs?: number;
  /** Called once, when the lock is held by another live process and this one starts waiting. */
  onWaiting?: (holderPid: number) => void;
}

/**
 * A start lock taken by {@link acquireStartLock}.
 *
 * @example
 * ```ts
 * const lock: StartLock = await acquireStartLock(`${stateFile}.lock`);
 * try { … } finally { await lock.release(); }
 * ```
 */
export interface StartLock {
  /** Removes the lock file if it is still this taking's (a stale-lock takeover may have replaced it). */
  release(): Promise<void>;
}

/** Long enough for a first start that downloads jars or builds the registry (about 80 s), and its start timeout. */
const DEFAULT_STALE_AFTER_MS = 10 * 60_000;
const POLL_MS = 200;

/**
 * Takes the lock file `path` (exclusively created: written aside, then hard-linked into place, so a reader
 * never sees it half written), waiting while another live process holds it. A lock whose holder is gone
 * (killed during a start: no `finally` ran) or that is older than `staleAfterMs` is removed and taken.
 *
 * @example
 * ```ts
 * const lock = await acquireStartLock(join(cacheBase(), 'broker.json.lock'));
 * try { await startOrReuse(); } finally { await lock.release(); }
 * ```
 */
export async function acquireStartLock(path: string, options: StartLockOptions = {}): Promise<StartLock> {
  const staleAfterMs = options.staleAfterMs ?? DEFAULT_STALE_AFTER_MS;
  await mkdir(dirname(path), { recursive: true });
  const content: LockContent = {
    pid: process.pid,
    startTime: (await processIdentity(process.pid))?.startTime ?? '',
    takenAt: Date.now(),
    token: randomBytes(8).toString('hex'),
  };
  let waitingFor: number | undefined;
  for (;;) {
    content.takenAt = Date.now();
    if (await tryCreate(path, `${JSON.stringify(content)}\n`)) {
      return { release: () => releaseIfOwn(path, content.token) };
    }
    const held = await readFile(path, 'utf8').catch(() => undefined);
    if (held === undefined) continue; // released meanwhile: try again at once
    const holder = parseLock(held);
    if (!holder || (await isStale(holder, staleAfterMs))) {
      await removeStale(path, held);
      continue;
    }
    if (waitingFor !== holder.pid) {
      waitingFor = holder.pid;
      if (holder.pid !== process.pid) options.onWaiting?.(holder.pid);
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** Creates `path` with `text` unless it exists: link(2) fails with EEXIST, atomically. */
async function tryCreate(path: string, text: string): Promise<boolean> {
  const aside = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(aside, text);
  try {
    await link(aside, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await rm(aside, { force: true });
  }
}

function parseLock(text: string): LockContent | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockContent> | null;
    return typeof value === 'object' &&
      value !== null &&
      Number.isSafeInteger(value.pid) &&
      typeof value.startTime === 'string' &&
      typeof value.takenAt === 'number' &&
      typeof value.token === 'string'
      ? (value as LockContent)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Its holder is gone (or its pid now names a later process), or it has been held too long. */
async function isStale(holder: LockContent, staleAfterMs: number): Promise<boolean> {
  if (Date.now() - holder.takenAt > staleAfterMs) return true;
  if (!isAlive(holder.pid)) return true;
  const identity = await processIdentity(holder.pid);
  return identity !== undefined && holder.startTime !== '' && identity.startTime !== holder.startTime;
}

/**
 * Removes the lock judged stale, unless another waiter replaced it meanwhile: it is renamed aside first
 * and checked to be the one judged; a live lock moved aside by mistake is linked back.
 */
async function removeStale(path: string, judged: string): Promise<void> {
  const aside = `${path}.stale.${process.pid}.${randomBytes(4).toString('hex')}`;
  try {
    await rename(path, aside);
  } catch {
    return; // another waiter removed it first
  }
  const moved = await readFile(aside, 'utf8').catch(() => judged);
  if (moved !== judged) await link(aside, path).catch(() => {});
  await rm(aside, { force: true });
}

async function releaseIfOwn(path: string, token: string): Promise<void> {
  const held = parseLock((await readFile(path, 'utf8').catch(() => '')) ?? '');
  if (held?.token === token) await rm(path, { force: true });
}
