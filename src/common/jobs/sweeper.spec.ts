import { Sweeper } from './sweeper.js';

/** Batches of the given sizes, one per call, then empty ones; a batch of -1 throws. */
class ScriptedSweeper extends Sweeper {
  readonly calls: number[] = [];

  constructor(
    private readonly batches: number[],
    enabled = true,
  ) {
    super({ enabled, intervalMs: 5, name: 'scripted sweep' });
  }

  protected sweep(): Promise<void> {
    return this.drain(
      async () => {
        const size = this.batches.shift() ?? 0;
        this.calls.push(size);
        if (size < 0) throw new Error('database down');
        return size;
      },
      10,
      'handled',
    );
  }
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('Sweeper', () => {
  it('takes batches while they come back full, and goes on in the next round after a failure', async () => {
    const sweeper = new ScriptedSweeper([10, 10, 3, -1, 10, 0]);
    sweeper.onApplicationBootstrap();
    await pause(60);
    await sweeper.onModuleDestroy();
    // Round 1: 10, 10, 3 (not full: the round ends). Round 2: fails. Round 3: 10, 0.
    expect(sweeper.calls.slice(0, 6)).toEqual([10, 10, 3, -1, 10, 0]);
  });

  it('does nothing where the background workers do not run', async () => {
    const sweeper = new ScriptedSweeper([10], false);
    sweeper.onApplicationBootstrap();
    await pause(20);
    await sweeper.onModuleDestroy();
    expect(sweeper.calls).toEqual([]);
  });
});
