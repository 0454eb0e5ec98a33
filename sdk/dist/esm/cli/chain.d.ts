import type { PrivateKeyAccount } from 'viem/accounts';
type Hex = `0x${string}`;
/** The chain could not be reached, or the approve did not go through: exit status 1, like a refusal. */
export declare class ChainError extends Error {
}
export interface AllowanceRequest {
    rpcUrl: string;
    /** The chain the service charges on: the RPC must serve it. */
    chainId: number;
    account: PrivateKeyAccount;
    token: Hex;
    spender: Hex;
    /** The allowance wanted: approved when the current one is below it. */
    amount: bigint;
    log: (line: string) => void;
}
/**
 * A module of viem, an optional peer dependency (left out for library users who sign with a wallet of their own):
 * `optionalViem('login', () => import('viem/accounts'))`. Missing, it is a usage error that says how to install it.
 */
export declare function optionalViem<Module>(command: string, load: () => Promise<Module>): Promise<Module>;
/**
 * Makes `spender`'s allowance over the payer's `token` at least `amount`: reads it, and when it is less, sends an
 * `approve(spender, amount)` from the account and waits for its receipt (after an `approve(spender, 0)` when the
 * token refuses to change a nonzero allowance otherwise, as USDT does). Answers the approve's hash, or undefined
 * when the allowance already sufficed. An RPC of another chain is refused before anything is sent.
 */
export declare function ensureAllowance(request: AllowanceRequest): Promise<Hex | undefined>;
export interface RevocationRequest {
    rpcUrl: string;
    chainId: number;
    /** The mandate's payer. */
    account: PrivateKeyAccount;
    charger: Hex;
    mandateHash: Hex;
    log: (line: string) => void;
}
/**
 * Ends a mandate on chain: sends the charging contract's `revoke(mandateHash)` from the payer's key and waits for its
 * receipt, after which nobody can charge it. Answers the transaction's hash.
 */
export declare function revokeMandate(request: RevocationRequest): Promise<Hex>;
export {};
