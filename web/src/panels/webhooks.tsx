import { useEffect, useRef, useState } from 'preact/hooks';
import {
  api,
  WEBHOOK_EVENTS,
  type DeliveryResult,
  type Webhook,
  type WebhookAttempt,
  type WebhookEvent,
} from '../api';
import { Button, Confirm, DateTime, ErrorNote, Loading, Notice, OneTimeSecret, useAction } from '../ui';

/** The add / edit form: URL, description, event filter. */
function WebhookForm(props: { editing?: Webhook; onSaved(saved: Webhook): void; onCancel?(): void }) {
  const editing = props.editing;
  const [url, setUrl] = useState(editing?.url ?? '');
  const [description, setDescription] = useState(editing?.description ?? '');
  const [all, setAll] = useState(!editing || editing.events.includes('*'));
  const [events, setEvents] = useState<WebhookEvent[]>(
    editing && !editing.events.includes('*') ? editing.events : [],
  );
  const save = useAction();
  const prefix = editing ? `edit-${editing.id}` : 'new';

  const submit = (event: Event) => {
    event.preventDefault();
    void save.run(async () => {
      const saved = await api.saveWebhook({
        id: editing?.id,
        url: url.trim(),
        description: description.trim() === '' ? null : description.trim(),
        events: all ? ['*'] : WEBHOOK_EVENTS.filter((type) => events.includes(type)),
      });
      if (!editing) {
        setUrl('');
        setDescription('');
      }
      props.onSaved(saved);
    });
  };

  return (
    <form
      class="form"
      onSubmit={submit}
      aria-label={editing ? `Edit webhook ${editing.url}` : 'Add a webhook'}
    >
      <label class="field">
        <span>Endpoint URL</span>
        <input
          type="url"
          name="url"
          required
          maxLength={2048}
          placeholder="https://example.com/tollgate-webhook"
          value={url}
          onInput={(event) => setUrl(event.currentTarget.value)}
        />
      </label>
      <label class="field">
        <span>
          Description <span class="muted">(optional)</span>
        </span>
        <input
          name="description"
          maxLength={500}
          value={description}
          onInput={(event) => setDescription(event.currentTarget.value)}
        />
      </label>
      <fieldset class="field">
        <legend>Events</legend>
        <label class="check">
          <input
            type="checkbox"
            id={`${prefix}-all`}
            checked={all}
            onChange={(event) => setAll(event.currentTarget.checked)}
          />
          <span>All events, including ones added later</span>
        </label>
        {!all && (
          <div class="check-grid">
            {WEBHOOK_EVENTS.map((type) => (
              <label class="check" key={type}>
                <input
                  type="checkbox"
                  value={type}
                  checked={events.includes(type)}
                  onChange={(event) =>
                    setEvents((current) =>
                      event.currentTarget.checked
                        ? [...current, type]
                        : current.filter((item) => item !== type),
                    )
                  }
                />
                <code>{type}</code>
              </label>
            ))}
          </div>
        )}
      </fieldset>
      <ErrorNote text={save.error} />
      <div class="actions">
        {props.onCancel && (
          <Button variant="ghost" onClick={props.onCancel}>
            Cancel
          </Button>
        )}
        <Button
          type="submit"
          variant="primary"
          busy={save.busy}
          busyLabel="Saving…"
          disabled={!all && events.length === 0}
        >
          {editing ? 'Save changes' : 'Add webhook'}
        </Button>
      </div>
    </form>
  );
}

const DELIVERY_STATUS: Record<WebhookAttempt['deliveryStatus'], string> = {
  pending: 'Will retry',
  succeeded: 'Delivered',
  failed: 'Gave up',
};

function DeliveryResults({ results }: { results: DeliveryResult[] }) {
  return (
    <ul class="results" aria-label="Test delivery results">
      {results.map((result) => (
        <li
          key={result.deliveryId}
          class={result.success ? 'result-ok' : 'result-fail'}
          data-testid="delivery-result"
        >
          <strong>{result.success ? 'Delivered' : 'Failed'}</strong>
          {result.statusCode !== null && <span> · HTTP {result.statusCode}</span>}
          <span> · {result.durationMs} ms</span>
          {result.error && <span> · {result.error}</span>}
        </li>
      ))}
    </ul>
  );
}

