import { useState } from 'preact/hooks';
import { api, type Plan } from '../api';
import { Button, ErrorNote, useAction } from '../ui';
import { EventsList } from './events';
import { SubscriptionManager } from './subscription';

/** Operators (OPERATOR_ADDRESSES) may read and manage any address's subscription. */
export function OperatorsPanel({ payer, plan }: { payer: string; plan?: Plan }) {
  const [input, setInput] = useState('');
  const [address, setAddress] = useState<string>();
  // Bumped by each renewal or cancel: the customer's events list reads again.
  const [changes, setChanges] = useState(0);
  const lookup = useAction();

  const submit = (event: Event) => {
    event.preventDefault();
    void lookup.run(async () => {
      // Validated by the service: its error text says what is wrong with the address.
      const found = await api.status(input.trim());
      setAddress(found.address);
    });
  };

  return (
    <div class="stack">
      <form class="card" onSubmit={submit} aria-labelledby="lookup-title">
        <h3 class="card-title" id="lookup-title">
          Look up a customer
        </h3>
        <p class="muted">
          As an operator you can read, renew and cancel the subscription of any wallet.{' '}
          {plan?.gateway === 'operator'
            ? 'Renewals here are billed by you: renewing grants the period without a payment, so bill the customer yourself.'
            : plan?.gateway === 'erc20'
              ? 'Renewing for a customer pays the period from your own wallet.'
              : ''}
        </p>
        <label class="field">
          <span>Wallet address</span>
          <div class="copy-row">
            <input
              name="address"
              class="mono"
              required
              placeholder="0x…"
              autoComplete="off"
              spellcheck={false}
              value={input}
              onInput={(event) => setInput(event.currentTarget.value)}
            />
            <Button
              type="submit"
              variant="primary"
              busy={lookup.busy}
              busyLabel="Looking up…"
              disabled={input.trim() === ''}
            >
              Look up
            </Button>
          </div>
        </label>
        <ErrorNote text={lookup.error} />
      </form>
      {address && (
        <SubscriptionManager
          key={address}
          address={address}
          self={false}
          payer={payer}
          operator
          plan={plan}
          onChanged={() => setChanges((count) => count + 1)}
        />
      )}
      {address && (
        <EventsList key={address} address={address} operator title="Customer's events" version={changes} />
      )}
    </div>
  );
}
