/**
 * Runs `work` at once, then again `intervalMs` after each run ends: a timeout re-armed after each run,
 * not an interval, so a slow run never overlaps the next. `stop` lets a run under way finish (while the database
 * pool is still open) and schedules none after it. `work` handles its own errors.
 */
export class RepeatingJob {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly work: () => Promise<void>,
    private readonly intervalMs: number,
  ) {}

  start(): void {
    this.schedule(0);
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(delayMs: number): void {
    this.timer = setTimeout(() => {
      this.running = this.work().finally(() => {
        this.running = undefined;
        if (!this.stopped) this.schedule(this.intervalMs);
      });
    }, delayMs).unref();
  }
}
