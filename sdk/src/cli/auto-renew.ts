// `tollgate auto-renew …`: turn automatic renewal on (signing the mandate and approving under erc20), off, retry a
// failed charge, and show it.
import type { PrivateKeyAccount } from 'viem/accounts';
import {
  type AutoRenewStatus,
  autoRenewStatus,
  disableAutoRenew,
  MAX_MANDATE_PERIODS,
  prepareAutoRenew,
  registerAutoRenew,
  retryAutoRenew,
  signMandate,
} from '../auto-renew.js';
import type { TollgateClient } from '../client.js';
import { unwrap } from '../errors.js';
import type { components } from '../schema.js';
import { ensureAllowance, revokeMandate } from './chain.js';
import { UsageError } from './settings.js';

type Subscription = components['schemas']['SubscriptionDto'];

export const AUTO_RENEW_USAGE = `auto-renew enable [--periods <n>]   renew automatically at each period end. Under the erc20 gateway it
                                   signs a mandate with the wallet's private key (--key-file, else
                                   TOLLGATE_PRIVATE_KEY, else a prompt) for <n> periods (1 to ${MAX_MANDATE_PERIODS},
                                   default 12) and, when the charging contract's allowance is below
                                   <n> × the period's amount, first approves it for that much (a
                                   transaction from the same key: it needs gas) through --rpc-url.
                                   Under free no key is needed (--periods: default the service's)
auto-renew status                  enabled, next charge, amount, allowance shortfall, failure
auto-renew retry                   after fixing a failed charge (allowance, balance): try again now
auto-renew disable [--revoke]      no further charge; the paid period runs to its end. Under erc20 the
                                   signed mandate stays chargeable on chain until its end: --revoke
                                   first sends the charging contract's revoke(mandateHash) from the
                                   wallet's key through --rpc-url, so that nobody can charge it

  --periods <n>      how many periods the mandate covers
  --revoke           with disable: revoke the mandate on chain first (erc20)
  --key-file <path>  the private key of the subscription's wallet (erc20)
  --rpc-url <url>    a JSON-RPC endpoint of the service's chain (erc20; default TOLLGATE_RPC_URL)
  --address <a>      another wallet's subscription (operators; under erc20 that wallet's key signs)`;

export const AUTO_RENEW_OPTIONS = {
  periods: { type: 'string' },
  revoke: { type: 'boolean' },
  'rpc-url': { type: 'string' },
} as const;

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

function periodsOption(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const periods = Number(value);
  if (!/^[1-9][0-9]*$/.test(value) || periods > MAX_MANDATE_PERIODS) {
    throw new UsageError(`--periods must be a whole number from 1 to ${MAX_MANDATE_PERIODS}`);
  }
  return periods;
}

/** One `key: value` line each: what a subscriber wants to know about its automatic renewal. */
export function autoRenewLines(state: AutoRenewStatus): Record<string, string> {
  const { failure } = state;
  return {
    status: state.status,
    enabled: String(state.enabled),
    nextChargeAt: state.nextChargeAt ?? '-',
    amount: state.amount ?? '-',
    token: state.token ?? '-',
    endsAt: state.endsAt ?? '-',
    allowanceShortfall: state.allowanceShortfall ?? '0',
    mandateHash: state.mandateHash ?? '-',
    failure: failure === null ? 'none' : `${failure.reason} at ${failure.at}: ${failure.message}`,
  };
}

function stateOf(subscription: Subscription): AutoRenewStatus {
  return {
    status: subscription.status,
    currentPeriodEnd: subscription.currentPeriodEnd,
    ...subscription.autoRenew,
  };
}

