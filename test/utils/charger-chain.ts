import { readFileSync } from 'node:fs';
import {
  type Abi,
  type Address,
  createPublicClient,
  erc20Abi,
  getAddress,
  type Hex,
  http as viemHttp,
  type PublicClient,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { type Mandate, mandateTypedData } from '../../src/auto-renew/mandate.js';
import { startTestChain, type TestChain, type TestToken } from './evm.js';
import { http } from './http.js';
import { login, type WalletSession } from './wallet.js';

/** The charging contract as compiled into the repository (contracts/compiled.json). */
export const CHARGER_ARTIFACT = (
  JSON.parse(readFileSync(new URL('../../contracts/compiled.json', import.meta.url), 'utf8')) as {
    TollgateCharger: { abi: Abi; bytecode: Hex };
  }
).TollgateCharger;

export interface ChargerChain {
  chain: TestChain;
  token: TestToken;
  charger: Address;
  /** A key holding gas money, for the service's keeper. */
  keeperKey: Hex;
  /** A client of the chain itself (not of any proxy in front of it), that caches nothing. */
  client: PublicClient;
}

/**
 * The in-process chain with a 6-decimal test token, the charging contract and a funded keeper key. The service's
 * periods run on the wall clock while the contract charges period i only from its start on the chain's, so the
 * chain is moved a day ahead: each period the service asks for has begun there (as on a real chain, where the lead is
 * minutes and the keeper is asked at the period end at the latest). `advance: false` keeps the chain's clock.
 */
export async function startChargerChain({
  symbol = 'TUSD',
  advance = true,
}: { symbol?: string; advance?: boolean } = {}): Promise<ChargerChain> {
  const chain = await startTestChain();
  const token = await chain.deployToken(`Test ${symbol}`, symbol, 6);
  const charger = await chain.deployContract(CHARGER_ARTIFACT);
  const keeperKey = generatePrivateKey();
  await chain.fund(privateKeyToAccount(keeperKey).address);
  if (advance) await chain.increaseTime(86_400);
  const client = createPublicClient({ transport: viemHttp(chain.rpcUrl), cacheTime: 0 });
  return { chain, token, charger, keeperKey, client };
}

/** Every transfer of `token` that `payer` made (nothing else moves its tokens in these tests). */
export async function transfersFrom(client: PublicClient, token: Address, payer: Address) {
  const logs = await client.getContractEvents({
    address: token,
    abi: erc20Abi,
    eventName: 'Transfer',
    fromBlock: 'earliest',
    toBlock: 'latest',
  });
  return logs.filter((log) => log.args.from === payer);
}

/** What `GET /subscriptions/plan` → `autoRenew` offers under `erc20`. */
export type ChargeOffer = Record<string, any>;

/** A mandate of `periods` from the subscription's period `end`, on the offer's terms, and where it is signed. */
export function mandateOnOffer(
  offer: ChargeOffer,
  payer: Address,
  end: string,
  periods: bigint,
  salt: Hex,
): { mandate: Mandate; chainId: number; charger: Address } {
  const mandate: Mandate = {
    payer,
    token: getAddress(offer.token as string),
    payee: getAddress(offer.payee as string),
    amount: BigInt(offer.amount as string),
    periodSeconds: BigInt(offer.periodSeconds as number),
    start: BigInt(Math.floor(Date.parse(end) / 1000)),
    periods,
    salt,
  };
  return { mandate, chainId: offer.chainId as number, charger: getAddress(offer.charger as string) };
}

/** `POST /subscriptions/auto-renew`'s body: the mandate with its integers as decimal strings, and its signature. */
export function registrationBody(mandate: Mandate, signature: Hex) {
  return {
    mandate: {
      ...mandate,
      amount: mandate.amount.toString(),
      periodSeconds: mandate.periodSeconds.toString(),
      start: mandate.start.toString(),
      periods: mandate.periods.toString(),
    },
    signature,
  };
}

/** A new wallet holding ten periods' worth of the token, that paid its first period by transfer (not yet renewed). */
export async function fundedPayer(
  url: string,
  { token, charger }: Pick<ChargerChain, 'token' | 'charger'>,
  { receiver, price }: { receiver: Address; price: bigint },
): Promise<{ session: WalletSession; firstTx: Hex }> {
  const session = await login(url);
  await token.mint(session.address, 10n * price);
  const firstTx = await token.transfer(session.address, receiver, price);
  await token.approve(session.address, charger, 10n * price);
  return { session, firstTx };
}

/**
 * A funded payer's manual renewal with its transfer, then a signed mandate of `periods` from its period end
 * registered (the charging contract approved for ten periods).
 */
export async function renewedWithMandate(
  url: string,
  { session, firstTx }: { session: WalletSession; firstTx: Hex },
  { periods, salt }: { periods: bigint; salt: Hex },
): Promise<{ session: WalletSession; end: string }> {
  const renewed = await http(url).post('/subscriptions/renew', {
    token: session.token,
    body: { payment: { txHash: firstTx } },
  });
  expect(renewed.status).toBe(200);
  const end = renewed.body.currentPeriodEnd as string;
  const offer = (await http(url).get('/subscriptions/plan')).body.autoRenew as ChargeOffer;
  const signed = mandateOnOffer(offer, session.address, end, periods, salt);
  const signature = await session.account.signTypedData(
    mandateTypedData(signed.mandate, signed.chainId, signed.charger),
  );
  const registered = await http(url).post('/subscriptions/auto-renew', {
    token: session.token,
    body: registrationBody(signed.mandate, signature),
  });
  expect(registered.status).toBe(200);
  return { session, end };
}

/**
 * A new wallet holding ten periods' worth of the token, that paid its first period by transfer (a manual renewal),
 * approved the charging contract for ten periods, and registered a signed mandate of `periods` from its period end.
 */
export async function subscribedWithMandate(
  url: string,
  chain: Pick<ChargerChain, 'token' | 'charger'>,
  { receiver, price, periods, salt }: { receiver: Address; price: bigint; periods: bigint; salt: Hex },
): Promise<{ session: WalletSession; end: string }> {
  return renewedWithMandate(url, await fundedPayer(url, chain, { receiver, price }), { periods, salt });
}

/** An event as `GET /events` lists it. */
export interface ListedEvent {
  type: string;
  data: Record<string, any>;
}

/** The wallet's own events of `type` (up to 200), oldest first. */
export async function eventsOf(
  url: string,
  session: Pick<WalletSession, 'token'>,
  type: string,
): Promise<ListedEvent[]> {
  const listed = await http(url).get(`/events?type=${type}&limit=200`, { token: session.token });
  expect(listed.status).toBe(200);
  return (listed.body as ListedEvent[]).reverse();
}

/** The wallet's own subscription object. */
export async function statusOf(
  url: string,
  session: Pick<WalletSession, 'token'>,
): Promise<Record<string, any>> {
  const answer = await http(url).get('/subscriptions/status', { token: session.token });
  expect(answer.status).toBe(200);
  return answer.body as Record<string, any>;
}
