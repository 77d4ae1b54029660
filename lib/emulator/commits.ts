/**
 * The trigger emulator's offset commits: which offset each partition may commit, coalesced into one
 * commit request at a time, retried after a failure. The emulator decides what is done; this unit only
 * makes sure a wanted offset reaches the group, in order, and never goes backwards.
 */

/** A partition's offset to commit: the next record the group reads. */
export interface PartitionOffset {
  partition: number;
  offset: number;
}

/** A committed offset and the one the emulator had committed before it (`undefined` for the first). */
export interface CommittedOffset extends PartitionOffset {
  previous: number | undefined;
}

/** What a {@link CommitCoalescer} calls: the commit request and what to tell about it. */
export interface CommitCoalescerOptions {
  /** Commits the offsets in one request (kafkajs `consumer.commitOffsets`); rejects when it failed. */
  commit(offsets: PartitionOffset[]): Promise<void>;
  /** After a commit request succeeded. */
  onCommitted(offsets: CommittedOffset[]): void;
  /** After a commit request failed; it is retried later while {@link mayRetry} says so. */
  onError(error: Error): void;
  /** Whether a failed commit is retried (the emulator is still running). */
  mayRetry(): boolean;
  /** After a flush ended (committed, failed or nothing to do) and {@link CommitCoalescer.busy} is false again. */
  onSettled?(): void;
  /** Delay before a failed commit is retried (default 1 s). */
  retryDelayMs?: number;
}

/**
 * Commits the offsets the emulator wants, at most one request in flight: offsets wanted meanwhile go in
 * the next request, so a burst of finished batches costs one or two commits. A partition's wanted offset
 * only moves forward; a failed request is retried after a delay with whatever is wanted by then.
 *
 * @example
 * ```ts
 * const commits = new CommitCoalescer({
 *   commit: (offsets) => consumer.commitOffsets(offsets.map((o) => ({ topic, ...o, offset: String(o.offset) }))),
 *   onCommitted: (offsets) => console.log(offsets),
 *   onError: (error) => console.error(error.message),
 *   mayRetry: () => running,
 * });
 * commits.want(0, 42);
 * await commits.flush();
 * ```
 */
export class CommitCoalescer {
  readonly #options: CommitCoalescerOptions;
  readonly #wanted = new Map<number, number>();
  readonly #committed = new Map<number, number>();
  #flushing: Promise<void> | undefined;
  #flushAgain = false;
  #retryTimer: NodeJS.Timeout | undefined;
  #abandoned = false;

  constructor(options: CommitCoalescerOptions) {
    this.#options = options;
  }

  /** The highest offset wanted for the partition since it was (re)assigned. */
  wanted(partition: number): number | undefined {
    return this.#wanted.get(partition);
  }

  /** The last offset committed for the partition since it was (re)assigned. */
  committed(partition: number): number | undefined {
    return this.#committed.get(partition);
  }

  /** Whether a commit request is in flight. */
  get busy(): boolean {
    return this.#flushing !== undefined;
  }

  /** Asks to commit the partition up to `offset` (exclusive); an offset at or below one already wanted is ignored. */
  want(partition: number, offset: number): void {
    if (this.#abandoned) return;
    const wanted = this.#wanted.get(partition);
    if (wanted !== undefined && offset <= wanted) return;
    this.#wanted.set(partition, offset);
    void this.flush();
  }

  /** The partition was revoked: what was wanted or committed for it no longer applies. */
  forget(partition: number): void {
    this.#wanted.delete(partition);
    this.#committed.delete(partition);
  }

  /** No retry of a failed commit is scheduled any more (a flush may still commit what is wanted). */
  cancelRetry(): void {
    clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
  }

  /** Nothing more is committed, as if the process died. */
  abandon(): void {
    this.#abandoned = true;
    this.cancelRetry();
  }

  /** Commits every partition's wanted offset in one request; coalesces concurrent callers; schedules a retry on failure. */
  flush(): Promise<void> {
    if (this.#flushing) {
      this.#flushAgain = true;
      return this.#flushing;
    }
    this.#flushing = this.#commitWanted().finally(() => {
      this.#flushing = undefined;
      this.#options.onSettled?.();
    });
    return this.#flushing;
  }

  async #commitWanted(): Promise<void> {
    do {
      this.#flushAgain = false;
      const offsets: PartitionOffset[] = [];
      for (const [partition, offset] of this.#wanted) {
        if (offset > (this.#committed.get(partition) ?? -1)) offsets.push({ partition, offset });
      }
      if (offsets.length === 0 || this.#abandoned) return;
      try {
        await this.#options.commit(offsets);
      } catch (error) {
        this.#options.onError(error instanceof Error ? error : new Error(String(error)));
        this.#scheduleRetry();
        return;
      }
      const committed = offsets.map(({ partition, offset }) => {
        const previous = this.#committed.get(partition);
        this.#committed.set(partition, offset);
        return { partition, offset, previous };
      });
      this.#options.onCommitted(committed);
    } while (this.#flushAgain);
  }

  #scheduleRetry(): void {
    if (this.#retryTimer || !this.#options.mayRetry()) return;
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      void this.flush();
    }, this.#options.retryDelayMs ?? 1_000);
  }
}

/** What {@link filteredCommitOffset} needs of a partition. */
export interface FilteredTail {
  /** One past the last record that matched no filter, since the (re)join. */
  filteredEnd: number | undefined;
  /** The last record queued since the (re)join. */
  lastQueued: number | undefined;
  /** Whether a batch holds the partition or records of it are queued. */
  busy: boolean;
  /** The partition's highest wanted commit. */
  wanted: number | undefined;
}

/**
 * Where a partition may commit past its trailing records that matched no filter: only once nothing of
 * it is queued or held and every record queued before them is committed (so a batch that stopped
 * uncommitted is never passed). `undefined` when it may not yet.
 *
 * @example
 * ```ts
 * filteredCommitOffset({ filteredEnd: 10, lastQueued: 5, busy: false, wanted: 6 }); // 10
 * filteredCommitOffset({ filteredEnd: 10, lastQueued: 5, busy: false, wanted: 5 }); // undefined: 5 is not done
 * ```
 */
export function filteredCommitOffset({
  filteredEnd,
  lastQueued,
  busy,
  wanted,
}: FilteredTail): number | undefined {
  if (filteredEnd === undefined || busy) return undefined;
  if (lastQueued !== undefined && (wanted ?? -1) <= lastQueued) return undefined;
  return filteredEnd;
}
