import { ApiKeyUsageTracker } from './api-key-usage.tracker.js';
import type { ApiKeysRepository, DailyCounts } from './api-keys.repository.js';

/** A stand-in for the table: what recordUsage added, and a switch to make the write fail. */
class FakeStore {
  stored = new Map<string, number>();
  failing = false;
  /** Resolves the write under way, when held. */
  release: (() => void) | undefined;
  hold = false;

  async recordUsage(counts: ReadonlyMap<string, DailyCounts>): Promise<void> {
    if (this.hold) await new Promise<void>((resolve) => (this.release = resolve));
    if (this.failing) throw new Error('connection refused');
    for (const [id, perDay] of counts) {
      for (const [day, count] of perDay) {
        this.stored.set(`${id} ${day}`, (this.stored.get(`${id} ${day}`) ?? 0) + count);
      }
    }
  }
}

const DAY = Date.parse('2026-11-25T12:00:00.000Z');

describe('ApiKeyUsageTracker', () => {
  const setup = () => {
    const store = new FakeStore();
    const tracker = new ApiKeyUsageTracker(store as unknown as ApiKeysRepository);
    const total = async (): Promise<number> => {
      const { stored, unflushed } = await tracker.withUnflushed(
        async () => store.stored.get('k 2026-11-25') ?? 0,
      );
      return stored + (unflushed.counts.get('k')?.get('2026-11-25') ?? 0);
    };
    return { store, tracker, total };
  };

  it('counts per key and UTC day, and a read sees written and unwritten counts once each', async () => {
    const { store, tracker, total } = setup();
    for (let i = 0; i < 3; i++) tracker.touch('k', DAY);
    tracker.touch('k', DAY + 86_400_000);
    expect(await total()).toBe(3);
    await tracker.flush();
    expect(store.stored).toEqual(
      new Map([
        ['k 2026-11-25', 3],
        ['k 2026-11-26', 1],
      ]),
    );
    tracker.touch('k', DAY);
    expect(await total()).toBe(4);
  });

  it('keeps the counts of a failed write for the next one', async () => {
    const { store, tracker, total } = setup();
    tracker.touch('k', DAY);
    store.failing = true;
    await tracker.flush();
    tracker.touch('k', DAY);
    expect(await total()).toBe(2);
    store.failing = false;
    await tracker.flush();
    expect(store.stored.get('k 2026-11-25')).toBe(2);
  });

  it('does not answer a read while a write is under way, so nothing counts twice or not at all', async () => {
    const { store, tracker, total } = setup();
    tracker.touch('k', DAY);
    tracker.touch('k', DAY);
    store.hold = true;
    const writing = tracker.flush();
    let answered: number | undefined;
    const reading = total().then((value) => (answered = value));
    await new Promise((resolve) => setImmediate(resolve));
    expect(answered).toBeUndefined();
    store.release!();
    await writing;
    await reading;
    expect(answered).toBe(2);
  });
});
