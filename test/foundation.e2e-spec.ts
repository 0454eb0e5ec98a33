import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import * as yaml from 'js-yaml';
import { startTestApp, type TestApp } from './utils/test-app.js';
import { OPENAPI_VERSION } from '../src/openapi/openapi.js';

describe('foundation over HTTP', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('GET /health answers 200 with the database check', async () => {
    const response = await fetch(`${t.url}/health`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as any;
    expect(body).toMatchObject({ status: 'ok', checks: { database: { status: 'up' } }, version: '1.0.0' });
    expect(typeof body.checks.database.latencyMs).toBe('number');
    expect(Number.isInteger(body.uptimeSeconds)).toBe(true);
  });

  it('echoes a sane x-request-id and generates one otherwise', async () => {
    const echoed = await fetch(`${t.url}/health`, { headers: { 'x-request-id': 'abc-123' } });
    expect(echoed.headers.get('x-request-id')).toBe('abc-123');
    const replaced = await fetch(`${t.url}/health`, { headers: { 'x-request-id': 'bad id\twith spaces' } });
    expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers an unknown route with 404 and the error object', async () => {
    const response = await fetch(`${t.url}/nope`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: expect.any(String),
      details: { code: 'not_found', requestId: response.headers.get('x-request-id') },
    });
  });

  it("puts the caller's request id in the error object, the header and the request's log line", async () => {
    const response = await fetch(`${t.url}/subscriptions/status?address=0x1`, {
      headers: { 'x-request-id': 'trace-42.a:b' },
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('x-request-id')).toBe('trace-42.a:b');
    expect(await response.json()).toMatchObject({ details: { requestId: 'trace-42.a:b' } });
    const lines = t.logs.filter((line) => line.requestId === 'trace-42.a:b');
    expect(lines).toEqual([
      expect.objectContaining({
        msg: 'request completed',
        statusCode: 401,
        url: '/subscriptions/status?address=0x1',
      }),
    ]);
  });

  it('replaces an id that is too long or carries other characters', async () => {
    for (const bad of ['x'.repeat(129), 'a/b', 'a"b']) {
      const response = await fetch(`${t.url}/nope`, { headers: { 'x-request-id': bad } });
      const id = response.headers.get('x-request-id');
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect(((await response.json()) as { details: { requestId: string } }).details.requestId).toBe(id);
    }
  });

  it('serves the interactive docs page', async () => {
    const response = await fetch(`${t.url}/docs`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/html');
    expect(await response.text()).toContain('swagger-ui-bundle.js');
    // Read from the package on the first request, kept for the next: both answers are the same script.
    const first = await fetch(`${t.url}/docs/swagger-ui-bundle.js`);
    const second = await fetch(`${t.url}/docs/swagger-ui-bundle.js`);
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(first.headers.get('content-type')).toContain('application/javascript');
    const script = await first.text();
    expect(script).toContain('SwaggerUIBundle');
    expect(await second.text()).toBe(script);
    const css = await fetch(`${t.url}/docs/swagger-ui.css`);
    expect(css.headers.get('content-type')).toContain('text/css');
    // Read to the end, so the connection is not left open past the spec.
    expect(await css.text()).toContain('.swagger-ui');
  });

  it('serves the OpenAPI document as YAML and JSON, of the API version the code declares', async () => {
    const yamlResponse = await fetch(`${t.url}/docs/openapi.yaml`);
    expect(yamlResponse.status).toBe(200);
    const fromYaml = yaml.load(await yamlResponse.text()) as Record<string, any>;
    const fromJson = (await (await fetch(`${t.url}/docs/openapi.json`)).json()) as any;
    expect(fromYaml).toEqual(fromJson);
    expect(fromJson.openapi).toMatch(/^3\.0\./);
    expect(fromJson.info.version).toBe(OPENAPI_VERSION);
    expect(Object.keys(fromJson.components.securitySchemes).sort()).toEqual(['apiKey', 'cookie', 'jwt']);
    expect(fromJson.paths['/health'].get.operationId).toBe('getHealth');
  });
});

describe('docs/openapi.yaml', () => {
  it('is a valid OpenAPI 3.0 document, of the API version the code declares', async () => {
    const { default: SwaggerParser } = await import('@apidevtools/swagger-parser');
    const api = (await SwaggerParser.validate('docs/openapi.yaml')) as {
      openapi: string;
      info: { version: string };
    };
    expect(api.openapi).toMatch(/^3\.0\./);
    expect(api.info.version).toBe(OPENAPI_VERSION);
  });

  it('is the document the code generates (run `npm run openapi` after changing a route or DTO)', async () => {
    const { readFileSync } = await import('node:fs');
    const { pino } = await import('pino');
    const { createOpenApiDocument } = await import('../src/app.js');
    const { loadAppConfig } = await import('../src/config/app-config.js');
    const { toYaml } = await import('../src/openapi/openapi.js');
    const config = loadAppConfig({ NODE_ENV: 'test', DATABASE_URL: 'postgres://unused@127.0.0.1/unused' });
    const generated = toYaml(await createOpenApiDocument(config, pino({ level: 'silent' })));
    expect(readFileSync('docs/openapi.yaml', 'utf8')).toBe(generated);
  });
});

describe('security headers', () => {
  it("sets the API's headers on JSON answers, helmet's on the docs page, and no x-powered-by", async () => {
    const t = await startTestApp({ keepData: true });
    try {
      for (const path of ['/health', '/nope', '/subscriptions/status']) {
        const response = await fetch(`${t.url}${path}`);
        expect(response.headers.get('x-content-type-options')).toBe('nosniff');
        expect(response.headers.get('x-frame-options')).toBe('DENY');
        expect(response.headers.get('content-security-policy')).toBe(
          "default-src 'none'; frame-ancestors 'none'",
        );
        expect(response.headers.get('cache-control')).toBe('no-store');
        // Plain http: no HSTS (see "https-only headers" below).
        expect(response.headers.get('strict-transport-security')).toBeNull();
        expect(response.headers.get('x-powered-by')).toBeNull();
      }
      const docs = await fetch(`${t.url}/docs`);
      expect(docs.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(docs.headers.get('x-frame-options')).toBe('SAMEORIGIN');
      expect(docs.headers.get('cross-origin-opener-policy')).toBe('same-origin');
      expect(docs.headers.get('cache-control')).toBe('public, max-age=300');
    } finally {
      await t.close();
    }
  });
});

describe('https-only headers', () => {
  /** Sends with a Host header of our choosing (fetch would not). */
  const headersOf = (url: string, path: string, headers: Record<string, string>) =>
    new Promise<IncomingHttpHeaders>((resolve, reject) => {
      const request = httpRequest(`${url}${path}`, { headers }, (response) => {
        response.resume();
        resolve(response.headers);
      });
      request.on('error', reject);
      request.end();
    });

  it('sends HSTS and upgrade-insecure-requests over https only, trusting X-Forwarded-Proto from TRUST_PROXY', async () => {
    const t = await startTestApp({ keepData: true, env: { TRUST_PROXY: 'loopback' } });
    try {
      for (const path of ['/docs', '/docs/swagger-ui.css', '/health']) {
        const plain = await headersOf(t.url, path, { host: 'tollgate.example.com:8080' });
        expect(plain['strict-transport-security']).toBeUndefined();
        expect(plain['content-security-policy']).not.toContain('upgrade-insecure-requests');
        const proxied = await headersOf(t.url, path, {
          host: 'tollgate.example.com',
          'x-forwarded-proto': 'https',
        });
        expect(proxied['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
        if (path.startsWith('/docs')) {
          expect(proxied['content-security-policy']).toContain('upgrade-insecure-requests');
        }
      }
    } finally {
      await t.close();
    }
  });

  it('ignores X-Forwarded-Proto from a peer TRUST_PROXY does not name', async () => {
    const t = await startTestApp({ keepData: true });
    try {
      const spoofed = await headersOf(t.url, '/docs', {
        host: 'tollgate.example.com',
        'x-forwarded-proto': 'https',
      });
      expect(spoofed['strict-transport-security']).toBeUndefined();
      expect(spoofed['content-security-policy']).not.toContain('upgrade-insecure-requests');
    } finally {
      await t.close();
    }
  });
});
