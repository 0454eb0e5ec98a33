import { useEffect, useState } from 'preact/hooks';
import { api, SCOPES, type ApiKey, type CreatedApiKey, type Scope } from '../api';
import {
  Button,
  Confirm,
  DateTime,
  DAY_MS,
  ErrorNote,
  formatDate,
  Loading,
  OneTimeSecret,
  timeUntil,
  useAction,
} from '../ui';
import { KeyUsage } from './key-usage';

const SCOPE_TEXT: Record<Scope, string> = {
  READ_ONLY: 'Read the subscription status and history.',
  SUBSCRIPTIONS_MANAGE: 'Also renew and cancel the subscription.',
  FULL: 'Everything, including API keys and webhooks.',
};

type Expiry = 'never' | '7' | '30' | '90' | 'date';
const EXPIRY_TEXT: Record<Expiry, string> = {
  never: 'Never',
  '7': 'In 7 days',
  '30': 'In 30 days',
  '90': 'In 90 days',
  date: 'On a date…',
};

/** A date input's value (local calendar day), `days` from today. */
function localDay(days: number): string {
  const date = new Date(Date.now() + days * DAY_MS);
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** The `expiresAt` to send: N days from now, or the end of the chosen local day; undefined for never. */
function expiresAt(expiry: Expiry, date: string): string | undefined {
  if (expiry === 'never') return undefined;
  if (expiry === 'date') return new Date(`${date}T23:59:59.999`).toISOString();
  return new Date(Date.now() + Number(expiry) * DAY_MS).toISOString();
}

/** Shown in the list once a key's end is this close. */
const EXPIRES_SOON_MS = 7 * DAY_MS;

function KeyState({ apiKey }: { apiKey: ApiKey }) {
  if (apiKey.revoked) {
    return (
      <>
        <span class="badge badge-danger">Revoked</span>
        <div class="small muted">
          <DateTime value={apiKey.revokedAt} />
        </div>
      </>
    );
  }
  if (apiKey.expired) {
    return (
      <>
        <span class="badge badge-danger">Expired</span>
        <div class="small muted">
          <DateTime value={apiKey.expiresAt} />
        </div>
      </>
    );
  }
  const soon =
    apiKey.expiresAt !== null && new Date(apiKey.expiresAt).getTime() - Date.now() < EXPIRES_SOON_MS;
  return (
    <>
      <span class={`badge ${soon ? 'badge-warning' : 'badge-success'}`}>Active</span>
      <div class={`small ${soon ? 'text-warning' : 'muted'}`} data-testid="key-expiry">
        {apiKey.expiresAt ? (
          <span title={formatDate(apiKey.expiresAt)}>expires {timeUntil(apiKey.expiresAt)}</span>
        ) : (
          'never expires'
        )}
      </div>
    </>
  );
}

export function ApiKeysPanel({ heldScopes }: { heldScopes: readonly Scope[] }) {
  const [keys, setKeys] = useState<ApiKey[]>();
  const [label, setLabel] = useState('');
  const [scopes, setScopes] = useState<Scope[]>(['READ_ONLY']);
  const [expiry, setExpiry] = useState<Expiry>('never');
  const [expiryDate, setExpiryDate] = useState('');
  // Bumped by Refresh: each key's usage is read again with the list.
  const [version, setVersion] = useState(0);
  const [created, setCreated] = useState<CreatedApiKey>();
  const [revoking, setRevoking] = useState<ApiKey>();
  const [revokingId, setRevokingId] = useState<string>();
  const load = useAction();
  const create = useAction();
  const revoke = useAction();

  const refresh = () =>
    load.run(async () => {
      setKeys(await api.listKeys());
      setVersion((count) => count + 1);
    });
  useEffect(() => void refresh(), []);

  const toggle = (scope: Scope, on: boolean) =>
    setScopes((current) =>
      on ? SCOPES.filter((s) => s === scope || current.includes(s)) : current.filter((s) => s !== scope),
    );

  // Why "Create key" cannot be pressed yet, said next to it.
  const missing =
    label.trim() === ''
      ? 'Give the key a label first.'
      : scopes.length === 0
        ? 'Pick at least one scope.'
        : expiry === 'date' && expiryDate === ''
          ? 'Pick the day the key stops working.'
          : undefined;

  const submit = (event: Event) => {
    event.preventDefault();
    void create.run(async () => {
      const key = await api.createKey(label.trim(), scopes, expiresAt(expiry, expiryDate));
      setCreated(key);
      setLabel('');
      setKeys(await api.listKeys());
      setExpiry('never');
      setExpiryDate('');
    });
  };

  const confirmRevoke = () => {
    const key = revoking;
    setRevoking(undefined);
    if (!key) return;
    setRevokingId(key.id);
    void revoke.run(async () => {
      await api.revokeKey(key.id);
      // The one-time copy box must not keep offering a key that no longer works.
      setCreated((shown) => (shown?.id === key.id ? undefined : shown));
      setKeys(await api.listKeys());
    });
  };

  return (
    <div class="stack">
      <form class="card" onSubmit={submit} aria-labelledby="create-key-title">
        <h3 class="card-title" id="create-key-title">
          Create an API key
        </h3>
        <p class="muted">
          A key acts for your wallet from a server or script (<code>Authorization: Bearer tg_…</code>). It can
          hold only scopes you hold yourself: that is its ceiling. Signed in with your wallet you hold{' '}
          {heldScopes.length === SCOPES.length ? 'all three' : heldScopes.join(', ')}.
        </p>
        <label class="field">
          <span>Label</span>
          <input
            name="label"
            value={label}
            maxLength={100}
            required
            placeholder="e.g. billing server"
            onInput={(event) => setLabel(event.currentTarget.value)}
          />
        </label>
        <fieldset class="field">
          <legend>Scopes</legend>
          {SCOPES.map((scope) => (
            <label class="check" key={scope}>
              <input
                type="checkbox"
                name="scopes"
                value={scope}
                checked={scopes.includes(scope)}
                disabled={!heldScopes.includes(scope)}
                onChange={(event) => toggle(scope, event.currentTarget.checked)}
              />
              <span>
                <code>{scope}</code> <span class="muted">{SCOPE_TEXT[scope]}</span>
              </span>
            </label>
          ))}
        </fieldset>
        <div class="field-row">
          <label class="field">
            <span>Expires</span>
            <select
              name="expiry"
              value={expiry}
              onChange={(event) => setExpiry(event.currentTarget.value as Expiry)}
            >
              {(Object.keys(EXPIRY_TEXT) as Expiry[]).map((value) => (
                <option value={value} key={value}>
                  {EXPIRY_TEXT[value]}
                </option>
              ))}
            </select>
          </label>
          {expiry === 'date' && (
            <label class="field">
              <span>Stops working after</span>
              <input
                type="date"
                name="expiryDate"
                min={localDay(1)}
                value={expiryDate}
                onInput={(event) => setExpiryDate(event.currentTarget.value)}
              />
            </label>
          )}
        </div>
        <p class="muted small">
          A key that expires is refused from then on, and you get an <code>api_key.expiring</code> event
          (webhooks, Events tab) shortly before, a week by default.
        </p>
        <ErrorNote text={create.error} />
        <div class="actions">
          <Button
            type="submit"
            variant="primary"
            busy={create.busy}
            busyLabel="Creating…"
            disabled={missing !== undefined}
            aria-describedby={missing ? 'create-key-missing' : undefined}
          >
            Create key
          </Button>
          {missing && (
            <p class="muted small action-note" id="create-key-missing">
              {missing}
            </p>
          )}
        </div>
        {created && (
          <OneTimeSecret
            label={`API key "${created.label}"`}
            what="this key"
            value={created.key}
            onDone={() => setCreated(undefined)}
          />
        )}
      </form>

      <div class="card">
        <div class="card-head">
          <h3 class="card-title">Your keys</h3>
          <Button variant="ghost" onClick={refresh} busy={load.busy} busyLabel="Refreshing…">
            Refresh
          </Button>
        </div>
        <ErrorNote text={load.error ?? revoke.error} />
        {!keys && !load.error && <Loading label="Loading keys…" />}
        {keys && keys.length === 0 && <p class="muted">No keys yet.</p>}
        {keys && keys.length > 0 && (
          <div class="table-wrap">
            <table class="table" aria-label="API keys">
              <thead>
                <tr>
                  <th scope="col">Label</th>
                  <th scope="col">Key</th>
                  <th scope="col">Scopes</th>
                  <th scope="col">Created</th>
                  <th scope="col">Use, last 30 days</th>
                  <th scope="col">State</th>
                  <th scope="col">
                    <span class="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {keys.map((key) => (
                  <tr key={key.id} class={key.revoked ? 'row-muted' : undefined} data-key-id={key.id}>
                    <td data-label="Label">{key.label}</td>
                    <td data-label="Key" class="mono small nowrap">
                      {key.prefix}…{key.last4}
                    </td>
                    <td data-label="Scopes">
                      {key.scopes.map((scope) => (
                        <span class="tag" key={scope}>
                          {scope}
                        </span>
                      ))}
                    </td>
                    <td data-label="Created">
                      <DateTime value={key.createdAt} />
                    </td>
                    <td data-label="Use">
                      <KeyUsage id={key.id} lastUsedAt={key.lastUsedAt} version={version} />
                    </td>
                    <td data-label="State">
                      <KeyState apiKey={key} />
                    </td>
                    <td class="cell-actions">
                      {!key.revoked && !key.expired && (
                        <Button
                          variant="danger"
                          onClick={() => setRevoking(key)}
                          busy={revoke.busy && revokingId === key.id}
                          busyLabel="Revoking…"
                          aria-label={`Revoke key ${key.label}`}
                        >
                          Revoke
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

      <Confirm
        open={revoking !== undefined}
        title="Revoke this key?"
        confirmLabel="Revoke key"
        danger
        onConfirm={confirmRevoke}
        onCancel={() => setRevoking(undefined)}
      >
        <p>
          <strong>{revoking?.label}</strong> ({revoking?.prefix}…{revoking?.last4}) stops working on its next
          request. This cannot be undone.
        </p>
      </Confirm>
    </div>
  );
}
