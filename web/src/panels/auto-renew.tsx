import { useId, useState } from 'preact/hooks';
import { api, type AutoRenew, type Plan, type Subscription } from '../api';
import {
  approveCharger,
  buildMandate,
  mandateTerms,
  mandateTotal,
  revokeMandate,
  signMandate,
  type MandateTerms,
} from '../auto-renew';
import { formatAmount } from '../payment';
import { walletFor, WalletError } from '../wallet';
import { Button, DateTime, ErrorNote, errorText, formatDate, useAction } from '../ui';

/** Periods a new authorization covers unless the user picks another number (a year of monthly periods). */
const DEFAULT_PERIODS = 12;
const MAX_PERIODS = 1200;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What the automatic renewal of one subscription needs from the page around it. */
interface AutoRenewProps {
  subscription: Subscription;
  /** `GET /subscriptions/plan`: whether automatic renewal is offered, and its terms. */
  plan: Plan | undefined;
  /** The price and period of the subscription's plan (null while the plans are loading). */
  price: { amount: string; periodSeconds: number } | null;
  /** The subscription is the signed-in wallet's own: only its wallet can sign a mandate under `erc20`. */
  self: boolean;
  payer: string;
  /** Another action of the card is running. */
  busy: boolean;
  onUpdated(updated: Subscription, message: string): void;
}

/** The `erc20` terms of a mandate for this subscription's plan, or null (`free`, or nothing offered). */
function termsFor(plan: Plan | undefined, price: AutoRenewProps['price']): MandateTerms | null {
  if (!plan?.autoRenew || !plan.erc20 || !price) return null;
  return mandateTerms(plan.autoRenew, price, plan.erc20);
}

/** "5 TUSD", or "no payment" under `free` (amount 0, no token). */
function chargeText(autoRenew: AutoRenew, plan: Plan | undefined): string {
  if (!autoRenew.amount || autoRenew.amount === '0' || !plan?.erc20) return 'No payment (free)';
  return formatAmount(autoRenew.amount, plan.erc20.decimals, plan.erc20.symbol);
}

/**
 * "Renew automatically": under `free` one click registers; under `erc20` the wallet approves the charging contract
 * for the whole authorization and signs the mandate (EIP-712), then the service registers it. Once on: the next
 * charge, its amount, the authorization's end, any allowance shortfall, and "Turn off". Not shown where the
 * service does not offer it (`operator`; `erc20` without a charging contract) unless one is on.
 */
