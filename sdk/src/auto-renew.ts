import type { TollgateClient } from './client.js';
import { unwrap } from './errors.js';
import type { components } from './schema.js';

type Schemas = components['schemas'];
type Subscription = Schemas['SubscriptionDto'];
type Hex = `0x${string}`;

/** What `GET /subscriptions/plan` → `autoRenew` offers: the gateway and, under `erc20`, the chain, contract, token, payee. */
export type AutoRenewTerms = Schemas['AutoRenewTermsDto'];

/** A mandate as the API carries it (`POST /subscriptions/auto-renew`): addresses, integers as decimal strings. */
export type Mandate = Schemas['MandateDto'];

/**
 * The EIP-712 types of a mandate, in the order the charging contract's MANDATE_TYPEHASH names them. The client is
 * a package of its own and does not import the service: a unit test checks these against the service's
 * definition (src/auto-renew/mandate.ts) and signatures made from them against its verification.
 */
export const MANDATE_TYPES = {
  Mandate: [
    { name: 'payer', type: 'address' },
    { name: 'token', type: 'address' },
    { name: 'payee', type: 'address' },
    { name: 'amount', type: 'uint256' },
    { name: 'periodSeconds', type: 'uint256' },
    { name: 'start', type: 'uint256' },
    { name: 'periods', type: 'uint256' },
    { name: 'salt', type: 'bytes32' },
  ],
} as const;

/** Most periods one mandate may cover (the service's limit). */
export const MAX_MANDATE_PERIODS = 1200;

/** Periods a mandate covers when the caller does not say: a year of monthly periods. */
export const DEFAULT_MANDATE_PERIODS = 12;

/** What a wallet signs for a mandate: viem's `signTypedData` parameters (integers as bigint). */
export interface MandateTypedData {
  domain: { name: 'Tollgate Charger'; version: '1'; chainId: number; verifyingContract: Hex };
  types: typeof MANDATE_TYPES;
  primaryType: 'Mandate';
  message: {
    payer: Hex;
    token: Hex;
    payee: Hex;
    amount: bigint;
    periodSeconds: bigint;
    start: bigint;
    periods: bigint;
    salt: Hex;
  };
}

/**
 * Anything that signs EIP-712 typed data for an address: a viem account (`privateKeyToAccount`, a smart account).
 * Structural, so the client does not depend on viem.
 */
export interface TypedDataSigner {
  readonly address: string;
  signTypedData(typedData: MandateTypedData): Promise<Hex | string>;
}

/** Under `erc20`: a mandate ready to sign, its typed data, and the charging contract to approve. */
export interface SignableMandate {
  mandate: Mandate;
  typedData: MandateTypedData;
  /** The charging contract: the spender the payer approves for `amount` per period. */
  charger: Hex;
  chainId: number;
}

export interface MandateInput {
  /** `GET /subscriptions/plan` → `autoRenew`, under `erc20`. */
  terms: AutoRenewTerms;
  /** The subscription's wallet, which signs. */
  payer: string;
  /** The subscription's `currentPeriodEnd`: period 0 starts then (unix seconds, rounded down). */
  currentPeriodEnd: string;
  /** The subscription's plan: its `pricePerPeriod` is each period's amount, its `periodSeconds` the period. */
  plan: { pricePerPeriod: string; periodSeconds: number };
  /** 1 to MAX_MANDATE_PERIODS. */
  periods: number;
  /** 32 bytes that tell this mandate apart from another with the same terms. Default: random. */
  salt?: Hex;
}

function checkPeriods(periods: number): void {
  if (!Number.isInteger(periods) || periods < 1 || periods > MAX_MANDATE_PERIODS) {
    throw new RangeError(`periods must be a whole number from 1 to ${MAX_MANDATE_PERIODS}, not ${periods}`);
  }
}

