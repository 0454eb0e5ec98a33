const DELAY_SECONDS = /^\d+$/;
// The three HTTP-date forms recipients must accept (RFC 9110 §5.6.7). Date.parse alone would also take
// strings such as "1.5" and turn them into some date in 2001.
const IMF_FIXDATE = /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/;
const RFC850_DATE = /^[A-Z][a-z]{5,8}, \d{2}-[A-Z][a-z]{2}-\d{2} \d{2}:\d{2}:\d{2} GMT$/;
const ASCTIME_DATE = /^[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/;

/**
 * The delay a `Retry-After` header asks for, in whole seconds from `now` (never negative), or null when
 * the header is absent or unreadable.
 */
export function parseRetryAfter(
  header: string | string[] | undefined,
  now: number = Date.now(),
): number | null {
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  if (!value) return null;
  if (DELAY_SECONDS.test(value)) {
    const seconds = Number(value);
    return Number.isSafeInteger(seconds) ? seconds : null;
  }
  let date: number;
  if (IMF_FIXDATE.test(value) || RFC850_DATE.test(value)) date = Date.parse(value);
  // asctime carries no zone but means GMT; Date.parse would read it as local time.
  else if (ASCTIME_DATE.test(value)) date = Date.parse(`${value} GMT`);
  else return null;
  if (Number.isNaN(date)) return null;
  return Math.max(0, Math.ceil((date - now) / 1000));
}
