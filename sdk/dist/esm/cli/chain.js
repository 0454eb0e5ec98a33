import { UsageError } from './settings.js';
/** The chain could not be reached, or the approve did not go through: exit status 1, like a refusal. */
export class ChainError extends Error {
}
/**
 * A module of viem, an optional peer dependency (left out for library users who sign with a wallet of their own):
 * `optionalViem('login', () => import('viem/accounts'))`. Missing, it is a usage error that says how to install it.
 */
export async function optionalViem(command, load) {
    try {
        return await load();
    }
    catch (error) {
        if (error.code !== 'ERR_MODULE_NOT_FOUND')
            throw error;
        throw new UsageError(`\`tollgate ${command}\` signs with viem, which is not installed: npm install viem (an optional peer ` +
            'dependency of @tollgate/client, left out for library users who sign with a wallet of their own)');
    }
}
/** The chain as the CLI uses it: reads, the account's transactions (each waited for), and failures as ChainError. */
async function connect(command, rpcUrl, chainId, account) {
    const viem = await optionalViem(command, () => import('viem'));
    const transport = viem.http(rpcUrl, { retryCount: 0 });
    const reader = viem.createPublicClient({ transport });
    const writer = viem.createWalletClient({ account, transport });
    const onChain = async (what, call) => {
        try {
            return await call();
        }
        catch (error) {
            const reason = error.shortMessage ?? error.message;
            throw new ChainError(`${what} failed at ${rpcUrl}: ${reason}`);
        }
    };
    const served = await onChain('reading the chain id', () => reader.getChainId());
    if (served !== chainId) {
        throw new UsageError(`the RPC at ${rpcUrl} serves chain ${served}; the service charges on chain ${chainId}`);
    }
    /** Sends `send`'s transaction, logs its hash, and waits for its receipt; a revert is a ChainError. */
    const transact = async (what, send, log) => {
        const hash = await onChain(`sending the ${what}`, send);
        log(`${what} sent: ${hash}; waiting for its receipt`);
        const receipt = await onChain(`waiting for the ${what}`, () => reader.waitForTransactionReceipt({ hash, pollingInterval: 1_000 }));
        if (receipt.status !== 'success')
            throw new ChainError(`the ${what} ${hash} reverted`);
        return hash;
    };
    return { viem, reader, writer, onChain, transact };
}
/**
 * Makes `spender`'s allowance over the payer's `token` at least `amount`: reads it, and when it is less, sends an
 * `approve(spender, amount)` from the account and waits for its receipt (after an `approve(spender, 0)` when the
 * token refuses to change a nonzero allowance otherwise, as USDT does). Answers the approve's hash, or undefined
 * when the allowance already sufficed. An RPC of another chain is refused before anything is sent.
 */
export async function ensureAllowance(request) {
    const { rpcUrl, account, token, spender, amount, log } = request;
    const { viem, reader, writer, onChain, transact } = await connect('auto-renew enable', rpcUrl, request.chainId, account);
    const { erc20Abi } = viem;
    const allowance = await onChain('reading the allowance', () => reader.readContract({
        address: token,
        abi: erc20Abi,
        functionName: 'allowance',
        args: [account.address, spender],
    }));
    if (allowance >= amount) {
        log(`allowance of ${spender} is ${allowance}: covers ${amount}, nothing to approve`);
        return undefined;
    }
    const approveWouldPass = async (value) => {
        try {
            await reader.simulateContract({
                account: account.address,
                address: token,
                abi: erc20Abi,
                functionName: 'approve',
                args: [spender, value],
            });
            return true;
        }
        catch {
            return false;
        }
    };
    const approve = (value) => transact('approve', () => writer.writeContract({
        address: token,
        abi: erc20Abi,
        functionName: 'approve',
        args: [spender, value],
        chain: null,
    }), log);
    // A token that changes a nonzero allowance only from 0 (USDT's rule) refuses the approve: it is set to 0 first.
    if (allowance > 0n && !(await approveWouldPass(amount))) {
        log(`${token} changes an allowance only from 0: setting ${spender}'s allowance of ${allowance} to 0 first`);
        await approve(0n);
    }
    log(`approving ${spender} for ${amount} of ${token} (allowance ${allowance}) from ${account.address}`);
    return approve(amount);
}
/** The charging contract's `revoke(bytes32 mandateHash)`: only the mandate's payer's call counts. */
const REVOKE_ABI = [
    {
        type: 'function',
        name: 'revoke',
        stateMutability: 'nonpayable',
        inputs: [{ name: 'mandateHash', type: 'bytes32' }],
        outputs: [],
    },
];
/**
 * Ends a mandate on chain: sends the charging contract's `revoke(mandateHash)` from the payer's key and waits for its
 * receipt, after which nobody can charge it. Answers the transaction's hash.
 */
export async function revokeMandate(request) {
    const { rpcUrl, account, charger, mandateHash, log } = request;
    const { writer, transact } = await connect('auto-renew disable --revoke', rpcUrl, request.chainId, account);
    log(`revoking the mandate ${mandateHash} at the charging contract ${charger} from ${account.address}`);
    return transact('revoke', () => writer.writeContract({
        address: charger,
        abi: REVOKE_ABI,
        functionName: 'revoke',
        args: [mandateHash],
        chain: null,
    }), log);
}
