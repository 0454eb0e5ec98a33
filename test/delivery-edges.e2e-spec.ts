import pg from 'pg';
import { http } from './utils/http.js';
import { Receiver, until } from './utils/receiver.js';
import { startServiceProcess } from './utils/service-process.js';
import { startTcpProxy } from './utils/tcp-proxy.js';
import { startTestApp, type TestApp } from './utils/test-app.js';
import { workerDatabaseUrl } from './utils/test-database.js';
import { login, type WalletSession } from './utils/wallet.js';

const env = { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' };

async function subscribe(url: string, session: WalletSession, receiverUrl: string): Promise<void> {
  const saved = await http(url).post('/webhooks', {
    token: session.token,
    body: { url: receiverUrl, events: ['subscription.renewed'] },
  });
  expect(saved.status).toBe(200);
}

async function renew(url: string, session: WalletSession): Promise<void> {
  expect((await http(url).post('/subscriptions/renew', { token: session.token, body: {} })).status).toBe(200);
}

describe('a receiver that was down answers again', () => {
  let app: TestApp;
  let db: pg.Client;

  beforeAll(async () => {
    app = await startTestApp({ env });
    db = new pg.Client({ connectionString: app.databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    await db.end();
    await app.close();
  });

  it('gets the deliveries that waited for a retry minutes away as soon as one delivery succeeds', async () => {
    let down = true;
    const receiver = await Receiver.start(() => ({ status: down ? 503 : 200 }));
    try {
      const session = await login(app.url);
      await subscribe(app.url, session, receiver.url);
      for (let i = 0; i < 3; i++) await renew(app.url, session);
      // Each failed its first attempt and its retry 5 s later: the next retry is minutes away.
      const waiting = async () =>
        (
          await db.query<{ id: string; later: boolean }>(
            `SELECT d.id, d.next_attempt_at > now() + interval '3 minutes' AS later
             FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
             WHERE e.owner_address = $1 AND d.status = 'pending' AND d.attempt_count = 2
             ORDER BY d.created_at`,
            [session.address.toLowerCase()],
          )
        ).rows;
      await until(async () => (await waiting()).length === 3, 60_000, 'three deliveries failed twice');
      expect((await waiting()).every((row) => row.later)).toBe(true);
      const failedRequests = receiver.received.length;

      down = false;
      await renew(app.url, session);
      // The new event's delivery succeeds, and the three waiting ones follow it instead of minutes later.
      const statuses = async () =>
        (
          await db.query<{ status: string }>(
            `SELECT d.status FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
             WHERE e.owner_address = $1`,
            [session.address.toLowerCase()],
          )
        ).rows.map((row) => row.status);
      await until(
        async () => (await statuses()).every((status) => status === 'succeeded'),
        60_000,
        'four deliveries recorded as succeeded',
      );
      expect(await statuses()).toHaveLength(4);
      expect(receiver.received).toHaveLength(failedRequests + 4);
      const delivered = receiver.received.slice(failedRequests);
      const periodEnds = delivered
        .slice(1)
        .map(
          (request) =>
            (JSON.parse(request.body) as { data: { currentPeriodEnd: string } }).data.currentPeriodEnd,
        );
      // Claimed together, oldest first (the order of the renewals): each renewal ends a period later.
      expect(new Set(periodEnds).size).toBe(3);
    } finally {
      await receiver.close();
    }
  });
});

describe('a delivery the receiver took while the database was unreachable', () => {
  it('is logged as delivered, not recorded, and as to be re-sent with the same webhook-id', async () => {
    const databaseUrl = await workerDatabaseUrl();
    const target = new URL(databaseUrl);
    const proxy = await startTcpProxy(target.hostname, Number(target.port));
    const service = await startServiceProcess(proxy.url(databaseUrl), { ...env, LOG_LEVEL: 'info' });
    // The database goes away while the receiver holds the request, which it then accepts.
    let cut: Promise<void> | undefined;
    const receiver = await Receiver.start(() => {
      cut ??= proxy.cut();
      return { status: 200 };
    });
    try {
      const session = await login(service.url);
      await subscribe(service.url, session, receiver.url);
      await renew(service.url, session);
      await until(() => receiver.received.length === 1 && cut !== undefined, 30_000, 'the delivery');
      await cut;
      const webhookId = String(receiver.received[0]!.headers['webhook-id']);
      const lines = () =>
        service.output
          .join('')
          .split('\n')
          .filter((line) => line.includes('not recorded'));
      await until(() => lines().length > 0, 30_000, 'the log line of the unrecorded success');
      expect(lines()[0]).toContain(
        `delivered (HTTP 200), not recorded: will be re-sent with the same webhook-id ${webhookId}`,
      );
      expect(service.output.join('')).not.toMatch(/webhook delivery \S+ failed/);
    } finally {
      await proxy.restore();
      await service.kill();
      await receiver.close();
      await proxy.close();
    }
  });
});
