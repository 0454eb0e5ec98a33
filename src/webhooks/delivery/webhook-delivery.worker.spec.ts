import type { AppConfig } from '../../config/app-config.js';
import type { WebhookDeliveryService } from './webhook-delivery.service.js';
import type { ClaimedDelivery, WebhookDeliveryRepository } from './webhook-delivery.repository.js';
import { WebhookDeliveryWorker } from './webhook-delivery.worker.js';

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A queue whose rows become due when the test says, claimed the way `claimDue` does (up to `limit`, oldest first). */
function fakeQueue() {
  const due: ClaimedDelivery[] = [];
  let next = 0;
  const claims: number[] = [];
  const repository = {
    claimDue: (limit: number): Promise<ClaimedDelivery[]> => {
      const taken = due.splice(0, limit);
      claims.push(taken.length);
      return Promise.resolve(taken);
    },
  };
  const commit = (count: number): void => {
    for (let i = 0; i < count; i++) due.push({ id: `d${next++}` } as ClaimedDelivery);
  };
  return { repository, commit, claims, pending: () => due.length };
}

/** Attempts that take `ms` each (far longer than the worker's idle poll), noting which deliveries were attempted. */
function slowDeliveries(ms: number) {
  const attempted: string[] = [];
  const service = {
    deliverClaimed: async (delivery: ClaimedDelivery): Promise<void> => {
      await delay(ms);
      attempted.push(delivery.id);
    },
    flush: (): Promise<void> => Promise.resolve(),
  };
  return { service, attempted };
}

function workerOver(
  queue: ReturnType<typeof fakeQueue>,
  deliveries: ReturnType<typeof slowDeliveries>,
): WebhookDeliveryWorker {
  return new WebhookDeliveryWorker(
    { workersEnabled: true } as AppConfig,
    deliveries.service as unknown as WebhookDeliveryService,
    queue.repository as unknown as WebhookDeliveryRepository,
  );
}

async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition() && Date.now() < deadline) await delay(5);
}

describe('WebhookDeliveryWorker', () => {
  it('keeps claiming when a poll finds more than half of its slots busy', async () => {
    const queue = fakeQueue();
    const deliveries = slowDeliveries(150);
    const worker = workerOver(queue, deliveries);
    // 40 due: a claim that does not fill the 64 slots, so the worker polls again 25 ms later, while all 40 still run.
    queue.commit(40);
    worker.onModuleInit();
    await delay(10);
    queue.commit(60);
    try {
      await until(() => deliveries.attempted.length === 100, 5000);
      expect(queue.pending()).toBe(0);
      expect(new Set(deliveries.attempted).size).toBe(100);
    } finally {
      await worker.onModuleDestroy();
    }
  });

  it('claims half its slots at a time under a backlog, never more than it has free', async () => {
    const queue = fakeQueue();
    const deliveries = slowDeliveries(20);
    const worker = workerOver(queue, deliveries);
    queue.commit(300);
    worker.onModuleInit();
    try {
      await until(() => deliveries.attempted.length === 300, 5000);
      expect(deliveries.attempted).toHaveLength(300);
      // A full first claim, then claims of at least half the slots while the backlog lasts.
      const [first, ...rest] = queue.claims.filter((taken) => taken > 0);
      expect(first).toBe(64);
      expect(rest.slice(0, -1).every((taken) => taken >= 32 && taken <= 64)).toBe(true);
    } finally {
      await worker.onModuleDestroy();
    }
  });
});
