import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { DatabaseErrors } from './database.errors.js';
import { Sweeper } from './sweeper.js';

/** A batch's size, or what it throws. */
type Batch = number | Error;

/** Batches as scripted, one per call, then empty ones. */
class ScriptedSweeper extends Sweeper {
  readonly calls: Batch[] = [];

  constructor(
    private readonly batches: Batch[],
    enabled = true,
  ) {
    super({ enabled, intervalMs: 5, name: 'scripted sweep' });
  }

  protected sweep(): Promise<void> {
    return this.drain(
      async () => {
        const batch = this.batches.shift() ?? 0;
        this.calls.push(batch);
        if (batch instanceof Error) throw batch;
        return batch;
      },
      10,
      'handled',
    );
  }
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('Sweeper', () => {
  let warnings: string[];
  beforeEach(() => {
    warnings = [];
    // Whatever the level: an outage must not be logged by a sweeper at all.
    for (const level of ['warn', 'error'] as const) {
      jest
        .spyOn(Logger.prototype, level)
        .mockImplementation((message: unknown) => void warnings.push(String(message)));
    }
  });
  afterEach(() => jest.restoreAllMocks());

  it('takes batches while they come back full, and goes on in the next round after a failure', async () => {
    const failure = new Error('deadlock detected');
    const sweeper = new ScriptedSweeper([10, 10, 3, failure, 10, 0]);
    sweeper.onApplicationBootstrap();
    // Until the third round, however late a loaded machine runs the 5 ms timers.
    while (sweeper.calls.length < 6) await pause(5);
    await sweeper.onModuleDestroy();
    // Round 1: 10, 10, 3 (not full: the round ends). Round 2: fails. Round 3: 10, 0.
    expect(sweeper.calls.slice(0, 6)).toEqual([10, 10, 3, failure, 10, 0]);
  });

  it('logs a failed round unless the database is unreachable (logged once per outage elsewhere)', async () => {
    const outage = DatabaseErrors.unavailable();
    const failure = new Error('relation "subscriptions" does not exist');
    const sweeper = new ScriptedSweeper([outage, failure, 3]);
    sweeper.onApplicationBootstrap();
    while (sweeper.calls.length < 3) await pause(5);
    await sweeper.onModuleDestroy();
    // Each failure ended its round; the next round ran all the same.
    expect(sweeper.calls.slice(0, 3)).toEqual([outage, failure, 3]);
    expect(warnings).toEqual([`scripted sweep failed, retrying next round: ${failure.message}`]);
  });

  it('does nothing where the background workers do not run', async () => {
    const sweeper = new ScriptedSweeper([10], false);
    sweeper.onApplicationBootstrap();
    await pause(20);
    await sweeper.onModuleDestroy();
    expect(sweeper.calls).toEqual([]);
  });
});
