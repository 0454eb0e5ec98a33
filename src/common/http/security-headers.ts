import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet, { type HelmetOptions } from 'helmet';

/** The API answers JSON; the only HTML is the docs page, whose scripts and styles are served from /docs. */
export const HELMET_OPTIONS: Readonly<HelmetOptions> = {
  contentSecurityPolicy: {
    directives: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'", "'unsafe-inline'"],
      imgSrc: ["'self'", 'data:'],
      connectSrc: ["'self'"],
      frameAncestors: ["'none'"],
    },
  },
  crossOriginResourcePolicy: { policy: 'same-site' },
};

/**
 * helmet's headers, computed once. helmet rebuilds the same strings for every response (the CSP serialisation
 * alone showed in profiles); our options do not depend on the request, so running it once against a recording
 * response yields the exact set to send every time.
 */
export function securityHeaders(
  options: Readonly<HelmetOptions> = HELMET_OPTIONS,
): Readonly<Record<string, string>> {
  const headers: Record<string, string> = {};
  const response = {
    setHeader: (name: string, value: string | number | readonly string[]) => {
      headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
    },
    removeHeader: (name: string) => {
      delete headers[name.toLowerCase()];
    },
    getHeader: (name: string) => headers[name.toLowerCase()],
  } as unknown as ServerResponse;
  let done = false;
  helmet(options as HelmetOptions)({} as IncomingMessage, response, () => {
    done = true;
  });
  if (!done) throw new Error('helmet did not complete synchronously');
  return Object.freeze(headers);
}