export function AutoRenewSection(props: AutoRenewProps) {
  const { subscription, plan, price, self, payer } = props;
  const autoRenew = subscription.autoRenew;
  const [periods, setPeriods] = useState(String(DEFAULT_PERIODS));
  const [step, setStep] = useState<string>();
  const [revokeFailed, setRevokeFailed] = useState(false);
  /** The mandate this page revoked on chain, so that a turn-off the service then failed does not revoke again. */
  const [revokedHash, setRevokedHash] = useState<string>();
  const enable = useAction();
  const disable = useAction();
  const titleId = useId();
  const periodsId = useId();
  const offer = plan?.autoRenew;
  if (!offer && !autoRenew.enabled) return null;

  const erc20 = termsFor(plan, price);
  const count = Number(periods);
  const countValid = Number.isInteger(count) && count >= 1 && count <= MAX_PERIODS;
  const busy = props.busy || enable.busy || disable.busy;
  const total =
    erc20 && countValid
      ? formatAmount((BigInt(erc20.amount) * BigInt(count)).toString(), erc20.decimals, erc20.symbol)
      : undefined;

  const doEnable = () =>
    enable.run(async () => {
      try {
        let updated: Subscription;
        if (offer?.gateway === 'erc20') {
          if (!erc20) throw new Error('the plan is not loaded yet');
          const mandate = buildMandate(payer, erc20, subscription.currentPeriodEnd!, count);
          const wallet = await walletFor(payer);
          await approveCharger(wallet, payer, erc20, mandateTotal(mandate), setStep);
          const signature = await signMandate(wallet, payer, erc20, mandate, setStep);
          setStep('Registering the authorization…');
          updated = await api.enableAutoRenew(subscription.address, { mandate, signature });
        } else {
          updated = await api.enableAutoRenew(subscription.address, { periods: count });
        }
        props.onUpdated(
          updated,
          updated.autoRenew.nextChargeAt
            ? `Automatic renewal is on: the next charge is on ${formatDate(updated.autoRenew.nextChargeAt)}.`
            : 'Automatic renewal is on.',
        );
      } finally {
        setStep(undefined);
      }
    });

  // Under erc20 the wallet first revokes the signed mandate on chain: turned off in Tollgate alone, it would stay
  // chargeable by anyone until its last period. A refused revocation changes nothing, and offers the plain turn-off.
  const revocable = autoRenew.mandateHash && erc20 && self ? autoRenew.mandateHash : undefined;
  const doDisable = (revoke: boolean) =>
    disable.run(async () => {
      if (revoke && revocable && erc20 && revokedHash !== revocable) {
        let refused: string | undefined;
        try {
          await revokeMandate(await walletFor(payer), payer, erc20, revocable, setStep);
          setRevokedHash(revocable);
        } catch (error) {
          refused = errorText(error);
        } finally {
          setStep(undefined);
        }
        if (refused !== undefined) {
          setRevokeFailed(true);
          throw new WalletError(`${refused} Automatic renewal is still on.`);
        }
      }
      const updated = await api.disableAutoRenew(subscription.address);
      setRevokeFailed(false);
      props.onUpdated(
        updated,
        `Automatic renewal is off: the subscription ends on ${formatDate(updated.currentPeriodEnd!)} unless renewed.` +
          (revoke && revocable
            ? ' The authorization is revoked on chain: nobody can charge it.'
            : revocable
              ? ` The authorization stays valid on chain until ${formatDate(autoRenew.endsAt!)}; the service no longer charges it.`
              : ''),
      );
    });

  const canEnable =
    subscription.active && !subscription.cancelAtPeriodEnd && subscription.currentPeriodEnd !== null;
  let blocked: string | undefined;
  if (!canEnable) {
    blocked = subscription.cancelAtPeriodEnd
      ? "A cancellation at the period's end is requested: renew first, then turn this on."
      : 'Subscribe first: automatic renewal continues a subscription that is in force.';
  } else if (offer?.gateway === 'erc20' && !self) {
    blocked = "Only the subscriber's own wallet can authorize automatic charges.";
  }

  return (
    <section class="auto-renew" aria-labelledby={titleId} data-testid="auto-renew">
      <h4 class="facts-label" id={titleId}>
        Automatic renewal
      </h4>
      {autoRenew.enabled ? (
        <>
          <dl class="facts">
            <div>
              <dt>Next charge</dt>
              <dd data-testid="next-charge">
                <DateTime value={autoRenew.nextChargeAt} />
              </dd>
            </div>
            <div>
              <dt>Amount</dt>
              <dd data-testid="charge-amount">{chargeText(autoRenew, plan)} each period</dd>
            </div>
            <div>
              <dt>Authorized until</dt>
              <dd>
                <DateTime value={autoRenew.endsAt} />
              </dd>
            </div>
          </dl>
          {autoRenew.allowanceShortfall && subscription.status !== 'past_due' && (
            <p class="note note-warning" data-testid="allowance-shortfall">
              As last read (when it was turned on, and after each charge), the allowance for the charging
              contract was{' '}
              {plan?.erc20
                ? formatAmount(autoRenew.allowanceShortfall, plan.erc20.decimals, plan.erc20.symbol)
                : autoRenew.allowanceShortfall}{' '}
              short of a period&apos;s price: approve at least that much more before the next charge, or it
              fails.
            </p>
          )}
          <ErrorNote text={disable.error} />
          <div class="actions">
            <Button
              onClick={() => void doDisable(true)}
              busy={disable.busy}
              busyLabel={step ?? 'Turning off…'}
              disabled={busy}
            >
              Turn off automatic renewal
            </Button>
            {revocable && revokeFailed && (
              <Button variant="ghost" onClick={() => void doDisable(false)} disabled={busy}>
                Turn off without revoking
              </Button>
            )}
          </div>
          {revocable && (
            <p class="muted small" data-testid="revoke-hint">
              {revokeFailed
                ? 'Turned off without revoking, the service stops charging, but the signed authorization stays valid on chain until its end.'
                : 'Your wallet asks you to revoke the authorization on chain first (a transaction, with gas), so that nobody can charge it; then the service turns it off.'}
            </p>
          )}
        </>
      ) : (
        <>
          <p class="muted small">
            {offer?.gateway === 'erc20'
              ? `Off. Turned on, the service charges ${self ? 'your' : 'the'} wallet each period at its end: the wallet approves the charging contract for the periods chosen${total ? ` (${total} in all)` : ''} and signs the authorization; no payment is taken now.`
              : 'Off. Turned on, the subscription is renewed at the end of each period, without a payment.'}
          </p>
          {blocked ? (
            <p class="muted small">{blocked}</p>
          ) : (
            <>
              <ErrorNote text={enable.error} />
              <div class="actions auto-renew-actions">
                <label class="field field-inline" for={periodsId}>
                  <span>Periods</span>
                  <input
                    id={periodsId}
                    class="periods-input"
                    type="number"
                    inputMode="numeric"
                    min={1}
                    max={MAX_PERIODS}
                    value={periods}
                    aria-invalid={countValid ? undefined : 'true'}
                    aria-describedby={`${periodsId}-hint`}
                    onInput={(event) => setPeriods(event.currentTarget.value)}
                  />
                </label>
                <Button
                  variant="primary"
                  onClick={() => void doEnable()}
                  busy={enable.busy}
                  busyLabel={step ?? 'Turning on…'}
                  disabled={busy || !countValid || (offer?.gateway === 'erc20' && !erc20)}
                >
                  Renew automatically
                </Button>
              </div>
              <p class="muted small" id={`${periodsId}-hint`}>
                How many periods it may renew, 1 to {MAX_PERIODS}; it can be turned off at any time.
              </p>
            </>
          )}
        </>
      )}
    </section>
  );
}

