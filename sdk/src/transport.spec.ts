import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTollgateClient } from './client.js';
import { TollgateConnectionError, TollgateError, TollgateTimeoutError } from './errors.js';

const BASE = 'http://127.0.0.1:1';

/** A fetch that answers each request with the next of `answers` (a Response, or an error to throw). */
function scripted(...answers: Array<() => Response>) {
  const requests: Request[] = [];
  const fetch = async (request: Request): Promise<Response> => {
    requests.push(request);
    const next = answers[Math.min(requests.length, answers.length) - 1]!;
    return next();
  };
  return { fetch, requests };
}

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}) =>
  () =>
    new Response(JSON.stringify(body), {
      status,
      headers: { 'content-type': 'application/json', ...headers },
    });
const refused = () => () => {
  throw new TypeError('fetch failed', {
    cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
  });
};
const rateLimited = json(
  429,
  { error: 'Too many requests', details: { code: 'rate_limited', retryAfterSeconds: 0 } },
  {
    'retry-after': '0',
  },
);
const OK = json(200, { status: 'ok' });

describe('connection errors', () => {
  it('turns a refused connection into a TollgateConnectionError with the reason, in the TollgateError family', async () => {
    // A port that was free a moment ago: nothing listens there.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const client = createTollgateClient({ baseUrl: `http://127.0.0.1:${port}`, maxRetries: 0 });
    const thrown = await client.GET('/health').catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(TollgateConnectionError);
    expect(thrown).toBeInstanceOf(TollgateError);
    expect(thrown).toMatchObject({ status: 0, code: 'connection_failed' });
    expect((thrown as Error).message).toBe(`could not reach http://127.0.0.1:${port}: ECONNREFUSED`);
  });

  it('retries a GET twice by default, then gives up with the connection error', async () => {
    const { fetch, requests } = scripted(refused());
    const thrown = await createTollgateClient({ baseUrl: BASE, fetch })
      .GET('/health')
      .catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(TollgateConnectionError);
    expect(requests).toHaveLength(3);
  });

  it('never repeats a POST without an Idempotency-Key', async () => {
    const { fetch, requests } = scripted(refused(), OK);
    const client = createTollgateClient({ baseUrl: BASE, fetch });
    const thrown = await client
      .POST('/api-keys', { body: { label: 'x', scopes: ['READ_ONLY'] } })
      .catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(TollgateConnectionError);
    expect(requests).toHaveLength(1);
  });
});