function DeliveryLog({ webhook, onRetried }: { webhook: Webhook; onRetried(): void }) {
  const [attempts, setAttempts] = useState<WebhookAttempt[]>();
  const [retrying, setRetrying] = useState<string>();
  const load = useAction();
  const retry = useAction();
  const refresh = () => load.run(async () => setAttempts(await api.deliveries(webhook.id)));
  useEffect(() => void refresh(), [webhook.id]);

  const resend = (deliveryId: string) => {
    setRetrying(deliveryId);
    void retry.run(async () => {
      await api.retryDelivery(deliveryId);
      onRetried();
      setAttempts(await api.deliveries(webhook.id));
    });
  };

  return (
    <div class="log">
      <div class="card-head">
        <h4>Recent deliveries</h4>
        <Button variant="ghost" onClick={refresh} busy={load.busy} busyLabel="Refreshing…">
          Refresh
        </Button>
      </div>
      <ErrorNote text={load.error ?? retry.error} />
      {!attempts && !load.error && <Loading label="Loading deliveries…" />}
      {attempts && attempts.length === 0 && <p class="muted">Nothing delivered yet.</p>}
      {attempts && attempts.length > 0 && (
        <div class="table-wrap">
          <table class="table" aria-label={`Deliveries to ${webhook.url}`}>
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Attempted</th>
                <th scope="col">Result</th>
                <th scope="col">Delivery</th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {attempts.map((attempt) => (
                <tr key={attempt.id}>
                  <td data-label="Event">
                    <code>{attempt.eventType}</code>
                  </td>
                  <td data-label="Attempted">
                    <DateTime value={attempt.attemptedAt} />
                  </td>
                  <td data-label="Result">
                    <span class={`badge ${attempt.success ? 'badge-success' : 'badge-danger'}`}>
                      {attempt.statusCode !== null ? `HTTP ${attempt.statusCode}` : 'No answer'}
                    </span>{' '}
                    <span class="muted small">{attempt.durationMs} ms</span>
                    {attempt.error && <div class="small muted">{attempt.error}</div>}
                  </td>
                  <td data-label="Delivery">
                    {/* Each row is one attempt; its delivery may have gone through on a later one. */}
                    {!attempt.success && attempt.deliveryStatus === 'succeeded'
                      ? 'Delivered on a later attempt'
                      : DELIVERY_STATUS[attempt.deliveryStatus]}
                    {attempt.nextAttemptAt && (
                      <div class="small muted">
                        next <DateTime value={attempt.nextAttemptAt} />
                      </div>
                    )}
                  </td>
                  <td class="cell-actions">
                    {/* A delivered event needs no second send. */}
                    {attempt.deliveryStatus !== 'succeeded' && (
                      <Button
                        onClick={() => resend(attempt.deliveryId)}
                        busy={retry.busy && retrying === attempt.deliveryId}
                        busyLabel="Sending…"
                      >
                        Retry
                      </Button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

function WebhookCard(props: { webhook: Webhook; onChanged(saved: Webhook): void; onDeleted(): void }) {
  const { webhook } = props;
  const [editing, setEditing] = useState(false);
  const [showLog, setShowLog] = useState(false);
  const [confirmRotate, setConfirmRotate] = useState(false);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [results, setResults] = useState<DeliveryResult[]>();
  const toggle = useAction();
  const rotate = useAction();
  const test = useAction();
  const remove = useAction();

  const setEnabled = () =>
    toggle.run(async () =>
      props.onChanged(await api.saveWebhook({ id: webhook.id, url: webhook.url, enabled: !webhook.enabled })),
    );
  const doRotate = () => {
    setConfirmRotate(false);
    void rotate.run(async () =>
      props.onChanged(await api.saveWebhook({ id: webhook.id, url: webhook.url, rotateSecret: true })),
    );
  };
  const doDelete = () =>
    remove.run(async () => {
      await api.deleteWebhook(webhook.id);
      setConfirmDelete(false);
      props.onDeleted();
    });
  const sendTest = () =>
    test.run(async () => {
      setResults(undefined);
      setResults((await api.testWebhook(webhook.id)).deliveries);
    });

  return (
    <li class="card webhook" data-webhook-id={webhook.id}>
      <div class="card-head">
        <div class="grow">
          <p class="mono break">{webhook.url}</p>
          {webhook.description && <p class="muted small">{webhook.description}</p>}
        </div>
        <span class={`badge ${webhook.enabled ? 'badge-success' : 'badge-neutral'}`}>
          {webhook.enabled ? 'Enabled' : 'Disabled'}
        </span>
      </div>
      <dl class="facts">
        <div>
          <dt>Events</dt>
          <dd>
            {webhook.events.map((type) => (
              <span class="tag" key={type}>
                {type === '*' ? 'all events' : type}
              </span>
            ))}
          </dd>
        </div>
        <div>
          <dt>Secret</dt>
          <dd class="mono small">{webhook.secretPrefix}…</dd>
        </div>
        {webhook.failingSince && (
          <div>
            <dt>Failing since</dt>
            <dd>
              <DateTime value={webhook.failingSince} />
            </dd>
          </div>
        )}
      </dl>
      {webhook.disabledReason && (
        <Notice kind="warning">
          Tollgate disabled this endpoint:{' '}
          {webhook.disabledReason === 'gone'
            ? 'it answered 410 Gone.'
            : 'five days of nothing but failed deliveries.'}{' '}
          Enable it again once the receiver is fixed.
        </Notice>
      )}
      {webhook.secret && (
        <OneTimeSecret
          label="Signing secret"
          what="the signing secret"
          value={webhook.secret}
          onDone={() => props.onChanged({ ...webhook, secret: undefined })}
        />
      )}
      <ErrorNote text={toggle.error ?? rotate.error ?? test.error} />
      <div class="actions">
        <Button variant="primary" onClick={sendTest} busy={test.busy} busyLabel="Sending test…">
          Send test
        </Button>
        <Button onClick={() => setEditing(!editing)} aria-expanded={editing}>
          Edit
        </Button>
        <Button
          onClick={setEnabled}
          busy={toggle.busy}
          busyLabel={webhook.enabled ? 'Disabling…' : 'Enabling…'}
        >
          {webhook.enabled ? 'Disable' : 'Enable'}
        </Button>
        <Button onClick={() => setConfirmRotate(true)} busy={rotate.busy} busyLabel="Rotating…">
          Rotate secret
        </Button>
        <Button variant="ghost" onClick={() => setShowLog(!showLog)} aria-expanded={showLog}>
          {showLog ? 'Hide deliveries' : 'Deliveries'}
        </Button>
        <Button
          variant="danger"
          onClick={() => setConfirmDelete(true)}
          aria-label={`Delete webhook ${webhook.url}`}
        >
          Delete
        </Button>
      </div>
      {results && <DeliveryResults results={results} />}
      {editing && (
        <WebhookForm
          editing={webhook}
          onCancel={() => setEditing(false)}
          onSaved={(saved) => {
            setEditing(false);
            props.onChanged(saved);
          }}
        />
      )}
      {showLog && (
        <DeliveryLog
          key={results?.[0]?.deliveryId ?? 'log'}
          webhook={webhook}
          // A retry supersedes the test's result shown above the log.
          onRetried={() => setResults(undefined)}
        />
      )}
      <Confirm
        open={confirmRotate}
        title="Rotate the signing secret?"
        confirmLabel="Rotate secret"
        onConfirm={doRotate}
        onCancel={() => setConfirmRotate(false)}
      >
        <p>
          A new secret is shown once. The current one keeps signing too for 24 hours, so your receiver can
          switch over.
        </p>
      </Confirm>
      <Confirm
        open={confirmDelete}
        title="Delete this webhook?"
        confirmLabel="Delete webhook"
        danger
        busy={remove.busy}
        busyLabel="Deleting…"
        onConfirm={doDelete}
        onCancel={() => {
          setConfirmDelete(false);
          remove.clear();
        }}
      >
        <p>
          <span class="mono break">{webhook.url}</span> gets no more events, its delivery log is deleted and
          deliveries still waiting to be sent to it are dropped. To pause it instead, disable it.
        </p>
        <ErrorNote text={remove.error} />
      </Confirm>
    </li>
  );
}

export function WebhooksPanel() {
  const [webhooks, setWebhooks] = useState<Webhook[]>();
  const [deleted, setDeleted] = useState<string>();
  const listTitle = useRef<HTMLHeadingElement>(null);
  const load = useAction();
  const refresh = () => load.run(async () => setWebhooks(await api.listWebhooks()));
  useEffect(() => void refresh(), []);

  /** Keeps a one-time secret from a save on the card until the owner dismisses it. */
  const merge = (saved: Webhook) => {
    setDeleted(undefined);
    setWebhooks((current) => {
      const list = current ?? [];
      return list.some((item) => item.id === saved.id)
        ? list.map((item) => (item.id === saved.id ? saved : item))
        : [...list, saved];
    });
  };
  const drop = (webhook: Webhook) => {
    setDeleted(webhook.url);
    setWebhooks((current) => current?.filter((item) => item.id !== webhook.id));
    // The card, and the button that had focus, are gone: continue from the list's heading.
    listTitle.current?.focus();
  };

  return (
    <div class="stack">
      <div class="card">
        <h3 class="card-title">Add a webhook</h3>
        <p class="muted">
          Tollgate POSTs signed events (Standard Webhooks) to your endpoint and retries failures for about a
          day. Check the <code>webhook-signature</code> header with the secret shown once below.
        </p>
        <WebhookForm onSaved={merge} />
      </div>
      <div class="card-head">
        <h3 class="section-title" tabIndex={-1} ref={listTitle}>
          Your webhooks
        </h3>
        <Button variant="ghost" onClick={refresh} busy={load.busy} busyLabel="Refreshing…">
          Refresh
        </Button>
      </div>
      <ErrorNote text={load.error} />
      {deleted && (
        <Notice kind="success">
          Deleted the webhook to <span class="mono break">{deleted}</span>.
        </Notice>
      )}
      {!webhooks && !load.error && <Loading label="Loading webhooks…" />}
      {webhooks && webhooks.length === 0 && <p class="muted">No webhooks yet.</p>}
      {webhooks && webhooks.length > 0 && (
        <ul class="stack plain">
          {webhooks.map((webhook) => (
            <WebhookCard
              key={webhook.id}
              webhook={webhook}
              onChanged={merge}
              onDeleted={() => drop(webhook)}
            />
          ))}
        </ul>
      )}
    </div>
  );
}