function randomSalt(): Hex {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(32));
  return `0x${Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}

/** The typed data of a mandate for the charging contract `charger` on chain `chainId`. */
export function mandateTypedData(mandate: Mandate, chainId: number, charger: string): MandateTypedData {
  return {
    domain: { name: 'Tollgate Charger', version: '1', chainId, verifyingContract: charger as Hex },
    types: MANDATE_TYPES,
    primaryType: 'Mandate',
    message: {
      payer: mandate.payer as Hex,
      token: mandate.token as Hex,
      payee: mandate.payee as Hex,
      amount: BigInt(mandate.amount),
      periodSeconds: BigInt(mandate.periodSeconds),
      start: BigInt(mandate.start),
      periods: BigInt(mandate.periods),
      salt: mandate.salt as Hex,
    },
  };
}

/**
 * The mandate the service accepts for a subscription: the terms' token and payee, the plan's price and period,
 * `start` the subscription's period end in unix seconds rounded down, and `periods` of them.
 */
export function buildMandate(input: MandateInput): SignableMandate {
  const { terms } = input;
  if (
    terms.gateway !== 'erc20' ||
    terms.chainId === null ||
    terms.charger === null ||
    terms.token === null ||
    terms.payee === null
  ) {
    throw new TypeError(
      'a mandate is signed under the erc20 gateway only (GET /subscriptions/plan: autoRenew)',
    );
  }
  checkPeriods(input.periods);
  const end = Date.parse(input.currentPeriodEnd);
  if (Number.isNaN(end)) throw new TypeError(`currentPeriodEnd is not a time: ${input.currentPeriodEnd}`);
  const mandate: Mandate = {
    payer: input.payer,
    token: terms.token,
    payee: terms.payee,
    amount: input.plan.pricePerPeriod,
    periodSeconds: String(input.plan.periodSeconds),
    start: String(Math.floor(end / 1000)),
    periods: String(input.periods),
    salt: input.salt ?? randomSalt(),
  };
  return {
    mandate,
    typedData: mandateTypedData(mandate, terms.chainId, terms.charger),
    charger: terms.charger as Hex,
    chainId: terms.chainId,
  };
}

export interface AutoRenewOptions {
  /** Another wallet's subscription (operators). */
  address?: string;
}

export interface PrepareAutoRenewOptions extends AutoRenewOptions {
  /** How many periods to renew: 1 to MAX_MANDATE_PERIODS. Default: the service's under `free`, 12 under `erc20`. */
  periods?: number;
  /** Under `erc20`: the mandate's salt. Default: random. */
  salt?: Hex;
}

/** What registering takes: the subscription, the terms offered and, under `erc20`, the mandate to sign. */
export interface PreparedAutoRenew {
  subscription: Subscription;
  /** `GET /subscriptions/plan` → `autoRenew`: null where automatic renewal is not offered. */
  terms: AutoRenewTerms | null;
  /** Under `erc20`, for a subscription in force: the mandate to sign. */
  signable?: SignableMandate;
  /** Otherwise: the periods asked for, if any (under `free`, the service's default without). */
  periods?: number;
}

/**
 * Reads what a registration needs (`GET /subscriptions/plan`, the subscription, its plan) and, under `erc20`,
 * builds the mandate for the subscription's wallet to sign (`signMandate`). Nothing is signed or sent yet: a payer
 * can approve the charging contract first (`signable.charger`, for `amount` per period), so that the registration
 * reads an allowance that suffices.
 */
export async function prepareAutoRenew(
  client: TollgateClient,
  options: PrepareAutoRenewOptions = {},
): Promise<PreparedAutoRenew> {
  if (options.periods !== undefined) checkPeriods(options.periods);
  const query = options.address === undefined ? {} : { address: options.address };
  const [offer, subscription] = await Promise.all([
    unwrap(client.GET('/subscriptions/plan')),
    unwrap(client.GET('/subscriptions/status', { params: { query } })),
  ]);
  const terms = offer.autoRenew ?? null;
  // Where nothing is to be signed, or the service would refuse the subscription (not in force, or canceled),
  // registering lets it say why: nothing is signed or approved for a registration bound to fail.
  if (
    terms?.gateway !== 'erc20' ||
    !subscription.active ||
    subscription.cancelAtPeriodEnd ||
    subscription.currentPeriodEnd === null
  ) {
    return { subscription, terms, ...(options.periods === undefined ? {} : { periods: options.periods }) };
  }
  const plan = await unwrap(client.GET('/plans/{id}', { params: { path: { id: subscription.plan.id } } }));
  const signable = buildMandate({
    terms,
    payer: subscription.address,
    currentPeriodEnd: subscription.currentPeriodEnd,
    plan,
    periods: options.periods ?? DEFAULT_MANDATE_PERIODS,
    ...(options.salt === undefined ? {} : { salt: options.salt }),
  });
  return { subscription, terms, signable };
}

/**
 * `POST /subscriptions/auto-renew` with what `prepareAutoRenew` returned and, under `erc20`, the payer's signature
 * of its typed data. Answers the subscription, `autoRenew` enabled.
 */
export function registerAutoRenew(
  client: TollgateClient,
  prepared: PreparedAutoRenew,
  signature?: string,
  options: AutoRenewOptions = {},
): Promise<Subscription> {
  const address = options.address === undefined ? {} : { address: options.address };
  if (prepared.signable !== undefined) {
    if (signature === undefined) throw new TypeError('a mandate is registered with its signature');
    const body = { ...address, mandate: prepared.signable.mandate, signature };
    return unwrap(client.POST('/subscriptions/auto-renew', { body }));
  }
  const periods = prepared.periods === undefined ? {} : { periods: prepared.periods };
  return unwrap(client.POST('/subscriptions/auto-renew', { body: { ...address, ...periods } }));
}

/** The payer's signature of a mandate; a signer other than the mandate's payer is refused before it signs. */
export async function signMandate(signer: TypedDataSigner, signable: SignableMandate): Promise<string> {
  const payer = signable.mandate.payer;
  if (signer.address.toLowerCase() !== payer.toLowerCase()) {
    throw new TypeError(
      `the mandate is the subscription's wallet's (${payer}) to sign, not ${signer.address}'s`,
    );
  }
  return signer.signTypedData(signable.typedData);
}

