import type { HelmetOptions } from 'helmet';

/**
 * Every API answer is JSON that no browser should render, frame, cache or leak through a referrer: the header set
 * the OWASP REST Security Cheat Sheet gives for APIs. helmet's longer set (cross-origin isolation, DNS prefetch,
 * download options…) protects HTML documents and goes only on the docs pages, with {@link HELMET_OPTIONS}. Each
 * header costs on every response, so the API sends none that a JSON answer cannot use.
 */
export const API_SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
});

/**
 * HSTS, sent only on answers that came over https (RFC 6797 section 7.2: a browser ignores it over plain http, and
 * a plain-http deployment must not claim to be https-only).
 */
export const HSTS_HEADER = 'max-age=31536000; includeSubDomains';

/**
 * Whether the request reached the service over https: Fastify's `request.protocol`, which is the connection's
 * unless TRUST_PROXY names the peer as a proxy, in which case its `X-Forwarded-Proto` counts.
 */
export function isHttpsRequest(request: { protocol?: string }): boolean {
  return request.protocol?.toLowerCase() === 'https';
}

const DOCS_DIRECTIVES = {
  defaultSrc: ["'self'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'", "'unsafe-inline'"],
  imgSrc: ["'self'", 'data:'],
  connectSrc: ["'self'"],
  frameAncestors: ["'none'"],
};

/** The docs page over https: its scripts and styles are served from /docs. */
export const HELMET_OPTIONS: Readonly<HelmetOptions> = {
  contentSecurityPolicy: { directives: DOCS_DIRECTIVES },
  crossOriginResourcePolicy: { policy: 'same-site' },
};

/**
 * The docs page over plain http: without `upgrade-insecure-requests` (a browser would fetch the page's scripts
 * over https, which a plain-http service does not serve: a blank page) and without HSTS.
 */
export const PLAIN_HTTP_HELMET_OPTIONS: Readonly<HelmetOptions> = {
  contentSecurityPolicy: { directives: { ...DOCS_DIRECTIVES, upgradeInsecureRequests: null } },
  crossOriginResourcePolicy: { policy: 'same-site' },
  strictTransportSecurity: false,
};

/**
 * The dashboard (/dashboard): a bundled single-page app that talks only to this origin. No inline script or style
 * and nothing from another origin, so an injected tag cannot run or exfiltrate; no `upgrade-insecure-requests`, so
 * it also loads over plain http in development.
 */
export const DASHBOARD_SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-security-policy': [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; '),
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'same-origin',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
});
