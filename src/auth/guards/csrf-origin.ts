const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface OriginCheckRequest {
  method: string;
  headers: Record<string, string | string[] | undefined>;
  /**
   * `http` or `https`: Fastify's `request.protocol` (the connection's, or `X-Forwarded-Proto` from a proxy that
   * TRUST_PROXY names).
   */
  protocol: string;
  /** The host and port the request was sent to: Fastify's `request.host` (`X-Forwarded-Host` likewise). */
  host: string;
}

/** A URL's origin (`scheme://host[:port]`, default port dropped, host lowercased) when it is http(s), else none. */
export function webOrigin(value: string): string | undefined {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

/** The origin the request was addressed to, as a browser on this service's own pages would send it. */
function ownOrigin(request: OriginCheckRequest): string | undefined {
  // A Host with anything beyond host[:port] would parse as some other URL's origin.
  if (request.host === '' || /[/\\@?#\s]/.test(request.host)) return undefined;
  return webOrigin(`${request.protocol}://${request.host}`);
}

/**
 * The origin a browser says the request comes from. `Origin` when present, even when it is `null` (sandboxed
 * frames, `data:` and `file:` pages, cross-origin redirects): an opaque origin is no origin to trust, and the
 * `Referer` such a request may still carry is not consulted. `Referer` only when no `Origin` was sent at all.
 */
function claimedOrigin(headers: OriginCheckRequest['headers']): string | undefined {
  const { origin, referer } = headers;
  if (origin !== undefined) return typeof origin === 'string' ? webOrigin(origin) : undefined;
  return typeof referer === 'string' ? webOrigin(referer) : undefined;
}

/**
 * A cookie-authenticated request that changes state must carry an Origin (or, without one,
 * a Referer) whose scheme, host and port equal one of CORS_ORIGINS, the configured AUTH_URI's origin, or the
 * service's own origin (the scheme and host the request was sent to). Browsers always send Origin on cross-site
 * POSTs, so a forged form or fetch from another site, or from an http page of the same host, fails here.
 * `allowedOrigins` holds serialised origins ({@link webOrigin}).
 */
export function isAllowedCookieRequest(
  request: OriginCheckRequest,
  allowedOrigins: ReadonlySet<string>,
): boolean {
  if (SAFE_METHODS.has(request.method.toUpperCase())) return true;
  const origin = claimedOrigin(request.headers);
  if (!origin) return false;
  return allowedOrigins.has(origin) || origin === ownOrigin(request);
}
