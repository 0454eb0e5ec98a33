import {
  API_SECURITY_HEADERS,
  isHttpsRequest,
  PLAIN_HTTP_HELMET_OPTIONS,
  securityHeaders,
} from './security-headers.js';

describe('securityHeaders', () => {
  it("is helmet's header set for our options", () => {
    const headers = securityHeaders();
    expect(headers['x-content-type-options']).toBe('nosniff');
    expect(headers['x-frame-options']).toBe('SAMEORIGIN');
    expect(headers['strict-transport-security']).toMatch(/^max-age=\d+; includeSubDomains$/);
    expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(headers['content-security-policy']).toContain("script-src 'self'");
    expect(headers['cross-origin-resource-policy']).toBe('same-site');
    expect(headers['content-security-policy']).toContain('upgrade-insecure-requests');
    expect(headers['x-powered-by']).toBeUndefined();
  });

  it('sends neither upgrade-insecure-requests nor HSTS for plain http', () => {
    const headers = securityHeaders(PLAIN_HTTP_HELMET_OPTIONS);
    expect(headers['content-security-policy']).not.toContain('upgrade-insecure-requests');
    expect(headers['content-security-policy']).toContain("script-src 'self'");
    expect(headers['strict-transport-security']).toBeUndefined();
    expect(headers['x-frame-options']).toBe('SAMEORIGIN');
  });
});

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
