import { WriteBatcher } from './write-batcher.js';

/** A write whose completion the test decides. */
function controlledWrite() {
  const calls: { items: number[]; finish: (error?: Error) => void }[] = [];
  const write = (items: number[]): Promise<void> =>
    new Promise((resolve, reject) => {
      calls.push({ items, finish: (error) => (error ? reject(error) : resolve()) });
    });
  return { calls, write };
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('WriteBatcher', () => {
  it('writes the items added in one turn of the event loop together, once the turn is over', async () => {
    const { calls, write } = controlledWrite();
    const batcher = new WriteBatcher(write, 100);
    const written = [1, 2, 3].map((item) => batcher.add(item));
    expect(calls).toHaveLength(0);
    await turn();
    expect(calls.map((call) => call.items)).toEqual([[1, 2, 3]]);
    calls[0]!.finish();
    await expect(Promise.all(written)).resolves.toEqual([undefined, undefined, undefined]);
  });

  it('keeps one write under way; what arrives meanwhile goes out together in the next', async () => {
    const { calls, write } = controlledWrite();
    const batcher = new WriteBatcher(write, 100);
    const first = batcher.add(1);
    await turn();
    const later = [batcher.add(2), batcher.add(3)];
    await turn();
    await turn();
    expect(calls).toHaveLength(1);
    calls[0]!.finish();
    await first;
    await turn();
    await turn();
    expect(calls.map((call) => call.items)).toEqual([[1], [2, 3]]);
    calls[1]!.finish();
    await Promise.all(later);
  });

  it('splits what is queued into writes of at most maxBatch items', async () => {
    const { calls, write } = controlledWrite();
    const batcher = new WriteBatcher(write, 2);
    const written = [1, 2, 3, 4, 5].map((item) => batcher.add(item));
    for (let i = 0; i < 3; i++) {
      await turn();
      calls[i]!.finish();
      await turn();
    }
    await Promise.all(written);
    expect(calls.map((call) => call.items)).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('rejects every item of a failed write with its error, and writes later items afresh', async () => {
    const { calls, write } = controlledWrite();
    const batcher = new WriteBatcher(write, 100);
    const failed = [batcher.add(1), batcher.add(2)];
    await turn();
    calls[0]!.finish(new Error('database down'));
    for (const item of failed) await expect(item).rejects.toThrow('database down');
    const next = batcher.add(3);
    await turn();
    expect(calls[1]!.items).toEqual([3]);
    calls[1]!.finish();
    await expect(next).resolves.toBeUndefined();
  });
});
