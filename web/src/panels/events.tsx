import { useEffect, useRef, useState } from 'preact/hooks';
import { api, EVENT_TYPES, type EventType, type TollgateEvent } from '../api';
import { Button, DateTime, ErrorNote, errorText, formatDate, Loading, shortAddress, useAction } from '../ui';

const EVENT_LABEL: Record<EventType, string> = {
  'subscription.renewed': 'Subscription renewed',
  'subscription.trial_will_end': 'Trial ends soon',
  'subscription.plan_changed': 'Plan changed',
  'subscription.canceled': 'Subscription canceled',
  'subscription.expired': 'Subscription ended',
  'subscription.expiring': 'Subscription ends soon',
  'subscription.payment_failed': 'Automatic payment failed',
  'subscription.recovered': 'Payment recovered',
  'entitlements.updated': 'Features changed',
  'api_key.created': 'API key created',
  'api_key.revoked': 'API key revoked',
  'api_key.expiring': 'API key expires soon',
  'api_key.expired': 'API key expired',
  'webhook.test': 'Webhook test',
};

/** Events per page: a screenful, then "Load more". */
const PAGE_SIZE = 20;

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** One line about the event, from the fields its type carries (the full data is one click away). */
function summary(event: TollgateEvent, everyAddress: boolean): string {
  const data = event.data;
  const address = text(data.address);
  const whose = everyAddress && address ? `${shortAddress(address)}: ` : '';
  const periodEnd = text(data.currentPeriodEnd);
  switch (event.type) {
    case 'subscription.renewed':
    case 'subscription.expiring':
      return periodEnd ? `${whose}paid until ${formatDate(periodEnd)}` : whose;
    case 'subscription.canceled':
      return data.cancelAtPeriodEnd && periodEnd
        ? `${whose}runs until ${formatDate(periodEnd)}`
        : `${whose}ended at once`;
    case 'subscription.expired':
      return periodEnd ? `${whose}ended ${formatDate(periodEnd)}` : whose;
    case 'subscription.trial_will_end': {
      const trialEnd = text(data.trialEnd);
      return trialEnd ? `${whose}trial ends ${formatDate(trialEnd)}` : whose;
    }
    case 'api_key.created':
    case 'api_key.revoked':
      return `${whose}“${text(data.label) ?? ''}” (${text(data.prefix) ?? ''}…)`;
    case 'api_key.expiring':
    case 'api_key.expired': {
      const expiresAt = text(data.expiresAt);
      const key = `${whose}“${text(data.label) ?? ''}” (${text(data.prefix) ?? ''}…)`;
      const when = event.type === 'api_key.expired' ? 'stopped working' : 'stops working';
      return expiresAt ? `${key}, ${when} ${formatDate(expiresAt)}` : key;
    }
    default:
      return whose;
  }
}

function EventRow(props: { event: TollgateEvent; everyAddress: boolean }) {
  const { event } = props;
  const [open, setOpen] = useState(false);
  const detailsId = `event-${event.id}`;
  return (
    <>
      <tr data-event-id={event.id}>
        <td data-label="Event">
          <span class="event-label">{EVENT_LABEL[event.type] ?? event.type}</span>
          <code class="tag">{event.type}</code>
        </td>
        <td data-label="When">
          <DateTime value={event.createdAt} />
        </td>
        <td data-label="About">{summary(event, props.everyAddress) || <span class="muted">—</span>}</td>
        <td class="cell-actions">
          <Button
            variant="ghost"
            onClick={() => setOpen(!open)}
            aria-expanded={open}
            aria-controls={detailsId}
            aria-label={`${open ? 'Hide' : 'Show'} the data of ${event.type} at ${formatDate(event.createdAt)}`}
          >
            {open ? 'Hide data' : 'Show data'}
          </Button>
        </td>
      </tr>
      {open && (
        <tr class="event-details" id={detailsId}>
          <td colSpan={4}>
            <p class="small muted">
              Event id <span class="mono break">{event.id}</span> (the <code>webhook-id</code> of its
              deliveries)
            </p>
            <pre class="json" tabIndex={0} aria-label={`Data of ${event.type}`}>
              {JSON.stringify(event.data, null, 2)}
            </pre>
          </td>
        </tr>
      )}
    </>
  );
}

