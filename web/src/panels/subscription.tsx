import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, type Plan, type Subscription, type SubscriptionEvent } from '../api';
import { formatAmount, sendPayment, waitForPayment } from '../payment';
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
 * (SUBSCRIPTION_EXPIRING_NOTICE_HOURS, 72): an active subscription that is not canceled and ends within it.
 */
const EXPIRING_WITHIN_MS = 3 * DAY_MS;

function endsSoon(subscription: Subscription, now = Date.now()): boolean {
  if (subscription.status !== 'active' || subscription.cancelAtPeriodEnd || !subscription.currentPeriodEnd) {
    return false;
  }
  return new Date(subscription.currentPeriodEnd).getTime() - now <= EXPIRING_WITHIN_MS;
}

const STATUS_LABEL: Record<Subscription['status'], string> = {
  none: 'Not subscribed',
  trialing: 'Free trial',
  active: 'Active',
  canceled: 'Canceled',
  expired: 'Expired',
};

const EVENT_LABEL: Record<string, string> = {
  renewed: 'Renewed',
  canceled: 'Canceled',
  expired: 'Expired',
};

function StatusBadge({ subscription }: { subscription: Subscription }) {
  // `active` is true while the subscription is in force: `active` or `trialing`.
  const ending = subscription.active && subscription.cancelAtPeriodEnd;
  const tone = subscription.active
    ? ending
      ? 'warning'
      : 'success'
    : subscription.status === 'none'
      ? 'neutral'
      : 'danger';
  return (
    <span class={`badge badge-${tone}`} data-testid="subscription-status">
      {ending ? 'Active, ends at period end' : STATUS_LABEL[subscription.status]}
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
  const [message, setMessage] = useState<string>();
  const [confirm, setConfirm] = useState<Pending>();
  const [step, setStep] = useState<string>();
  const load = useAction();
  const renew = useAction();
  const cancel = useAction();
  const sendRenew = useIdempotentSend();
  const sendCancel = useIdempotentSend();
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
    setSubscription(undefined);
    setHistory(undefined);
    setMessage(undefined);
    setPending(localStorage.getItem(pendingKey));
    void refresh();
  }, [address]);

  const afterChange = async (updated: Subscription, text: string) => {
    setSubscription(updated);
    setMessage(text);
    props.onChanged?.();
    setHistory(await api.history(address));
  };

  /** Renews with the payment `txHash`, retrying while the service's node has not seen it yet. */
  const credit = async (txHash: string | undefined): Promise<Subscription> => {
    for (let attempt = 1; ; attempt++) {
      try {
        const updated = await sendRenew((key) => api.renew(address, key, txHash));
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

  const doRenew = () =>
    renew.run(async () => {
      setMessage(undefined);
      try {
        let txHash: string | undefined;
        const terms = plan?.gateway === 'erc20' ? plan.erc20 : null;
        if (terms) {
          const wallet = await walletFor(payer);
          txHash = pending ?? undefined;
          if (!txHash) {
            txHash = await sendPayment(wallet, payer, terms, setStep);
            remember(txHash);
          }
          await waitForPayment(wallet, txHash, terms.confirmations, setStep);
          setStep('Crediting the payment…');
        }
        const updated = await credit(txHash);
        await afterChange(updated, `Renewed: paid until ${formatDate(updated.currentPeriodEnd!)}.`);
      } finally {
        setStep(undefined);
      }
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
  const verb = subscription.status === 'none' ? 'Subscribe' : active ? 'Renew for another period' : 'Renew';
  const terms = plan?.gateway === 'erc20' ? plan.erc20 : null;
  const price = terms ? formatAmount(terms.pricePerPeriod, terms.decimals, terms.symbol) : undefined;
  const billedByOperator = plan?.gateway === 'operator' && !props.operator;
  const labelFor = (action: string): string =>
    pending ? 'Credit the payment and renew' : price ? `${action}: pay ${price}` : action;
  const who = self ? 'your' : `${shortAddress(subscription.address)}'s`;
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
        {endsSoon(subscription) && (
          <div class="banner" role="status" data-testid="ends-soon">
            <p>
              <strong>
                Ends {timeUntil(subscription.currentPeriodEnd!)} —{' '}
                {billedByOperator ? 'ask the operator to ' : ''}
                renew
              </strong>
              <span class="muted">
                {' '}
                {self ? 'Your' : 'This'} paid period ends on {formatDate(subscription.currentPeriodEnd!)}; it
                is not renewed by itself.
              </span>
            </p>
            {!billedByOperator && (
              <Button
                variant="primary"
                onClick={doRenew}
                busy={renew.busy}
                busyLabel={step ?? 'Renewing…'}
                disabled={cancel.busy}
              >
                {labelFor('Renew now')}
              </Button>
            )}
          </div>
        )}
        <dl class="facts">
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
          {subscription.status === 'trialing' && subscription.trialEnd && (
            <div>
              <dt>Free trial</dt>
              <dd data-testid="trial-end">
                Until <DateTime value={subscription.trialEnd} />
                {subscription.currentPeriodEnd !== subscription.trialEnd && ', then the paid period'}
              </dd>
            </div>
          )}
          {subscription.active && subscription.cancelAtPeriodEnd && (
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
        {message && <Notice kind="success">{message}</Notice>}
        {pending && !renew.busy && (
          <Notice kind="warning">
            A payment (<span class="mono">{shortHash(pending)}</span>) was sent but not credited yet: renewing
            credits it, without paying again.
          </Notice>
        )}
        <ErrorNote text={renew.error ?? cancel.error} />
        <div class="actions">
          <Button
            variant="primary"
            onClick={doRenew}
            busy={renew.busy}
            busyLabel={step ?? 'Renewing…'}
            disabled={cancel.busy || billedByOperator}
          >
            {labelFor(verb)}
          </Button>
          {active && !subscription.cancelAtPeriodEnd && (
            <Button onClick={() => setConfirm('cancel-at-end')} disabled={renew.busy || cancel.busy}>
              Cancel at period end
            </Button>
          )}
          {active && (
            <Button
              variant="danger"
              onClick={() => setConfirm('cancel-now')}
              busy={cancel.busy}
              busyLabel="Canceling…"
              disabled={renew.busy}
            >
              Cancel now
            </Button>
          )}
        </div>
        <p class="muted small">
          {billedByOperator
            ? 'Renewals here are billed by the operator of this service: ask them to renew. '
            : price
              ? `A period costs ${price}, paid from ${self ? 'your wallet' : 'your operator wallet'} on chain ${terms!.chainId}; the wallet asks you to confirm the transfer. `
              : ''}
          Renewing adds one period; an active subscription is extended from its current end.
        </p>
      </div>

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
