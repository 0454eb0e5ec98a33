import jwt from 'jsonwebtoken';
import pg from 'pg';
import { http } from './utils/http.js';
import { LoginChallenges } from '../src/auth/login-challenges.js';
import { startServiceProcess } from './utils/service-process.js';
import { startTestApp, TEST_JWT_SECRET, type TestApp } from './utils/test-app.js';
import { login, newWallet } from './utils/wallet.js';

/** A Set-Cookie header as its name=value pair, its Max-Age and its other attributes, sorted (order is not significant). */
function setCookieParts(header: string): { pair: string; maxAge: number | undefined; attributes: string[] } {
  const [pair, ...rest] = header.split('; ');
  const maxAge = rest.find((attribute) => attribute.startsWith('Max-Age='));
  return {
    pair,
    maxAge: maxAge === undefined ? undefined : Number(maxAge.slice('Max-Age='.length)),
    attributes: rest.filter((attribute) => attribute !== maxAge).sort(),
  };
}

describe('wallet login (EOA) and sessions', () => {
  let t: TestApp;
  let api: ReturnType<typeof http>;

  beforeAll(async () => {
    t = await startTestApp({ env: { CORS_ORIGINS: 'https://app.example.com', COOKIE_SECURE: 'true' } });
    api = http(t.url);
  });
  afterAll(async () => {
    await t.close();
  });

  const nonceFor = async (address: string) => {
    const response = await api.post('/auth/nonce', { body: { address } });
    expect(response.status).toBe(200);
    return response.body as { nonce: string; message: string; issuedAt: string; expiresAt: string };
  };

  it('issues a nonce with a complete EIP-4361 message', async () => {
    const wallet = newWallet();
    const before = Date.now();
    const body = await nonceFor(wallet.address.toLowerCase());
    expect(body.nonce).toMatch(/^[A-Za-z0-9]{22,}$/);
    expect(body.message).toContain(
      `localhost:3000 wants you to sign in with your Ethereum account:\n${wallet.address}\n`,
    );
    expect(body.message).toContain(`Nonce: ${body.nonce}`);
    expect(body.message).toContain('Chain ID: 1');
    expect(body.message).toContain('URI: http://localhost:3000');
    expect(new Date(body.expiresAt).getTime() - new Date(body.issuedAt).getTime()).toBe(600_000);
    // Issued at the start of the current 5-minute slot: at least half the lifetime is left.
    expect(new Date(body.issuedAt).getTime()).toBeLessThanOrEqual(Date.now());
    expect(new Date(body.expiresAt).getTime()).toBeGreaterThan(before + 300_000 - 1000);
    expect(body.issuedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('logs in with a signature over the message: token, expiresAt = exp, and the session cookie', async () => {
    const wallet = newWallet();
    const { message } = await nonceFor(wallet.address);
    const signature = await wallet.signMessage({ message });
    const response = await api.post('/auth/verify', {
      body: { address: wallet.address, signature, message },
    });
    expect(response.status).toBe(200);
    const claims = jwt.verify(response.body.token, TEST_JWT_SECRET, {
      algorithms: ['HS256'],
    }) as jwt.JwtPayload;
    expect(claims).toMatchObject({ sub: wallet.address, iss: 'tollgate', aud: 'tollgate-api' });
    expect(claims.exp! - claims.iat!).toBe(86_400);
    expect(typeof claims.jti).toBe('string');
    expect(response.body.expiresAt).toBe(new Date(claims.exp! * 1000).toISOString());
    const cookie = setCookieParts(response.headers.get('set-cookie')!);
    expect(cookie.pair).toMatch(/^tg_session=[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(cookie.maxAge).toBeGreaterThan(86_390);
    expect(cookie.maxAge).toBeLessThanOrEqual(86_400);
    expect(cookie.attributes).toEqual(['HttpOnly', 'Path=/', 'SameSite=Lax', 'Secure']);
  });

  it('logs in with a signature over the bare nonce (the interface literal flow)', async () => {
    const wallet = newWallet();
    const { nonce } = await nonceFor(wallet.address);
    const signature = await wallet.signMessage({ message: nonce });
    const response = await api.post('/auth/verify', { body: { address: wallet.address, signature } });
    expect(response.status).toBe(200);
    expect(typeof response.body.token).toBe('string');
  });

  it('refuses a replayed signature: the challenge is single use', async () => {
    const wallet = newWallet();
    const { message } = await nonceFor(wallet.address);
    const signature = await wallet.signMessage({ message });
    const body = { address: wallet.address, signature, message };
    expect((await api.post('/auth/verify', { body })).status).toBe(200);
    const replay = await api.post('/auth/verify', { body });
    expect(replay.status).toBe(401);
    expect(replay.body.details.code).toBe('challenge_not_found');
  });

  it('lets exactly one of 20 concurrent verifies of one challenge win', async () => {
    const wallet = newWallet();
    const { message } = await nonceFor(wallet.address);
    const signature = await wallet.signMessage({ message });
    const responses = await Promise.all(
      Array.from({ length: 20 }, () =>
        api.post('/auth/verify', { body: { address: wallet.address, signature, message } }),
      ),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 401)).toHaveLength(19);
  });

  it('refuses a wrong signer and does not consume the challenge', async () => {
    const wallet = newWallet();
    const intruder = newWallet();
    const { message } = await nonceFor(wallet.address);
    const forged = await intruder.signMessage({ message });
    const refused = await api.post('/auth/verify', {
      body: { address: wallet.address, signature: forged, message },
    });
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ error: expect.any(String), details: { code: 'invalid_signature' } });
    const genuine = await wallet.signMessage({ message });
    expect(
      (await api.post('/auth/verify', { body: { address: wallet.address, signature: genuine, message } }))
        .status,
    ).toBe(200);
  });

  it('refuses a signature over anything but a live challenge', async () => {
    const wallet = newWallet();
    const signature = await wallet.signMessage({ message: 'anything' });
    const bare = await api.post('/auth/verify', { body: { address: wallet.address, signature } });
    expect(bare.status).toBe(401);
    expect(bare.body.details.code).toBe('invalid_signature');
    const named = await api.post('/auth/verify', {
      body: { address: wallet.address, signature, message: 'anything' },
    });
    expect(named.status).toBe(401);
    expect(named.body.details.code).toBe('challenge_not_found');
  });

  it.each([
    ['malformed signature', { signature: '0xnothex' }],
    ['signature without 0x', { signature: 'ab'.repeat(65) }],
    ['malformed address', { address: '0x1234' }],
    ['bad EIP-55 checksum', { address: '0x52908400098527886E0F7030069857D2E4169Ee7' }],
    ['unknown field', { extra: true }],
    ['address of the wrong type', { address: 12 }],
  ])('answers 400 for a %s', async (_label, override) => {
    const body = { address: newWallet().address, signature: '0x' + 'ab'.repeat(65), ...override };
    const response = await api.post('/auth/verify', { body });
    expect(response.status).toBe(400);
    expect(response.body.details.code).toBe('validation_failed');
    expect(response.body.details.fields.length).toBeGreaterThan(0);
    expect(typeof response.body.error).toBe('string');
  });

  const serverChallenges = () =>
    new LoginChallenges(TEST_JWT_SECRET, {
      domain: t.config.authDomain,
      uri: t.config.authUri,
      chainId: t.config.authChainId,
      ttlSeconds: t.config.authNonceTtlSeconds,
    });

  it('refuses an expired challenge, even one the server itself issued', async () => {
    const wallet = newWallet();
    const hourAgo = serverChallenges().currentSlot(new Date(Date.now() - 3_600_000));
    const { message, nonce } = serverChallenges().challenge(wallet.address, hourAgo, 0);
    const named = await api.post('/auth/verify', {
      body: { address: wallet.address, signature: await wallet.signMessage({ message }), message },
    });
    expect(named.status).toBe(401);
    expect(named.body.details.code).toBe('challenge_not_found');
    // Without the message, the expired nonce is simply not among the candidates.
    const bare = await api.post('/auth/verify', {
      body: { address: wallet.address, signature: await wallet.signMessage({ message: nonce }) },
    });
    expect(bare.status).toBe(401);
    expect(bare.body.details.code).toBe('invalid_signature');
  });

  it('refuses a challenge the server did not issue (a well-formed message with another nonce)', async () => {
    const wallet = newWallet();
    const { message } = await nonceFor(wallet.address);
    const forged = message.replace(/Nonce: \w+/, 'Nonce: AAAAAAAAAAAAAAAAAAAAAAAA');
    const response = await api.post('/auth/verify', {
      body: {
        address: wallet.address,
        signature: await wallet.signMessage({ message: forged }),
        message: forged,
      },
    });
    expect(response.status).toBe(401);
    expect(response.body.details.code).toBe('challenge_not_found');
  });

  it('lets no one lock a wallet out: 12 anonymous nonce requests, then the victim signs in', async () => {
    const victim = newWallet();
    const handedOut = await nonceFor(victim.address);
    const attacks = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        api.post('/auth/nonce', {
          body: { address: i % 2 ? victim.address : victim.address.toLowerCase() },
          headers: { 'x-forwarded-for': `203.0.113.${i}` },
        }),
      ),
    );
    expect(attacks.map((attack) => attack.status)).toEqual(Array(12).fill(200));
    const signature = await victim.signMessage({ message: handedOut.message });
    const response = await api.post('/auth/verify', {
      body: { address: victim.address, signature, message: handedOut.message },
    });
    expect(response.status).toBe(200);
  });

  it('stores nothing for a nonce request, and only the consumed challenge for a login', async () => {
    const client = new pg.Client({ connectionString: t.databaseUrl });
    await client.connect();
    try {
      const wallet = newWallet();
      const rows = async () =>
        (
          await client.query(`SELECT nonce FROM consumed_challenges WHERE address = $1`, [
            wallet.address.toLowerCase(),
          ])
        ).rows.map((row: { nonce: string }) => row.nonce);
      const first = await nonceFor(wallet.address);
      for (let i = 0; i < 5; i++) expect((await nonceFor(wallet.address)).nonce).toBe(first.nonce);
      expect(await rows()).toEqual([]);
      const signature = await wallet.signMessage({ message: first.message });
      const body = { address: wallet.address, signature, message: first.message };
      expect((await api.post('/auth/verify', { body })).status).toBe(200);
      expect(await rows()).toEqual([first.nonce]);
      // The next request gets a fresh challenge, and the used one stays refused.
      const next = await nonceFor(wallet.address);
      expect(next.nonce).not.toBe(first.nonce);
      expect((await api.post('/auth/verify', { body })).status).toBe(401);
      const again = await wallet.signMessage({ message: next.message });
      expect(
        (
          await api.post('/auth/verify', {
            body: { address: wallet.address, signature: again, message: next.message },
          })
        ).status,
      ).toBe(200);
    } finally {
      await client.end();
    }
  });

  describe('presenting the token', () => {
    it('accepts the token in the header and in the cookie', async () => {
      const session = await login(t.url);
      const viaHeader = await api.get('/auth/session', { token: session.token });
      expect(viaHeader.status).toBe(200);
      expect(viaHeader.body).toEqual({
        address: session.address,
        via: 'jwt',
        scopes: ['READ_ONLY', 'SUBSCRIPTIONS_MANAGE', 'FULL'],
        operator: false,
        expiresAt: session.expiresAt,
      });
      const viaCookie = await api.get('/auth/session', { headers: { cookie: `a=b; ${session.cookie}` } });
      expect(viaCookie.status).toBe(200);
      expect(viaCookie.body.address).toBe(session.address);
    });

    it('lets the header decide when both are present', async () => {
      const session = await login(t.url);
      const response = await api.get('/auth/session', {
        headers: { cookie: session.cookie, authorization: 'Bearer not-a-token' },
      });
      expect(response.status).toBe(401);
      expect(response.body.details.code).toBe('invalid_token');
      const malformedHeader = await api.get('/auth/session', {
        headers: { cookie: session.cookie, authorization: 'Basic abc' },
      });
      expect(malformedHeader.status).toBe(401);
    });

    it('answers 401 missing_credentials without any credential', async () => {
      const response = await api.get('/auth/session');
      expect(response.status).toBe(401);
      expect(response.body).toEqual({ error: expect.any(String), details: { code: 'missing_credentials' } });
    });

    it('refuses tampered, unsigned, foreign and expired tokens', async () => {
      const session = await login(t.url);
      const [header, payload, signature] = session.token.split('.');
      const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
      const other = newWallet();
      const tampered = `${header}.${Buffer.from(JSON.stringify({ ...claims, sub: other.address })).toString('base64url')}.${signature}`;
      const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${payload}.`;
      const foreign = jwt.sign(claims, 'another-secret-that-is-at-least-32-bytes!!', { algorithm: 'HS256' });
      const now = Math.floor(Date.now() / 1000);
      const expired = jwt.sign({ ...claims, iat: now - 100, exp: now - 10 }, TEST_JWT_SECRET, {
        algorithm: 'HS256',
      });
      const wrongAudience = jwt.sign({ ...claims, aud: 'someone-else' }, TEST_JWT_SECRET, {
        algorithm: 'HS256',
      });
      const hs512 = jwt.sign(claims, TEST_JWT_SECRET, { algorithm: 'HS512' });
      for (const [token, code] of [
        [tampered, 'invalid_token'],
        [none, 'invalid_token'],
        [foreign, 'invalid_token'],
        [expired, 'token_expired'],
        [wrongAudience, 'invalid_token'],
        [hs512, 'invalid_token'],
      ] as const) {
        const response = await api.get('/auth/session', { token });
        expect({ status: response.status, code: response.body.details.code }).toEqual({ status: 401, code });
      }
    });
  });

  describe('CSRF on cookie-authenticated writes', () => {
    it('refuses a cookie POST without an allowed Origin, accepts allowed ones, exempts Bearer', async () => {
      const session = await login(t.url);
      const host = new URL(t.url).host;
      const refused = await api.post('/auth/logout', { headers: { cookie: session.cookie } });
      expect(refused.status).toBe(403);
      expect(refused.body.details.code).toBe('csrf_origin_mismatch');
      const foreign = await api.post('/auth/logout', {
        headers: { cookie: session.cookie, origin: 'https://evil.example' },
      });
      expect(foreign.status).toBe(403);
      const allowed = await api.post('/auth/logout', {
        headers: { cookie: session.cookie, origin: 'https://app.example.com' },
      });
      expect(allowed.status).toBe(200);

      const second = await login(t.url);
      const sameOrigin = await api.post('/auth/logout', {
        headers: { cookie: second.cookie, origin: `http://${host}` },
      });
      expect(sameOrigin.status).toBe(200);

      const third = await login(t.url);
      expect((await api.post('/auth/logout', { token: third.token })).status).toBe(200);
    });

    it('compares scheme and port too, and refuses Origin: null whatever the Referer says', async () => {
      const session = await login(t.url);
      const host = new URL(t.url).host;
      const refusedHeaders: Array<Record<string, string>> = [
        // The allowed origin over another scheme or port.
        { origin: 'http://app.example.com' },
        { origin: 'https://app.example.com:8443' },
        // The service's own host, but over https while the request came over http.
        { origin: `https://${host}` },
        { referer: `https://${host}/dashboard` },
        // An opaque origin (sandboxed frame, data: page): the Referer is not consulted.
        { origin: 'null' },
        { origin: 'null', referer: 'https://app.example.com/' },
        { origin: 'null', referer: `http://${host}/dashboard` },
      ];
      for (const headers of refusedHeaders) {
        const response = await api.post('/auth/logout', { headers: { cookie: session.cookie, ...headers } });
        expect({ headers, status: response.status, code: response.body.details.code }).toEqual({
          headers,
          status: 403,
          code: 'csrf_origin_mismatch',
        });
      }
      expect((await api.get('/auth/session', { headers: { cookie: session.cookie } })).status).toBe(200);
      const sameOriginReferer = await api.post('/auth/logout', {
        headers: { cookie: session.cookie, referer: `http://${host}/dashboard` },
      });
      expect(sameOriginReferer.status).toBe(200);
    });

    it('answers CORS preflights for CORS_ORIGINS with credentials, and not for others', async () => {
      const preflight = await fetch(`${t.url}/auth/logout`, {
        method: 'OPTIONS',
        headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST' },
      });
      expect(preflight.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
      expect(preflight.headers.get('access-control-allow-credentials')).toBe('true');
      const other = await fetch(`${t.url}/auth/logout`, {
        method: 'OPTIONS',
        headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
      });
      expect(other.headers.get('access-control-allow-origin')).toBeNull();

      const read = await fetch(`${t.url}/health`, { headers: { origin: 'https://app.example.com' } });
      expect(read.headers.get('access-control-expose-headers')).toBe('x-next-cursor, x-request-id');
    });
  });

  describe('logout', () => {
    it('revokes the token at once and clears the cookie', async () => {
      const session = await login(t.url);
      const response = await api.post('/auth/logout', { token: session.token });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ revoked: true });
      const cookie = setCookieParts(response.headers.get('set-cookie')!);
      expect(cookie.pair).toBe('tg_session=');
      expect(cookie.maxAge).toBe(0);
      expect(cookie.attributes).toEqual(['HttpOnly', 'Path=/', 'SameSite=Lax', 'Secure']);
      const after = await api.get('/auth/session', { token: session.token });
      expect(after.status).toBe(401);
      expect(after.body.details.code).toBe('token_revoked');
      const viaCookie = await api.get('/auth/session', { headers: { cookie: session.cookie } });
      expect(viaCookie.status).toBe(401);
    });
  });

  describe('error object for malformed requests', () => {
    it('answers malformed JSON with 400 invalid_json', async () => {
      const response = await api.post('/auth/nonce', {
        body: '{"address": ',
        headers: { 'content-type': 'application/json' },
      });
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ error: expect.any(String), details: { code: 'invalid_json' } });
    });

    it('answers a body over 64 KiB with 413', async () => {
      const response = await api.post('/auth/nonce', { body: { address: 'x'.repeat(70 * 1024) } });
      expect(response.status).toBe(413);
      expect(response.body).toEqual({ error: expect.any(String), details: { code: 'payload_too_large' } });
    });

    it('answers a non-JSON body with 415', async () => {
      for (const contentType of ['text/plain', 'application/x-www-form-urlencoded']) {
        const response = await api.post('/auth/nonce', {
          body: 'address=0x52908400098527886E0F7030069857D2E4169EE7',
          headers: { 'content-type': contentType },
        });
        expect(response.status).toBe(415);
        expect(response.body.details.code).toBe('unsupported_media_type');
      }
    });

    it('answers __proto__ pollution attempts with 400', async () => {
      const response = await api.post('/auth/nonce', {
        body: '{"address":"0x52908400098527886E0F7030069857D2E4169EE7","__proto__":{"polluted":true}}',
      });
      expect(response.status).toBe(400);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });

    it('lists each invalid field', async () => {
      const response = await api.post('/auth/nonce', { body: { address: 'nope', other: 1 } });
      expect(response.status).toBe(400);
      expect(response.body.details.fields.map((f: { field: string }) => f.field).sort()).toEqual([
        'address',
        'other',
      ]);
    });
  });
});

describe('sessions across instances', () => {
  it('verifies on B a nonce issued on A, and refuses on B at once a token logged out on A', async () => {
    const a = await startTestApp();
    const b = await startServiceProcess(a.databaseUrl);
    try {
      const wallet = newWallet();
      const nonce = await http(a.url).post('/auth/nonce', { body: { address: wallet.address } });
      const signature = await wallet.signMessage({ message: nonce.body.message });
      const verified = await http(b.url).post('/auth/verify', {
        body: { address: wallet.address, signature, message: nonce.body.message },
      });
      expect(verified.status).toBe(200);
      const token = verified.body.token;
      // Warm B's cache of "not revoked" for this token, then log out on A.
      expect((await http(b.url).get('/auth/session', { token })).status).toBe(200);
      expect((await http(a.url).post('/auth/logout', { token })).status).toBe(200);
      const onB = await http(b.url).get('/auth/session', { token });
      expect(onB.status).toBe(401);
      expect(onB.body.details.code).toBe('token_revoked');
    } finally {
      await b.kill();
      await a.close();
    }
  });
});
