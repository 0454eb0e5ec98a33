import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { type Address, type Hex, recoverAddress } from 'viem';

/**
 * The thread's whole program. It runs outside this module system (an `eval` worker), so it is handed the resolved
 * path of viem's CommonJS utilities rather than resolving `viem` from wherever the process was started.
 */
const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { recoverAddress } = require(workerData.viemUtils);
parentPort.on('message', ({ id, hash, signature }) => {
  recoverAddress({ hash, signature }).then(
    (address) => parentPort.postMessage({ id, address }),
    (error) => parentPort.postMessage({ id, error: String((error && error.message) || error) }),
  );
});
`;

const VIEM_UTILS = createRequire(import.meta.url).resolve('viem/utils');

/** A thread with nothing to do for this long stops; the next login starts it again (in about 50 ms). */
const DEFAULT_IDLE_MS = 30_000;

/** The signature yields no public key (malformed, or not a point of the curve): an answer, not a failure. */
export class UnrecoverableSignatureError extends Error {}

interface Task {
  resolve: (address: Address) => void;
  reject: (error: Error) => void;
}

interface RecoveryThread {
  worker: Worker;
  tasks: Map<number, Task>;
  idleTimer: NodeJS.Timeout | undefined;
}

export interface SignerRecoveryOptions {
  /** Threads to recover signers on; 0 recovers on the calling thread. */
  threads: number;
  idleMs?: number;
}

/**
 * ECDSA signer recovery (viem's `recoverAddress`: 2–4 ms of pure JavaScript per signature) on worker threads.
 * On the event loop, every login would stall every other request for that long; here the curve arithmetic runs on
 * the other cores while the event loop serves HTTP. Threads start with the first login and stop when idle, so an
 * instance that serves no logins keeps no memory for them. A thread that fails or exits fails only the recoveries
 * it held; those are then done on the calling thread, and a new thread takes the slot for the next ones.
 */
export class SignerRecovery {
  private readonly slots: (RecoveryThread | undefined)[];
  private readonly idleMs: number;
  private nextId = 0;
  private closed = false;

  constructor(options: SignerRecoveryOptions) {
    this.slots = Array.from({ length: Math.max(0, Math.floor(options.threads)) }, () => undefined);
    this.idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
  }

  /** Threads running now (for tests and diagnostics). */
  get runningThreads(): number {
    return this.slots.filter((thread) => thread !== undefined).length;
  }

  /** The address that signed `hash`; rejects with {@link UnrecoverableSignatureError} when none did. */
  async recover(hash: Hex, signature: Hex): Promise<Address> {
    const thread = this.closed ? undefined : this.leastBusy();
    if (!thread) return this.recoverHere(hash, signature);
    try {
      return await this.send(thread, hash, signature);
    } catch (error) {
      if (error instanceof UnrecoverableSignatureError) throw error;
      return this.recoverHere(hash, signature);
    }
  }

  onModuleDestroy(): Promise<void> {
    return this.close();
  }

  async close(): Promise<void> {
    this.closed = true;
    const running = this.slots.filter((thread): thread is RecoveryThread => thread !== undefined);
    this.slots.fill(undefined);
    await Promise.all(running.map((thread) => this.stop(thread)));
  }

  private async recoverHere(hash: Hex, signature: Hex): Promise<Address> {
    try {
      return await recoverAddress({ hash, signature });
    } catch (error) {
      throw new UnrecoverableSignatureError((error as Error).message);
    }
  }

  private send(thread: RecoveryThread, hash: Hex, signature: Hex): Promise<Address> {
    const id = this.nextId++;
    clearTimeout(thread.idleTimer);
    thread.idleTimer = undefined;
    return new Promise<Address>((resolve, reject) => {
      thread.tasks.set(id, { resolve, reject });
      thread.worker.postMessage({ id, hash, signature });
    });
  }

  private leastBusy(): RecoveryThread | undefined {
    let best: RecoveryThread | undefined;
    for (let slot = 0; slot < this.slots.length; slot++) {
      const thread = this.slots[slot] ?? this.start(slot);
      if (!best || thread.tasks.size < best.tasks.size) best = thread;
      // An idle running thread needs no company.
      if (best.tasks.size === 0 && this.slots[slot] !== undefined) break;
    }
    return best;
  }

  private start(slot: number): RecoveryThread {
    const worker = new Worker(THREAD_SOURCE, {
      eval: true,
      workerData: { viemUtils: VIEM_UTILS },
      // Short-lived BigInts only: a small heap keeps the thread's memory close to its code.
      resourceLimits: { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 64 },
    });
    // A thread waiting for work does not keep the process alive.
    worker.unref();
    const thread: RecoveryThread = { worker, tasks: new Map(), idleTimer: undefined };
    worker.on('message', ({ id, address, error }: { id: number; address?: Address; error?: string }) => {
      const task = thread.tasks.get(id);
      if (!task) return;
      thread.tasks.delete(id);
      if (address !== undefined) task.resolve(address);
      else task.reject(new UnrecoverableSignatureError(error));
      if (thread.tasks.size === 0) this.idleSoon(slot, thread);
    });
    const fail = (error: Error): void => {
      clearTimeout(thread.idleTimer);
      if (this.slots[slot] === thread) this.slots[slot] = undefined;
      for (const task of thread.tasks.values()) task.reject(error);
      thread.tasks.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`signer recovery thread exited with code ${code}`)));
    this.slots[slot] = thread;
    return thread;
  }

  private idleSoon(slot: number, thread: RecoveryThread): void {
    clearTimeout(thread.idleTimer);
    thread.idleTimer = setTimeout(() => {
      if (thread.tasks.size > 0 || this.slots[slot] !== thread) return;
      this.slots[slot] = undefined;
      void this.stop(thread);
    }, this.idleMs);
    thread.idleTimer.unref();
  }

  private async stop(thread: RecoveryThread): Promise<void> {
    clearTimeout(thread.idleTimer);
    await thread.worker.terminate();
  }
}
