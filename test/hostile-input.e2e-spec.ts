import { connect } from 'node:net';
import fc from 'fast-check';
import { http } from './utils/http.js';
import { routeTable, type RouteEntry } from './utils/route-table.js';
import { startTestApp, type TestApp } from './utils/test-app.js';
import { login, type WalletSession } from './utils/wallet.js';

const RUNS_PER_ROUTE = Number(process.env.HOSTILE_RUNS ?? 40);

const nasty = [
  "' OR 1=1; --",
  "'); DROP TABLE subscriptions; --",
  '${jndi:ldap://x}',
  '<script>alert(1)</script>',
  '\u0000',
  '\uFFFF\uD800',
  '../../etc/passwd',
  '%00',
  'x'.repeat(70_000),
  '0x' + 'f'.repeat(40),
  '1e400',
  '-0',
  'NaN',
];

/** JSON values that are wrong in every way a client can be wrong: types, shapes, sizes, hostile keys and strings. */
const hostileValue = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc.constantFrom(...nasty),
  fc.constantFrom(null, true, 0, -1, 2 ** 53 + 1, 1e308, [], {}, [[[]]]),
  fc.string({ maxLength: 300 }),
  fc.array(fc.anything({ maxDepth: 2 }), { maxLength: 20 }),
);

const hostileBody = fc.oneof(
  hostileValue,
  fc.dictionary(
    fc.oneof(
      fc.string({ maxLength: 20 }),
      fc.constantFrom(
        'address',
        'scopes',
        'label',
        'url',
        'events',
        'id',
        'immediate',
        'signature',
        'message',
      ),
    ),
    hostileValue,
    { maxKeys: 6 },
  ),
  fc.record(
    { address: hostileValue, scopes: hostileValue, label: hostileValue, url: hostileValue, id: hostileValue },
    { requiredKeys: [] },
  ),
);

function deepNesting(levels: number): string {
  return '['.repeat(levels) + ']'.repeat(levels);
}

const rawBodies: Array<[string, string]> = [
  [
    'application/json',
    '{"__proto__": {"polluted": true}, "address": "0x52908400098527886E0F7030069857D2E4169EE7"}',
  ],
  ['application/json', '{"constructor": {"prototype": {"polluted": true}}}'],
  ['application/json', deepNesting(5_000)],
  ['application/json', '{"a":'.repeat(3_000) + '1' + '}'.repeat(3_000)],
  ['application/json', '{"address": 1e400}'],
  ['application/json', '{"address": "\\ud800"}'],
  ['application/json', '{"address": "0x52908400098527886E0F7030069857D2E4169EE7",}'],
  ['application/json', 'null'],
  ['application/json', '[]'],
  ['application/json', '"just a string"'],
  ['application/json', ''],
  ['text/plain', 'address=0x1'],
  ['application/x-www-form-urlencoded', 'address=0x1&__proto__[polluted]=1'],
  ['application/xml', '<address>0x1</address>'],
  ['multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--'],
];

/** Sends bytes exactly as given (invalid UTF-8, CRLF in headers): fetch would refuse to. */
function rawRequest(url: string, request: string | Buffer): Promise<{ status: number; text: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(request));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), text });
    });
  });
}

