/**
 * `npm run contracts:deploy -- --rpc <url> --key-file <file>`: deploys the charging contract (TollgateCharger from
 * the committed contracts/compiled.json) from the account whose private key (0x-prefixed hex) is the file's only
 * content, waits for the receipt and prints the contract's address. `--confirmations <n>` waits for n blocks.
 * The key is read from a file so that it never appears in the process list or the shell history.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createPublicClient, createWalletClient, defineChain, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';

const usage = 'usage: npm run contracts:deploy -- --rpc <url> --key-file <file> [--confirmations <n>]';

function fail(message) {
  console.error(message);
  process.exit(1);
}

let options;
try {
  ({ values: options } = parseArgs({
    options: {
      rpc: { type: 'string' },
      'key-file': { type: 'string' },
      confirmations: { type: 'string', default: '1' },
    },
  }));
} catch (error) {
  fail(`${error.message}\n${usage}`);
}
if (!options.rpc || !options['key-file']) fail(usage);
const confirmations = Number(options.confirmations);
if (!Number.isSafeInteger(confirmations) || confirmations < 1)
  fail('--confirmations must be a whole number ≥ 1');

let key;
try {
  key = readFileSync(options['key-file'], 'utf8').trim();
} catch (error) {
  fail(`cannot read the key file: ${error.code ?? error.message}`);
}
// The key itself is never echoed, not even in this message.
if (!/^0x[0-9a-fA-F]{64}$/.test(key)) fail('the key file must hold one private key: 0x and 64 hex digits');
const account = privateKeyToAccount(key);

const artifact = JSON.parse(readFileSync(new URL('../contracts/compiled.json', import.meta.url), 'utf8'));
const { abi, bytecode } = artifact.TollgateCharger;

const transport = http(options.rpc);
const chainId = await createPublicClient({ transport }).getChainId();
const chain = defineChain({
  id: chainId,
  name: `chain ${chainId}`,
  nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
  rpcUrls: { default: { http: [options.rpc] } },
});
const publicClient = createPublicClient({ chain, transport });
const wallet = createWalletClient({ account, chain, transport });

console.error(`deploying TollgateCharger on chain ${chainId} from ${account.address}`);
const hash = await wallet.deployContract({ abi, bytecode });
console.error(`transaction ${hash}`);
const receipt = await publicClient.waitForTransactionReceipt({ hash, confirmations });
if (receipt.status !== 'success' || !receipt.contractAddress)
  fail(`deployment failed: transaction ${hash} reverted`);
console.log(receipt.contractAddress);
