import { API_SECURITY_HEADERS, isHttpsRequest } from './security-headers.js';

describe('isHttpsRequest', () => {
  it("reads Fastify's protocol, in any case", () => {
    expect(isHttpsRequest({ protocol: 'https' })).toBe(true);
    expect(isHttpsRequest({ protocol: 'HTTPS' })).toBe(true);
    expect(isHttpsRequest({ protocol: 'http' })).toBe(false);
    expect(isHttpsRequest({})).toBe(false);
  });
});

describe('API_SECURITY_HEADERS', () => {
  it('is the OWASP REST set: nothing rendered, framed, sniffed, cached or referred', () => {
    expect(API_SECURITY_HEADERS).toEqual({
      'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-store',
    });
  });
});