describe('hostile input on every route', () => {
  let t: TestApp;
  let routes: RouteEntry[];
  let session: WalletSession;
  let sent = 0;
  const problems: string[] = [];

  beforeAll(async () => {
    t = await startTestApp();
    routes = routeTable(t.app);
    session = await login(t.url);
  });
  afterAll(async () => {
    console.log(
      `hostile input: ${sent} requests sent to ${routes.length} routes, ${problems.length} problems`,
    );
    await t.close();
  });

  const check = (label: string, status: number, body: unknown) => {
    sent++;
    const ok =
      status < 500 &&
      (status < 400 ||
        (typeof body === 'object' &&
          body !== null &&
          typeof (body as { error?: unknown }).error === 'string' &&
          typeof (body as { details?: { code?: unknown } }).details?.code === 'string'));
    if (!ok) problems.push(`${label} → ${status} ${JSON.stringify(body)?.slice(0, 200)}`);
  };

  const pathOf = (route: RouteEntry, idValue = '00000000-0000-4000-8000-000000000000') =>
    route.path.replace(/:[A-Za-z]+/g, encodeURIComponent(idValue));

  it('answers generated bad bodies, queries and path values with 4xx and the error object, never 5xx', async () => {
    const api = http(t.url);
    for (const route of routes) {
      const tokens = route.public ? [undefined] : [undefined, session.token];
      await fc.assert(
        fc.asyncProperty(
          hostileBody,
          hostileValue,
          fc.string({ maxLength: 80 }),
          async (body, query, idValue) => {
            for (const token of tokens) {
              const search = new URLSearchParams();
              search.set('address', typeof query === 'string' ? query : (JSON.stringify(query) ?? ''));
              search.append('address', String(idValue));
              search.set(String(idValue).slice(0, 20) || 'x', 'y');
              const path = `${pathOf(route, idValue || 'x')}?${search.toString()}`;
              const response = await api.send(route.method, path, {
                token,
                body: route.method === 'GET' ? undefined : JSON.stringify(body === undefined ? null : body),
                headers: { 'content-type': 'application/json' },
              });
              check(
                `${route.method} ${path.slice(0, 120)} body=${JSON.stringify(body)?.slice(0, 120)}`,
                response.status,
                response.body,
              );
            }
          },
        ),
        { numRuns: RUNS_PER_ROUTE, seed: 20261122 },
      );
    }
    expect(problems).toEqual([]);
  }, 240_000);

  it('answers raw hostile payloads and content types with 4xx and the error object', async () => {
    const api = http(t.url);
    for (const route of routes.filter((entry) => entry.method !== 'GET')) {
      for (const [contentType, raw] of rawBodies) {
        const response = await api.send(route.method, pathOf(route), {
          token: route.public ? undefined : session.token,
          body: raw,
          headers: { 'content-type': contentType },
        });
        check(
          `${route.method} ${route.path} ${contentType} ${raw.slice(0, 60)}`,
          response.status,
          response.body,
        );
      }
    }
    expect(problems).toEqual([]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
  });

  it('survives invalid UTF-8, header injection and malformed requests', async () => {
    const host = new URL(t.url).host;
    const invalidUtf8 = Buffer.concat([
      Buffer.from(
        `POST /auth/nonce HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: 17\r\nConnection: close\r\n\r\n`,
      ),
      Buffer.from([
        0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc3, 0x28, 0x80, 0x22, 0x7d, 0x20, 0x20, 0x20, 0x20,
      ]),
    ]);
    const cases: Array<[string, string | Buffer]> = [
      ['invalid UTF-8 body', invalidUtf8],
      [
        'CRLF in a header value',
        `GET /health HTTP/1.1\r\nHost: ${host}\r\nX-Request-Id: a\rInjected: yes\r\nConnection: close\r\n\r\n`,
      ],
      [
        'newline in request id',
        `GET /health HTTP/1.1\r\nHost: ${host}\r\nX-Request-Id: a%0d%0aSet-Cookie: x=1\r\nConnection: close\r\n\r\n`,
      ],
      [
        'bad authorization bytes',
        `GET /auth/session HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer \u00ff\u00fe\r\nConnection: close\r\n\r\n`,
      ],
      [
        'huge header',
        `GET /health HTTP/1.1\r\nHost: ${host}\r\nX-Big: ${'a'.repeat(20_000)}\r\nConnection: close\r\n\r\n`,
      ],
      [
        'lying content-length',
        `POST /auth/nonce HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\nConnection: close\r\n\r\n{}`,
      ],
      ['garbage request line', `\u0000\u0001 / HTTP/9.9\r\n\r\n`],
    ];
    for (const [label, request] of cases) {
      const response = await Promise.race([
        rawRequest(t.url, request),
        new Promise<{ status: number; text: string }>((resolve) =>
          setTimeout(() => resolve({ status: 0, text: 'timeout' }), 3000).unref(),
        ),
      ]);
      sent++;
      if (response.status >= 500) problems.push(`${label} → ${response.status}`);
      expect(response.text).not.toMatch(/^Injected: yes/m);
      expect(response.text).not.toMatch(/^Set-Cookie: x=1/m);
    }
    expect(problems).toEqual([]);
    const health = await http(t.url).get('/health');
    expect(health.status).toBe(200);
  });
});
