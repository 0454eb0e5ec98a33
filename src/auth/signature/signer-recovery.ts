import { Worker } from 'node:worker_threads';
import { type Address, type Hex, recoverAddress } from 'viem';
import type { RecoveryReply, RecoveryRequest, RecoveryThreadData } from './signer-recovery.thread.js';

/**
 * The thread's program, compiled by `nest build` beside this module. Under jest this module runs from its .ts
 * source, which a worker thread cannot load, so the thread is then the build's copy (`npm test` builds first).
 */
function threadProgram(): URL {
  const here = new URL(import.meta.url);
  return here.pathname.endsWith('.ts')
    ? new URL('../../../dist/src/auth/signature/signer-recovery.thread.js', here)
    : new URL('./signer-recovery.thread.js', here);
}

/** A valid signature (of "tollgate", by the key 0x11…11) for a new thread's warm-up recovery. */
const WARM_UP = {
  hash: '0x919c0b92df168b6999d81882b440fdf1196b6581d5e103bad67ec18b720443bc',
  signature:
    '0x8ba100808171c4febe8db0460d0fdb3cca0352af800765505fe6887c3d8d27cc64126135c517e3a50454ec89805c9be260cbdb90addb9773113b8bb276ee3a381b',
} as const satisfies RecoveryThreadData['warmUp'];

/** A thread with nothing to do for this long stops; the next login starts it again. */
const DEFAULT_IDLE_MS = 30_000;

/** The signature yields no public key (malformed, or not a point of the curve): an answer, not a failure. */
export class UnrecoverableSignatureError extends Error {}

interface Task {
  resolve: (address: Address) => void;
  reject: (error: Error) => void;
}

interface RecoveryThread {
  worker: Worker;
  /** Warmed up: until then, recoveries are done on the calling thread rather than wait for it. */
  ready: boolean;
  tasks: Map<number, Task>;
  idleTimer: NodeJS.Timeout | undefined;
}

export interface SignerRecoveryOptions {
  /** Threads to recover signers on; 0 recovers on the calling thread. */
  threads: number;
  idleMs?: number;
}

/**
 * ECDSA signer recovery (viem's `recoverAddress`, milliseconds of pure JavaScript per signature) on worker
 * threads. On the event loop, every login would stall every other request for that long; here the curve arithmetic runs on
 * the other cores while the event loop serves HTTP. Threads start with the first login (another only when the
 * ready ones are busy) and stop when idle, so an instance that serves no logins keeps no memory for them; while a
 * thread starts, logins are recovered on the calling thread, so none waits for a thread to boot. A thread that
 * fails or exits fails only the recoveries it held; those are then done on the calling thread, and a new thread
 * takes the slot for the next ones.
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

  /** Threads warmed up and taking recoveries. */
  get readyThreads(): number {
    return this.slots.filter((thread) => thread?.ready).length;
  }

  /** The address that signed `hash`; rejects with {@link UnrecoverableSignatureError} when none did. */
  async recover(hash: Hex, signature: Hex): Promise<Address> {
    const thread = this.closed ? undefined : this.pick();
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
      thread.worker.postMessage({ id, hash, signature } satisfies RecoveryRequest);
    });
  }

  /** The least busy ready thread, if any; starts another when none is ready or all ready ones are busy. */
  private pick(): RecoveryThread | undefined {
    let best: RecoveryThread | undefined;
    let freeSlot: number | undefined;
    let starting = false;
    for (let slot = 0; slot < this.slots.length; slot++) {
      const thread = this.slots[slot];
      if (!thread) freeSlot ??= slot;
      else if (!thread.ready) starting = true;
      else if (!best || thread.tasks.size < best.tasks.size) best = thread;
    }
    if (freeSlot !== undefined && !starting && (!best || best.tasks.size > 0)) this.start(freeSlot);
    return best;
  }

  private start(slot: number): void {
    const worker = new Worker(threadProgram(), {
      workerData: { warmUp: WARM_UP } satisfies RecoveryThreadData,
      // Short-lived BigInts only: a small heap keeps the thread's memory close to its code.
      resourceLimits: { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 64 },
    });
    // A thread waiting for work does not keep the process alive.
    worker.unref();
    const thread: RecoveryThread = { worker, ready: false, tasks: new Map(), idleTimer: undefined };
    worker.on('message', (reply: RecoveryReply) => {
      if ('ready' in reply) {
        thread.ready = true;
        this.idleSoon(slot, thread);
        return;
      }
      const task = thread.tasks.get(reply.id);
      if (!task) return;
      thread.tasks.delete(reply.id);
      if ('address' in reply) task.resolve(reply.address);
      else task.reject(new UnrecoverableSignatureError(reply.error));
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
