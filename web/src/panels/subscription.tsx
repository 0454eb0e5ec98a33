import { useEffect, useState } from 'preact/hooks';
import { api, type Subscription, type SubscriptionEvent } from '../api';
import {
  Button,
  Confirm,
  DateTime,
  formatDate,
  ErrorNote,
  Loading,
  Notice,
  shortAddress,
  useAction,
  useIdempotentSend,
} from '../ui';

const STATUS_LABEL: Record<Subscription['status'], string> = {
  none: 'Not subscribed',
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
  const ending = subscription.status === 'active' && subscription.cancelAtPeriodEnd;
  const tone =
    subscription.status === 'active'
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

/**
 * One address's subscription: its state, renew and cancel (with confirmation), and its history. The signed-in
 * wallet's own in the Subscription tab; any address's in the Operators tab.
 */
export function SubscriptionManager({ address, self }: { address: string; self: boolean }) {
  const [subscription, setSubscription] = useState<Subscription>();
  const [history, setHistory] = useState<SubscriptionEvent[]>();
  const [message, setMessage] = useState<string>();
  const [confirm, setConfirm] = useState<Pending>();
  const load = useAction();
  const renew = useAction();
  const cancel = useAction();
  const sendRenew = useIdempotentSend();
  const sendCancel = useIdempotentSend();

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
    void refresh();
  }, [address]);

  const afterChange = async (updated: Subscription, text: string) => {
    setSubscription(updated);
    setMessage(text);
    setHistory(await api.history(address));
  };

  const doRenew = () =>
    renew.run(async () => {
      setMessage(undefined);
      const updated = await sendRenew((key) => api.renew(address, key));
      await afterChange(updated, `Renewed: paid until ${formatDate(updated.currentPeriodEnd!)}.`);
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

  const active = subscription.status === 'active';
  const who = self ? 'your' : `${shortAddress(subscription.address)}'s`;
  return (
    <div class="stack">
      <div class="card">
        <div class="card-head">
          <div>
            <h3 class="card-title">Subscription</h3>
            <p class="muted mono small" title={subscription.address}>
              {subscription.address}
            </p>
          </div>
          <StatusBadge subscription={subscription} />
        </div>
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
          <div>
            <dt>Cancel at period end</dt>
            <dd>{subscription.cancelAtPeriodEnd ? 'Yes' : 'No'}</dd>
          </div>
          <div>
            <dt>Canceled at</dt>
            <dd>
              <DateTime value={subscription.canceledAt} />
            </dd>
          </div>
        </dl>
        {message && <Notice kind="success">{message}</Notice>}
        <ErrorNote text={renew.error ?? cancel.error} />
        <div class="actions">
          <Button
            variant="primary"
            onClick={doRenew}
            busy={renew.busy}
            busyLabel="Renewing…"
            disabled={cancel.busy}
          >
            {subscription.status === 'none' ? 'Subscribe' : active ? 'Renew for another period' : 'Renew'}
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
          Renewing adds one period; an active subscription is extended from its current end. Repeated clicks
          are sent with the same Idempotency-Key, so they cannot renew twice.
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
