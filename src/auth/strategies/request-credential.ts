import { readCookie, SESSION_COOKIE } from '../session-cookie.js';

/** The credential a request presents, and where it came from. */
export interface RequestCredential {
  token: string;
  carrier: 'header' | 'cookie';
}

export type CredentialRequest = { headers: Record<string, string | string[] | undefined> };

/**
 * CONTRACT.md section 2: when an Authorization header is present it alone decides, even if a valid cookie is also
 * sent. `null` means "a header that is not a Bearer token"; `undefined` means no credential at all.
 */
export function readCredential(request: CredentialRequest): RequestCredential | null | undefined {
  const header = request.headers.authorization;
  if (header !== undefined) {
    if (typeof header !== 'string') return null;
    const match = /^Bearer[ ]+([^\s]+)\s*$/i.exec(header);
    return match ? { token: match[1]!, carrier: 'header' } : null;
  }
  const cookieHeader = request.headers.cookie;
  const token = readCookie(typeof cookieHeader === 'string' ? cookieHeader : undefined, SESSION_COOKIE);
  return token ? { token, carrier: 'cookie' } : undefined;
}
