import type { PrivateKeyAccount } from 'viem/accounts';
import { type AutoRenewStatus } from '../auto-renew.js';
import type { TollgateClient } from '../client.js';
export declare const AUTO_RENEW_USAGE = "auto-renew enable [--periods <n>]   renew automatically at each period end. Under the erc20 gateway it\n                                   signs a mandate with the wallet's private key (--key-file, else\n                                   TOLLGATE_PRIVATE_KEY, else a prompt) for <n> periods (1 to 1200,\n                                   default 12) and, when the charging contract's allowance is below\n                                   <n> \u00D7 the period's amount, first approves it for that much (a\n                                   transaction from the same key: it needs gas) through --rpc-url.\n                                   Under free no key is needed (--periods: default the service's)\nauto-renew status                  enabled, next charge, amount, allowance shortfall, failure\nauto-renew retry                   after fixing a failed charge (allowance, balance): try again now\nauto-renew disable [--revoke]      no further charge; the paid period runs to its end. Under erc20 the\n                                   signed mandate stays chargeable on chain until its end: --revoke\n                                   first sends the charging contract's revoke(mandateHash) from the\n                                   wallet's key through --rpc-url, so that nobody can charge it\n\n  --periods <n>      how many periods the mandate covers\n  --revoke           with disable: revoke the mandate on chain first (erc20)\n  --key-file <path>  the private key of the subscription's wallet (erc20)\n  --rpc-url <url>    a JSON-RPC endpoint of the service's chain (erc20; default TOLLGATE_RPC_URL)\n  --address <a>      another wallet's subscription (operators; under erc20 that wallet's key signs)";
export declare const AUTO_RENEW_OPTIONS: {
    readonly periods: {
        readonly type: "string";
    };
    readonly revoke: {
        readonly type: "boolean";
    };
    readonly 'rpc-url': {
        readonly type: "string";
    };
};
export interface AutoRenewIo {
    authed: () => TollgateClient;
    /** The account of the private key (read only when a mandate is to be signed). */
    account: () => Promise<PrivateKeyAccount>;
    /** --rpc-url, else TOLLGATE_RPC_URL. */
    rpcUrl: string | undefined;
    address: string | undefined;
    show: (object: object) => void;
    log: (line: string) => void;
}
/** One `key: value` line each: what a subscriber wants to know about its automatic renewal. */
export declare function autoRenewLines(state: AutoRenewStatus): Record<string, string>;
export declare function autoRenew(io: AutoRenewIo, sub: string | undefined, values: {
    periods?: string;
    revoke?: boolean;
}): Promise<void>;
