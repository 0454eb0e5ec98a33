import { useEffect, useId, useState } from 'preact/hooks';
import {
  api,
  ApiError,
  type Plan,
  type PlanDetails,
  type Subscription,
  type SubscriptionEvent,
  type SubscriptionStatus,
} from '../api';
import { formatAmount, sendPayment, waitForPayment, type Erc20Terms } from '../payment';
import { AutoRenewSection, PastDueBanner } from './auto-renew';
import { inPlanWords, PlanPicker } from './plan-picker';
import { formatPeriod, planPrice } from './plans';
import { walletFor } from '../wallet';
import {
  Button,
  Confirm,
  DateTime,
  DAY_MS,
  formatDate,
  ErrorNote,
  Loading,
  Notice,
  shortAddress,
  timeUntil,
  useAction,
  useIdempotentSend,
} from '../ui';

/**
 * How long before the period end the page warns, as the service's `subscription.expiring` event does by default
 * (SUBSCRIPTION_EXPIRING_NOTICE_HOURS, 72): a subscription in force (`active` or `trialing`), not canceled and not
 * renewing itself, that ends within it. A `past_due` one has its own banner.
 */
const EXPIRING_WITHIN_MS = 3 * DAY_MS;

function endsSoon(subscription: Subscription, now = Date.now()): boolean {
  const { status, currentPeriodEnd } = subscription;
  if (status !== 'active' && status !== 'trialing') return false;
  if (subscription.cancelAtPeriodEnd || subscription.autoRenew.enabled || !currentPeriodEnd) return false;
  return new Date(currentPeriodEnd).getTime() - now <= EXPIRING_WITHIN_MS;
}

/**
 * The trial is what ends at the period end: a subscription paid for after its trial is still `trialing` until
 * `trialEnd`, but then its paid period is what ends.
 */
function trialEndsWithPeriod(subscription: Subscription): boolean {
  return (
    subscription.status === 'trialing' &&
    (subscription.trialEnd === null || subscription.trialEnd === subscription.currentPeriodEnd)
  );
}

const STATUS_LABEL: Record<SubscriptionStatus, string> = {
  none: 'Not subscribed',
  active: 'Active',
  trialing: 'Free trial',
  past_due: 'Payment due',
  canceled: 'Canceled',
  expired: 'Expired',
};

const EVENT_LABEL: Record<string, string> = {
  plan_changed: 'Plan changed',
  plan_scheduled: 'Change scheduled',
  plan_unscheduled: 'Change called off',
  renewed: 'Renewed',
  payment_failed: 'Automatic payment failed',
  canceled: 'Canceled',
  expired: 'Expired',
};

function StatusBadge({ subscription }: { subscription: Subscription }) {
  const ending = subscription.active && subscription.cancelAtPeriodEnd;
  const tone =
    ending || subscription.status === 'past_due'
      ? 'warning'
      : subscription.status === 'trialing'
        ? 'info'
        : subscription.status === 'active'
          ? 'success'
          : subscription.status === 'none'
            ? 'neutral'
            : 'danger';
  return (
    <span class={`badge badge-${tone}`} data-testid="subscription-status">
      {ending
        ? `${subscription.status === 'trialing' ? 'Free trial' : 'Active'}, ends at period end`
        : subscription.status === 'past_due' && !subscription.autoRenew.failure
          ? 'Payment pending'
          : STATUS_LABEL[subscription.status]}
    </span>
  );
}

type Pending = 'cancel-at-end' | 'cancel-now' | undefined;

const shortHash = (hash: string) => `${hash.slice(0, 10)}…${hash.slice(-6)}`;

/** Answers to a renewal that may change with time (the service's node has not seen the payment yet). */
const RETRYABLE_PAYMENT = new Set(['payment_not_found', 'payment_not_confirmed']);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * One address's subscription: its state, renew and cancel (with confirmation), and its history. The signed-in
 * wallet's own in the Subscription tab; any address's in the Operators tab. `payer` is the signed-in wallet: under
 * the `erc20` gateway it sends the payment, for its own subscription or (an operator) for a customer's.
 */
