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
/**
 * Makes `spender`'s allowance over the payer's `token` at least `amount`: reads it, and when it is less, sends an
 * `approve(spender, amount)` from the account and waits for its receipt (after an `approve(spender, 0)` when the
 * token refuses to change a nonzero allowance otherwise, as USDT does). Answers the approve's hash, or undefined
 * when the allowance already sufficed. An RPC of another chain is refused before anything is sent.
 */
export async function ensureAllowance(request) {
    const { createPublicClient, createWalletClient, erc20Abi, http } = await optionalViem('auto-renew enable', () => import('viem'));
    const { rpcUrl, account, token, spender, amount, log } = request;
    const transport = http(rpcUrl, { retryCount: 0 });
    const reader = createPublicClient({ transport });
    const onChain = async (what, call) => {
        try {
            return await call();
        }
        catch (error) {
            const reason = error.shortMessage ?? error.message;
            throw new ChainError(`${what} failed at ${rpcUrl}: ${reason}`);
        }
    };
    const chainId = await onChain('reading the chain id', () => reader.getChainId());
    if (chainId !== request.chainId) {
        throw new UsageError(`the RPC at ${rpcUrl} serves chain ${chainId}; the service charges on chain ${request.chainId}`);
    }
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
    const writer = createWalletClient({ account, transport });
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
    const approve = async (value) => {
        const hash = await onChain('sending the approve', () => writer.writeContract({
            address: token,
            abi: erc20Abi,
            functionName: 'approve',
            args: [spender, value],
            chain: null,
        }));
        log(`approve sent: ${hash}; waiting for its receipt`);
        const receipt = await onChain('waiting for the approve', () => reader.waitForTransactionReceipt({ hash, pollingInterval: 1_000 }));
        if (receipt.status !== 'success')
            throw new ChainError(`the approve ${hash} reverted`);
        return hash;
    };
    // A token that changes a nonzero allowance only from 0 (USDT's rule) refuses the approve: it is set to 0 first.
    if (allowance > 0n && !(await approveWouldPass(amount))) {
        log(`${token} changes an allowance only from 0: setting ${spender}'s allowance of ${allowance} to 0 first`);
        await approve(0n);
    }
    log(`approving ${spender} for ${amount} of ${token} (allowance ${allowance}) from ${account.address}`);
    return approve(amount);
}
