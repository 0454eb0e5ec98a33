import { Counter } from 'prom-client';
import type { Metrics } from '../../metrics/metrics.service.js';
import type { ChargeOutcome } from '../charge-executor.js';

/**
 * The keeper's metrics: charges by outcome (as asked: a charge reported `pending` twice counts twice), the gas
 * balance and the oldest charge waiting for the chain (both read when scraped). The oldest due charge is the renewal
 * sweep's (AutoRenewSweeper), under any gateway.
 */
export class KeeperMetrics {
  private readonly charges: Counter<'outcome'>;

  constructor(
    metrics: Metrics,
    sources: { balanceWei: () => Promise<bigint>; oldestWaitingSeconds: () => Promise<number> },
  ) {
    this.charges = new Counter({
      name: 'tollgate_keeper_charges_total',
      help: 'Charges asked of the keeper by outcome: charged, pending, or the failure (insufficient_allowance, chain_unavailable, …).',
      labelNames: ['outcome'] as const,
      registers: [metrics.registry],
    });
    // A gauge is a double: exact up to 2^53 wei (0.009 ether), within a part in 10^15 above, enough to alert on.
    metrics.gauge(
      'tollgate_keeper_balance_wei',
      "The keeper key's gas balance in wei (read when scraped).",
      [],
      async (set) => set(Number(await sources.balanceWei())),
    );
    metrics.gauge(
      'tollgate_keeper_oldest_waiting_seconds',
      'Seconds since the oldest charge still waiting for the chain (claimed or sent, not yet confirmed) was claimed.',
      [],
      async (set) => set(await sources.oldestWaitingSeconds()),
    );
  }

  counted(outcome: ChargeOutcome): void {
    this.charges.inc({ outcome: outcome.kind === 'failed' ? outcome.failure : outcome.kind });
  }
}