/**
 * The caller's events, newest first, a page at a time: what the webhooks carry, kept for the service's retention
 * (EVENTS_RETENTION_DAYS). `address` narrows an operator's list to one customer; a new `version` reads it again.
 */
export function EventsList(props: { address?: string; operator: boolean; title?: string; version?: number }) {
  const [type, setType] = useState<EventType | ''>('');
  const [events, setEvents] = useState<TollgateEvent[]>();
  const [next, setNext] = useState<string>();
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string>();
  const [reloads, setReloads] = useState(0);
  const more = useAction();
  // Bumped by every new list (another filter, a refresh): an answer for an older one is dropped.
  const generation = useRef(0);
  // An operator's list without an address holds every customer's events: say whose each one is.
  const everyAddress = props.operator && !props.address;

  const query = (cursor?: string) => ({
    limit: PAGE_SIZE,
    cursor,
    type: type ? [type] : undefined,
    address: props.address,
  });

  useEffect(() => {
    const current = ++generation.current;
    setEvents(undefined);
    setNext(undefined);
    setError(undefined);
    setLoading(true);
    api.events(query()).then(
      (page) => {
        if (current !== generation.current) return;
        setEvents(page.items);
        setNext(page.next);
        setLoading(false);
      },
      (caught: unknown) => {
        if (current !== generation.current) return;
        setError(errorText(caught));
        setLoading(false);
      },
    );
  }, [type, props.address, reloads, props.version]);

  const loadMore = () =>
    more.run(async () => {
      const current = generation.current;
      const page = await api.events(query(next));
      if (current !== generation.current) return;
      setEvents((shown) => [...(shown ?? []), ...page.items]);
      setNext(page.next);
    });

  const filterId = `events-type-${props.address ?? 'all'}`;
  return (
    <div class="card">
      <div class="card-head">
        <h3 class="card-title">{props.title ?? 'Events'}</h3>
        <Button
          variant="ghost"
          onClick={() => setReloads((count) => count + 1)}
          busy={loading}
          busyLabel="Refreshing…"
        >
          Refresh
        </Button>
      </div>
      <p class="muted">
        {props.address
          ? 'What happened to this customer’s subscription and keys, newest first.'
          : everyAddress
            ? 'What happened to every customer’s subscriptions and keys, newest first.'
            : 'What happened to your subscription, API keys and webhooks, newest first.'}{' '}
        The same events your webhooks receive, with the same ids, kept for 30 days by default.
      </p>
      <label class="field field-inline" for={filterId}>
        <span>Event type</span>
        <select
          id={filterId}
          value={type}
          onChange={(event) => setType(event.currentTarget.value as EventType | '')}
        >
          <option value="">All events</option>
          {EVENT_TYPES.map((value) => (
            <option value={value} key={value}>
              {EVENT_LABEL[value]}
            </option>
          ))}
        </select>
      </label>
      <ErrorNote text={error} />
      {!events && !error && <Loading label="Loading events…" />}
      {events && events.length === 0 && (
        <p class="muted">{type ? 'No events of this kind.' : 'No events yet.'}</p>
      )}
      {events && events.length > 0 && (
        <div class="table-wrap">
          <table class="table" aria-label={props.title ?? 'Events'}>
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">When</th>
                <th scope="col">About</th>
                <th scope="col">
                  <span class="sr-only">Data</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {events.map((event) => (
                <EventRow key={event.id} event={event} everyAddress={everyAddress} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      <ErrorNote text={more.error} />
      {next && events && (
        <div class="actions">
          <Button onClick={loadMore} busy={more.busy} busyLabel="Loading…">
            Load more
          </Button>
        </div>
      )}
    </div>
  );
}
