import { API_SECURITY_HEADERS, securityHeaders } from './security-headers.js';

describe('securityHeaders', () => {
  it("is helmet's header set for our options", () => {
    const headers = securityHeaders();
    expect(headers['x-content-type-options']).toBe('nosniff');
    expect(headers['x-frame-options']).toBe('SAMEORIGIN');
    expect(headers['strict-transport-security']).toMatch(/^max-age=\d+; includeSubDomains$/);
    expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(headers['content-security-policy']).toContain("script-src 'self'");
    expect(headers['cross-origin-resource-policy']).toBe('same-site');
    expect(headers['x-powered-by']).toBeUndefined();
  });
});

describe('API_SECURITY_HEADERS', () => {
  it('is the OWASP REST set: nothing rendered, framed, sniffed, cached or referred', () => {
    expect(API_SECURITY_HEADERS).toEqual({
      'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
      'strict-transport-security': 'max-age=31536000; includeSubDomains',
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-store',
    });
  });
});
