import { useEffect, useRef, useState } from 'preact/hooks';
import { api, onSessionLost, type Plan, type Session } from './api';
import { ApiKeysPanel } from './panels/api-keys';
import { EventsList } from './panels/events';
import { OperatorsPanel } from './panels/operators';
import { PlanManager } from './panels/plans';
import { SubscriptionManager } from './panels/subscription';
import { WebhooksPanel } from './panels/webhooks';
import { Button, Loading, Notice, shortAddress, useAction } from './ui';
import { SignIn } from './sign-in';
import { endedAlready, SignOutEverywhere } from './sign-out';

type Tab = 'subscription' | 'keys' | 'webhooks' | 'events' | 'operators';
const TAB_LABEL: Record<Tab, string> = {
  subscription: 'Subscription',
  keys: 'API keys',
  webhooks: 'Webhooks',
  events: 'Events',
  operators: 'Operators',
};

function Tabs(props: { tabs: Tab[]; current: Tab; onSelect(tab: Tab): void }) {
  const list = useRef<HTMLDivElement>(null);
  // Arrow keys move between tabs (WAI-ARIA tabs pattern); Tab moves into the panel.
  const onKeyDown = (event: KeyboardEvent) => {
    const index = props.tabs.indexOf(props.current);
    const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
    if (!step) return;
    event.preventDefault();
    const next = props.tabs[(index + step + props.tabs.length) % props.tabs.length]!;
    props.onSelect(next);
    list.current?.querySelector<HTMLButtonElement>(`#tab-${next}`)?.focus();
  };
  return (
    <div class="tabs" role="tablist" aria-label="Dashboard sections" ref={list} onKeyDown={onKeyDown}>
      {props.tabs.map((tab) => (
        <button
          type="button"
          role="tab"
          id={`tab-${tab}`}
          key={tab}
          aria-selected={tab === props.current}
          aria-controls={`panel-${tab}`}
          tabIndex={tab === props.current ? 0 : -1}
          class="tab"
          onClick={() => props.onSelect(tab)}
        >
          {TAB_LABEL[tab]}
        </button>
      ))}
    </div>
  );
}

function Dashboard(props: { session: Session; signedInNow: boolean; onSignedOut(message: string): void }) {
  const { session } = props;
  const [tab, setTab] = useState<Tab>('subscription');
  const signOut = useAction();
  const heading = useRef<HTMLHeadingElement>(null);
  // Right after signing in, the sign-in button is gone: start keyboard and screen-reader users at the page's title.
  useEffect(() => {
    if (props.signedInNow) heading.current?.focus();
  }, []);
  const [plan, setPlan] = useState<Plan>();
  useEffect(() => {
    // Without it the panels still work: the renew button then just renews, and a payment error says why.
    api.plan().then(setPlan, () => undefined);
  }, []);
  const tabs: Tab[] = [
    'subscription',
    'keys',
    'webhooks',
    'events',
    ...(session.operator ? (['operators'] as const) : []),
  ];

  const doSignOut = () =>
    signOut.run(async () => {
      try {
        await api.logout();
      } catch (error) {
        if (!endedAlready(error)) throw error;
      }
      props.onSignedOut('You signed out.');
    });

  return (
    <>
      <header class="topbar">
        <div class="topbar-inner">
          <span class="brand">
            <span class="logo" aria-hidden="true">
              T
            </span>
            Tollgate
          </span>
          <div class="who">
            <span class="address mono" title={session.address} data-testid="signed-in-address">
              {shortAddress(session.address)}
            </span>
            {session.operator && <span class="badge badge-info">Operator</span>}
          </div>
          <div class="signout">
            <Button variant="ghost" onClick={doSignOut} busy={signOut.busy} busyLabel="Signing out…">
              Sign out
            </Button>
            <SignOutEverywhere disabled={signOut.busy} onSignedOut={props.onSignedOut} />
          </div>
        </div>
      </header>
      <main class="container">
        <h1 class="page-title" tabIndex={-1} ref={heading}>
          Your account
        </h1>
        {signOut.error && <Notice kind="warning">{signOut.error}</Notice>}
        <Tabs tabs={tabs} current={tab} onSelect={setTab} />
        <section class="panel" role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`}>
          <h2 class="sr-only">{TAB_LABEL[tab]}</h2>
          {tab === 'subscription' && (
            <SubscriptionManager
              address={session.address}
              self
              payer={session.address}
              operator={session.operator}
              plan={plan}
            />
          )}
          {tab === 'keys' && <ApiKeysPanel heldScopes={session.scopes} />}
          {tab === 'webhooks' && <WebhooksPanel />}
          {tab === 'events' && <EventsList operator={session.operator} />}
          {tab === 'operators' && <OperatorsPanel payer={session.address} plan={plan} />}
          {tab === 'operators' && <PlanManager terms={plan} />}
        </section>
      </main>
    </>
  );
}

type State =
  | { phase: 'checking' }
  | { phase: 'signed-out'; message?: string }
  | { phase: 'signed-in'; session: Session; signedInNow: boolean };

export function App() {
  const [state, setState] = useState<State>({ phase: 'checking' });

  useEffect(() => {
    onSessionLost(() =>
      setState({
        phase: 'signed-out',
        message: 'Your session has expired or was ended. Sign in again to continue.',
      }),
    );
    api.session().then(
      (session) =>
        setState(
          session.via === 'jwt'
            ? { phase: 'signed-in', session, signedInNow: false }
            : { phase: 'signed-out' },
        ),
      () => setState({ phase: 'signed-out' }),
    );
  }, []);

  // Sessions last 24 h: at expiry, go back to sign-in rather than letting the next click fail.
  useEffect(() => {
    if (state.phase !== 'signed-in' || !state.session.expiresAt) return;
    const left = new Date(state.session.expiresAt).getTime() - Date.now();
    const timer = setTimeout(
      () =>
        setState({
          phase: 'signed-out',
          message: 'Your session has expired (sessions last 24 hours). Sign in again.',
        }),
      Math.max(0, Math.min(left, 2 ** 31 - 1)),
    );
    return () => clearTimeout(timer);
  }, [state]);

  if (state.phase === 'checking') {
    return (
      <main class="container center">
        <Loading label="Loading…" />
      </main>
    );
  }
  if (state.phase === 'signed-out') {
    return (
      <SignIn
        message={state.message}
        onSignedIn={(session) => setState({ phase: 'signed-in', session, signedInNow: true })}
      />
    );
  }
  return (
    <Dashboard
      session={state.session}
      signedInNow={state.signedInNow}
      onSignedOut={(message) => setState({ phase: 'signed-out', message })}
    />
  );
}
