import { CONCURRENCY, DeliveryPoller } from './delivery-poller.js';

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

interface Item {
  id: string;
}

/** A queue whose items become due when the test says, claimed up to `limit` at a time, oldest first. */
function fakeQueue() {
  const due: Item[] = [];
  let next = 0;
  const claims: number[] = [];
  const claim = (limit: number): Promise<Item[]> => {
    const taken = due.splice(0, limit);
    claims.push(taken.length);
    return Promise.resolve(taken);
  };
  const commit = (count: number): void => {
    for (let i = 0; i < count; i++) due.push({ id: `d${next++}` });
  };
  return { claim, commit, claims, pending: () => due.length };
}

/** Attempts that take `ms` each (far longer than the idle poll), noting which items were attempted. */
function slowAttempts(ms: number) {
  const attempted: string[] = [];
  const attempt = async (item: Item): Promise<void> => {
    await delay(ms);
    attempted.push(item.id);
  };
  return { attempt, attempted };
}

async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition() && Date.now() < deadline) await delay(5);
}

describe('DeliveryPoller', () => {
  it('keeps claiming when a poll finds more than half of its slots busy', async () => {
    const queue = fakeQueue();
    const attempts = slowAttempts(150);
    const poller = new DeliveryPoller(queue.claim, attempts.attempt);
    // 40 due: a claim that does not fill the 64 slots, so the poller looks again 25 ms later, while all 40 still run.
    queue.commit(40);
    poller.start();
    await delay(10);
    queue.commit(60);
    try {
      await until(() => attempts.attempted.length === 100, 5000);
      expect(queue.pending()).toBe(0);
      expect(new Set(attempts.attempted).size).toBe(100);
    } finally {
      await poller.stop();
    }
  });

  it('claims half its slots at a time under a backlog, never more than it has free', async () => {
    const queue = fakeQueue();
    const attempts = slowAttempts(20);
    const poller = new DeliveryPoller(queue.claim, attempts.attempt);
    queue.commit(300);
    poller.start();
    try {
      await until(() => attempts.attempted.length === 300, 5000);
      expect(attempts.attempted).toHaveLength(300);
      // A full first claim, then claims of at least half the slots while the backlog lasts.
      const [first, ...rest] = queue.claims.filter((taken) => taken > 0);
      expect(first).toBe(CONCURRENCY);
      expect(rest.slice(0, -1).every((taken) => taken >= CONCURRENCY / 2 && taken <= CONCURRENCY)).toBe(true);
    } finally {
      await poller.stop();
    }
  });

  it('stops claiming on stop and resolves once the attempts under way have ended', async () => {
    const queue = fakeQueue();
    const attempts = slowAttempts(100);
    const poller = new DeliveryPoller(queue.claim, attempts.attempt);
    queue.commit(10);
    poller.start();
    await until(() => queue.pending() === 0, 5000);
    queue.commit(5);
    await poller.stop();
    expect(attempts.attempted).toHaveLength(10);
    await delay(60);
    expect(queue.pending()).toBe(5);
  });

  describe('idle', () => {
    const IDLE_MAX_MS = () => 60_000;

    it('waits longer after each empty claim instead of polling every 25 ms', async () => {
      const queue = fakeQueue();
      const poller = new DeliveryPoller(queue.claim, slowAttempts(1).attempt, IDLE_MAX_MS);
      poller.start();
      await delay(2000);
      await poller.stop();
      // 25, 50, 100 … ms: about 7 claims in 2 s where a fixed 25 ms poll makes 80.
      expect(queue.claims.length).toBeGreaterThan(3);
      expect(queue.claims.length).toBeLessThan(12);
    });

    it('claims at once when woken, and then polls quickly again', async () => {
      const queue = fakeQueue();
      const attempts = slowAttempts(1);
      const poller = new DeliveryPoller(queue.claim, attempts.attempt, IDLE_MAX_MS);
      poller.start();
      await delay(1700);
      try {
        // Woken before the enqueue commits: the claim at once finds nothing, the quick ones after it find the item.
        const before = queue.claims.length;
        poller.wake();
        expect(queue.claims).toHaveLength(before + 1);
        queue.commit(1);
        await until(() => attempts.attempted.length === 1, 1000);
        expect(attempts.attempted).toEqual(['d0']);
      } finally {
        await poller.stop();
      }
    });

    it('claims when something it was told of falls due, however long its idle wait', async () => {
      const queue = fakeQueue();
      const attempts = slowAttempts(1);
      const poller = new DeliveryPoller(queue.claim, attempts.attempt, IDLE_MAX_MS);
      poller.start();
      await delay(1700);
      try {
        queue.commit(1);
        poller.dueIn(100);
        await until(() => attempts.attempted.length === 1, 1000);
        expect(attempts.attempted).toEqual(['d0']);
      } finally {
        await poller.stop();
      }
    });
  });
});
