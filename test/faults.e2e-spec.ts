import pg from 'pg';
import { http } from './utils/http.js';
import { Receiver, until } from './utils/receiver.js';
import { startServiceProcess } from './utils/service-process.js';
import { startTcpProxy } from './utils/tcp-proxy.js';
import { startTestApp } from './utils/test-app.js';
import { truncateAll, workerDatabaseUrl } from './utils/test-database.js';
import { login } from './utils/wallet.js';

const LOOPBACK_ENV = { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' };

async function query<Row extends pg.QueryResultRow>(url: string, text: string, params: unknown[] = []) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Row>(text, params)).rows;
  } finally {
    await client.end();
  }
}

describe('faults', () => {
  it('loses no committed renewal event and applies none twice when the service is SIGKILLed mid-burst', async () => {
    const databaseUrl = await workerDatabaseUrl();
    await startTestApp().then((t) => t.close()); // migrations + empty tables
    await truncateAll(databaseUrl);
    const receiver = await Receiver.start();
    let service = await startServiceProcess(databaseUrl, LOOPBACK_ENV);
    try {
      const session = await login(service.url);
      const hook = await http(service.url).post('/webhooks', {
        token: session.token,
        body: { url: receiver.url, events: ['subscription.renewed'] },
      });
      expect(hook.status).toBe(200);

      const keys = Array.from({ length: 40 }, (_, i) => `burst-${i}`);
      const outcomes = keys.map((key) =>
        http(service.url)
          .post('/subscriptions/renew', {
            token: session.token,
            body: {},
            headers: { 'idempotency-key': key },
          })
          .then((response) => response.status)
          .catch(() => 0),
      );
      // Kill as soon as the first renewals have committed, with the rest still in flight.
      await until(
        async () =>
          (await query(databaseUrl, `SELECT 1 FROM subscription_events WHERE type = 'renewed'`)).length >= 3,
        10_000,
        'first committed renewals',
      );
      await service.kill('SIGKILL');
      const statuses = await Promise.all(outcomes);
      const acknowledged = keys.filter((_, i) => statuses[i] === 200);

      service = await startServiceProcess(databaseUrl, LOOPBACK_ENV);
      // Clients retry what they did not see succeed, with the same keys: nothing may apply twice.
      for (const key of keys.filter((_, i) => statuses[i] !== 200)) {
        const retried = await http(service.url).post('/subscriptions/renew', {
          token: session.token,
          body: {},
          headers: { 'idempotency-key': key },
        });
        expect([200, 409]).toContain(retried.status);
      }
      const renewed = await query<{ id: string; idempotency_key: string }>(
        databaseUrl,
        `SELECT id, idempotency_key FROM subscription_events WHERE type = 'renewed'`,
      );
      expect(renewed.length).toBeLessThanOrEqual(keys.length);
      expect(new Set(renewed.map((row) => row.idempotency_key)).size).toBe(renewed.length);
      for (const key of acknowledged) expect(renewed.map((row) => row.idempotency_key)).toContain(key);

      const events = await query<{ id: string }>(
        databaseUrl,
        `SELECT id FROM events WHERE type = 'subscription.renewed'`,
      );
      expect(events).toHaveLength(renewed.length);
      await until(
        () => new Set(receiver.received.map((r) => String(r.headers['webhook-id']))).size >= events.length,
        // A delivery whose attempt died with the process is picked up again once its claim's 30 s lease is over.
        120_000,
        'every committed renewal delivered',
      );
      const delivered = new Set(receiver.received.map((r) => String(r.headers['webhook-id'])));
      for (const event of events) expect(delivered).toContain(event.id);
      console.log(
        `SIGKILL burst: ${keys.length} renewals sent, ${acknowledged.length} acknowledged before the kill, ` +
          `${renewed.length} committed after retries, ${events.length} events, ${delivered.size} delivered, 0 lost`,
      );
    } finally {
      await service.kill('SIGTERM');
      await receiver.close();
    }
  }, 240_000);

  it('answers while PostgreSQL is down (health 503, API 503 database_unavailable, no crash) and recovers by itself within 5 s', async () => {
    const databaseUrl = await workerDatabaseUrl();
    const target = new URL(databaseUrl);
    const proxy = await startTcpProxy(target.hostname, Number(target.port));
    const service = await startServiceProcess(proxy.url(databaseUrl), { WEBHOOK_WORKERS: 'false' });
    try {
      const session = await login(service.url);
      const api = http(service.url);
      let stop = false;
      const statuses = new Map<number, number>();
      const load = Promise.all(
        Array.from({ length: 8 }, async () => {
          while (!stop) {
            const response = await api.get(`/subscriptions/status?address=${session.address}`, {
              token: session.token,
            });
            statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
          }
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, 500));
      await proxy.cut();
      await until(
        async () => (await api.get('/health')).status === 503,
        5000,
        'health 503 while the database is down',
      );
      await new Promise((resolve) => setTimeout(resolve, 1000));
      await proxy.restore();
      const restoredAt = Date.now();
      await until(
        async () => (await api.get('/health')).status === 200,
        5000,
        'health 200 after the database is back',
      );
      const recoveryMs = Date.now() - restoredAt;
      stop = true;
      await load;
      expect(service.child.exitCode).toBeNull();
      // While the database is away, routes that need it answer 503 database_unavailable, never a 500.
      expect([...statuses.keys()].every((status) => status === 200 || status === 503)).toBe(true);
      expect(statuses.get(503)).toBeGreaterThan(0);
      console.log(
        `database outage under load: statuses ${JSON.stringify(Object.fromEntries(statuses))}, recovered in ${recoveryMs} ms`,
      );
    } finally {
      await service.kill('SIGTERM');
      await proxy.close();
    }
  });

  it('keeps answering the API while a webhook receiver hangs', async () => {
    let release: () => void = () => undefined;
    const hanging = new Promise<void>((resolve) => (release = resolve));
    const receiver = await Receiver.start(() => ({ status: 200 }));
    const t = await startTestApp({ env: LOOPBACK_ENV });
    const { createServer } = await import('node:http');
    const slow = createServer((_request, response) => void hanging.then(() => response.end()));
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    const slowUrl = `http://127.0.0.1:${(slow.address() as { port: number }).port}/hook`;
    try {
      const session = await login(t.url);
      await http(t.url).post('/webhooks', { token: session.token, body: { url: slowUrl } });
      const renewals = [];
      for (let i = 0; i < 5; i++)
        renewals.push(await http(t.url).post('/subscriptions/renew', { token: session.token, body: {} }));
      // Every renewal was answered while the receiver had answered nothing.
      expect(renewals.map((response) => response.status)).toEqual([200, 200, 200, 200, 200]);
      expect((await http(t.url).get('/health')).status).toBe(200);
    } finally {
      release();
      slow.closeAllConnections();
      await new Promise((resolve) => slow.close(resolve));
      await receiver.close();
      await t.close();
    }
  });
});
