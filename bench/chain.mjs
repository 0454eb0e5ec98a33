// The in-process EVM of the tests (test/utils/evm.ts: tevm behind its JSON-RPC server, with the test token and the
// charging contract) in a process of its own, so that the chain's CPU is measured apart from the service's. Forked
// by bench/auto-renew.mjs; answers over IPC:
// - at start: `{ rpcUrl, chainId, token, charger }`, the chain's clock a day ahead of the wall clock (as in
//   test/auto-renew-erc20.e2e-spec.ts: the service's periods run on the wall clock, and the contract charges a period
//   only from its start on the chain's);
// - `{ id, fund: address }`: ether for gas;
// - `{ id, payers, amount, allowance }`: each payer gets `amount` tokens (minted once, then sent in batches by
//   `transferMany`) and the charger's allowance of `allowance`, written into the token's storage at once (an
//   `approve` transaction each would take tevm minutes for a thousand payers; the charges themselves are real);
// - `{ id, blockNumber: true }`: the latest block number.
import { readFileSync } from 'node:fs';
import { register } from 'node:module';

register('./typescript-hooks.mjs', import.meta.url);
const { startTestChain } = await import('../test/utils/evm.ts');

const charger = JSON.parse(
  readFileSync(new URL('../contracts/compiled.json', import.meta.url), 'utf8'),
).TollgateCharger;
/** Recipients per `transferMany`: well inside a block's gas. */
const TRANSFER_BATCH = 200;
/** Sends the test tokens; holds no key (impersonated, as the tests' sender is). */
const FUNDER = '0x00000000000000000000000000000000000f0dde';

const chain = await startTestChain();
const token = await chain.deployToken('Test USD', 'TUSD', 6);
const chargerAddress = await chain.deployContract(charger);
await chain.increaseTime(86_400);

async function answer({ fund, payers, amount, allowance, blockNumber }) {
  if (fund) return chain.fund(fund);
  if (blockNumber) return Number(await latestBlock());
  await token.mint(FUNDER, BigInt(amount) * BigInt(payers.length));
  for (let i = 0; i < payers.length; i += TRANSFER_BATCH) {
    const batch = payers.slice(i, i + TRANSFER_BATCH).map((to) => ({ to, amount: BigInt(amount) }));
    await token.transferMany(FUNDER, batch);
  }
  await token.setAllowances(payers, chargerAddress, BigInt(allowance));
  return payers.length;
}

async function latestBlock() {
  const response = await fetch(chain.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }),
  });
  return BigInt((await response.json()).result);
}

process.on('message', (message) => {
  answer(message).then(
    (result) => process.send({ id: message.id, result }),
    (error) => process.send({ id: message.id, error: error.stack ?? String(error) }),
  );
});
process.on('disconnect', () => process.exit(0));
process.send({ rpcUrl: chain.rpcUrl, chainId: chain.chainId, token: token.address, charger: chargerAddress });
