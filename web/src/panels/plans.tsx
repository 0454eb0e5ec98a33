import type { ComponentChildren } from 'preact';
import { useEffect, useId, useState } from 'preact/hooks';
import { api, type Plan, type PlanDetails } from '../api';
import { formatAmount } from '../payment';
import { Button, Confirm, ErrorNote, Loading, Notice, useAction } from '../ui';

const UNITS: Array<[seconds: number, one: string]> = [
  [86_400, 'day'],
  [3_600, 'hour'],
  [60, 'minute'],
  [1, 'second'],
];

/** The length in whole days, hours, minutes and seconds, largest first, zeros left out: 86 410 → 1 day, 10 seconds. */
function inUnits(seconds: number): Array<[count: number, unit: string]> {
  const parts: Array<[number, string]> = [];
  let left = seconds;
  for (const [size, name] of UNITS) {
    if (left >= size) parts.push([Math.floor(left / size), name]);
    left %= size;
  }
  return parts.length > 0 ? parts : [[0, 'second']];
}

const counted = ([count, unit]: [number, string]) => `${count} ${unit}${count === 1 ? '' : 's'}`;

/** "30 days", "12 hours", "1 day and 10 seconds". */
export function formatSeconds(seconds: number): string {
  const parts = inUnits(seconds).map(counted);
  return parts.length === 1 ? parts[0]! : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)!}`;
}

/** "every 30 days", "every day", "every 1 day and 10 seconds". */
export function formatPeriod(seconds: number): string {
  const parts = inUnits(seconds);
  return parts.length === 1 && parts[0]![0] === 1
    ? `every ${parts[0]![1]}`
    : `every ${formatSeconds(seconds)}`;
}

/** "7-day free trial"; "1 day and 12 hours free trial". */
export function formatTrial(seconds: number): string {
  const parts = inUnits(seconds);
  return parts.length === 1
    ? `${parts[0]![0]}-${parts[0]![1]} free trial`
    : `${formatSeconds(seconds)} free trial`;
}

/** A plan's price in whole tokens under `erc20`; free at 0; otherwise the units, which the operator bills. */
export function planPrice(plan: PlanDetails, terms?: Plan): string {
  if (plan.pricePerPeriod === '0') return 'Free';
  const erc20 = terms?.erc20;
  return erc20
    ? formatAmount(plan.pricePerPeriod, erc20.decimals, erc20.symbol)
    : `${plan.pricePerPeriod} ${plan.pricePerPeriod === '1' ? 'unit' : 'units'}`;
}

/**
 * Whether `to` costs more per second than `from`, as the service decides between a change now and one at the period's
 * end: the two prices per second compared by cross-multiplying (bigint), never divided.
 */
export function dearerPerSecond(to: PlanDetails, from: PlanDetails): boolean {
  return (
    BigInt(to.pricePerPeriod) * BigInt(from.periodSeconds) >
    BigInt(from.pricePerPeriod) * BigInt(to.periodSeconds)
  );
}

export function PlanCard(props: {
  plan: PlanDetails;
  terms?: Plan;
  /** A badge of the card's own ("Your plan", "Starts on …"). */
  badge?: ComponentChildren;
  current?: boolean;
  /** False where the trial cannot apply (a change of plan is never a trial). */
  showTrial?: boolean;
  children?: ComponentChildren;
}) {
  const { plan } = props;
  // The same plan can show twice on a page (an operator's customer picker above the list of all plans).
  const titleId = useId();
  return (
    <article
      class={`card plan-card${props.current ? ' plan-card-current' : ''}`}
      aria-labelledby={titleId}
      data-testid={`plan-${plan.id}`}
    >
      <div class="card-head">
        <h4 class="card-title" id={titleId}>
          {plan.name}
        </h4>
        {props.badge}
        {!plan.offered && <span class="badge badge-neutral">Archived</span>}
      </div>
      <p class="plan-price">
        <strong>{planPrice(plan, props.terms)}</strong>{' '}
        <span class="muted">{formatPeriod(plan.periodSeconds)}</span>
      </p>
      {plan.offered && plan.trialSeconds !== null && props.showTrial !== false && (
        <p class="plan-trial" data-testid="plan-trial">
          {formatTrial(plan.trialSeconds)}
        </p>
      )}
      {plan.description && <p class="muted">{plan.description}</p>}
      {plan.features.length > 0 ? (
        <ul class="plan-features" aria-label={`Features of ${plan.name}`}>
          {plan.features.map((feature) => (
            <li key={feature}>
              <code>{feature}</code>
            </li>
          ))}
        </ul>
      ) : (
        <p class="muted small">No listed features.</p>
      )}
      {props.children && <div class="plan-card-foot">{props.children}</div>}
    </article>
  );
}

/** A titled grid of plan cards, with the list's loading and error states. */
export function PlanSection(props: {
  title: string;
  intro?: ComponentChildren;
  plans?: PlanDetails[];
  error?: string;
  children(plan: PlanDetails): ComponentChildren;
}) {
  const titleId = useId();
  return (
    <section class="stack plans-section" aria-labelledby={titleId}>
      <h3 class="section-title" id={titleId}>
        {props.title}
      </h3>
      {props.intro}
      <ErrorNote text={props.error} />
      {!props.plans && !props.error && <Loading label="Loading plans…" />}
      {props.plans && <div class="plan-grid">{props.plans.map(props.children)}</div>}
    </section>
  );
}

/** Comma- or space-separated feature keys, as typed. */
const featureList = (text: string): string[] =>
  text
    .split(/[\s,]+/)
    .map((feature) => feature.trim())
    .filter(Boolean);

function FeaturesEditor(props: { plan: PlanDetails; onSaved(plan: PlanDetails): void }) {
  const [text, setText] = useState(props.plan.features.join(', '));
  const save = useAction();
  const inputId = `features-${props.plan.id}`;
  const submit = (event: Event) => {
    event.preventDefault();
    void save.run(async () =>
      props.onSaved(await api.updatePlan(props.plan.id, { features: featureList(text) })),
    );
  };
  return (
    <form class="form" onSubmit={submit}>
      <label class="field" for={inputId}>
        <span>Features</span>
      </label>
      <div class="copy-row">
        <input
          id={inputId}
          aria-label={`Features of ${props.plan.name}, comma-separated`}
          class="mono"
          value={text}
          autoComplete="off"
          spellcheck={false}
          onInput={(event) => setText(event.currentTarget.value)}
        />
        <Button type="submit" busy={save.busy} busyLabel="Saving…">
          Save
        </Button>
      </div>
      <ErrorNote text={save.error} />
    </form>
  );
}

/** Operators: every plan, archived ones included; create one, edit its features, archive it. */
export function PlanManager({ terms }: { terms?: Plan }) {
  const [plans, setPlans] = useState<PlanDetails[]>();
  const [draft, setDraft] = useState({
    id: '',
    name: '',
    periodDays: '30',
    price: '',
    features: '',
    trialDays: '',
  });
  const [archiving, setArchiving] = useState<PlanDetails>();
  const [done, setDone] = useState<string>();
  const load = useAction();
  const create = useAction();
  const archive = useAction();

  const refresh = () => load.run(async () => setPlans(await api.plans(true)));
  useEffect(() => {
    void refresh();
  }, []);
  const replace = (plan: PlanDetails) => {
    setPlans((current) => current?.map((item) => (item.id === plan.id ? plan : item)));
    setDone(`Saved ${plan.name}.`);
  };
  const field = (name: keyof typeof draft) => ({
    name,
    value: draft[name],
    onInput: (event: { currentTarget: HTMLInputElement }) =>
      setDraft((current) => ({ ...current, [name]: event.currentTarget.value })),
  });
  const days = (text: string) => Number(text) * 86_400;

  const submit = (event: Event) => {
    event.preventDefault();
    void create.run(async () => {
      const created = await api.createPlan({
        id: draft.id.trim(),
        name: draft.name.trim(),
        periodSeconds: days(draft.periodDays),
        pricePerPeriod: draft.price.trim(),
        features: featureList(draft.features),
        ...(draft.trialDays.trim() ? { trialSeconds: days(draft.trialDays) } : {}),
      });
      setPlans((current) => [...(current ?? []), created]);
      setDraft({ id: '', name: '', periodDays: '30', price: '', features: '', trialDays: '' });
      setDone(`Created ${created.name}: it is offered now.`);
    });
  };
  const doArchive = () =>
    archive.run(async () => {
      const archived = await api.archivePlan(archiving!.id);
      replace(archived);
      setDone(`Archived ${archived.name}: its subscribers keep it; nobody new can choose it.`);
      setArchiving(undefined);
    });

  return (
    <div class="stack plans-section">
      <form class="card" onSubmit={submit} aria-labelledby="create-plan-title">
        <h3 class="card-title" id="create-plan-title">
          Create a plan
        </h3>
        <p class="muted">
          Plans share the payment token and receiver. The price is in the token's smallest unit
          {terms?.erc20 ? ` (${terms.erc20.symbol} has ${terms.erc20.decimals} decimals)` : ''}. Price and
          period cannot change once a wallet is on the plan: a new price is a new plan.
        </p>
        <div class="field-row">
          <label class="field">
            <span>Id</span>
            <input
              {...field('id')}
              class="mono"
              required
              pattern="[a-z0-9][a-z0-9\-]{0,31}"
              placeholder="pro"
            />
          </label>
          <label class="field">
            <span>Name</span>
            <input {...field('name')} required maxLength={64} placeholder="Pro" />
          </label>
        </div>
        <div class="field-row">
          <label class="field">
            <span>Period (days)</span>
            <input {...field('periodDays')} required inputMode="numeric" pattern="[1-9][0-9]*" />
          </label>
          <label class="field">
            <span>Price (smallest unit)</span>
            <input {...field('price')} class="mono" required inputMode="numeric" pattern="0|[1-9][0-9]*" />
          </label>
          <label class="field">
            <span>Trial (days, optional)</span>
            <input {...field('trialDays')} inputMode="numeric" pattern="[1-9][0-9]*" />
          </label>
        </div>
        <label class="field">
          <span>Features (comma-separated)</span>
          <input {...field('features')} class="mono" placeholder="api.calls, export.csv" />
        </label>
        <ErrorNote text={create.error} />
        <div class="actions">
          <Button type="submit" variant="primary" busy={create.busy} busyLabel="Creating…">
            Create plan
          </Button>
        </div>
      </form>
      {done && <Notice kind="success">{done}</Notice>}
      <PlanSection title="All plans" plans={plans} error={load.error}>
        {(plan) => (
          <PlanCard plan={plan} terms={terms} key={plan.id}>
            {plan.id === 'default' ? (
              <p class="muted small">Defined by the settings (SUBSCRIPTION_PERIOD_SECONDS, price).</p>
            ) : (
              <>
                <FeaturesEditor plan={plan} onSaved={replace} />
                {plan.offered && (
                  <div class="actions">
                    <Button variant="danger" onClick={() => setArchiving(plan)}>
                      Archive {plan.name}
                    </Button>
                  </div>
                )}
              </>
            )}
          </PlanCard>
        )}
      </PlanSection>
      <Confirm
        open={archiving !== undefined}
        title={`Archive ${archiving?.name ?? ''}?`}
        confirmLabel="Archive"
        danger
        busy={archive.busy}
        busyLabel="Archiving…"
        onConfirm={doArchive}
        onCancel={() => setArchiving(undefined)}
      >
        <p>Wallets on it keep it and renew at its price; nobody new can choose it. This cannot be undone.</p>
        <ErrorNote text={archive.error} />
      </Confirm>
    </div>
  );
}
