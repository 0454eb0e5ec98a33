import { hashMessage, type Hex, recoverAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { SignerRecovery, UnrecoverableSignatureError } from './signer-recovery.js';

async function signed(count: number): Promise<{ address: Hex; hash: Hex; signature: Hex }[]> {
  return Promise.all(
    Array.from({ length: count }, async (_, index) => {
      const account = privateKeyToAccount(generatePrivateKey());
      const message = `login ${index}`;
      return {
        address: account.address,
        hash: hashMessage(message),
        signature: await account.signMessage({ message }),
      };
    }),
  );
}

// Generous: a thread's start (loading the curve code) takes seconds on a busy machine.
const waitFor = async (condition: () => boolean, timeoutMs = 30_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

describe('SignerRecovery', () => {
  const recoveries: SignerRecovery[] = [];
  const create = (threads: number, idleMs?: number): SignerRecovery => {
    const recovery = new SignerRecovery({ threads, idleMs });
    recoveries.push(recovery);
    return recovery;
  };
  afterAll(() => Promise.all(recoveries.map((recovery) => recovery.close())));

  it('recovers the same signers on its threads as viem does on the calling thread', async () => {
    const recovery = create(2);
    const samples = await signed(8);
    const recovered = await Promise.all(
      samples.map(({ hash, signature }) => recovery.recover(hash, signature)),
    );
    expect(recovered).toEqual(samples.map((sample) => sample.address));
    expect(recovered).toEqual(
      await Promise.all(samples.map(({ hash, signature }) => recoverAddress({ hash, signature }))),
    );
  });

  it('starts threads as demand needs them, never more than configured', async () => {
    const recovery = create(2);
    expect(recovery.runningThreads).toBe(0);
    const [one] = await signed(1);
    // The first login starts a thread and, while it warms up, is recovered on the calling thread.
    await expect(recovery.recover(one!.hash, one!.signature)).resolves.toBe(one!.address);
    expect(recovery.runningThreads).toBe(1);
    await waitFor(() => recovery.readyThreads === 1);
    // A burst keeps the ready thread busy: a second one is started, and no more than that.
    const many = await signed(12);
    await Promise.all(many.map(({ hash, signature }) => recovery.recover(hash, signature)));
    expect(recovery.runningThreads).toBe(2);
    await waitFor(() => recovery.readyThreads === 2);
    await Promise.all(many.map(({ hash, signature }) => recovery.recover(hash, signature)));
    expect(recovery.runningThreads).toBe(2);
  });

  it('never makes a login wait for a thread to start', async () => {
    const recovery = create(1);
    const [sample] = await signed(1);
    await expect(recovery.recover(sample!.hash, sample!.signature)).resolves.toBe(sample!.address);
    // Answered while the thread was still warming up.
    expect(recovery.readyThreads).toBe(0);
    expect(recovery.runningThreads).toBe(1);
  });

  it('answers a signature with no signer as unrecoverable, on a thread or not', async () => {
    const [sample] = await signed(1);
    const garbage = `0x${'00'.repeat(64)}1b` as Hex;
    for (const recovery of [create(1), create(0)]) {
      await expect(recovery.recover(sample!.hash, garbage)).rejects.toBeInstanceOf(
        UnrecoverableSignatureError,
      );
      // The thread is still there for the next one.
      await expect(recovery.recover(sample!.hash, sample!.signature)).resolves.toBe(sample!.address);
    }
  });

  it('stops idle threads and starts them again for the next login', async () => {
    const recovery = create(1, 50);
    const [first, second] = await signed(2);
    await recovery.recover(first!.hash, first!.signature);
    expect(recovery.runningThreads).toBe(1);
    await waitFor(() => recovery.runningThreads === 0);
    await expect(recovery.recover(second!.hash, second!.signature)).resolves.toBe(second!.address);
    expect(recovery.runningThreads).toBe(1);
  });

  it('finishes on the calling thread what a thread that died was holding', async () => {
    const recovery = create(1);
    const samples = await signed(4);
    await recovery.recover(samples[0]!.hash, samples[0]!.signature);
    await waitFor(() => recovery.readyThreads === 1);
    const pending = samples.map(({ hash, signature }) => recovery.recover(hash, signature));
    // The thread dies with recoveries in hand (reaching in: nothing outside kills a thread on purpose).
    const slots = (
      recovery as unknown as { slots: ({ worker: { terminate(): Promise<number> } } | undefined)[] }
    ).slots;
    await slots[0]!.worker.terminate();
    await expect(Promise.all(pending)).resolves.toEqual(samples.map((sample) => sample.address));
    // A new thread takes the slot for the next recoveries.
    await expect(recovery.recover(samples[0]!.hash, samples[0]!.signature)).resolves.toBe(
      samples[0]!.address,
    );
    expect(recovery.runningThreads).toBe(1);
  });

  it('recovers on the calling thread once closed', async () => {
    const recovery = create(1);
    const [sample] = await signed(1);
    await recovery.close();
    await expect(recovery.recover(sample!.hash, sample!.signature)).resolves.toBe(sample!.address);
    expect(recovery.runningThreads).toBe(0);
  });
});
