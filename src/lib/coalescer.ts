// Micro-batching for one hot statement. Callers submit items one at a time; at most `maxInFlight`
// batches run at once, and whatever queued while they ran goes out together as the next batch (at
// most `maxBatch` items). There is no timer: an item that finds a free slot leaves after the
// current event-loop turn, so a lone request waits for nothing, while under load N concurrent
// requests share one round trip and one commit (one WAL flush) instead of N.

interface Waiting<I, O> {
  item: I;
  resolve: (outcome: O) => void;
  reject: (err: unknown) => void;
}

export class Coalescer<I, O> {
  private queue: Waiting<I, O>[] = [];
  private inFlight = 0;
  private scheduled = false;

  /**
   * `runBatch` answers one outcome per item, in the items' order; if it throws, every item of the
   * batch gets the error.
   */
  constructor(
    private readonly runBatch: (items: I[]) => Promise<O[]>,
    readonly maxBatch: number,
    readonly maxInFlight: number,
    private readonly onBatch: (size: number) => void = () => {},
  ) {
    if (!(maxBatch >= 1 && maxInFlight >= 1)) throw new RangeError('maxBatch and maxInFlight must be at least 1');
  }

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.schedule();
    });
  }

  /** Items waiting for a slot (for metrics and tests). */
  get waiting(): number {
    return this.queue.length;
  }

  // Deferred to the end of the current turn, so requests parsed from the same socket reads travel
  // together even when a slot is free.
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight < this.maxInFlight && this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      this.inFlight += 1;
      this.run(batch).finally(() => {
        this.inFlight -= 1;
        if (this.queue.length > 0) this.schedule();
      });
    }
  }

  private async run(batch: Waiting<I, O>[]): Promise<void> {
    try {
      this.onBatch(batch.length);
      const outcomes = await this.runBatch(batch.map((w) => w.item));
      if (outcomes.length !== batch.length) throw new Error(`batch of ${batch.length} answered ${outcomes.length} outcomes`);
      batch.forEach((w, i) => w.resolve(outcomes[i]));
    } catch (err) {
      for (const w of batch) w.reject(err);
    }
  }
}
