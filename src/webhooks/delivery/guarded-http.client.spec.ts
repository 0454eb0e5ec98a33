import http from 'node:http';
import https from 'node:https';
import type { LookupAddress } from 'node:dns';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { GuardedHttpClient, WEBHOOK_USER_AGENT } from './guarded-http.client.js';
import { PinnedHttpAgent, PinnedHttpsAgent } from './pinned-agent.js';
import { HostResolver, ResolvedAddress, WebhookUrlGuard } from './webhook-url.guard.js';

// Every server here listens on loopback and every hostname goes through a stub resolver: no test traffic
// leaves the machine and no real DNS is asked.

interface RecordedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

interface TestServer {
  port: number;
  requests: RecordedRequest[];
  connections: number;
  close(): Promise<void>;
}

type Handler = (request: http.IncomingMessage, response: http.ServerResponse) => void;

function listen(server: net.Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as net.AddressInfo).port);
    });
  });
}

async function startServer(handler: Handler, host = '127.0.0.1', port = 0): Promise<TestServer> {
  const state = { requests: [] as RecordedRequest[], connections: 0 };
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      state.requests.push({
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      handler(request, response);
    });
  });
  server.on('connection', () => (state.connections += 1));
  const boundPort = await listen(server, host, port);
  return {
    port: boundPort,
    get requests() {
      return state.requests;
    },
    get connections() {
      return state.connections;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const routes: Record<string, Handler> = {
  '/ok': (_request, response) => response.end('ok'),
  '/error': (_request, response) => {
    response.statusCode = 500;
    response.end('boom');
  },
  '/gone': (_request, response) => {
    response.statusCode = 410;
    response.end();
  },
  '/busy-seconds': (_request, response) => {
    response.writeHead(429, { 'retry-after': '120' });
    response.end();
  },
  '/busy-date': (_request, response) => {
    response.writeHead(503, { 'retry-after': new Date(Date.now() + 60_000).toUTCString() });
    response.end();
  },
  '/redirect': (_request, response) => {
    response.writeHead(302, { location: '/ok' });
    response.end();
  },
  '/hang': () => undefined,
  '/stalled-body': (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/plain' });
    response.write('partial');
  },
  '/large': (_request, response) => response.end('x'.repeat(1024 * 1024)),
};

const routed: Handler = (request, response) => {
  const route = routes[new URL(request.url ?? '/', 'http://x').pathname];
  if (route) route(request, response);
  else {
    response.statusCode = 404;
    response.end();
  }
};

function stubResolver(answers: (hostname: string, call: number) => ResolvedAddress[]): HostResolver & {
  calls: string[];
} {
  const calls: string[] = [];
  const resolver = async (hostname: string): Promise<ResolvedAddress[]> => {
    calls.push(hostname);
    return answers(hostname, calls.length);
  };
  return Object.assign(resolver, { calls });
}

const body = JSON.stringify({ id: 'evt_1', type: 'subscription.created', timestamp: 't', data: { a: 1 } });
const webhookHeaders = {
  'webhook-id': 'evt_1',
  'webhook-timestamp': '1700000000',
  'webhook-signature': 'v1,abc',
};

describe('GuardedHttpClient against a local server (private targets allowed)', () => {
  let server: TestServer;
  let client: GuardedHttpClient;
  const url = (path: string): string => `http://127.0.0.1:${server.port}${path}`;

  beforeAll(async () => {
    server = await startServer(routed);
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => {
    client = new GuardedHttpClient(new WebhookUrlGuard({ allowHttp: true, allowPrivate: true }), {
      timeoutMs: 2_000,
    });
  });
  afterEach(() => client.close());

  it('reports a 2xx as success and sends the body with JSON and webhook headers', async () => {
    const before = server.requests.length;
    const outcome = await client.post(url('/ok?tenant=1'), body, webhookHeaders);
    expect(outcome).toEqual({
      success: true,
      statusCode: 200,
      durationMs: expect.any(Number),
      error: null,
      retryAfterSeconds: null,
      // Loopback is reached only through WEBHOOK_ALLOW_PRIVATE: its answer is not kept.
      responseBody: null,
    });
    const [request] = server.requests.slice(before);
    expect(request.method).toBe('POST');
    expect(request.url).toBe('/ok?tenant=1');
    expect(request.body).toBe(body);
    expect(request.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': WEBHOOK_USER_AGENT,
      'content-length': String(Buffer.byteLength(body)),
      host: `127.0.0.1:${server.port}`,
      ...webhookHeaders,
    });
  });

  it('reports a 500 as a failure with its status code', async () => {
    const outcome = await client.post(url('/error'), body, webhookHeaders);
    expect(outcome).toMatchObject({
      success: false,
      statusCode: 500,
      error: 'http_status: 500',
      responseBody: null,
    });
  });

  it('makes a 410 recognisable', async () => {
    const outcome = await client.post(url('/gone'), body, webhookHeaders);
    expect(outcome).toMatchObject({ success: false, statusCode: 410, error: 'http_status: 410' });
  });

  it('reports Retry-After given in seconds', async () => {
    const outcome = await client.post(url('/busy-seconds'), body, webhookHeaders);
    expect(outcome).toMatchObject({ success: false, statusCode: 429, retryAfterSeconds: 120 });
  });

  it('reports Retry-After given as an HTTP date', async () => {
    const outcome = await client.post(url('/busy-date'), body, webhookHeaders);
    expect(outcome.statusCode).toBe(503);
    expect(outcome.retryAfterSeconds).toBeGreaterThanOrEqual(58);
    expect(outcome.retryAfterSeconds).toBeLessThanOrEqual(61);
  });

  it('does not follow a redirect and counts it as a failure', async () => {
    const before = server.requests.length;
    const outcome = await client.post(url('/redirect'), body, webhookHeaders);
    expect(outcome).toMatchObject({
      success: false,
      statusCode: 302,
      error: 'http_status: 302 (redirects are not followed)',
    });
    expect(server.requests.slice(before).map((request) => request.url)).toEqual(['/redirect']);
  });

  it('gives up on a server that never answers once the timeout passes', async () => {
    const quick = new GuardedHttpClient(new WebhookUrlGuard({ allowHttp: true, allowPrivate: true }), {
      timeoutMs: 300,
    });
    try {
      const outcome = await quick.post(url('/hang'), body, webhookHeaders);
      expect(outcome).toMatchObject({
        success: false,
        statusCode: null,
        error: 'timeout: no response within 300 ms',
        responseBody: null,
      });
      expect(outcome.durationMs).toBeGreaterThanOrEqual(250);
      expect(outcome.durationMs).toBeLessThan(1_500);
    } finally {
      quick.close();
    }
  });

  it('keeps a 2xx whose body stalls past the timeout as a success', async () => {
    const quick = new GuardedHttpClient(new WebhookUrlGuard({ allowHttp: true, allowPrivate: true }), {
      timeoutMs: 300,
    });
    try {
      const outcome = await quick.post(url('/stalled-body'), body, webhookHeaders);
      expect(outcome).toMatchObject({ success: true, statusCode: 200, error: null });
      expect(outcome.durationMs).toBeLessThan(1_500);
    } finally {
      quick.close();
    }
  });

  it('reuses one keep-alive connection for consecutive deliveries', async () => {
    const own = await startServer(routed);
    try {
      for (let i = 0; i < 3; i += 1) {
        expect((await client.post(`http://127.0.0.1:${own.port}/ok`, body, webhookHeaders)).success).toBe(
          true,
        );
      }
      expect(own.requests).toHaveLength(3);
      expect(own.connections).toBe(1);
    } finally {
      await own.close();
    }
  });

  it('reports a refused connection', async () => {
    const probe = net.createServer();
    const port = await listen(probe, '127.0.0.1', 0);
    await new Promise((resolve) => probe.close(resolve));
    const outcome = await client.post(`http://127.0.0.1:${port}/ok`, body, webhookHeaders);
    expect(outcome).toMatchObject({
      success: false,
      statusCode: null,
      error: 'connection_error: ECONNREFUSED',
    });
  });

  it('reports an invalid URL without sending', async () => {
    const strict = new GuardedHttpClient(new WebhookUrlGuard({ allowHttp: false, allowPrivate: true }));
    try {
      const before = server.requests.length;
      const outcome = await strict.post(url('/ok'), body, webhookHeaders);
      expect(outcome).toMatchObject({
        success: false,
        statusCode: null,
        error: 'webhook_url_invalid: http_not_allowed',
      });
      expect(server.requests).toHaveLength(before);
    } finally {
      strict.close();
    }
  });
});

/**
 * Stands in for the internet: whatever public address the request was pinned to, the socket goes to a loopback
 * server, so a "public" receiver can answer without any traffic leaving the machine.
 */
class TunnelAgent extends PinnedHttpAgent {
  constructor(private readonly port: number) {
    super({ keepAlive: true });
  }

  override createConnection(): Duplex {
    return net.connect(this.port, '127.0.0.1');
  }
}

describe('GuardedHttpClient keeping response bodies only from public addresses', () => {
  let server: TestServer;
  const answers: Record<string, ResolvedAddress[]> = {
    'public.example.test': [{ address: '93.184.215.14', family: 4 }],
    'mixed.example.test': [
      { address: '93.184.215.14', family: 4 },
      { address: '10.0.0.5', family: 4 },
    ],
    'internal.example.test': [{ address: '10.0.0.5', family: 4 }],
  };
  const clientFor = (options: { maxResponseBytes?: number } = {}) =>
    new GuardedHttpClient(
      new WebhookUrlGuard({
        allowHttp: true,
        allowPrivate: true,
        resolver: stubResolver((hostname) => answers[hostname] ?? []),
      }),
      { agents: { http: new TunnelAgent(server.port) }, ...options },
    );

  beforeAll(async () => {
    server = await startServer((request, response) => {
      if (request.url === '/nul') response.end('a\u0000b');
      else routed(request, response);
    });
  });
  afterAll(async () => {
    await server.close();
  });

  it("keeps the start of a public receiver's answer, for successes and failures", async () => {
    const client = clientFor();
    try {
      const ok = await client.post('http://public.example.test/ok', body, webhookHeaders);
      expect(ok).toMatchObject({ success: true, statusCode: 200, responseBody: 'ok' });
      const failed = await client.post('http://public.example.test/error', body, webhookHeaders);
      expect(failed).toMatchObject({ success: false, statusCode: 500, responseBody: 'boom' });
      const nul = await client.post('http://public.example.test/nul', body, webhookHeaders);
      expect(nul.responseBody).toBe('a\uFFFDb');
    } finally {
      client.close();
    }
  });

  it('keeps nothing when any address of the host is private, though the delivery itself succeeds', async () => {
    const client = clientFor();
    try {
      const before = server.requests.length;
      for (const host of ['mixed.example.test', 'internal.example.test']) {
        const outcome = await client.post(`http://${host}/error`, body, webhookHeaders);
        expect(outcome).toMatchObject({ success: false, statusCode: 500, responseBody: null });
      }
      expect(server.requests).toHaveLength(before + 2);
    } finally {
      client.close();
    }
  });

  it('reads no more of the response body than allowed', async () => {
    const client = clientFor();
    const small = clientFor({ maxResponseBytes: 10 });
    try {
      const outcome = await client.post('http://public.example.test/large', body, webhookHeaders);
      expect(outcome).toMatchObject({ success: true, statusCode: 200 });
      expect(outcome.responseBody).toBe('x'.repeat(1024));
      const cut = await small.post('http://public.example.test/large', body, webhookHeaders);
      expect(cut.responseBody).toBe('x'.repeat(10));
    } finally {
      client.close();
      small.close();
    }
  });
});

describe('GuardedHttpClient with a keep-alive connection the receiver dropped', () => {
  it('retries once on a fresh connection', async () => {
    let connections = 0;
    let dropped = 0;
    const raw = net.createServer((socket) => {
      connections += 1;
      let served = false;
      let received = '';
      socket.on('data', (chunk: Buffer) => {
        if (served) {
          // Like a receiver whose idle timeout closed the connection just as the next request arrived.
          dropped += 1;
          socket.destroy();
          return;
        }
        received += chunk.toString('utf8');
        if (!received.endsWith(body)) return;
        served = true;
        socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok');
      });
    });
    const port = await listen(raw, '127.0.0.1', 0);
    const client = new GuardedHttpClient(new WebhookUrlGuard({ allowHttp: true, allowPrivate: true }));
    try {
      expect((await client.post(`http://127.0.0.1:${port}/`, body, webhookHeaders)).success).toBe(true);
      const second = await client.post(`http://127.0.0.1:${port}/`, body, webhookHeaders);
      expect(second).toMatchObject({ success: true, statusCode: 200, error: null });
      expect(dropped).toBe(1);
      expect(connections).toBe(2);
    } finally {
      client.close();
      await new Promise((resolve) => raw.close(resolve));
    }
  });
});

describe('GuardedHttpClient refusing forbidden targets', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer(routed);
  });
  afterAll(async () => {
    await server.close();
  });

  it('refuses a hostname that resolves to loopback without connecting', async () => {
    const resolver = stubResolver(() => [{ address: '127.0.0.1', family: 4 }]);
    const client = new GuardedHttpClient(
      new WebhookUrlGuard({ allowHttp: true, allowPrivate: false, resolver }),
    );
    try {
      const outcome = await client.post(`http://hooks.example.test:${server.port}/ok`, body, webhookHeaders);
      expect(outcome).toEqual({
        success: false,
        statusCode: null,
        durationMs: expect.any(Number),
        error: 'webhook_url_forbidden: loopback',
        retryAfterSeconds: null,
        responseBody: null,
      });
      expect(resolver.calls).toEqual(['hooks.example.test']);
      expect(server.connections).toBe(0);
      expect(server.requests).toHaveLength(0);
    } finally {
      client.close();
    }
  });

  it('refuses a loopback IP literal without connecting', async () => {
    const client = new GuardedHttpClient(new WebhookUrlGuard({ allowHttp: true, allowPrivate: false }));
    try {
      const outcome = await client.post(`http://127.0.0.1:${server.port}/ok`, body, webhookHeaders);
      expect(outcome.error).toBe('webhook_url_forbidden: loopback');
      expect(server.connections).toBe(0);
    } finally {
      client.close();
    }
  });

  it('reports an unresolvable host', async () => {
    const resolver: HostResolver = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    const client = new GuardedHttpClient(
      new WebhookUrlGuard({ allowHttp: true, allowPrivate: false, resolver }),
    );
    try {
      const outcome = await client.post('https://nowhere.example.test/', body, webhookHeaders);
      expect(outcome).toMatchObject({ success: false, error: 'webhook_url_unresolvable: ENOTFOUND' });
    } finally {
      client.close();
    }
  });

  it('counts a resolver slower than the timeout as a timeout', async () => {
    let release: () => void = () => undefined;
    const resolver: HostResolver = () =>
      new Promise((resolve) => {
        release = () => resolve([{ address: '127.0.0.1', family: 4 }]);
      });
    const client = new GuardedHttpClient(
      new WebhookUrlGuard({ allowHttp: true, allowPrivate: true, resolver }),
      { timeoutMs: 200 },
    );
    try {
      const outcome = await client.post(`http://slow.example.test:${server.port}/ok`, body, webhookHeaders);
      expect(outcome).toMatchObject({ success: false, error: 'timeout: no response within 200 ms' });
      expect(server.connections).toBe(0);
    } finally {
      release();
      client.close();
    }
  });
});