/**
 * A failed automatic charge (`past_due`): what is wrong and what to do (the service's own words), the next attempt,
 * when the grace runs out, and "Try again now" (after raising the allowance, which the page offers when that is
 * what stood in the way).
 */
export function PastDueBanner(props: AutoRenewProps) {
  const { subscription, plan, price, self, payer } = props;
  const failure = subscription.autoRenew.failure;
  const { graceEndsAt } = subscription;
  const [step, setStep] = useState<string>();
  const retry = useAction();
  const approve = useAction();
  const titleId = useId();

  if (subscription.status !== 'past_due') return null;
  const erc20 = termsFor(plan, price);
  const busy = props.busy || retry.busy || approve.busy;
  const needsAllowance = failure?.reason === 'insufficient_allowance' && self && erc20 !== null;

  const doApprove = () =>
    approve.run(async () => {
      try {
        const wallet = await walletFor(payer);
        // Enough for the periods the authorization has left, so the next ones do not fail the same way.
        const left = periodsLeft(subscription, erc20!.periodSeconds);
        await approveCharger(wallet, payer, erc20!, BigInt(erc20!.amount) * BigInt(left), setStep);
      } finally {
        setStep(undefined);
      }
      props.onUpdated(subscription, 'Approved: try the charge again now.');
    });

  const doRetry = () =>
    retry.run(async () => {
      const asked = await api.retryAutoRenew(subscription.address);
      props.onUpdated(asked, 'The charge is being tried again…');
      // The service's next sweep round makes the attempt (seconds): follow it until it is paid or fails again.
      for (let round = 0; round < 20; round++) {
        await sleep(3000);
        const now = await api.status(subscription.address);
        if (now.status !== 'past_due') {
          props.onUpdated(
            now,
            `Paid: the subscription is renewed until ${formatDate(now.currentPeriodEnd!)}.`,
          );
          return;
        }
        if (now.autoRenew.failure && now.autoRenew.failure.at !== failure?.at) {
          props.onUpdated(now, 'The charge failed again: see what stands in the way above.');
          return;
        }
      }
    });

  if (!failure) {
    // Nothing failed: the period's charge is waiting for the chain (sent and not yet confirmed, or the chain's
    // endpoint down), and the service keeps the subscription in force meanwhile.
    return (
      <div class="banner" role="status" data-testid="payment-pending">
        <p>
          The payment for the next period is on its way: it is waiting for the chain to confirm it.{' '}
          {graceEndsAt && (
            <>
              Your features stay on meanwhile, until <DateTime value={graceEndsAt} /> at the latest.
            </>
          )}
        </p>
      </div>
    );
  }

  return (
    <div class="banner banner-danger" role="alert" aria-labelledby={titleId} data-testid="past-due">
      <div class="banner-text">
        <p>
          <strong id={titleId}>The automatic payment failed</strong>
        </p>
        <p data-testid="past-due-message">{sentence(whatIsWrong(failure.message))}</p>
        <p data-testid="past-due-advice">{adviceFor(failure.reason, self, needsAllowance, plan)}</p>
        <p class="muted small">
          {subscription.autoRenew.nextChargeAt && (
            <>
              Next attempt on <DateTime value={subscription.autoRenew.nextChargeAt} />.{' '}
            </>
          )}
          {graceEndsAt ? (
            <>
              Your features stay on until <DateTime value={graceEndsAt} />; without a payment by then the
              subscription ends.
            </>
          ) : (
            'Your features stay on during a grace period; without a payment by its end the subscription ends.'
          )}
        </p>
        <ErrorNote text={approve.error ?? retry.error} />
      </div>
      <div class="banner-actions">
        {needsAllowance && (
          <Button
            onClick={() => void doApprove()}
            busy={approve.busy}
            busyLabel={step ?? 'Approving…'}
            disabled={busy}
          >
            Approve the charges
          </Button>
        )}
        <Button
          variant="primary"
          onClick={() => void doRetry()}
          busy={retry.busy}
          busyLabel="Trying again…"
          disabled={busy}
        >
          Try again now
        </Button>
      </div>
    </div>
  );
}

