import { useState } from 'preact/hooks';
import { ApiError, type Plan, type PlanDetails, type Subscription } from '../api';
import { Button, Confirm, DateTime, ErrorNote, formatDay } from '../ui';
import { dearerPerSecond, formatPeriod, formatTrial, PlanCard, planPrice, PlanSection } from './plans';

/** A change of plan waiting for its confirmation: at once to a plan dearer per second, else at the period's end. */
type Choice =
  | { kind: 'upgrade'; plan: PlanDetails; from: PlanDetails }
  | { kind: 'downgrade'; plan: PlanDetails; from: PlanDetails };

/**
 * When an upgrade started now would end the period, by the service's rule: the time left converted at the two plans'
 * prices per second, rounded down to a whole second (left × old price × new period ÷ (old period × new price), in
 * bigint). Undefined when nothing of it would be left (a free plan now, or no period end).
 */
export function upgradedEnd(
  subscription: Subscription,
  from: PlanDetails,
  to: PlanDetails,
  now = Date.now(),
) {
  if (!subscription.currentPeriodEnd || from.pricePerPeriod === '0') return undefined;
  const left = BigInt(Math.max(0, new Date(subscription.currentPeriodEnd).getTime() - now));
  const seconds =
    (left * BigInt(from.pricePerPeriod) * BigInt(to.periodSeconds)) /
    (BigInt(from.periodSeconds) * BigInt(to.pricePerPeriod) * 1000n);
  return seconds > 0n ? new Date(now + Number(seconds) * 1000).toISOString() : undefined;
}

/**
 * The API's refusals that are about the chosen plan, said with its name; any other error is the API's own text.
 */
export function inPlanWords(error: unknown, plan: PlanDetails, from?: string): unknown {
  if (!(error instanceof ApiError)) return error;
  const words: Record<string, string> = {
    plan_archived: `${plan.name} is no longer offered: choose another plan.`,
    plan_not_found: `${plan.name} no longer exists: reload the page to see the plans on offer.`,
    plan_change_no_time_left: `Nothing of the time left on ${from ?? 'the current plan'} would carry over to ${plan.name}: cancel now, then subscribe to ${plan.name}.`,
    subscription_not_active:
      'The plan can be changed only while a paid period runs (not during a free trial, nor once the period ended).',
  };
  const text = words[error.code];
  return text ? new ApiError(error.status, { error: text, details: error.details }) : error;
}

/**
 * The plans on offer as cards to choose from: subscribe (or start the trial) without an active subscription;
 * with one, "Upgrade now" to a plan dearer per second and "Switch on <period end>" to a cheaper one, each confirmed
 * first. The subscription's own plan is marked, and shown even when archived (its subscribers keep it).
 */