/** Records what each connection would be opened to, and opens none. */
class RecordingAgent extends PinnedHttpAgent {
  readonly attempts: Array<{ host: string | null | undefined; resolved: LookupAddress[] }> = [];

  override createConnection(
    options: http.ClientRequestArgs,
    callback?: (error: Error | null, stream: Duplex) => void,
  ): undefined {
    const attempt = { host: options.host, resolved: [] as LookupAddress[] };
    this.attempts.push(attempt);
    options.lookup?.(options.host ?? '', { all: true }, (_error, addresses) => {
      attempt.resolved = addresses as LookupAddress[];
      callback?.(new Error('connection blocked by the test'), undefined as unknown as Duplex);
    });
    return undefined;
  }
}

describe('GuardedHttpClient against DNS rebinding', () => {
  it('connects only to the address its own check approved, never to a later answer', async () => {
    // Public for the check, loopback for anyone who asks again.
    const resolver = stubResolver((_hostname, call) =>
      call === 1 ? [{ address: '93.184.215.14', family: 4 }] : [{ address: '127.0.0.1', family: 4 }],
    );
    const local = await startServer(routed);
    const agent = new RecordingAgent();
    const client = new GuardedHttpClient(
      new WebhookUrlGuard({ allowHttp: true, allowPrivate: false, resolver }),
      { agents: { http: agent } },
    );
    try {
      const first = await client.post(`http://hooks.example.test:${local.port}/ok`, body, webhookHeaders);
      expect(first).toMatchObject({ success: false, statusCode: null });
      expect(agent.attempts).toEqual([
        { host: 'hooks.example.test', resolved: [{ address: '93.184.215.14', family: 4 }] },
      ]);
      expect(resolver.calls).toEqual(['hooks.example.test']);

      // The next delivery checks again, sees loopback, and stops before connecting.
      const second = await client.post(`http://hooks.example.test:${local.port}/ok`, body, webhookHeaders);
      expect(second.error).toBe('webhook_url_forbidden: loopback');
      expect(agent.attempts).toHaveLength(1);
      expect(resolver.calls).toHaveLength(2);
      expect(local.connections).toBe(0);
    } finally {
      client.close();
      await local.close();
    }
  });

  it('sends over a real socket to the checked address while DNS already answers differently', async () => {
    // Two loopback servers on one port, one per family: which one hears the request shows where the socket went.
    let v6: TestServer | undefined;
    let v4: TestServer | undefined;
    for (let tries = 0; !v4 && tries < 10; tries += 1) {
      v6 = await startServer(routed, '::1');
      try {
        v4 = await startServer(routed, '127.0.0.1', v6.port);
      } catch {
        await v6.close();
        v6 = undefined;
      }
    }
    if (!v4 || !v6) throw new Error('could not bind ::1 and 127.0.0.1 to one port');
    const resolver = stubResolver((_hostname, call) =>
      call === 1 ? [{ address: '::1', family: 6 }] : [{ address: '127.0.0.1', family: 4 }],
    );
    const client = new GuardedHttpClient(
      new WebhookUrlGuard({ allowHttp: true, allowPrivate: true, resolver }),
    );
    try {
      const url = `http://rebind.example.test:${v6.port}/ok`;
      expect((await client.post(url, body, webhookHeaders)).success).toBe(true);
      expect(v6.requests).toHaveLength(1);
      expect(v6.requests[0].headers.host).toBe(`rebind.example.test:${v6.port}`);
      expect(v4.connections).toBe(0);

      // Each delivery resolves afresh, once, and uses that answer, even though a kept-alive socket to the
      // earlier address is still open.
      expect((await client.post(url, body, webhookHeaders)).success).toBe(true);
      expect(v4.requests).toHaveLength(1);
      expect(v6.requests).toHaveLength(1);
      expect(resolver.calls).toHaveLength(2);
    } finally {
      client.close();
      await v6.close();
      await v4.close();
    }
  });
});