/**
 * What is wrong, from the service's message ("allowance is 0 TUSD, the period costs 5 TUSD: approve … then retry"):
 * the part before its advice, which the page gives in its own terms (its buttons) below.
 */
function whatIsWrong(message: string): string {
  const colon = message.indexOf(': ');
  return colon > 0 ? message.slice(0, colon) : message;
}

/** The service's reason ("allowance is 0 TUSD, the period costs 5 TUSD") as a sentence. */
function sentence(text: string): string {
  const trimmed = text.trim();
  const capital = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}

/** What to do about a failed charge, by its reason (`autoRenew.failure.reason`). */
function adviceFor(
  reason: string | undefined,
  self: boolean,
  canApprove: boolean,
  plan: Plan | undefined,
): string {
  const wallet = self ? 'your wallet' : "the payer's wallet";
  switch (reason) {
    case 'insufficient_allowance':
      return canApprove
        ? 'Approve the charges (your wallet asks you to confirm), then try again now.'
        : `The charging contract needs an allowance from ${wallet} of at least one period's price; once it is approved, try again now.`;
    case 'insufficient_balance':
      return `Add ${plan?.erc20?.symbol ?? 'tokens'} to ${wallet}, then try again now.`;
    case 'chain_unavailable':
      return 'The chain could not be reached: the charge is tried again by itself, or try again now.';
    default:
      return 'Fix what stands in the way, then try again now; or renew by hand to pay this period.';
  }
}

/** Periods the authorization still covers from the current period end (at least one). */
function periodsLeft(subscription: Subscription, periodSeconds: number): number {
  const { endsAt } = subscription.autoRenew;
  if (!endsAt || !subscription.currentPeriodEnd) return 1;
  const left = Math.ceil(
    (Date.parse(endsAt) - Date.parse(subscription.currentPeriodEnd)) / (periodSeconds * 1000),
  );
  return Math.min(Math.max(left, 1), MAX_PERIODS);
}
