import type { HealthDto } from '../src/health/health.dto.js';
import { startTcpProxy, type TcpProxy } from './utils/tcp-proxy.js';
import { startTestApp, type TestApp } from './utils/test-app.js';
import { workerDatabaseUrl } from './utils/test-database.js';

/** Polls /health until it answers `status`, returning the last response's status once `withinMs` has passed. */
async function pollHealth(url: string, status: number, withinMs: number): Promise<number> {
  const deadline = performance.now() + withinMs;
  for (;;) {
    const response = await fetch(`${url}/health`);
    await response.body?.cancel();
    if (response.status === status || performance.now() >= deadline) return response.status;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

// The app reaches the shared PostgreSQL through a proxy, so that cutting the proxy takes the database away from
// this app alone.
describe('GET /health while the database goes down and comes back', () => {
  let proxy: TcpProxy;
  let t: TestApp;

  beforeAll(async () => {
    const databaseUrl = await workerDatabaseUrl();
    const target = new URL(databaseUrl);
    proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
    t = await startTestApp({ env: { DATABASE_URL: proxy.url(databaseUrl) } });
  });
  afterAll(async () => {
    await t?.close();
    await proxy?.close();
  });
  // Each test cuts the database itself if it needs it down; none inherits an outage from another.
  afterEach(async () => {
    await proxy.restore();
    expect(await pollHealth(t.url, 200, 5000)).toBe(200);
  });

  it('answers 200 with the database up and its latency', async () => {
    const response = await fetch(`${t.url}/health`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as HealthDto;
    expect(body).toMatchObject({ status: 'ok', checks: { database: { status: 'up' } } });
    expect(typeof body.checks.database.latencyMs).toBe('number');
  });

  it('answers 503 within 3 s once the database is unreachable, and keeps serving', async () => {
    await proxy.cut();
    // A ping answers checks for up to a second: the outage shows within that second plus the ping's own time.
    expect(await pollHealth(t.url, 503, 3000)).toBe(503);
    // Twice more: once soon after, once with a pool that has to open a new connection.
    for (let attempt = 0; attempt < 2; attempt++) {
      if (attempt === 1) await new Promise((resolve) => setTimeout(resolve, 1100));
      const started = performance.now();
      const response = await fetch(`${t.url}/health`);
      const elapsedMs = performance.now() - started;
      expect(response.status).toBe(503);
      expect(await response.json()).toEqual({
        status: 'error',
        checks: { database: { status: 'down', message: expect.any(String) } },
        version: expect.any(String),
        uptimeSeconds: expect.any(Number),
      });
      expect(elapsedMs).toBeLessThan(3000);
    }
    expect(t.app.getHttpServer().listening).toBe(true);
  });

  it('still answers an unknown route with 404 and the error object while the database is down', async () => {
    await proxy.cut();
    expect(await pollHealth(t.url, 503, 3000)).toBe(503);
    const response = await fetch(`${t.url}/nope`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: expect.any(String),
      details: { code: 'not_found', requestId: expect.any(String) },
    });
  });

  it('answers 200 again within 5 s once the database is back, without a restart', async () => {
    await proxy.cut();
    expect(await pollHealth(t.url, 503, 3000)).toBe(503);
    await proxy.restore();
    expect(await pollHealth(t.url, 200, 5000)).toBe(200);
    const body = await (await fetch(`${t.url}/health`)).json();
    expect(body).toMatchObject({ status: 'ok', checks: { database: { status: 'up' } } });
  });
});
