import pg from 'pg';
import { http, type JsonResponse } from './utils/http.js';
import { Receiver, until } from './utils/receiver.js';
import { startTestApp, type TestApp } from './utils/test-app.js';
import { login, newWallet, type WalletSession } from './utils/wallet.js';

const ENV = { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' };

interface ListedEvent {
  id: string;
  type: string;
  createdAt: string;
  data: Record<string, unknown>;
}

/** Every event `GET /events` lists for `token` with `query`, following `X-Next-Cursor` page by page. */
async function allEvents(
  url: string,
  token: string,
  query = '',
  limit = 2,
): Promise<{ events: ListedEvent[]; pages: number }> {
  const events: ListedEvent[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const params = new URLSearchParams(query);
    params.set('limit', String(limit));
    if (cursor) params.set('cursor', cursor);
    const page: JsonResponse = await http(url).get(`/events?${params}`, { token });
    expect(page.status).toBe(200);
    events.push(...(page.body as ListedEvent[]));
    cursor = page.headers.get('x-next-cursor');
    pages++;
  } while (cursor);
  return { events, pages };
}

const ids = (events: ListedEvent[]): string[] => events.map((event) => event.id);

describe('GET /events', () => {
  const operatorWallet = newWallet();
  let t: TestApp;
  let receiver: Receiver;
  let owner: WalletSession;
  let other: WalletSession;
  let operator: WalletSession;

  beforeAll(async () => {
    t = await startTestApp({ env: { ...ENV, OPERATOR_ADDRESSES: operatorWallet.address } });
    receiver = await Receiver.start();
    owner = await login(t.url);
    other = await login(t.url);
    operator = await login(t.url, operatorWallet);
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  it("lists every event its webhooks received, newest first, with the webhooks' ids, times and data", async () => {
    const api = http(t.url);
    const hook = await api.post('/webhooks', { token: owner.token, body: { url: receiver.url } });
    expect(hook.status).toBe(200);
    expect((await api.post('/subscriptions/renew', { token: owner.token, body: {} })).status).toBe(200);
    const key = await api.post('/api-keys', {
      token: owner.token,
      body: { label: 'ci', scopes: ['READ_ONLY'] },
    });
    expect(key.status).toBe(200);
    expect((await api.post('/subscriptions/cancel', { token: owner.token, body: {} })).status).toBe(200);
    expect(
      (await api.post('/api-keys/revoke', { token: owner.token, body: { id: key.body.id } })).status,
    ).toBe(200);
    expect((await api.post('/subscriptions/renew', { token: owner.token, body: {} })).status).toBe(200);
    expect((await api.post('/webhooks/test', { token: owner.token, body: {} })).status).toBe(200);
    // Another wallet's events are not the owner's.
    expect((await api.post('/subscriptions/renew', { token: other.token, body: {} })).status).toBe(200);

    const received = await receiver.waitFor(6);
    const { events, pages } = await allEvents(t.url, owner.token);
    expect(pages).toBe(3);
    expect(events.map((event) => event.type)).toEqual([
      'webhook.test',
      'subscription.renewed',
      'api_key.revoked',
      'subscription.canceled',
      'api_key.created',
      'subscription.renewed',
    ]);
    const bodies = new Map(
      received.map((request) => {
        const body = JSON.parse(request.body) as {
          id: string;
          type: string;
          timestamp: string;
          data: unknown;
        };
        expect(body.id).toBe(request.headers['webhook-id']);
        return [body.id, body];
      }),
    );
    expect(new Set(ids(events))).toEqual(new Set(bodies.keys()));
    for (const event of events) {
      const body = bodies.get(event.id)!;
      expect(event).toEqual({ id: body.id, type: body.type, createdAt: body.timestamp, data: body.data });
    }
    const times = events.map((event) => Date.parse(event.createdAt));
    expect([...times].sort((x, y) => y - x)).toEqual(times);
  });

  it('filters by type (repeated or comma-separated) and by time', async () => {
    const { events } = await allEvents(t.url, owner.token);
    const renewals = events.filter((event) => event.type === 'subscription.renewed');
    expect(renewals).toHaveLength(2);
    expect((await allEvents(t.url, owner.token, 'type=subscription.renewed')).events).toEqual(renewals);

    const keyEvents = events.filter((event) => event.type.startsWith('api_key.'));
    expect((await allEvents(t.url, owner.token, 'type=api_key.created&type=api_key.revoked')).events).toEqual(
      keyEvents,
    );
    expect((await allEvents(t.url, owner.token, 'type=api_key.created,api_key.revoked')).events).toEqual(
      keyEvents,
    );

    // since is inclusive, until exclusive: the window [second oldest, newest) holds the events in between.
    const oldestFirst = [...events].reverse();
    const since = oldestFirst[1]!.createdAt;
    const until = oldestFirst[oldestFirst.length - 1]!.createdAt;
    const window = await allEvents(t.url, owner.token, `since=${since}&until=${until}`);
    expect(window.events).toEqual(
      events.filter((event) => event.createdAt >= since && event.createdAt < until),
    );
    expect(window.events.length).toBeGreaterThan(0);
    // Microseconds count: a microsecond after the oldest event's millisecond leaves it out.
    const justAfter = oldestFirst[0]!.createdAt.replace('Z', '001Z');
    expect(ids((await allEvents(t.url, owner.token, `since=${justAfter}`)).events)).toEqual(
      ids(events.slice(0, -1)),
    );
    expect(ids(window.events)).not.toContain(events[0]!.id);
    expect(ids(window.events)).not.toContain(oldestFirst[0]!.id);
  });

  it('refuses malformed filters and cursors with 400', async () => {
    const api = http(t.url);
    const get = (query: string) => api.get(`/events?${query}`, { token: owner.token });

    for (const query of [
      'since=yesterday',
      'since=2026-11-25',
      'until=2026-11-25T10:00:00',
      'until=2026-02-30T10:00:00Z',
      'type=subscription.renewed,nope',
      'limit=0',
      'limit=201',
    ]) {
      const response = await get(query);
      expect({ query, status: response.status, code: response.body.details.code }).toEqual({
        query,
        status: 400,
        code: 'validation_failed',
      });
    }
    const inverted = await get('since=2026-11-25T10:00:00Z&until=2026-11-25T09:00:00%2B00:00');
    expect(inverted.status).toBe(400);
    expect(inverted.body.details.code).toBe('invalid_time_range');

    const foreignCursor = await api.get('/webhooks/deliveries?limit=1', { token: owner.token });
    const cursor = foreignCursor.headers.get('x-next-cursor');
    expect(cursor).toBeTruthy();
    for (const bad of ['garbage', cursor!]) {
      const response = await get(`cursor=${encodeURIComponent(bad)}`);
      expect(response.status).toBe(400);
      expect(response.body.details.code).toBe('invalid_cursor');
    }
  });

  it("shows a wallet only its own events, and operators every address's", async () => {
    const api = http(t.url);
    const mine = (await allEvents(t.url, owner.token, '', 50)).events;
    const others = (await allEvents(t.url, other.token, '', 50)).events;
    expect(others.map((event) => event.type)).toEqual(['subscription.renewed']);
    expect(ids(mine)).not.toContain(others[0]!.id);

    const forbidden = await api.get(`/events?address=${owner.address}`, { token: other.token });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.details.code).toBe('address_forbidden');
    // Naming one's own address (any case) is the same as naming none.
    expect(
      (await allEvents(t.url, owner.token, `address=${owner.address.toLowerCase()}`, 50)).events,
    ).toEqual(mine);

    // Every read scope passes.
    for (const scope of ['READ_ONLY', 'SUBSCRIPTIONS_MANAGE', 'FULL']) {
      const key = await api.post('/api-keys', {
        token: owner.token,
        body: { label: scope, scopes: [scope] },
      });
      const listed = await api.get('/events?limit=200&type=subscription.renewed', { token: key.body.key });
      expect({ scope, status: listed.status }).toEqual({ scope, status: 200 });
      expect(listed.body).toEqual(mine.filter((event) => event.type === 'subscription.renewed'));
    }

    const operatorKey = await api.post('/api-keys', {
      token: operator.token,
      body: { label: 'ops', scopes: ['READ_ONLY'] },
    });
    expect((await allEvents(t.url, operatorKey.body.key, `address=${other.address}`, 50)).events).toEqual(
      others,
    );
  });

  it("shows operators every wallet's subscription events and their own of every type, as their webhooks get them", async () => {
    const mine = (await allEvents(t.url, owner.token, '', 50)).events;
    expect(mine.some((event) => event.type.startsWith('api_key.'))).toBe(true);
    const subscriptionEvents = mine.filter((event) => event.type.startsWith('subscription.'));
    expect(subscriptionEvents.length).toBeGreaterThan(0);
    const others = (await allEvents(t.url, other.token, '', 50)).events;
    const operatorOwn = await http(t.url).post('/api-keys', {
      token: operator.token,
      body: { label: 'ops own', scopes: ['READ_ONLY'] },
    });
    expect(operatorOwn.status).toBe(200);

    const everyone = (await allEvents(t.url, operator.token, '', 200)).events;
    const seen = ids(everyone);
    expect(seen).toEqual(expect.arrayContaining([...ids(subscriptionEvents), ...ids(others)]));
    for (const event of mine.filter((e) => !e.type.startsWith('subscription.'))) {
      expect({ hidden: event.type, seen: seen.includes(event.id) }).toEqual({
        hidden: event.type,
        seen: false,
      });
    }
    // The operator's own key events are there, other wallets' are not.
    const keyEvents = everyone.filter((event) => event.type.startsWith('api_key.'));
    expect(keyEvents.length).toBeGreaterThan(0);
    for (const event of keyEvents) expect(event.data.label).toMatch(/^ops/);
    // Naming the wallet narrows to its subscription events, whatever types are asked for.
    expect((await allEvents(t.url, operator.token, `address=${owner.address}`, 50)).events).toEqual(
      subscriptionEvents,
    );
    expect(
      (await allEvents(t.url, operator.token, `address=${owner.address}&type=api_key.created`, 50)).events,
    ).toEqual([]);
  });
});

describe('event retention', () => {
  let t: TestApp;
  let db: pg.Client;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    t = await startTestApp({ env: { ...ENV, EVENTS_RETENTION_DAYS: '30' } });
    db = new pg.Client({ connectionString: t.databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    await db.end();
    await t.close();
    await Promise.all(receivers.map((receiver) => receiver.close()));
  });

  /** A wallet with a webhook answering `status`, renewed once: returns the session and its renewal event's id. */
  async function renewedWallet(
    status: number | undefined,
  ): Promise<{ session: WalletSession; eventId: string }> {
    const session = await login(t.url);
    if (status !== undefined) {
      const receiver = await Receiver.start(() => ({ status }));
      receivers.push(receiver);
      await http(t.url).post('/webhooks', { token: session.token, body: { url: receiver.url } });
    }
    expect((await http(t.url).post('/subscriptions/renew', { token: session.token, body: {} })).status).toBe(
      200,
    );
    const listed = await http(t.url).get('/events', { token: session.token });
    return { session, eventId: listed.body[0].id as string };
  }

  const deliveryStatuses = async (eventId: string): Promise<string[]> =>
    (await db.query('SELECT status FROM webhook_deliveries WHERE event_id = $1', [eventId])).rows.map(
      (row: { status: string }) => row.status,
    );

  it('purges events older than EVENTS_RETENTION_DAYS, but not one whose delivery is still pending', async () => {
    const delivered = await renewedWallet(200);
    const pending = await renewedWallet(500);
    const quiet = await renewedWallet(undefined);
    const recent = await renewedWallet(undefined);
    await until(
      async () => (await deliveryStatuses(delivered.eventId)).includes('succeeded'),
      10_000,
      'the delivery to succeed',
    );
    expect(await deliveryStatuses(pending.eventId)).toEqual(['pending']);
    await db.query(`UPDATE events SET created_at = now() - interval '31 days' WHERE id = ANY($1::uuid[])`, [
      [delivered.eventId, pending.eventId, quiet.eventId],
    ]);
    await db.query(`UPDATE events SET created_at = now() - interval '29 days' WHERE id = $1`, [
      recent.eventId,
    ]);

    // The purge runs when an instance starts, then every few minutes.
    await t.close();
    t = await startTestApp({ env: { ...ENV, EVENTS_RETENTION_DAYS: '30' }, keepData: true });
    const listed = async (session: WalletSession): Promise<string[]> =>
      ids((await http(t.url).get('/events', { token: session.token })).body as ListedEvent[]);
    await until(async () => (await listed(quiet.session)).length === 0, 10_000, 'the purge');

    expect(await listed(delivered.session)).toEqual([]);
    expect(await deliveryStatuses(delivered.eventId)).toEqual([]);
    expect(await listed(pending.session)).toEqual([pending.eventId]);
    expect(await listed(recent.session)).toEqual([recent.eventId]);
  });
});
