import { parentPort, workerData } from 'node:worker_threads';
import type { Address, Hex } from 'viem';
import { recoverAddress } from 'viem/utils';

/** What the event loop asks a recovery thread. */
export interface RecoveryRequest {
  id: number;
  hash: Hex;
  signature: Hex;
}

/** A thread's answers: ready once warmed up, then one reply per request. */
export type RecoveryReply =
  { ready: true } | { id: number; address: Address } | { id: number; error: string };

/** Handed to the thread at start: a valid signature for its warm-up recovery. */
export interface RecoveryThreadData {
  warmUp: { hash: Hex; signature: Hex };
}

const port = parentPort;
if (port) {
  const { warmUp } = workerData as RecoveryThreadData;
  const reply = (message: RecoveryReply): void => port.postMessage(message);
  port.on('message', ({ id, hash, signature }: RecoveryRequest) => {
    recoverAddress({ hash, signature }).then(
      (address) => reply({ id, address }),
      (error: unknown) => reply({ id, error: error instanceof Error ? error.message : String(error) }),
    );
  });
  // One recovery before the first real one: loading and compiling the curve code takes a few hundred ms.
  const ready = (): void => reply({ ready: true });
  recoverAddress(warmUp).then(ready, ready);
}
