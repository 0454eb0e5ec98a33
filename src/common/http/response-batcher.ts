/** Fastify's `onSend` continuation: hands the (unchanged) payload on to be written. */
export type SendContinuation<Payload> = (error: null, payload: Payload) => void;

/**
 * Writes the responses that become ready during one turn of the event loop together, once that turn has read all
 * of its input: the batch is released from `setImmediate`, which runs right after the loop's I/O (poll) phase.
 *
 * Written the moment each is ready, every response wakes its client and the kernel on its own, and the client's next
 * request arrives in a turn of its own, so each turn of the loop serves one or two requests and pays its fixed
 * costs (the poll syscall, wake-ups, timers) for each. Released together, one turn reads and answers every
 * connection that is ready (docs/decisions/2026-11-22-responses-written-per-event-loop-turn.md). A response waits
 * at most for the rest of the current turn, which is idle at low load.
 */
export class ResponseBatcher<Payload = unknown> {
  private waiting: Array<{ send: SendContinuation<Payload>; payload: Payload }> = [];

  /** `onError`: told when writing one response throws; the rest of the batch is still written. */
  constructor(private readonly onError: (error: unknown) => void) {}

  /** Queues one response; the batch is released after the current turn's I/O, in the order the responses came. */
  defer(send: SendContinuation<Payload>, payload: Payload): void {
    if (this.waiting.push({ send, payload }) === 1) setImmediate(this.release);
  }

  private readonly release = (): void => {
    const batch = this.waiting;
    this.waiting = [];
    for (const { send, payload } of batch) {
      try {
        send(null, payload);
      } catch (error) {
        this.onError(error);
      }
    }
  };
}
