import { Module } from '@nestjs/common';
import { createPublicClient, http, type PublicClient } from 'viem';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/app-config.module.js';
import { autoRenewOfferOf } from '../config/settings.js';
import { tracedTransport } from '../tracing/traced-transport.js';

/**
 * The one client of the chain's endpoint (`CHAIN_RPC_URL`) for automatic renewal under `erc20`: the registration's
 * reads (allowance, code) and the keeper's charges share it, with its connections. Null where automatic renewal is
 * not offered under `erc20`.
 */
export const AUTO_RENEW_CHAIN = Symbol('AUTO_RENEW_CHAIN');

/**
 * A client of `rpcUrl` as automatic renewal uses it: one request at a time is bounded by `timeoutMs` and not retried
 * (the caller decides what a failure means), and nothing is cached, since block numbers decide confirmations.
 */
export function autoRenewChainClient(rpcUrl: string, timeoutMs: number): PublicClient {
  return createPublicClient({
    transport: tracedTransport(http(rpcUrl, { timeout: timeoutMs, retryCount: 0 }), rpcUrl),
    cacheTime: 0,
    ccipRead: false,
  });
}

@Module({
  providers: [
    {
      provide: AUTO_RENEW_CHAIN,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig): PublicClient | null => {
        const offer = autoRenewOfferOf(config);
        return offer.gateway === 'erc20'
          ? autoRenewChainClient(offer.rpcUrl, config.chainRpcTimeoutMs)
          : null;
      },
    },
  ],
  exports: [AUTO_RENEW_CHAIN],
})
export class AutoRenewChainModule {}
