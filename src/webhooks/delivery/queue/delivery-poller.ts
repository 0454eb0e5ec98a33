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
 * How long a poller that found nothing due waits before it looks again: the delay a delivery can add on top of its
 * commit when the queue is empty. Polling, not LISTEN/NOTIFY: a transaction that notifies holds a cluster-wide lock
 * through its commit, so notifying commits run one at a time
 * (docs/decisions/2026-11-23-delivery-queue-on-its-own-table.md); an empty claim is one probe of a partial index.
 */
const IDLE_POLL_MS = 25;
/** After a failed claim (the database unreachable), so a poller does not hammer it or flood the log. */
const ERROR_RETRY_MS = 1000;

/**
 * Keeps up to `CONCURRENCY` attempts under way, claiming due deliveries in batches: again as soon as half the slots
 * are free while there is a backlog, every `IDLE_POLL_MS` while there is none.
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

  constructor(
    private readonly claimDue: (limit: number) => Promise<T[]>,
    private readonly attempt: (item: T) => Promise<void>,
  ) {}

  /** Picks up at once whatever is due, also what a crashed predecessor left once its leases ran out. */
  start(): void {
    this.claim();
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
    const room = CONCURRENCY - this.running.size;
    let retryIn = IDLE_POLL_MS;
    this.claiming = this.claimDue(room)
      .then((claimed) => {
        for (const item of claimed) this.run(item);
        this.claimWhenFree = claimed.length === room;
      })
      .catch((error: unknown) => {
        // An outage is logged once, when it starts (DatabaseAvailability), not at every poll.
        if (!isDatabaseUnavailable(error)) {
          this.logger.warn(`claiming webhook deliveries failed: ${(error as Error).message}`);
        }
        this.claimWhenFree = false;
        retryIn = ERROR_RETRY_MS;
      })
      .finally(() => {
        this.claiming = undefined;
        if (this.stopping) return;
        // With a backlog, finishing attempts claim again as soon as half the slots are free.
        if (this.claimWhenFree) this.claim();
        else this.pollTimer = setTimeout(() => this.claim(), retryIn);
      });
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