// Self-signed for hooks.example.test, valid 2000-2100; used only by the loopback TLS server below.
const TEST_CERT = `-----BEGIN CERTIFICATE-----
MIIBfDCCASKgAwIBAgIBATAKBggqhkjOPQQDAjAdMRswGQYDVQQDDBJob29rcy5l
eGFtcGxlLnRlc3QwIBcNMDAwMTAxMDAwMDAwWhgPMjEwMDAxMDEwMDAwMDBaMB0x
GzAZBgNVBAMMEmhvb2tzLmV4YW1wbGUudGVzdDBZMBMGByqGSM49AgEGCCqGSM49
AwEHA0IABHVXPIyOsuneob3k5beqaAwvE2SdaGdlUnug7SaoGGLDxuf14i/V5HUB
gpohjUuVpxc7bGgarblpNtARQ1LaGt+jUTBPMB0GA1UdEQQWMBSCEmhvb2tzLmV4
YW1wbGUudGVzdDAPBgNVHRMBAf8EBTADAQH/MB0GA1UdDgQWBBRkrnPzJIM2KR0H
kaj2B/XOlhpajjAKBggqhkjOPQQDAgNIADBFAiBsOPBmS+J2Gw2173PA8gB4+J98
M4jeEbMMuHgBGNgn6wIhAP/9csdch2qlTUu7GNWvziJxwctuQCQ0CfE0zm9kIFT/
-----END CERTIFICATE-----
`;
const TEST_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg34HEWRCjiyyexwMm
TjbAT060RnoNosT3qnWOhR/h2w2hRANCAAR1VzyMjrLp3qG95OW3qmgMLxNknWhn
ZVJ7oO0mqBhiw8bn9eIv1eR1AYKaIY1LlacXO2xoGq25aTbQEUNS2hrf
-----END PRIVATE KEY-----
`;

describe('GuardedHttpClient over TLS to a pinned address', () => {
  it('names the integrator host in SNI, Host and the certificate check while connecting to the checked address', async () => {
    const servernames: Array<string | false | null> = [];
    const hosts: Array<string | undefined> = [];
    const server = https.createServer({ key: TEST_KEY, cert: TEST_CERT }, (request, response) => {
      hosts.push(request.headers.host);
      request.resume();
      request.on('end', () => response.end('tls ok'));
    });
    server.on('secureConnection', (socket) => servernames.push(socket.servername));
    const port = await listen(server, '127.0.0.1', 0);
    const resolver = stubResolver(() => [{ address: '127.0.0.1', family: 4 }]);
    const client = new GuardedHttpClient(
      new WebhookUrlGuard({ allowHttp: false, allowPrivate: true, resolver }),
      { agents: { https: new PinnedHttpsAgent({ keepAlive: true, ca: TEST_CERT }) } },
    );
    try {
      const outcome = await client.post(`https://hooks.example.test:${port}/in`, body, webhookHeaders);
      expect(outcome).toMatchObject({ success: true, statusCode: 200, responseBody: null });
      expect(servernames).toEqual(['hooks.example.test']);
      expect(hosts).toEqual([`hooks.example.test:${port}`]);

      // Same address, but a name the certificate does not cover: the check against the hostname still applies.
      const mismatch = await client.post(`https://other.example.test:${port}/in`, body, webhookHeaders);
      expect(mismatch).toMatchObject({
        success: false,
        statusCode: null,
        error: 'connection_error: ERR_TLS_CERT_ALTNAME_INVALID',
      });
      expect(hosts).toHaveLength(1);
    } finally {
      client.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
