const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface OriginCheckRequest {
  method: string;
  headers: Record<string, string | string[] | undefined>;
}

function originOf(value: string | string[] | undefined): string | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const url = new URL(value);
    return url.origin === 'null' ? undefined : url.origin;
  } catch {
    return undefined;
  }
}

/**
 * CONTRACT.md section 2: a cookie-authenticated request that changes state must carry an Origin (or Referer) that
 * is one of CORS_ORIGINS, the configured AUTH_URI's origin, or the service's own origin (same host as requested).
 * Browsers always send Origin on cross-site POSTs, so a forged form or fetch from another site fails here.
 */
export function isAllowedCookieRequest(
  request: OriginCheckRequest,
  allowedOrigins: ReadonlySet<string>,
): boolean {
  if (SAFE_METHODS.has(request.method.toUpperCase())) return true;
  const origin = originOf(request.headers.origin) ?? originOf(request.headers.referer);
  if (!origin) return false;
  if (allowedOrigins.has(origin)) return true;
  const host = request.headers.host;
  return typeof host === 'string' && new URL(origin).host === host.toLowerCase();
}
