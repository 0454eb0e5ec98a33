import { http } from './utils/http.js';
import { RawConnection } from './utils/raw-http.js';
import { startTestApp, type TestApp } from './utils/test-app.js';
import { login, type WalletSession } from './utils/wallet.js';

/**
 * What a request may carry beyond its schema: free text that shows as it is stored, times that mean one instant on
 * every server, and one Host.
 */
describe('request hygiene', () => {
  let t: TestApp;
  let owner: WalletSession;

  beforeAll(async () => {
    t = await startTestApp({
      env: { WEBHOOK_WORKERS: 'false', WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_ALLOW_HTTP: 'true' },
    });
    owner = await login(t.url);
  });
  afterAll(async () => {
    await t.close();
  });

  /** A right-to-left override, isolates, zero-width characters and a byte order mark, inside otherwise plain text. */
  const INVISIBLE = ['\u202E', '\u2066', '\u2069', '\u200B', '\u200E', '\uFEFF', 'a\u200Db'];

  it('refuses labels and descriptions carrying bidirectional or zero-width characters: 400 validation_failed', async () => {
    const api = http(t.url);
    for (const mark of INVISIBLE) {
      const key = await api.post('/api-keys', {
        token: owner.token,
        body: { label: `billing ${mark}dnekcab`, scopes: ['READ_ONLY'] },
      });
      expect({
        mark,
        status: key.status,
        code: key.body.details?.code,
        field: key.body.details?.fields?.[0]?.field,
      }).toEqual({
        mark,
        status: 400,
        code: 'validation_failed',
        field: 'label',
      });
      const hook = await api.post('/webhooks', {
        token: owner.token,
        body: { url: 'http://127.0.0.1:9/hook', description: `renewals ${mark}` },
      });
      expect({ mark, status: hook.status, code: hook.body.details?.code }).toEqual({
        mark,
        status: 400,
        code: 'validation_failed',
      });
    }
    const emoji = await api.post('/api-keys', {
      token: owner.token,
      body: { label: 'team 👨\u200D👩\u200D👧', scopes: ['READ_ONLY'] },
    });
    expect(emoji.status).toBe(200);
    expect(emoji.body.label).toBe('team 👨\u200D👩\u200D👧');
  });

  it('refuses an expiresAt without a time zone, which would mean a different instant on each server', async () => {
    const api = http(t.url);
    const ahead = new Date(Date.now() + 86_400_000).toISOString();
    for (const expiresAt of [
      ahead.slice(0, -1),
      ahead.slice(0, 19),
      ahead.slice(0, 16),
      ahead.slice(0, 10),
    ]) {
      const response = await api.post('/api-keys', {
        token: owner.token,
        body: { label: 'zoneless', scopes: ['READ_ONLY'], expiresAt },
      });
      expect({ expiresAt, status: response.status, code: response.body.details?.code }).toEqual({
        expiresAt,
        status: 400,
        code: 'validation_failed',
      });
      expect(response.body.details.fields).toEqual([
        { field: 'expiresAt', message: expect.stringMatching(/time zone/) },
      ]);
    }
    const offset = ahead.replace('Z', '+00:00');
    const zoned = await api.post('/api-keys', {
      token: owner.token,
      body: { label: 'zoned', scopes: ['READ_ONLY'], expiresAt: offset },
    });
    expect(zoned.status).toBe(200);
    expect(zoned.body.expiresAt).toBe(ahead);
  });

  it.each([
    ['two Host headers', 'Host: localhost\r\nHost: evil.example\r\n'],
    ['the same Host twice', 'Host: localhost\r\nhost: localhost\r\n'],
    ['an empty Host', 'Host: \r\n'],
  ])('refuses %s: 400 invalid_host with the error object', async (_what, hostLines) => {
    for (const version of ['1.1', '1.0']) {
      const connection = await RawConnection.open(t.url);
      connection.write(`GET /health HTTP/${version}\r\n${hostLines}\r\n`);
      const answer = await connection.nextAnswer();
      connection.destroy();
      expect({ version, status: answer?.status, code: answer?.json?.details?.code }).toEqual({
        version,
        status: 400,
        code: 'invalid_host',
      });
      expect(answer?.json.details.requestId).toBe(answer?.headers['x-request-id']);
    }
  });

  it('still answers one Host, and HTTP/1.0 without one', async () => {
    for (const request of [
      'GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n',
      'GET /health HTTP/1.0\r\n\r\n',
    ]) {
      const connection = await RawConnection.open(t.url);
      connection.write(request);
      expect((await connection.nextAnswer())?.status).toBe(200);
      connection.destroy();
    }
  });
});