export async function autoRenew(
  io: AutoRenewIo,
  sub: string | undefined,
  values: { periods?: string; revoke?: boolean },
): Promise<void> {
  const address = io.address === undefined ? {} : { address: io.address };
  switch (sub) {
    case 'enable':
      return io.show(autoRenewLines(stateOf(await enable(io, periodsOption(values.periods)))));
    case 'disable':
      if (values.revoke === true) await revoke(io);
      return io.show(autoRenewLines(stateOf(await disableAutoRenew(io.authed(), address))));
    case 'retry':
      return io.show(autoRenewLines(stateOf(await retryAutoRenew(io.authed(), address))));
    case 'status':
      return io.show(autoRenewLines(await autoRenewStatus(io.authed(), address)));
    default:
      throw new UsageError(`auto-renew enable|status|retry|disable\n\n${AUTO_RENEW_USAGE}`);
  }
}

async function enable(io: AutoRenewIo, periods: number | undefined): Promise<Subscription> {
  const client = io.authed();
  const options = {
    ...(io.address === undefined ? {} : { address: io.address }),
    ...(periods === undefined ? {} : { periods }),
  };
  const prepared = await prepareAutoRenew(client, options);
  const { signable } = prepared;
  if (signable === undefined) return registerAutoRenew(client, prepared, undefined, options);

  if (io.rpcUrl === undefined) {
    throw new UsageError(
      'auto-renew enable under erc20 approves the charging contract on chain: pass --rpc-url <url> or set ' +
        'TOLLGATE_RPC_URL',
    );
  }
  const account = await io.account();
  const { mandate } = signable;
  if (account.address.toLowerCase() !== mandate.payer.toLowerCase()) {
    throw new UsageError(
      `the key is ${account.address}'s; the mandate is the subscription's wallet's (${mandate.payer}) to sign`,
    );
  }
  // Approved before the registration, which reads the allowance and shows any shortfall until the next charge.
  await ensureAllowance({
    rpcUrl: io.rpcUrl,
    chainId: signable.chainId,
    account,
    token: mandate.token as `0x${string}`,
    spender: signable.charger,
    amount: BigInt(mandate.amount) * BigInt(mandate.periods),
    log: io.log,
  });
  io.log(
    `signing a mandate for ${mandate.periods} periods of ${mandate.amount} from ${mandate.start} (unix s) ` +
      `for the charging contract ${signable.charger} on chain ${signable.chainId}`,
  );
  return registerAutoRenew(client, prepared, await signMandate(account, signable), options);
}

/**
 * `disable --revoke`: the enabled mandate revoked on chain by its payer before the service turns it off, so that a
 * failure leaves it on rather than off in the service and chargeable on chain. Under `free`, or with nothing
 * enabled, there is nothing on chain: the disable goes ahead (and says so, or answers 404 as without --revoke).
 */
async function revoke(io: AutoRenewIo): Promise<void> {
  const client = io.authed();
  const query = io.address === undefined ? {} : { address: io.address };
  const [plan, status] = await Promise.all([
    unwrap(client.GET('/subscriptions/plan')),
    unwrap(client.GET('/subscriptions/status', { params: { query } })),
  ]);
  const offer = plan.autoRenew;
  const { mandateHash } = status.autoRenew;
  if (
    !status.autoRenew.enabled ||
    mandateHash === undefined ||
    offer?.gateway !== 'erc20' ||
    offer.chainId === null ||
    offer.charger === null
  ) {
    io.log('nothing to revoke on chain: no signed mandate is enabled');
    return;
  }
  if (io.rpcUrl === undefined) {
    throw new UsageError(
      'auto-renew disable --revoke sends a transaction: pass --rpc-url <url> or set TOLLGATE_RPC_URL',
    );
  }
  const account = await io.account();
  if (account.address.toLowerCase() !== status.address.toLowerCase()) {
    throw new UsageError(
      `the key is ${account.address}'s; only the mandate's payer (${status.address}) can revoke it`,
    );
  }
  await revokeMandate({
    rpcUrl: io.rpcUrl,
    chainId: offer.chainId,
    account,
    charger: offer.charger as `0x${string}`,
    mandateHash: mandateHash as `0x${string}`,
    log: io.log,
  });
}