export function SubscriptionManager(props: {
  address: string;
  self: boolean;
  payer: string;
  operator: boolean;
  plan?: Plan;
  /** After a renewal or a cancel went through (the operator view reloads the customer's events). */
  onChanged?(): void;
}) {
  const { address, self, payer, plan } = props;
  const [subscription, setSubscription] = useState<Subscription>();
  const [history, setHistory] = useState<SubscriptionEvent[]>();
  // Archived ones too: the subscription's own plan may be archived, and its price is what a renewal pays.
  const [plans, setPlans] = useState<PlanDetails[]>();
  const [message, setMessage] = useState<string>();
  const [confirm, setConfirm] = useState<Pending>();
  const [step, setStep] = useState<string>();
  const featuresId = useId();
  const load = useAction();
  const renew = useAction();
  const cancel = useAction();
  // Choices made in the plan picker, apart from the card's own buttons, so each error shows where it was caused.
  const subscribe = useAction();
  const change = useAction();
  const keep = useAction();
  const plansLoad = useAction();
  const sendRenew = useIdempotentSend();
  const sendCancel = useIdempotentSend();
  const sendChange = useIdempotentSend();
  // A payment sent but not yet credited survives a reload: the next renew credits it instead of paying again.
  const pendingKey = `tollgate.payment.${address.toLowerCase()}`;
  const [pending, setPending] = useState(() => localStorage.getItem(pendingKey));
  const remember = (hash: string | null) => {
    if (hash) localStorage.setItem(pendingKey, hash);
    else localStorage.removeItem(pendingKey);
    setPending(hash);
  };

  const refresh = () =>
    load.run(async () => {
      const [status, events] = await Promise.all([api.status(address), api.history(address)]);
      setSubscription(status);
      setHistory(events);
    });

  useEffect(() => {
    void plansLoad.run(async () => setPlans(await api.plans(true)));
  }, []);

  useEffect(() => {
    setSubscription(undefined);
    setHistory(undefined);
    setMessage(undefined);
    setPending(localStorage.getItem(pendingKey));
    void refresh();
  }, [address]);

  const afterChange = async (updated: Subscription, text: string | undefined) => {
    setSubscription(updated);
    setMessage(text);
    props.onChanged?.();
    setHistory(await api.history(address));
  };

  /** Renews with the payment `txHash`, retrying while the service's node has not seen it yet. */
  const credit = async (txHash: string | undefined, planId?: string): Promise<Subscription> => {
    for (let attempt = 1; ; attempt++) {
      try {
        const updated = await sendRenew((key) => api.renew(address, key, txHash, planId));
        if (txHash) remember(null);
        return updated;
      } catch (error) {
        const retryable = error instanceof ApiError && RETRYABLE_PAYMENT.has(error.code);
        if (retryable && attempt < 20) {
          setStep('Waiting for the service to see the payment…');
          await sleep(3000);
          continue;
        }
        // Refused for good (too little, wrong token, already used…): this payment will never be credited.
        if (txHash && error instanceof ApiError && !retryable && error.status >= 400 && error.status < 500) {
          remember(null);
        }
        throw error;
      }
    }
  };

  const planNamed = (id: string | undefined) => plans?.find((item) => item.id === id);
  const currentPlan = planNamed(subscription?.plan.id);
  // While a change is scheduled, a renewal appends periods of the scheduled plan, at its price.
  const renewalPlan = subscription?.pendingPlan ? planNamed(subscription.pendingPlan.id) : currentPlan;
  const planName = (id: string) => planNamed(id)?.name ?? id;

  /** The transfer that pays one period of `chosen` (the token and receiver are every plan's). */
  const paymentFor = (chosen: PlanDetails | undefined): Erc20Terms | null => {
    const erc20 = plan?.gateway === 'erc20' ? plan.erc20 : null;
    if (!erc20) return null;
    return chosen ? { ...erc20, pricePerPeriod: chosen.pricePerPeriod } : erc20;
  };

  /**
   * Renews the current plan, or subscribes to `chosen`. A plan with a trial is asked for without a payment first:
   * the service starts the trial, or answers 402 `payment_required` when this wallet had it already, and only then
   * is the period paid.
   */
  const doRenew = (chosen?: PlanDetails) =>
    (chosen ? subscribe : renew).run(async () => {
      setMessage(undefined);
      try {
        await renewWith(chosen);
      } catch (error) {
        throw chosen ? inPlanWords(error, chosen) : error;
      } finally {
        setStep(undefined);
      }
    });

  const renewWith = async (chosen: PlanDetails | undefined) => {
    if (chosen?.trialSeconds != null) {
      try {
        const updated = await credit(undefined, chosen.id);
        await afterChange(
          updated,
          updated.status === 'trialing'
            ? `Your ${chosen.name} trial runs until ${formatDate(updated.trialEnd ?? updated.currentPeriodEnd!)}.`
            : `Subscribed to ${chosen.name}: until ${formatDate(updated.currentPeriodEnd!)}.`,
        );
        return;
      } catch (error) {
        if (!(error instanceof ApiError && error.code === 'payment_required')) throw error;
      }
    }
    let txHash: string | undefined;
    const terms = paymentFor(chosen ?? renewalPlan);
    if (terms && terms.pricePerPeriod !== '0') {
      const wallet = await walletFor(payer);
      txHash = pending ?? undefined;
      if (!txHash) {
        txHash = await sendPayment(wallet, payer, terms, setStep);
        remember(txHash);
      }
      await waitForPayment(wallet, txHash, terms.confirmations, setStep);
      setStep('Crediting the payment…');
    }
    const updated = await credit(txHash, chosen?.id);
    await afterChange(
      updated,
      chosen
        ? `Subscribed to ${chosen.name}: until ${formatDate(updated.currentPeriodEnd!)}.`
        : `Renewed: paid until ${formatDate(updated.currentPeriodEnd!)}.`,
    );
  };

  /** Moves to `chosen` (now or at the period's end, as the service decides), or calls a scheduled switch off. */
  const doChange = (chosen: PlanDetails) =>
    (chosen.id === subscription?.plan.id ? keep : change).run(async () => {
      setMessage(undefined);
      const before = subscription!;
      const updated = await sendChange((key) => api.changePlan(address, chosen.id, key)).catch(
        (error: unknown) => {
          throw inPlanWords(error, chosen, before.plan.name);
        },
      );
      // A switch scheduled for the period's end is told by its own banner (pending-plan), not a second note.
      const text =
        chosen.id === before.plan.id
          ? `The switch to ${before.pendingPlan?.name ?? 'another plan'} is called off: ${chosen.name} stays.`
          : updated.pendingPlan?.id === chosen.id
            ? undefined
            : `Now on ${chosen.name}: the period ends on ${formatDate(updated.currentPeriodEnd!)}.`;
      await afterChange(updated, text);
    });

  const doCancel = (immediate: boolean) => {
    setConfirm(undefined);
    return cancel.run(async () => {
      setMessage(undefined);
      const updated = await sendCancel((key) => api.cancel(address, immediate, key));
      await afterChange(
        updated,
        immediate
          ? 'The subscription is canceled as of now.'
          : 'The subscription will end at the end of the paid period.',
      );
    });
  };

  if (!subscription) {
    return load.error ? (
      <div>
        <ErrorNote text={load.error} />
        <Button onClick={refresh} busy={load.busy} busyLabel="Retrying…">
          Try again
        </Button>
      </div>
    ) : (
      <Loading label="Loading the subscription…" />
    );
  }

  const active = subscription.active;
  const trialing = subscription.status === 'trialing';
  const trialEnding = trialEndsWithPeriod(subscription);
  const verb =
    subscription.status === 'none'
      ? 'Subscribe'
      : trialEnding
        ? 'Subscribe after the trial'
        : active
          ? 'Renew for another period'
          : 'Renew';
  const terms = paymentFor(renewalPlan);
  const price =
    terms && terms.pricePerPeriod !== '0'
      ? formatAmount(terms.pricePerPeriod, terms.decimals, terms.symbol)
      : undefined;
  const busy = renew.busy || subscribe.busy || cancel.busy || change.busy || keep.busy;
  // A deployment that never created a plan shows no picker: the page is then as it was before plans.
  const choosing =
    plansLoad.error !== undefined ||
    subscription.plan.id !== 'default' ||
    (plans?.some((item) => item.offered && item.id !== 'default') ?? false);
  // Never subscribed, with plans to choose from: the picker is where to start (a payment waiting to be credited
  // keeps the button that credits it).
  const pickFirst = choosing && subscription.status === 'none' && !pending;
  const billedByOperator = plan?.gateway === 'operator' && !props.operator;
  const labelFor = (action: string): string =>
    pending ? 'Credit the payment and renew' : price ? `${action}: pay ${price}` : action;
  const who = self ? 'your' : `${shortAddress(subscription.address)}'s`;
  // What an automatic charge takes: the plan's price per period (`default`'s from the payment terms).
  const autoRenewPrice =
    subscription.plan.id === 'default' && plan?.autoRenew
      ? { amount: plan.autoRenew.amount, periodSeconds: plan.autoRenew.periodSeconds }
      : currentPlan
        ? { amount: currentPlan.pricePerPeriod, periodSeconds: currentPlan.periodSeconds }
        : null;
  const autoRenewProps = {
    subscription,
    plan,
    price: autoRenewPrice,
    self,
    payer,
    busy,
    onUpdated: (updated: Subscription, text: string) => void afterChange(updated, text),
  };
  return (
    <div class="stack">
      <div class="card">
        <div class="card-head">
          <div>
            <h3 class="card-title">{self ? 'Subscription' : "Customer's subscription"}</h3>
            <p class="muted mono small" title={subscription.address}>
              {subscription.address}
            </p>
          </div>
          <StatusBadge subscription={subscription} />
        </div>
        <PastDueBanner {...autoRenewProps} />
        {endsSoon(subscription) && (
          <div class="banner" role="status" data-testid="ends-soon">
            <p>
              <strong>
                {trialEnding ? 'Trial ends' : 'Ends'} {timeUntil(subscription.currentPeriodEnd!)} —{' '}
                {billedByOperator ? 'ask the operator to ' : ''}
                renew
              </strong>
              <span class="muted">
                {' '}
                {self ? 'Your' : 'This'} {trialEnding ? 'free trial' : 'paid period'} ends on{' '}
                {formatDate(subscription.currentPeriodEnd!)}; it is not renewed by itself.
              </span>
            </p>
            {!billedByOperator && (
              <Button
                variant="primary"
                onClick={() => void doRenew()}
                busy={renew.busy}
                busyLabel={step ?? 'Renewing…'}
                disabled={busy}
              >
                {labelFor('Renew now')}
              </Button>
            )}
          </div>
        )}
        <dl class="facts">
          <div>
            <dt>Plan</dt>
            <dd data-testid="current-plan">
              {subscription.status === 'none' ? (
                <span class="muted">None yet</span>
              ) : (
                <strong>{subscription.plan.name}</strong>
              )}
              {currentPlan && subscription.status !== 'none' && (
                <span class="muted">
                  {' '}
                  · {planPrice(currentPlan, plan)} {formatPeriod(currentPlan.periodSeconds)}
                </span>
              )}
            </dd>
          </div>
          {trialing && (
            <div>
              <dt>Trial ends</dt>
              <dd data-testid="trial-end">
                <DateTime value={subscription.trialEnd ?? subscription.currentPeriodEnd} />
              </dd>
            </div>
          )}
          <div>
            <dt>Period start</dt>
            <dd>
              <DateTime value={subscription.currentPeriodStart} />
            </dd>
          </div>
          <div>
            <dt>Period end</dt>
            <dd data-testid="period-end">
              <DateTime value={subscription.currentPeriodEnd} />
            </dd>
          </div>
          {active && subscription.cancelAtPeriodEnd && (
            <div>
              <dt>Cancellation</dt>
              <dd data-testid="cancellation">
                Requested on <DateTime value={subscription.canceledAt} />, runs until{' '}
                <DateTime value={subscription.currentPeriodEnd} />
              </dd>
            </div>
          )}
          {subscription.status === 'canceled' && subscription.canceledAt && (
            <div>
              <dt>Canceled on</dt>
              <dd>
                <DateTime value={subscription.canceledAt} />
              </dd>
            </div>
          )}
        </dl>
        <div class="features" data-testid="current-features">
          <h4 class="facts-label" id={`${featuresId}-title`}>
            Features in force
          </h4>
          {subscription.features.length > 0 ? (
            <ul class="chips" aria-labelledby={`${featuresId}-title`}>
              {subscription.features.map((feature) => (
                <li key={feature}>
                  <code>{feature}</code>
                </li>
              ))}
            </ul>
          ) : (
            <p class="muted small">
              {active ? `${subscription.plan.name} lists no features.` : 'None: no active subscription.'}
            </p>
          )}
        </div>
        {active && subscription.pendingPlan && (
          <div class="banner banner-info" role="status" data-testid="pending-plan">
            <p>
              <strong>
                Switching to {subscription.pendingPlan.name} on{' '}
                {formatDate(subscription.pendingPlan.effectiveAt)}
              </strong>
              <span class="muted"> {subscription.plan.name} and its features stay until then.</span>
            </p>
            <Button
              onClick={() => currentPlan && doChange(currentPlan)}
              busy={keep.busy}
              busyLabel="Calling off…"
              disabled={busy || !currentPlan}
            >
              Keep {subscription.plan.name}
            </Button>
          </div>
        )}
        {message && <Notice kind="success">{message}</Notice>}
        {pending && !renew.busy && (
          <Notice kind="warning">
            A payment (<span class="mono">{shortHash(pending)}</span>) was sent but not credited yet: renewing
            credits it, without paying again.
          </Notice>
        )}
        <ErrorNote text={renew.error ?? cancel.error ?? keep.error} />
        <div class="actions">
          {pickFirst ? (
            <p class="muted">Choose a plan below to subscribe.</p>
          ) : (
            <Button
              variant="primary"
              onClick={() => void doRenew()}
              busy={renew.busy}
              busyLabel={step ?? 'Renewing…'}
              disabled={busy || billedByOperator}
            >
              {labelFor(verb)}
            </Button>
          )}
          {active && !subscription.cancelAtPeriodEnd && (
            <Button onClick={() => setConfirm('cancel-at-end')} disabled={busy}>
              Cancel at period end
            </Button>
          )}
          {active && (
            <Button
              variant="danger"
              onClick={() => setConfirm('cancel-now')}
              busy={cancel.busy}
              busyLabel="Canceling…"
              disabled={busy}
            >
              Cancel now
            </Button>
          )}
        </div>
        {!pickFirst && (
          <p class="muted small">
            {billedByOperator
              ? 'Renewals here are billed by the operator of this service: ask them to renew. '
              : price
                ? `A period costs ${price}, paid from ${self ? 'your wallet' : 'your operator wallet'} on chain ${terms!.chainId}; the wallet asks you to confirm the transfer. `
                : ''}
            {trialEnding
              ? 'Subscribing now starts the paid period when the trial ends.'
              : 'Renewing adds one period; an active subscription is extended from its current end.'}
            {subscription.pendingPlan
              ? ` With a switch scheduled, the periods added are ${subscription.pendingPlan.name}'s.`
              : ''}
          </p>
        )}
        <AutoRenewSection {...autoRenewProps} />
      </div>

      {choosing && (
        <PlanPicker
          plans={plans}
          loadError={plansLoad.error}
          subscription={subscription}
          terms={plan}
          self={self}
          canRenew={!billedByOperator}
          busy={busy}
          step={step}
          error={subscribe.error ?? change.error}
          onSubscribe={(chosen) => void doRenew(chosen)}
          onChange={(chosen) => void doChange(chosen)}
        />
      )}

      <div class="card">
        <div class="card-head">
          <h3 class="card-title">History</h3>
          <Button variant="ghost" onClick={refresh} busy={load.busy} busyLabel="Refreshing…">
            Refresh
          </Button>
        </div>
        <ErrorNote text={load.error} />
        {history && history.length === 0 && <p class="muted">No renewals or cancellations yet.</p>}
        {history && history.length > 0 && (
          <div class="table-wrap">
            <table class="table" aria-label={`History of ${who} subscription`}>
              <thead>
                <tr>
                  <th scope="col">Event</th>
                  <th scope="col">When</th>
                  <th scope="col">Period end</th>
                  <th scope="col">By</th>
                </tr>
              </thead>
              <tbody>
                {history.map((event) => (
                  <tr key={event.id}>
                    <td data-label="Event">
                      <span class={`tag tag-${event.type}`}>{EVENT_LABEL[event.type] ?? event.type}</span>
                      {event.planChange && (
                        <span class="small">
                          {event.type === 'plan_unscheduled' ? ' (was to ' : ' to '}
                          {planName(event.planChange.to)}
                          {event.type === 'plan_unscheduled' ? ')' : ''}
                        </span>
                      )}
                    </td>
                    <td data-label="When">
                      <DateTime value={event.at} />
                    </td>
                    <td data-label="Period end">
                      <DateTime value={event.currentPeriodEnd} />
                    </td>
                    <td data-label="By" class="mono small" title={event.actor}>
                      {event.actor === 'system' ? 'system' : shortAddress(event.actor)}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </div>

      <Confirm
        open={confirm === 'cancel-at-end'}
        title="Cancel at the end of the period?"
        confirmLabel="Cancel at period end"
        onConfirm={() => doCancel(false)}
        onCancel={() => setConfirm(undefined)}
      >
        <p>
          The subscription stays active until <DateTime value={subscription.currentPeriodEnd} /> and is then
          not renewed. Renewing before then undoes this.
        </p>
      </Confirm>
      <Confirm
        open={confirm === 'cancel-now'}
        title="Cancel right now?"
        confirmLabel="Cancel now"
        danger
        onConfirm={() => doCancel(true)}
        onCancel={() => setConfirm(undefined)}
      >
        <p>The paid period ends immediately and the rest of it is lost. This cannot be undone.</p>
      </Confirm>
    </div>
  );
}