export function PlanPicker(props: {
  plans?: PlanDetails[];
  loadError?: string;
  subscription: Subscription;
  terms?: Plan;
  self: boolean;
  /** Whether this page may renew (not a wallet under the `operator` gateway). */
  canRenew: boolean;
  busy: boolean;
  /** What the choice in progress is doing ("Confirm the payment in your wallet…"). */
  step?: string;
  /** The last choice's error: shown on the card whose button was clicked. */
  error?: string;
  onSubscribe(plan: PlanDetails): void;
  onChange(plan: PlanDetails): void;
}) {
  const { subscription, terms } = props;
  const [choice, setChoice] = useState<Choice>();
  const [last, setLast] = useState<string>();
  const active = subscription.active;
  // The service changes the plan of a paid period only (409 `subscription_not_active` during a trial).
  const trialing = subscription.status === 'trialing';
  const currentId = subscription.plan.id;
  const current = props.plans?.find((plan) => plan.id === currentId);
  const pending = subscription.pendingPlan;
  // Cheapest per second first, as a pricing page reads: changes to the right are upgrades.
  const shown = props.plans
    ?.filter((plan) => plan.offered || (active && plan.id === currentId))
    .sort((a, b) => (dearerPerSecond(a, b) ? 1 : dearerPerSecond(b, a) ? -1 : 0));
  const periodEnd = subscription.currentPeriodEnd;

  const pick = (plan: PlanDetails) => {
    setLast(plan.id);
    if (!active || !current) {
      props.onSubscribe(plan);
      return;
    }
    setChoice(
      dearerPerSecond(plan, current)
        ? { kind: 'upgrade', plan, from: current }
        : { kind: 'downgrade', plan, from: current },
    );
  };
  const confirm = () => {
    const chosen = choice!;
    setChoice(undefined);
    props.onChange(chosen.plan);
  };

  const subscribeLabel = (plan: PlanDetails) => {
    if (plan.trialSeconds !== null) return `Start the ${formatTrial(plan.trialSeconds)}`;
    const price = planPrice(plan, terms);
    return terms?.gateway === 'erc20' && plan.pricePerPeriod !== '0'
      ? `Subscribe: pay ${price}`
      : 'Subscribe';
  };

  const button = (plan: PlanDetails) => {
    if (active && plan.id === currentId) return null;
    if (active && pending?.id === plan.id) return null;
    if (trialing) return null;
    if (!active && !props.canRenew)
      return <p class="muted small">Ask the operator to subscribe you to it.</p>;
    const upgrade = active && current !== undefined && dearerPerSecond(plan, current);
    return (
      <Button
        variant={upgrade || !active ? 'primary' : 'secondary'}
        onClick={() => pick(plan)}
        disabled={props.busy || (active && !current)}
        busy={props.busy && last === plan.id}
        busyLabel={props.step ?? (active ? 'Changing…' : 'Subscribing…')}
      >
        {!active
          ? subscribeLabel(plan)
          : upgrade
            ? 'Upgrade now'
            : `Switch on ${periodEnd ? formatDay(periodEnd) : 'the period end'}`}
      </Button>
    );
  };

  const badge = (plan: PlanDetails) => {
    if (active && plan.id === currentId) {
      return (
        <span class="badge badge-success" data-testid="plan-current">
          {subscription.status === 'trialing' ? 'Your plan, on trial' : 'Your plan'}
        </span>
      );
    }
    if (active && pending?.id === plan.id) {
      return (
        <span class="badge badge-warning" data-testid="plan-pending">
          From {formatDay(pending.effectiveAt)}
        </span>
      );
    }
    return undefined;
  };

  const whose = props.self ? 'your' : "the customer's";
  const intro = trialing ? (
    <p class="muted">
      During the free trial the plan stays {subscription.plan.name}. Once a paid period runs, a dearer plan
      can start at once and a cheaper one at the period's end.
    </p>
  ) : active ? (
    <p class="muted">
      A plan that costs more per second starts now: the time left on {whose} period is converted at the two
      plans' prices, with no payment. A cheaper one starts when the current period ends, and can be called off
      until then.
    </p>
  ) : (
    <p class="muted">
      Pick a plan to subscribe{props.self ? ' to' : ' the customer to'}. A trial is free and is given once per
      wallet and plan; after one, the plan is paid from the start.
    </p>
  );

  return (
    <>
      <PlanSection
        title={active ? 'Change plan' : 'Choose a plan'}
        intro={intro}
        plans={shown}
        error={props.loadError}
      >
        {(plan) => (
          <PlanCard
            plan={plan}
            terms={terms}
            key={plan.id}
            current={active && plan.id === currentId}
            showTrial={!active}
            badge={badge(plan)}
          >
            {button(plan)}
            {last === plan.id && <ErrorNote text={props.error} />}
          </PlanCard>
        )}
      </PlanSection>
      <Confirm
        open={choice?.kind === 'upgrade'}
        title={`Upgrade to ${choice?.plan.name ?? ''} now?`}
        confirmLabel="Upgrade now"
        onConfirm={confirm}
        onCancel={() => setChoice(undefined)}
      >
        {choice?.kind === 'upgrade' && (
          <UpgradeText choice={choice} subscription={subscription} terms={terms} />
        )}
      </Confirm>
      <Confirm
        open={choice?.kind === 'downgrade'}
        title={`Switch to ${choice?.plan.name ?? ''} at the period's end?`}
        confirmLabel={`Switch on ${periodEnd ? formatDay(periodEnd) : 'the period end'}`}
        onConfirm={confirm}
        onCancel={() => setChoice(undefined)}
      >
        {choice?.kind === 'downgrade' && (
          <p>
            {choice.from.name} and its features stay until <DateTime value={periodEnd} />; then{' '}
            {choice.plan.name} starts, at {planPrice(choice.plan, terms)}{' '}
            {formatPeriod(choice.plan.periodSeconds)}. Until then you can call the switch off.
          </p>
        )}
      </Confirm>
    </>
  );
}

function UpgradeText(props: {
  choice: Extract<Choice, { kind: 'upgrade' }>;
  subscription: Subscription;
  terms?: Plan;
}) {
  const { plan, from } = props.choice;
  const end = upgradedEnd(props.subscription, from, plan);
  return (
    <>
      <p>
        {plan.name} and its features start now, with no payment: the time left on {from.name} is converted at
        the two plans' prices per second{end ? ', so the period ends sooner, on ' : '.'}
        {end && <DateTime value={end} />}
        {end ? '.' : ''}
      </p>
      <p>
        Renewing then costs {planPrice(plan, props.terms)} {formatPeriod(plan.periodSeconds)}.
      </p>
    </>
  );
}
