import { useEffect, useState } from 'preact/hooks';
import { api, type ApiKeyUsage } from '../api';
import { DateTime, errorText } from '../ui';

const BAR = 3;
const GAP = 1;
const HEIGHT = 32;

/** Usage days are UTC calendar days (`2026-11-25`): shown as such, not shifted into the viewer's zone. */
const dayFormat = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });
const formatDay = (day: string) => dayFormat.format(new Date(`${day}T00:00:00Z`));

const requests = (count: number) => `${count} ${count === 1 ? 'request' : 'requests'}`;

/**
 * Requests per day over the last 30 days as inline SVG bars (oldest on the left), with the same numbers in words
 * for screen readers; each bar's title gives its day and count on hover.
 */
export function UsageChart({ days }: { days: ApiKeyUsage['days'] }) {
  const oldestFirst = [...days].reverse();
  const max = Math.max(0, ...oldestFirst.map((day) => day.requests));
  const total = oldestFirst.reduce((sum, day) => sum + day.requests, 0);
  const busiest = oldestFirst.reduce(
    (best, day) => (day.requests > best.requests ? day : best),
    oldestFirst[0]!,
  );
  const width = oldestFirst.length * (BAR + GAP) - GAP;
  return (
    <div class="usage">
      <svg
        class="usage-chart"
        width={width}
        height={HEIGHT}
        viewBox={`0 0 ${width} ${HEIGHT}`}
        aria-hidden="true"
        data-testid="usage-chart"
      >
        {oldestFirst.map((day, index) => {
          // An idle day still gets a 1 px mark, so the 30 days read as a timeline.
          const height = day.requests === 0 ? 1 : Math.max(2, Math.round((day.requests / max) * HEIGHT));
          return (
            <rect
              key={day.day}
              class={day.requests === 0 ? 'bar bar-idle' : 'bar'}
              x={index * (BAR + GAP)}
              y={HEIGHT - height}
              width={BAR}
              height={height}
            >
              <title>{`${formatDay(day.day)}: ${requests(day.requests)}`}</title>
            </rect>
          );
        })}
      </svg>
      <span class="small muted" data-testid="usage-total">
        {requests(total)} in 30 days
      </span>
      <span class="sr-only">
        {total === 0
          ? 'No requests in the last 30 days.'
          : `${requests(total)} in the last 30 days; the busiest day was ${formatDay(busiest.day)} with ${requests(busiest.requests)}.`}
      </span>
    </div>
  );
}

/** One key's usage, read when shown (and again when `version` changes: the list's Refresh). */
export function KeyUsage(props: { id: string; lastUsedAt: string | null; version: number }) {
  const [usage, setUsage] = useState<ApiKeyUsage>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    let current = true;
    api.keyUsage(props.id).then(
      (answer) => current && setUsage(answer),
      (caught: unknown) => current && setError(errorText(caught)),
    );
    return () => {
      current = false;
    };
  }, [props.id, props.version]);
  return (
    <div class="stack-tight">
      {usage && <UsageChart days={usage.days} />}
      {error && <span class="small muted">Usage unavailable: {error}</span>}
      <span class="small">
        {props.lastUsedAt ? (
          <>
            Last used <DateTime value={props.lastUsedAt} />
          </>
        ) : (
          <span class="muted">Never used</span>
        )}
      </span>
    </div>
  );
}
