import { Logger } from '@nestjs/common';
import { isDatabaseUnavailable } from '../../../database/database.errors.js';

/** Attempts under way at once in one process; they mostly wait on receivers, not on this process. */
export const CONCURRENCY = 64;
/**
 * Claims are made for many deliveries at once: after a full claim the next waits until this many attempts are left,
 * so under a backlog every claim takes half the slots instead of one query per finished attempt.
 */
const LOW_WATER = CONCURRENCY / 2;
/**
 * How long a poller that found nothing due first waits before it looks again; each further empty look doubles the
 * wait, up to the poller's `maxIdleMs`. Polling, not a notification per enqueue: a transaction that notifies holds a
 * cluster-wide lock through its commit, so notifying commits run one at a time
 * (docs/decisions/2026-11-23-delivery-queue-on-its-own-table.md). An idle poller is woken instead: by `wake` (this
 * process enqueued, or another one said it did) and at the due time of a retry this process scheduled (`dueIn`).
 */
export const IDLE_POLL_MS = 25;
/**
 * After a wake, a poller keeps looking every IDLE_POLL_MS for this long before its waits grow again: a wake comes
 * when the enqueue is made, before its transaction commits, and the rest of that transaction takes a while.
 */
const WOKEN_MS = 250;
/** After a failed claim (the database unreachable), so a poller does not hammer it or flood the log. */
const ERROR_RETRY_MS = 1000;

/**
 * Keeps up to `CONCURRENCY` attempts under way, claiming due deliveries in batches: again as soon as half the slots
 * are free while there is a backlog; while there is none, after a wait that grows from `IDLE_POLL_MS` to
 * `maxIdleMs`, or at once when woken.
 */
export class DeliveryPoller<T extends { id: string }> {
  private readonly logger = new Logger('DeliveryQueue');
  private readonly running = new Set<Promise<void>>();
  private pollTimer: NodeJS.Timeout | undefined;
  private claiming: Promise<void> | undefined;
  /**
   * Claim again as soon as half the slots are free: the last claim filled every free slot (more is probably due), or
   * a poll came while more than half were busy. Without it a poll that finds the slots busy would end the polling.
   */
  private claimWhenFree = false;
  private stopping = false;
  /** The wait after the next empty claim. */
  private idleWaitMs = IDLE_POLL_MS;
  /** When the next claim is set to run, while a timer is set. */
  private nextClaimAt = Infinity;
  /** The earliest time something is known to fall due (`dueIn`). */
  private dueAt = Infinity;
  /** Woken since the claim under way began: what it did not find may have been committed since. */
  private woken = false;
  private wokenAt = -Infinity;

  constructor(
    private readonly claimDue: (limit: number) => Promise<T[]>,
    private readonly attempt: (item: T) => Promise<void>,
    /**
     * The longest wait between two claims of an idle poller, read at each: what a delivery no one woke it for may
     * wait.
     */
    private readonly maxIdleMs: () => number = () => IDLE_POLL_MS,
  ) {}

  /** Picks up at once whatever is due, also what a crashed predecessor left once its leases ran out. */
  start(): void {
    this.claim();
  }

  /**
   * Something may be due now or in a moment (an enqueue whose transaction may still be committing): claims at once
   * and polls quickly again, instead of waiting out a long idle wait.
   */
  wake(): void {
    this.idleWaitMs = IDLE_POLL_MS;
    this.woken = true;
    this.wokenAt = Date.now();
    if (this.pollTimer !== undefined) this.claim();
  }

  /** Something falls due in `ms` (a retry this process scheduled): an idle poller claims then at the latest. */
  dueIn(ms: number): void {
    const at = Date.now() + Math.max(0, ms);
    this.dueAt = Math.min(this.dueAt, at);
    if (this.pollTimer !== undefined && at < this.nextClaimAt) this.schedule(at - Date.now());
  }

  /** Stops claiming and lets the attempts under way finish (each is bounded by the client's 10 s budget). */
  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.pollTimer);
    await this.claiming;
    await Promise.all(this.running);
  }

  private claim(): void {
    if (this.claiming || this.stopping) return;
    if (this.running.size > LOW_WATER) {
      this.claimWhenFree = true;
      return;
    }
    clearTimeout(this.pollTimer);
    this.pollTimer = undefined;
    const room = CONCURRENCY - this.running.size;
    const startedAt = Date.now();
    this.woken = false;
    let failed = false;
    let retryIn = IDLE_POLL_MS;
    this.claiming = this.claimDue(room)
      .then((claimed) => {
        for (const item of claimed) this.run(item);
        this.claimWhenFree = claimed.length === room;
        if (this.dueAt <= startedAt) this.dueAt = Infinity;
        // Found work, or woken meanwhile: look again soon. Found none: wait, and longer each time.
        if (claimed.length > 0 || this.woken || Date.now() - this.wokenAt < WOKEN_MS) {
          this.idleWaitMs = IDLE_POLL_MS;
        } else {
          retryIn = Math.min(this.idleWaitMs, this.maxIdleMs());
          this.idleWaitMs = Math.min(this.idleWaitMs * 2, this.maxIdleMs());
        }
      })
      .catch((error: unknown) => {
        // An outage is logged once, when it starts (DatabaseAvailability), not at every poll.
        if (!isDatabaseUnavailable(error)) {
          this.logger.warn(`claiming webhook deliveries failed: ${(error as Error).message}`);
        }
        this.claimWhenFree = false;
        failed = true;
      })
      .finally(() => {
        this.claiming = undefined;
        if (this.stopping) return;
        // With a backlog, finishing attempts claim again as soon as half the slots are free.
        if (this.claimWhenFree) this.claim();
        else if (failed) this.schedule(ERROR_RETRY_MS);
        else this.schedule(Math.min(retryIn, this.dueAt - Date.now()));
      });
  }

  private schedule(inMs: number): void {
    clearTimeout(this.pollTimer);
    const wait = Math.max(0, inMs);
    this.nextClaimAt = Date.now() + wait;
    this.pollTimer = setTimeout(() => {
      this.pollTimer = undefined;
      this.nextClaimAt = Infinity;
      this.claim();
    }, wait);
  }

  private run(item: T): void {
    const attempt = this.attempt(item)
      .catch((error: unknown) => {
        // The claim stays until its lease runs out; then the delivery is attempted again.
        this.logger.warn(`webhook delivery ${item.id} failed: ${(error as Error).message}`);
      })
      .finally(() => {
        this.running.delete(attempt);
        if (this.claimWhenFree) this.claim();
      });
    this.running.add(attempt);
  }
}