describe('idempotency keys', () => {
  it('gives each renew its own UUID Idempotency-Key, the same on every retry, and sends the body each time', async () => {
    const { fetch, requests } = scripted(
      refused(),
      json(503, { error: 'down', details: { code: 'x' } }, { 'retry-after': '0' }),
      OK,
    );
    const client = createTollgateClient({ baseUrl: BASE, fetch });
    const { response } = await client.POST('/subscriptions/renew', { body: { address: '0xabc' } });
    expect(response.status).toBe(200);
    expect(requests).toHaveLength(3);
    const keys = requests.map((request) => request.headers.get('idempotency-key'));
    expect(keys[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(keys).size).toBe(1);
    expect(await Promise.all(requests.map((request) => request.text()))).toEqual(
      Array(3).fill('{"address":"0xabc"}'),
    );

    await client.POST('/subscriptions/cancel', { body: {} });
    expect(requests[3]!.headers.get('idempotency-key')).not.toBe(keys[0]);
  });

  it('makes a version 4 UUID where crypto.randomUUID is missing (a page served over plain http)', async () => {
    const { fetch, requests } = scripted(OK);
    // randomUUID lives on Crypto's prototype: an own property hides it for this test.
    Object.defineProperty(globalThis.crypto, 'randomUUID', { value: undefined, configurable: true });
    try {
      expect(globalThis.crypto.randomUUID).toBeUndefined();
      await createTollgateClient({ baseUrl: BASE, fetch }).POST('/subscriptions/renew', { body: {} });
    } finally {
      delete (globalThis.crypto as { randomUUID?: unknown }).randomUUID;
    }
    expect(requests[0]!.headers.get('idempotency-key')).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(typeof globalThis.crypto.randomUUID).toBe('function');
  });

  it("keeps the caller's own key", async () => {
    const { fetch, requests } = scripted(OK);
    await createTollgateClient({ baseUrl: BASE, fetch }).POST('/subscriptions/cancel', {
      body: {},
      params: { header: { 'Idempotency-Key': 'mine-1' } },
    });
    expect(requests[0]!.headers.get('idempotency-key')).toBe('mine-1');
  });
});

describe('retries of answers', () => {
  it('retries a 429 after its Retry-After and a 503, then returns the success', async () => {
    const { fetch, requests } = scripted(rateLimited, json(503, {}, { 'retry-after': '0' }), OK);
    const { data } = await createTollgateClient({ baseUrl: BASE, fetch }).GET('/health');
    expect(data).toEqual({ status: 'ok' });
    expect(requests).toHaveLength(3);
  });

  it('returns the 429 when retries are disabled, per client or per call', async () => {
    const first = scripted(rateLimited, OK);
    const noRetries = createTollgateClient({ baseUrl: BASE, fetch: first.fetch, maxRetries: 0 });
    expect((await noRetries.GET('/health')).response.status).toBe(429);
    expect(first.requests).toHaveLength(1);

    const second = scripted(rateLimited, OK);
    const client = createTollgateClient({ baseUrl: BASE, fetch: second.fetch });
    expect((await client.GET('/health', { maxRetries: 0 })).response.status).toBe(429);
    expect(second.requests).toHaveLength(1);
  });

  it('does not retry a 429 on a POST without an Idempotency-Key, nor wait out a Retry-After over a minute', async () => {
    const post = scripted(rateLimited, OK);
    const client = createTollgateClient({ baseUrl: BASE, fetch: post.fetch });
    const created = await client.POST('/api-keys', { body: { label: 'x', scopes: ['READ_ONLY'] } });
    expect(created.response.status).toBe(429);
    expect(post.requests).toHaveLength(1);

    const long = scripted(json(429, {}, { 'retry-after': '3600' }), OK);
    const reader = createTollgateClient({ baseUrl: BASE, fetch: long.fetch });
    expect((await reader.GET('/health')).response.status).toBe(429);
    expect(long.requests).toHaveLength(1);
  });

  it('retries as often as the call says, over the client: a GET, a request(), each page of paginate', async () => {
    const get = scripted(rateLimited, OK);
    const client = createTollgateClient({ baseUrl: BASE, fetch: get.fetch, maxRetries: 0 });
    expect((await client.GET('/health', { maxRetries: 1 })).response.status).toBe(200);
    expect(get.requests).toHaveLength(2);

    const renew = scripted(rateLimited, json(503, {}, { 'retry-after': '0' }), OK);
    const renewer = createTollgateClient({ baseUrl: BASE, fetch: renew.fetch, maxRetries: 0 });
    const renewed = await renewer.request('post', '/subscriptions/renew', { body: {}, maxRetries: 2 });
    expect(renewed.response.status).toBe(200);
    expect(renew.requests).toHaveLength(3);

    const pages = scripted(rateLimited, json(200, [{ id: 'a' }]));
    const lister = createTollgateClient({ baseUrl: BASE, fetch: pages.fetch, maxRetries: 0 });
    const ids: string[] = [];
    for await (const key of lister.paginate('/api-keys/list', { maxRetries: 1 })) ids.push(key.id);
    expect(ids).toEqual(['a']);
    expect(pages.requests).toHaveLength(2);
  });
});

describe('timeouts', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    // Answers nothing, ever (GET /health/live: headers and the start of a body, never its end).
    server = createServer((request, response) => {
      if (request.url !== '/health/live') return;
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"status":');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('gives up on an attempt after the client timeout with a TollgateTimeoutError', async () => {
    const client = createTollgateClient({ baseUrl: url, timeout: 50, maxRetries: 0 });
    const thrown = await client.GET('/health').catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(TollgateTimeoutError);
    expect(thrown).toBeInstanceOf(TollgateConnectionError);
    expect(thrown).toMatchObject({ status: 0, code: 'timeout' });
  });

  it('counts the body in the timeout: an answer that stops halfway is a TollgateTimeoutError too', async () => {
    const client = createTollgateClient({ baseUrl: url, timeout: 100, maxRetries: 0 });
    const thrown = await client.GET('/health/live').catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(TollgateTimeoutError);
  });

  it('takes a timeout per call over the client one, on any method', async () => {
    const client = createTollgateClient({ baseUrl: url, timeout: 1_000, maxRetries: 0 });
    const thrown = await client
      .DELETE('/webhooks/{id}', { params: { path: { id: 'w1' } }, timeout: 50 })
      .catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(TollgateTimeoutError);
    expect((thrown as Error).message).toBe(`no answer from ${url}/webhooks/w1 within 50 ms`);
  });

  it("leaves the caller's own abort alone", async () => {
    const client = createTollgateClient({ baseUrl: url, maxRetries: 2 });
    const controller = new AbortController();
    const pending = client.GET('/health', { signal: controller.signal }).catch((error: unknown) => error);
    controller.abort();
    const thrown = await pending;
    expect(thrown).not.toBeInstanceOf(TollgateError);
    expect((thrown as Error).name).toBe('AbortError');
  });
});

describe('paginate', () => {
  it('follows X-Next-Cursor through every page with the query it was given', async () => {
    const { fetch, requests } = scripted(
      json(200, [{ id: 'a' }, { id: 'b' }], { 'x-next-cursor': 'c1' }),
      json(200, [{ id: 'c' }], {}),
    );
    const client = createTollgateClient({ baseUrl: BASE, fetch });
    const ids: string[] = [];
    for await (const attempt of client.paginate('/webhooks/deliveries', {
      params: { query: { webhookId: 'w1', limit: 2 } },
    })) {
      ids.push(attempt.id);
    }
    expect(ids).toEqual(['a', 'b', 'c']);
    expect(requests.map((request) => new URL(request.url).search)).toEqual([
      '?limit=2&webhookId=w1',
      '?limit=2&webhookId=w1&cursor=c1',
    ]);
  });

  it('asks for pages of 100 by default and throws a TollgateError on a refused page', async () => {
    const { fetch, requests } = scripted(
      json(200, [{ id: 'a' }], { 'x-next-cursor': 'c1' }),
      json(400, { error: 'bad cursor', details: { code: 'invalid_cursor' } }),
    );
    const client = createTollgateClient({ baseUrl: BASE, fetch });
    const seen: string[] = [];
    const thrown = await (async () => {
      for await (const key of client.paginate('/api-keys/list')) seen.push(key.id);
    })().catch((error: unknown) => error);
    expect(seen).toEqual(['a']);
    expect(thrown).toMatchObject({ status: 400, code: 'invalid_cursor' });
    expect(new URL(requests[0]!.url).search).toBe('?limit=100');
  });
});
