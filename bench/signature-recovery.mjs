// What one login's signer recovery costs on the event loop of this Node.js line: CPU milliseconds per
// `recoverMessageAddress` (viem, pure JavaScript), in rounds, after a warm-up. The reason recovery runs on worker
// threads (docs/decisions/2026-11-22-signer-recovery-on-worker-threads.md) is this cost; CPU time is read rather than
// the wall clock, so a busy machine moves it little.
//   node bench/signature-recovery.mjs          (BENCH_ROUNDS, BENCH_PER_ROUND)
import { recoverMessageAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const PER_ROUND = Number(process.env.BENCH_PER_ROUND ?? 200);

const account = privateKeyToAccount(generatePrivateKey());
const signed = [];
for (let i = 0; i < PER_ROUND; i++) {
  const message = `Sign in to Tollgate\nNonce: ${i.toString(36).padStart(12, '0')}`;
  signed.push({ message, signature: await account.signMessage({ message }) });
}

async function round() {
  const start = process.cpuUsage();
  for (const { message, signature } of signed) {
    if ((await recoverMessageAddress({ message, signature })) !== account.address)
      throw new Error('wrong signer');
  }
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000 / signed.length;
}

await round(); // warm-up: the curve code compiles
const rounds = [];
for (let i = 0; i < ROUNDS; i++) rounds.push(+(await round()).toFixed(3));
const sorted = [...rounds].sort((a, b) => a - b);
console.log(
  JSON.stringify({
    node: process.version,
    cpuMsPerRecovery: sorted[Math.floor(sorted.length / 2)],
    rounds,
    spread: +((sorted.at(-1) - sorted[0]) / sorted[0]).toFixed(3),
  }),
);
