import { isAllowedCookieRequest } from './csrf-origin.js';

const allowed = new Set(['https://app.example.com']);
const post = (headers: Record<string, string>) => ({
  method: 'POST',
  headers: { host: 'api.example.com', ...headers },
});

describe('cookie CSRF origin check', () => {
  it('lets safe methods through', () => {
    expect(isAllowedCookieRequest({ method: 'GET', headers: {} }, allowed)).toBe(true);
  });

  it('accepts an allowed Origin, the own origin, or an allowed Referer', () => {
    expect(isAllowedCookieRequest(post({ origin: 'https://app.example.com' }), allowed)).toBe(true);
    expect(isAllowedCookieRequest(post({ origin: 'https://api.example.com' }), allowed)).toBe(true);
    expect(isAllowedCookieRequest(post({ referer: 'https://app.example.com/settings?x=1' }), allowed)).toBe(
      true,
    );
  });

  it('refuses a foreign, opaque or missing origin', () => {
    expect(isAllowedCookieRequest(post({ origin: 'https://evil.example' }), allowed)).toBe(false);
    expect(isAllowedCookieRequest(post({ origin: 'null' }), allowed)).toBe(false);
    expect(isAllowedCookieRequest(post({}), allowed)).toBe(false);
    expect(isAllowedCookieRequest(post({ origin: 'https://app.example.com.evil.example' }), allowed)).toBe(
      false,
    );
  });
});