export interface EnableAutoRenewOptions extends PrepareAutoRenewOptions {
  /** Under `erc20`: the subscription's wallet, which signs the mandate (a viem account). */
  signer?: TypedDataSigner;
}

/**
 * Turns on automatic renewal (docs/auto-renew.md): under `erc20` builds the mandate from the service's terms and
 * the subscription, has `signer` sign it and registers it; under `free` registers without a signature. Answers the
 * subscription; its `autoRenew.allowanceShortfall` says how much more the payer must approve the charging contract
 * for (an ERC-20 `approve` of `prepared.signable.charger`; see `prepareAutoRenew` to approve before registering).
 * A refusal throws a TollgateError (`auto_renew_unavailable`, `subscription_not_active`, `mandate_bad_signature`, …).
 *
 * `await enableAutoRenew(tollgate, { signer: privateKeyToAccount(key), periods: 12 });`
 */
export async function enableAutoRenew(
  client: TollgateClient,
  options: EnableAutoRenewOptions = {},
): Promise<Subscription> {
  const { signer, ...rest } = options;
  const prepared = await prepareAutoRenew(client, rest);
  let signature: string | undefined;
  if (prepared.signable !== undefined) {
    if (signer === undefined) throw new TypeError('automatic renewal under erc20 needs a signer (the payer)');
    signature = await signMandate(signer, prepared.signable);
  }
  return registerAutoRenew(client, prepared, signature, rest);
}

/** Stops automatic renewal (`POST /subscriptions/auto-renew/disable`); the paid period runs to its end. */
export function disableAutoRenew(
  client: TollgateClient,
  options: AutoRenewOptions = {},
): Promise<Subscription> {
  const body = options.address === undefined ? {} : { address: options.address };
  return unwrap(client.POST('/subscriptions/auto-renew/disable', { body }));
}

/**
 * Tries a failed charge again at the next round of the renewal sweep (`POST /subscriptions/auto-renew/retry`),
 * after the payer fixed what `autoRenew.failure` names. Nothing failed: 409 `auto_renew_nothing_to_retry`.
 */
export function retryAutoRenew(
  client: TollgateClient,
  options: AutoRenewOptions = {},
): Promise<Subscription> {
  const body = options.address === undefined ? {} : { address: options.address };
  return unwrap(client.POST('/subscriptions/auto-renew/retry', { body }));
}

/** The automatic renewal of a subscription, beside the subscription's status (`past_due` while a charge fails). */
export type AutoRenewStatus = Schemas['AutoRenewDto'] & Pick<Subscription, 'status' | 'currentPeriodEnd'>;

/** The automatic renewal as `GET /subscriptions/status` shows it. */
export async function autoRenewStatus(
  client: TollgateClient,
  options: AutoRenewOptions = {},
): Promise<AutoRenewStatus> {
  const query = options.address === undefined ? {} : { address: options.address };
  const subscription = await unwrap(client.GET('/subscriptions/status', { params: { query } }));
  return {
    status: subscription.status,
    currentPeriodEnd: subscription.currentPeriodEnd,
    ...subscription.autoRenew,
  };
}
