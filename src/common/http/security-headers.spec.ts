import { securityHeaders } from './security-headers.js';

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
