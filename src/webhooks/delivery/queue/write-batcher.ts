/**
 * Gathers writes into few statements: the items added during one turn of the event loop, and those added while a
 * write is under way, go out together in the next write. One write is under way at a time, so under load the
 * batches grow instead of the writes queueing for connections.
 */
export class WriteBatcher<T> {
  private queued: { item: T; resolve: () => void; reject: (error: unknown) => void }[] = [];
  private writing: Promise<void> | undefined;
  private scheduled = false;

  constructor(
    private readonly write: (items: T[]) => Promise<void>,
    private readonly maxBatch: number,
  ) {}

  /** Resolves once the item's write has committed; rejects with the write's error. */
  add(item: T): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queued.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.writing || this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.writing = this.flush().finally(() => {
        this.writing = undefined;
        if (this.queued.length > 0) this.schedule();
      });
    });
  }

  private async flush(): Promise<void> {
    const batch = this.queued.splice(0, this.maxBatch);
    try {
      await this.write(batch.map(({ item }) => item));
      for (const { resolve } of batch) resolve();
    } catch (error) {
      for (const { reject } of batch) reject(error);
    }
  }
}
