import { isAllowedCookieRequest, webOrigin } from './csrf-origin.js';

const allowed = new Set(['https://app.example.com', 'http://localhost:5173']);
const post = (headers: Record<string, string>, protocol = 'https', host = 'api.example.com') => ({
  method: 'POST',
  headers,
  protocol,
  host,
});
const allows = (request: ReturnType<typeof post>) => isAllowedCookieRequest(request, allowed);

describe('cookie CSRF origin check', () => {
  it('lets safe methods through', () => {
    expect(isAllowedCookieRequest({ method: 'GET', headers: {}, protocol: 'http', host: 'x' }, allowed)).toBe(
      true,
    );
  });

  it('accepts an allowed Origin, the own origin, or an allowed Referer when no Origin is sent', () => {
    expect(allows(post({ origin: 'https://app.example.com' }))).toBe(true);
    expect(allows(post({ origin: 'https://api.example.com' }))).toBe(true);
    expect(allows(post({ origin: 'http://localhost:5173' }))).toBe(true);
    expect(allows(post({ referer: 'https://app.example.com/settings?x=1' }))).toBe(true);
    expect(allows(post({ origin: 'http://127.0.0.1:3000' }, 'http', '127.0.0.1:3000'))).toBe(true);
  });

  it('compares scheme and port, not only the host', () => {
    expect(allows(post({ origin: 'http://app.example.com' }))).toBe(false);
    expect(allows(post({ origin: 'https://app.example.com:8443' }))).toBe(false);
    expect(allows(post({ origin: 'https://localhost:5173' }))).toBe(false);
    expect(allows(post({ origin: 'http://localhost:5174' }))).toBe(false);
    // The own origin: same host, but the request came over https.
    expect(allows(post({ origin: 'http://api.example.com' }))).toBe(false);
    expect(allows(post({ origin: 'https://api.example.com' }, 'http'))).toBe(false);
    expect(allows(post({ origin: 'https://api.example.com:8443' }))).toBe(false);
    expect(allows(post({ referer: 'http://app.example.com/settings' }))).toBe(false);
  });

  it('treats default ports and letter case as the same origin', () => {
    expect(allows(post({ origin: 'https://APP.example.com:443' }))).toBe(true);
    expect(allows(post({ origin: 'https://api.example.com' }, 'https', 'API.example.com:443'))).toBe(true);
  });

  it('refuses Origin: null even with an allowed Referer', () => {
    expect(allows(post({ origin: 'null' }))).toBe(false);
    expect(allows(post({ origin: 'null', referer: 'https://app.example.com/' }))).toBe(false);
    expect(allows(post({ origin: 'null', referer: 'https://api.example.com/' }))).toBe(false);
  });

  it('refuses a foreign, malformed or missing origin', () => {
    expect(allows(post({ origin: 'https://evil.example' }))).toBe(false);
    expect(allows(post({}))).toBe(false);
    expect(allows(post({ origin: 'https://app.example.com.evil.example' }))).toBe(false);
    expect(allows(post({ origin: 'https://app.example.com, https://evil.example' }))).toBe(false);
    expect(allows(post({ origin: 'file://' }))).toBe(false);
    expect(allows(post({ origin: 'not a url' }))).toBe(false);
    expect(allows(post({ origin: '' }))).toBe(false);
    expect(allows(post({ origin: 'https://evil.example' }, 'https', 'evil.example/@api.example.com'))).toBe(
      false,
    );
    expect(allows(post({ origin: 'https://api.example.com' }, 'https', ''))).toBe(false);
  });
});

describe('webOrigin', () => {
  it('serialises http(s) origins and refuses other schemes', () => {
    expect(webOrigin('https://App.Example.com:443/path?q')).toBe('https://app.example.com');
    expect(webOrigin('http://[::1]:8080')).toBe('http://[::1]:8080');
    expect(webOrigin('javascript:alert(1)')).toBeUndefined();
    expect(webOrigin('null')).toBeUndefined();
  });
});
