import { createTollgateClient } from './client.js';
import { apiKey, sessionToken } from './credentials.js';
import { isTollgateError, TollgateError, unwrap } from './errors.js';

const KEY = 'tg_4Fq9ZkP2mX7vR1sT8bW3nY6cJ0dL5hGa2Kx9Qp';

/** A fetch that records each request and answers with the given status and JSON body. */
function fakeFetch(status: number, body: unknown) {
  const requests: Request[] = [];
  const fetch = async (request: Request): Promise<Response> => {
    requests.push(request);
    return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  };
  return { fetch, requests };
}

describe('createTollgateClient', () => {
  it('sends the credential as a bearer header to the base URL without doubling slashes', async () => {
    const { fetch, requests } = fakeFetch(200, { address: '0x1', via: 'api_key' });
    const client = createTollgateClient({ baseUrl: 'http://127.0.0.1:1/', credential: apiKey(KEY), fetch });
    const { data } = await client.GET('/auth/session');
    expect(data).toEqual({ address: '0x1', via: 'api_key' });
    expect(requests[0]!.url).toBe('http://127.0.0.1:1/auth/session');
    expect(requests[0]!.headers.get('authorization')).toBe(`Bearer ${KEY}`);
  });

  it('asks a credential function before each request, and keeps a header the call sets itself', async () => {
    const { fetch, requests } = fakeFetch(200, {});
    let current = sessionToken('first.jwt.token');
    const client = createTollgateClient({ baseUrl: 'http://127.0.0.1:1', credential: () => current, fetch });
    await client.GET('/auth/session');
    current = sessionToken('second.jwt.token');
    await client.GET('/auth/session');
    await client.GET('/auth/session', { headers: { authorization: 'Bearer mine' } });
    expect(requests.map((request) => request.headers.get('authorization'))).toEqual([
      'Bearer first.jwt.token',
      'Bearer second.jwt.token',
      'Bearer mine',
    ]);
  });

  it('sends no authorization header without a credential', async () => {
    const { fetch, requests } = fakeFetch(200, {});
    await createTollgateClient({ baseUrl: 'http://127.0.0.1:1', fetch }).GET('/health');
    expect(requests[0]!.headers.has('authorization')).toBe(false);
  });
});

describe('credentials', () => {
  it('refuses strings that cannot be an API key or a token', () => {
    expect(() => apiKey(`${KEY}\n`)).toThrow(TypeError);
    expect(() => apiKey('sk_live_123')).toThrow(TypeError);
    expect(() => sessionToken('')).toThrow(TypeError);
    expect(sessionToken('a.b.c', '2026-11-23T01:30:00.000Z').expiresAt).toEqual(
      new Date('2026-11-23T01:30:00.000Z'),
    );
  });
});

describe('unwrap', () => {
  it('returns the data of a success', async () => {
    const { fetch } = fakeFetch(200, { status: 'ok' });
    const client = createTollgateClient({ baseUrl: 'http://127.0.0.1:1', fetch });
    await expect(unwrap(client.GET('/health'))).resolves.toEqual({ status: 'ok' });
  });

  it('throws a TollgateError carrying the status, message and details of an error answer', async () => {
    const body = {
      error: 'address must be a wallet address',
      details: { code: 'validation_failed', fields: [] },
    };
    const { fetch } = fakeFetch(400, body);
    const client = createTollgateClient({ baseUrl: 'http://127.0.0.1:1', fetch });
    const thrown = await unwrap(client.GET('/auth/session')).catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(TollgateError);
    expect(thrown).toMatchObject({
      status: 400,
      error: body.error,
      code: 'validation_failed',
      details: body.details,
    });
    expect(isTollgateError(thrown, 'validation_failed')).toBe(true);
    expect(isTollgateError(thrown, 'invalid_token')).toBe(false);
  });

  it('gives an answer that is not the error object the code unexpected_response', async () => {
    const fetch = async () => new Response('<html>Bad gateway</html>', { status: 502 });
    const client = createTollgateClient({ baseUrl: 'http://127.0.0.1:1', fetch });
    await expect(unwrap(client.GET('/health'))).rejects.toMatchObject({
      status: 502,
      code: 'unexpected_response',
      message: 'HTTP 502',
    });
  });
});
