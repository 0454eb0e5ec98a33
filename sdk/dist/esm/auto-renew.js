import { unwrap } from './errors.js';
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
};
/** Most periods one mandate may cover (the service's limit). */
export const MAX_MANDATE_PERIODS = 1200;
/** Periods a mandate covers when the caller does not say: a year of monthly periods. */
export const DEFAULT_MANDATE_PERIODS = 12;
function checkPeriods(periods) {
    if (!Number.isInteger(periods) || periods < 1 || periods > MAX_MANDATE_PERIODS) {
        throw new RangeError(`periods must be a whole number from 1 to ${MAX_MANDATE_PERIODS}, not ${periods}`);
    }
}
function randomSalt() {
    const bytes = globalThis.crypto.getRandomValues(new Uint8Array(32));
    return `0x${Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}
/** The typed data of a mandate for the charging contract `charger` on chain `chainId`. */
export function mandateTypedData(mandate, chainId, charger) {
    return {
        domain: { name: 'Tollgate Charger', version: '1', chainId, verifyingContract: charger },
        types: MANDATE_TYPES,
        primaryType: 'Mandate',
        message: {
            payer: mandate.payer,
            token: mandate.token,
            payee: mandate.payee,
            amount: BigInt(mandate.amount),
            periodSeconds: BigInt(mandate.periodSeconds),
            start: BigInt(mandate.start),
            periods: BigInt(mandate.periods),
            salt: mandate.salt,
        },
    };
}
/**
 * The mandate the service accepts for a subscription: the terms' token and payee, the plan's price and period,
 * `start` the subscription's period end in unix seconds rounded down, and `periods` of them.
 */
export function buildMandate(input) {
    const { terms } = input;
    if (terms.gateway !== 'erc20' ||
        terms.chainId === null ||
        terms.charger === null ||
        terms.token === null ||
        terms.payee === null) {
        throw new TypeError('a mandate is signed under the erc20 gateway only (GET /subscriptions/plan: autoRenew)');
    }
    checkPeriods(input.periods);
    const end = Date.parse(input.currentPeriodEnd);
    if (Number.isNaN(end))
        throw new TypeError(`currentPeriodEnd is not a time: ${input.currentPeriodEnd}`);
    const mandate = {
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
        charger: terms.charger,
        chainId: terms.chainId,
    };
}
/**
 * Reads what a registration needs (`GET /subscriptions/plan`, the subscription, its plan) and, under `erc20`,
 * builds the mandate for the subscription's wallet to sign (`signMandate`). Nothing is signed or sent yet: a payer
 * can approve the charging contract first (`signable.charger`, for `amount` per period), so that the registration
 * reads an allowance that suffices.
 */
export async function prepareAutoRenew(client, options = {}) {
    if (options.periods !== undefined)
        checkPeriods(options.periods);
    const query = options.address === undefined ? {} : { address: options.address };
    const [offer, subscription] = await Promise.all([
        unwrap(client.GET('/subscriptions/plan')),
        unwrap(client.GET('/subscriptions/status', { params: { query } })),
    ]);
    const terms = offer.autoRenew ?? null;
    // Where nothing is to be signed, or the service would refuse the subscription (not in force, or canceled),
    // registering lets it say why: nothing is signed or approved for a registration bound to fail.
    if (terms?.gateway !== 'erc20' ||
        !subscription.active ||
        subscription.cancelAtPeriodEnd ||
        subscription.currentPeriodEnd === null) {
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
export function registerAutoRenew(client, prepared, signature, options = {}) {
    const address = options.address === undefined ? {} : { address: options.address };
    if (prepared.signable !== undefined) {
        if (signature === undefined)
            throw new TypeError('a mandate is registered with its signature');
        const body = { ...address, mandate: prepared.signable.mandate, signature };
        return unwrap(client.POST('/subscriptions/auto-renew', { body }));
    }
    const periods = prepared.periods === undefined ? {} : { periods: prepared.periods };
    return unwrap(client.POST('/subscriptions/auto-renew', { body: { ...address, ...periods } }));
}
/** The payer's signature of a mandate; a signer other than the mandate's payer is refused before it signs. */
export async function signMandate(signer, signable) {
    const payer = signable.mandate.payer;
    if (signer.address.toLowerCase() !== payer.toLowerCase()) {
        throw new TypeError(`the mandate is the subscription's wallet's (${payer}) to sign, not ${signer.address}'s`);
    }
    return signer.signTypedData(signable.typedData);
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
export async function enableAutoRenew(client, options = {}) {
    const { signer, ...rest } = options;
    const prepared = await prepareAutoRenew(client, rest);
    let signature;
    if (prepared.signable !== undefined) {
        if (signer === undefined)
            throw new TypeError('automatic renewal under erc20 needs a signer (the payer)');
        signature = await signMandate(signer, prepared.signable);
    }
    return registerAutoRenew(client, prepared, signature, rest);
}
/** Stops automatic renewal (`POST /subscriptions/auto-renew/disable`); the paid period runs to its end. */
export function disableAutoRenew(client, options = {}) {
    const body = options.address === undefined ? {} : { address: options.address };
    return unwrap(client.POST('/subscriptions/auto-renew/disable', { body }));
}
/**
 * Tries a failed charge again at the next round of the renewal sweep (`POST /subscriptions/auto-renew/retry`),
 * after the payer fixed what `autoRenew.failure` names. Nothing failed: 409 `auto_renew_nothing_to_retry`.
 */
export function retryAutoRenew(client, options = {}) {
    const body = options.address === undefined ? {} : { address: options.address };
    return unwrap(client.POST('/subscriptions/auto-renew/retry', { body }));
}
/** The automatic renewal as `GET /subscriptions/status` shows it. */
export async function autoRenewStatus(client, options = {}) {
    const query = options.address === undefined ? {} : { address: options.address };
    const subscription = await unwrap(client.GET('/subscriptions/status', { params: { query } }));
    return {
        status: subscription.status,
        currentPeriodEnd: subscription.currentPeriodEnd,
        ...subscription.autoRenew,
    };
}
